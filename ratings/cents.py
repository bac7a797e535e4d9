"""Ratings as stored (``numeric(9, 2)``): Decimals of whole cents, and the same as ints.

A replay keeps ratings in whole cents while it runs (exact, like the
columns, and much cheaper than Decimal arithmetic); the leaderboard's
histogram keeps them in cents too.
"""

from decimal import ROUND_HALF_UP, Decimal

from config.decimals import CENT


def to_decimal(value: float) -> Decimal:
    """An engine's float rating as stored: two decimals, halves away from zero."""
    return Decimal(repr(float(value))).quantize(CENT, rounding=ROUND_HALF_UP)


def to_cents(value: float) -> int:
    """An engine's float rating as whole cents, rounded as ``to_decimal`` does."""
    scaled = value * 100
    cents = round(scaled)
    if abs(scaled - cents) < 1e-6:
        return cents  # Engines round to two decimals; this is the usual case.
    return int(to_decimal(value).scaleb(2))


def cents_decimal(cents: int) -> Decimal:
    return Decimal(cents).scaleb(-2)


def decimal_cents(value: Decimal) -> int:
    """A stored rating (two decimals) as whole cents."""
    return int(value.scaleb(2))
