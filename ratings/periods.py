"""Rating periods as a replay meets them.

Which results wait for their period is decided where a match is stored
(``matches.services.match_due_at`` sets ``due_at``) and read through the one
due rule, ``matches.models.due_condition``. Here: a replay that touches a
period starts at the period's start (``period_aligned``), and a result in a
period is computed from the ratings at that start (``PeriodSnapshots``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from leagues.models import League
from matches.models import Match
from ratings.history import LedgerKey


def period_aligned(game_id: int, start: LedgerKey) -> LedgerKey:
    """Move ``start`` back to the start of any rating period it falls inside.

    A period's results are all computed from the ratings at the period's
    start, so a replay touching a period must begin there.
    """
    leagues = list(League.objects.filter(game_id=game_id, rating_period_days__gt=0))
    moved = True
    while moved:
        moved = False
        for league in leagues:
            period_start, period_end = league.period_bounds(start.played_at)
            if period_start >= start.played_at:
                continue
            has_results = Match.objects.filter(
                league=league,
                played_at__gte=period_start,
                played_at__lt=period_end,
                status__in=[Match.Status.SUBMITTED, Match.Status.RATED],
            ).exists()
            if has_results:
                start, moved = LedgerKey(period_start, 0), True
    return start


class PeriodSnapshots:
    """Players' ratings (in cents) at the start of each rating period a replay passes through.

    A result filed under a league with a rating period is computed from the
    ratings at its period's start (seed 003's rating periods). The replay
    begins at or before that start (``period_aligned``), so a player's rating
    there is the one they had before their first change at or after it, or,
    if they have not changed since, their current one.
    """

    def __init__(self, windows: Iterable[tuple[datetime, datetime]]) -> None:
        self.ratings: dict[tuple[datetime, datetime], dict[int, int]] = {window: {} for window in windows}

    def before_change(self, player_id: int, played_at: datetime, rating: int) -> None:
        for (begin, end), ratings in self.ratings.items():
            if begin <= played_at < end:
                ratings.setdefault(player_id, rating)

    def rating_at_start(self, window: tuple[datetime, datetime], player_id: int, current: int) -> int:
        return self.ratings.setdefault(window, {}).get(player_id, current)
