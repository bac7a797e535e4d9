"""Preferans's words on pages: how many whists a number is, for the plural forms (``{% load preferans_words %}``)."""

from decimal import Decimal, InvalidOperation

from django import template

register = template.Library()


@register.filter
def plural_count(value) -> int:
    """The number a plural form is chosen by, for a count of whists (a sum may be negative or a fraction).

    A whole number counts as its size (-4 whists: "4 виста"); a fraction as 2, which takes the English
    plural ("1.5 whists") and the Russian genitive singular ("1,5 виста"), as a fraction does. ``ngettext``
    is given a whole number, always (Python warns of a fraction).
    """
    try:
        number = abs(Decimal(str(value)))
    except (InvalidOperation, ValueError, TypeError):
        return 0
    return int(number) if number == number.to_integral_value() else 2
