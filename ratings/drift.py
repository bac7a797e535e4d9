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

The window is the game's leagues' own: their "inactive after N days" setting
(``League.inactive_after_days``, the one the leaderboards hide players by),
the largest where leagues differ (a player active in any league counts), and
``ACTIVE_DAYS`` for a game where no league sets one (``game_active_days``).

Reads only, in two queries (and a ``SET LOCAL``): the history's bounds, and ``DRIFT_SQL``, where
PostgreSQL keeps each player's last ledger row per period (``DISTINCT ON``)
and averages them per period, so Python receives one row per period. Other
databases (SQLite, the embedded default) stream the ledger instead
(``_means_python``), to the same figures.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from dateutil.relativedelta import relativedelta
from django.db import connection, transaction
from django.db.models import Max, Min
from django.utils import timezone

from leagues.models import Game
from ratings.figures import drift_name, figure_kept
from ratings.models import RatingChange

ACTIVE_DAYS = 90
#: The activity windows (days) the drift is offered for besides the game's own: other values are refused
#: (each is a scan of the ledger, computed by a task: ``ratings.figures``).
DRIFT_WINDOWS = (30, 90, 180, 365)
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


def _period_start(moment: datetime.datetime, period: str, zone) -> datetime.datetime:
    """The local start of the week (Monday) or month holding ``moment``: PostgreSQL's ``date_trunc``, in Python."""
    local = timezone.make_naive(moment, zone).replace(hour=0, minute=0, second=0, microsecond=0)
    return local - datetime.timedelta(days=local.weekday()) if period == WEEK else local.replace(day=1)


# For each period, the mean and count of the ratings of the players active at its end, periods with
# nobody active left out. ``last_rows``: each player's last ledger row in each period (local period
# starts). ``spans``: with the start of the player's next period with a result. Each row then counts
# at the end of its own period and of each later one before the player's next result, while its
# result is within the window (the generated series stops at the window, the filter is exact).
DRIFT_SQL = """
WITH last_rows AS (
    SELECT DISTINCT ON (player_id, period_start) player_id, period_start, played_at, rating_after
    FROM (
        SELECT player_id, date_trunc(%(period)s, played_at AT TIME ZONE %(zone)s) AS period_start,
               played_at, match_id, unit, rating_after
        FROM ratings_ratingchange
        WHERE game_id = %(game)s
    ) AS ledger
    ORDER BY player_id, period_start, played_at DESC, match_id DESC, unit DESC
), spans AS (
    SELECT period_start, played_at, rating_after,
           LEAD(period_start) OVER (PARTITION BY player_id ORDER BY period_start) AS next_start
    FROM last_rows
)
SELECT shown.start, AVG(spans.rating_after), COUNT(*)
FROM spans
CROSS JOIN LATERAL generate_series(
    spans.period_start,
    LEAST(
        COALESCE(spans.next_start - %(step)s::interval, %(last_start)s),
        %(last_start)s,
        spans.period_start + %(step)s::interval + make_interval(days => %(days)s)
    ),
    %(step)s::interval
) AS shown(start)
WHERE ((shown.start + %(step)s::interval) AT TIME ZONE %(zone)s) - make_interval(days => %(days)s) <= spans.played_at
GROUP BY shown.start
"""


def game_active_days(game: Game) -> int:
    """The game's window: the largest ``inactive_after_days`` among its leagues, else ``ACTIVE_DAYS``."""
    days = [league.inactive_after_days for league in game.leagues.all() if league.inactive_after_days]
    return max(days, default=ACTIVE_DAYS)


def rating_drift(*, game: Game, period: str = AUTO, active_days: int = ACTIVE_DAYS) -> Drift:
    """The mean rating of ``game``'s active players at the end of each week or month of its history.

    ``period`` is "week", "month" or "auto" (weeks for a history shorter than
    about six months, months otherwise).
    """
    if period not in (*PERIODS, AUTO):
        raise ValueError(f"period must be 'week', 'month' or 'auto', not {period!r}")
    if active_days < 1:
        raise ValueError("active_days must be at least 1")
    bounds = RatingChange.objects.filter(game=game).aggregate(first=Min("played_at"), last=Max("played_at"))
    if bounds["first"] is None:
        return Drift(period=MONTH if period == AUTO else period, active_days=active_days, points=[])
    if period == AUTO:
        period = WEEK if bounds["last"] - bounds["first"] < WEEKLY_UNTIL else MONTH
    zone = timezone.get_current_timezone()
    first_start = _period_start(bounds["first"], period, zone)
    last_start = _period_start(bounds["last"], period, zone)
    if connection.vendor == "postgresql":
        found = _means_sql(game, period, zone, active_days, last_start)
    else:
        found = _means_python(game, period, zone, active_days, first_start, last_start)
    points = []
    step = _step(period)
    start = first_start
    while start <= last_start:
        mean, count = found.get(start, (None, 0))
        points.append(
            DriftPoint(start=start.date(), mean_rating=None if mean is None else round(mean, 2), active_players=count)
        )
        start += step
    return Drift(period=period, active_days=active_days, points=points)


def _means_sql(game: Game, period: str, zone, active_days: int, last_start) -> dict:
    with transaction.atomic(), connection.cursor() as cursor:
        # The planner cannot know that each ledger row spans a few periods only, expects millions of rows
        # and compiles the query with JIT, which costs more than running it (docs/performance.md, "Rating quality").
        cursor.execute("SET LOCAL jit = off")
        cursor.execute(
            DRIFT_SQL,
            {
                "period": period,
                "zone": str(zone),
                "game": game.pk,
                "step": f"1 {period}",
                "days": active_days,
                "last_start": last_start,
            },
        )
        return {start: (float(mean), count) for start, mean, count in cursor.fetchall()}


def _means_python(game: Game, period: str, zone, active_days: int, first_start, last_start) -> dict:
    """``DRIFT_SQL``'s answer for databases without its PostgreSQL functions (SQLite, ``make run``'s default):
    the ledger streamed in its order, each player's last row kept, and at each period's end the players whose
    last result falls within the window counted. The same figures (``tests/ratings/test_drift.py``)."""
    rows = (
        RatingChange.objects.filter(game=game)
        .order_by("played_at", "match_id", "unit")
        .values_list("player_id", "played_at", "rating_after")
        .iterator(chunk_size=5000)
    )
    last: dict[int, tuple[datetime.datetime, object]] = {}
    pending = next(rows, None)
    found, step, window = {}, _step(period), datetime.timedelta(days=active_days)
    start = first_start
    while start <= last_start:
        end = timezone.make_aware(start + step, zone)
        while pending is not None and pending[1] < end:
            last[pending[0]] = (pending[1], pending[2])
            pending = next(rows, None)
        ratings = [rating for played_at, rating in last.values() if played_at >= end - window]
        if ratings:
            found[start] = (float(sum(ratings) / len(ratings)), len(ratings))
        start += step
    return found


def drift_kept(*, game: Game, period: str = AUTO, active_days: int | None = None) -> tuple[Drift | None, object]:
    """The drift as ``ratings.figures``' last run kept it, and when it was computed: (None, None) while being
    computed. ``active_days`` None is the game's own window; any other must be one the drift is offered for
    (``ratings.figures.drift_windows``: a ValueError otherwise), so visitors choose among a bounded set."""
    days = game_active_days(game) if active_days is None else active_days
    if days not in drift_windows(game):
        raise ValueError(f"The drift is not offered for {days} days.")
    kept = figure_kept(game=game, name=drift_name(period, days))
    return (None, None) if kept.computing else (drift_of(kept.value), kept.computed_at)


def drift_windows(game: Game) -> list[int]:
    """The activity windows the drift is offered for: ``DRIFT_WINDOWS`` and the game's own."""
    return sorted({*DRIFT_WINDOWS, game_active_days(game)})


def drift_value(drift) -> dict:
    return {
        "period": drift.period,
        "active_days": drift.active_days,
        "points": [[p.start.isoformat(), p.mean_rating, p.active_players] for p in drift.points],
    }


def drift_of(value: dict):
    return Drift(
        period=value["period"],
        active_days=value["active_days"],
        points=[
            DriftPoint(start=datetime.date.fromisoformat(s), mean_rating=m, active_players=n)
            for s, m, n in value["points"]
        ],
    )
