"""Rating drift: the mean rating of a game's active players over time, read from the ledger.

Vocabulary:
    period      a calendar week (from Monday) or month, in the configured time
                zone (``settings.TIME_ZONE``); the series has every period
                from the first rated result's to the last one's, gaps included.
    active      a player is active at a period's end when they had a rated
                result in the ``active_days`` days before it (the end itself
                excluded: the end is the next period's start). Their rating
                there is the one their last result up to then left.
    drift       the mean rating of the players active at each period's end.
                A rating system that hands out as many points as it takes
                keeps it level as players come and go; one that does not
                (SmartPref's Preferans formula rewards beating the table
                rating by more than it punishes falling short of it) shows a
                climb.

``ACTIVE_DAYS`` is the default window. A league setting for inactivity, when
the leagues gain one, is the natural source; until then the page and the API
use this one figure for every game.

Reads only: one query for the history's bounds and one that lets PostgreSQL
keep each player's last ledger row per period (``DISTINCT ON``), so a history
of 100,000 results reaches Python as at most players x periods rows.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from dateutil.relativedelta import relativedelta
from django.db.models import Max, Min
from django.db.models.functions import Trunc
from django.utils import timezone

from leagues.models import Game
from ratings.models import RatingChange

ACTIVE_DAYS = 90
WEEK, MONTH, AUTO = "week", "month", "auto"
PERIODS = (WEEK, MONTH)
# A history shorter than this is drawn week by week: by month it would be a handful of points.
WEEKLY_UNTIL = datetime.timedelta(days=183)


@dataclass(frozen=True)
class DriftPoint:
    start: datetime.date  # the period's first day
    mean_rating: float | None  # None when nobody was active at the period's end
    active_players: int


@dataclass(frozen=True)
class Drift:
    period: str  # "week" or "month"
    active_days: int
    points: list[DriftPoint]

    @property
    def change(self) -> float | None:
        """The last mean minus the first (None without two means)."""
        means = [point.mean_rating for point in self.points if point.mean_rating is not None]
        return round(means[-1] - means[0], 2) if len(means) >= 2 else None

    def as_dict(self) -> dict:
        return {
            "period": self.period,
            "active_days": self.active_days,
            "change": self.change,
            "points": [
                {"start": point.start, "mean_rating": point.mean_rating, "active_players": point.active_players}
                for point in self.points
            ],
        }


def _step(period: str) -> relativedelta:
    return relativedelta(weeks=1) if period == WEEK else relativedelta(months=1)


def rating_drift(*, game: Game, period: str = AUTO, active_days: int = ACTIVE_DAYS) -> Drift:
    """The mean rating of ``game``'s active players at the end of each week or month of its history.

    ``period`` is "week", "month" or "auto" (weeks for a history shorter than
    about six months, months otherwise).
    """
    if period not in (*PERIODS, AUTO):
        raise ValueError(f"period must be 'week', 'month' or 'auto', not {period!r}")
    if active_days < 1:
        raise ValueError("active_days must be at least 1")
    rows = RatingChange.objects.filter(game=game)
    bounds = rows.aggregate(first=Min("played_at"), last=Max("played_at"))
    if bounds["first"] is None:
        return Drift(period=MONTH if period == AUTO else period, active_days=active_days, points=[])
    if period == AUTO:
        period = WEEK if bounds["last"] - bounds["first"] < WEEKLY_UNTIL else MONTH
    zone = timezone.get_current_timezone()
    # Each player's last row in each period: (player, period start, played_at, rating after), by period.
    last_rows = (
        rows.annotate(period_start=Trunc("played_at", period, tzinfo=zone))
        .order_by("player_id", "period_start", "-played_at", "-match_id", "-unit")
        .distinct("player_id", "period_start")
        .values_list("period_start", "player_id", "played_at", "rating_after")
    )
    by_period: dict[datetime.datetime, list[tuple[int, datetime.datetime, float]]] = {}
    for start, player, played_at, rating in last_rows:
        by_period.setdefault(start, []).append((player, played_at, float(rating)))
    window = datetime.timedelta(days=active_days)
    step = _step(period)
    latest: dict[int, tuple[datetime.datetime, float]] = {}  # player -> (last result, rating it left)
    points = []
    start = min(by_period)
    last_start = max(by_period)
    while start <= last_start:
        for player, played_at, rating in by_period.get(start, ()):
            latest[player] = (played_at, rating)
        # The next period's start, in the zone's local time (a month is not a fixed number of hours).
        end = timezone.make_aware(timezone.make_naive(start, zone) + step, zone)
        cutoff = end - window
        active = [rating for played_at, rating in latest.values() if played_at >= cutoff]
        points.append(
            DriftPoint(
                start=timezone.localtime(start, zone).date(),
                mean_rating=round(sum(active) / len(active), 2) if active else None,
                active_players=len(active),
            )
        )
        start = end
    return Drift(period=period, active_days=active_days, points=points)
