"""Exact arithmetic for the oracle.

Every quantity the seeds add, multiply or divide is a ``fractions.Fraction``,
so nothing is lost before the seeds round. Powers, logarithms, square roots
and exponentials of non-square numbers are irrational: they are computed
with ``decimal`` at ``PRECISION`` significant digits (far beyond the two
decimals any rating keeps) and turned back into a Fraction. Rounding is
"half away from zero", as people round on paper (seed 000's 1111.5 -> 1112).
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

PRECISION = 50


def to_fraction(value) -> Fraction:
    """A Fraction from an int, a Fraction, a Decimal or a decimal string ("1803.94"); never from a float."""
    if isinstance(value, float):
        # A float has already lost the decimal the user typed: go through its shortest repr.
        return Fraction(repr(value))
    if isinstance(value, Decimal):
        return Fraction(value)
    return Fraction(value)


def _decimal(value: Fraction) -> Decimal:
    with localcontext() as context:
        context.prec = PRECISION
        return Decimal(value.numerator) / Decimal(value.denominator)


def power_of_ten(exponent: Fraction) -> Fraction:
    """10 ** exponent."""
    with localcontext() as context:
        context.prec = PRECISION
        return Fraction(Decimal(10) ** _decimal(exponent))


def log10(value: Fraction) -> Fraction:
    with localcontext() as context:
        context.prec = PRECISION
        return Fraction(_decimal(value).log10())


def sqrt(value: Fraction) -> Fraction:
    with localcontext() as context:
        context.prec = PRECISION
        return Fraction(_decimal(value).sqrt())


def exp(value: Fraction) -> Fraction:
    with localcontext() as context:
        context.prec = PRECISION
        return Fraction(_decimal(value).exp())


def round_half_away_from_zero(value: Fraction, decimals: int = 0) -> Fraction:
    """1111.5 -> 1112, -0.5 -> -1, 1803.935 -> 1803.94 (decimals=2)."""
    scale = 10**decimals
    magnitude = abs(value) * scale
    whole = int(magnitude)  # floor, magnitude >= 0
    if magnitude - whole >= Fraction(1, 2):
        whole += 1
    rounded = Fraction(whole, scale)
    return -rounded if value < 0 else rounded


def clamp(value: Fraction, lowest: Fraction, highest: Fraction) -> Fraction:
    return max(lowest, min(highest, value))
