"""Preferans results: cleaning a game's seats and deals, storing and reading them back."""

from decimal import Decimal

PREFERANS_SEATS = (2, 4)
PREFERANS_MAX_DEALS = 500
WHIST_LIMIT = Decimal(10_000)
