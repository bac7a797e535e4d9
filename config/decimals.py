"""The one quantum of every stored number that is not whole: two decimals.

Ratings, floors and thresholds, bots' ratings, a seat's result (whists) and
a table's IMPs are all ``numeric(·, 2)``. Imports nothing from the apps, so
every layer (leagues, matches, ratings) can use it.
"""

from decimal import Decimal

CENT = Decimal("0.01")
