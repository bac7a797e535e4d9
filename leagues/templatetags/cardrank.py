"""Display helpers: ratings are kept to two decimals and shown as whole numbers.

``rating`` prints plain digits (safe in an attribute a script reads); ``signed``, ``shown_change`` and
``percent`` are text for people, in the active language's number format (``number_format``: a decimal comma
in Russian, were a decimal ever shown). None of them belongs in a data-* attribute: put the raw value there,
with ``|unlocalize``.
"""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils.formats import number_format

register = template.Library()


def _whole(value) -> int | None:
    try:
        return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    except (InvalidOperation, ValueError, TypeError):
        return None


@register.filter
def rating(value) -> str:
    whole = _whole(value)
    return "" if whole is None else str(whole)


@register.filter
def signed(value) -> str:
    """A rating delta with its sign: +12, a true minus sign for -4, and a plus-minus for 0."""
    whole = _whole(value)
    if whole is None:
        return ""
    if whole > 0:
        return f"+{number_format(whole)}"
    if whole < 0:
        return f"\u2212{number_format(abs(whole))}"
    return "\u00b10"


@register.filter
def percent(value) -> str:
    try:
        return f"{number_format(round(float(value) * 100))}%"
    except (TypeError, ValueError, OverflowError):
        return ""


@register.filter
def subtract(value, arg):
    try:
        return Decimal(str(value)) - Decimal(str(arg))
    except (InvalidOperation, ValueError, TypeError):
        return ""


@register.filter
def shown_change(before, after) -> str:
    """The change between two ratings as the page shows them (whole numbers): the difference of the shown
    ratings, so "2160 → 2163 +3" always adds up (2160.10 → 2162.59 changed by 2.49, which alone rounds to +2)."""
    first, last = _whole(before), _whole(after)
    if first is None or last is None:
        return ""
    return signed(last - first)
