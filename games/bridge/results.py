"""Bridge results: cleaning a session's boards and tables, storing and reading them back."""

from decimal import Decimal

BRIDGE_MAX_BOARDS = 100
BRIDGE_MAX_TABLES = 50
BRIDGE_SCORE_LIMIT = 10_000
BRIDGE_IMPS_LIMIT = Decimal(24)
