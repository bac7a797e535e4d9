"""A run over a game's kept figures (``ratings.figures``): every heavy figure computed once, and kept.

The task's body (``ratings.tasks.figures_compute``); ``ratings.figures`` claims the game around it, so one
run per game computes at a time.
"""

from __future__ import annotations

from leagues.models import Game
from ratings.compare import crosstable_value, league_crosstable
from ratings.drift import AUTO, PERIODS, drift_value, drift_windows, game_active_days, rating_drift
from ratings.figures import PAIR_SCALE, PROVIDED, QUALITY, crosstable_name, drift_name, figures_compute, keep_figure
from ratings.models import KeptFigure
from ratings.quality import pair_scale_from, quality_row_value, rating_quality_rows


def figures_run(*, game_id: int) -> bool:
    """Claim the game and compute its figures; False when nothing was wanted or another run holds it."""
    return figures_compute(game_id=game_id, compute=_compute_all)


def _compute_all(game: Game) -> None:
    leagues = list(game.leagues.order_by("tier", "pk"))
    asked = set(KeptFigure.objects.filter(game=game).values_list("name", flat=True))
    rows = rating_quality_rows(game=game, leagues=[None, *leagues])
    keep_figure(game, QUALITY, [quality_row_value(row) for row in rows])
    keep_figure(game, PAIR_SCALE, pair_scale_from(rows[0]))
    own = game_active_days(game)
    names = (AUTO, *PERIODS)
    windows = {own} | {days for days in drift_windows(game) if any(drift_name(p, days) in asked for p in names)}
    for days in sorted(windows):
        chosen = rating_drift(game=game, period=AUTO, active_days=days)
        keep_figure(game, drift_name(AUTO, days), drift_value(chosen))
        keep_figure(game, drift_name(chosen.period, days), drift_value(chosen))
        for period in PERIODS:
            if period != chosen.period and (days == own or drift_name(period, days) in asked):
                keep_figure(
                    game,
                    drift_name(period, days),
                    drift_value(rating_drift(game=game, period=period, active_days=days)),
                )
    for league in leagues:
        keep_figure(game, crosstable_name(league.pk), crosstable_value(league_crosstable(league=league)))
    for name, compute in PROVIDED.items():
        value = compute(game)
        if value is not None:
            keep_figure(game, name, value)
    # Names no longer offered (a league deleted, a window no longer the game's own): dropped.
    offered = {QUALITY, PAIR_SCALE, *PROVIDED, *(crosstable_name(league.pk) for league in leagues)}
    offered |= {drift_name(period, days) for period in (AUTO, *PERIODS) for days in drift_windows(game)}
    KeptFigure.objects.filter(game=game).exclude(name__in=offered).delete()
