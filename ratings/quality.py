"""Rating-quality reports over the stored history (services side).

A game's stored results are replayed in memory under its current parameters
(``ratings.evaluation``): before each result the engine says what it expects
(``system.forecasts``), and the newer half of the history, by time, is scored
(``ratings.engines.quality.forecast_report``). A system whose engine sets no
scale of its own (Preferans) has it fitted on the older half. Tuning scores
its candidates the same way. Used by the quality pages and ``manage.py rating_quality``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.dateparse import parse_datetime

from leagues.models import Game, League
from ratings.drift import game_active_days
from ratings.engines import REGISTRY
from ratings.engines.quality import CalibrationBin, QualityReport
from ratings.evaluation import Candidate, evaluate_leagues, history_load, split_time
from ratings.figures import PAIR_SCALE, QUALITY, figure_kept
from ratings.parameters import rating_parameters

#: The older part's share of the history: fitted on, not scored.
SPLIT = 0.5


@dataclass
class QualityRow:
    game: Game
    league: League | None
    report: QualityReport
    scale: float | None = None
    scale_fitted: bool = False
    split_at: datetime | None = None
    older_units: int = 0
    newer_units: int = 0
    older_forecasts: int = 0
    drift: float | None = None
    active_days: int | None = None

    def as_dict(self) -> dict:
        return {
            "game": self.game.slug,
            "league": self.league.slug if self.league else None,
            "split": SPLIT,
            "split_at": self.split_at.isoformat() if self.split_at else None,
            "scale": self.scale,
            "scale_fitted": self.scale_fitted,
            "older_units": self.older_units,
            "newer_units": self.newer_units,
            "drift": self.drift,
            "active_days": self.active_days,
            **self.report.as_dict(),
        }


def _row(game: Game, league: League | None, candidate: Candidate | None, split_at, active_days: int) -> QualityRow:
    if candidate is None:
        return QualityRow(game=game, league=league, report=QualityReport(), active_days=active_days)
    return QualityRow(
        game=game,
        league=league,
        report=candidate.report,
        scale=candidate.scale,
        scale_fitted=candidate.scale_fitted,
        split_at=split_at,
        older_units=candidate.older_units,
        newer_units=candidate.newer_units,
        older_forecasts=candidate.older_forecasts,
        drift=candidate.drift.drift,
        active_days=active_days,
    )


def rating_quality_rows(*, game: Game, leagues: list[League | None]) -> list[QualityRow]:
    """The game's quality under its current parameters, for all its results (None) and each league given.

    The history is read and replayed once; a league's row scores only the results filed under it. Heavy:
    pages read the kept rows (``quality_kept``), computed by ``ratings.figures``' task.
    """
    system = REGISTRY.get(game.rating_system)
    if system is None or not hasattr(system, "forecasts"):  # an engine that forecasts nothing is left out
        return [QualityRow(game=game, league=league, report=QualityReport()) for league in leagues]
    return _quality_rows(game, leagues, game_active_days(game))


def _quality_rows(game: Game, leagues: list[League | None], active_days: int) -> list[QualityRow]:
    history = history_load(game=game)
    parameters = rating_parameters(game=game)
    split_at = split_time(history, SPLIT)
    candidates = evaluate_leagues(
        history,
        parameters,
        split_at=split_at,
        current=True,
        active_days=active_days,
        leagues=[league.pk if league else None for league in leagues],
    )
    return [
        _row(game, league, candidate, split_at, active_days)
        for league, candidate in zip(leagues, candidates, strict=True)
    ]


def rating_quality_row(*, game: Game, league: League | None = None) -> QualityRow:
    return rating_quality_rows(game=game, leagues=[league])[0]


def rating_quality(*, game: Game, league: League | None = None) -> QualityReport:
    """Prediction quality of a game's ratings on the newer half (or on the results filed under one league)."""
    return rating_quality_row(game=game, league=league).report


def rating_quality_overview() -> list[QualityRow]:
    """Every game, then each of its leagues (computed now: ``manage.py rating_quality``)."""
    result = []
    for game in Game.objects.prefetch_related("leagues").order_by("name"):
        result += rating_quality_rows(game=game, leagues=[None, *game.leagues.all()])
    return result


@dataclass(frozen=True)
class KeptQuality:
    """A game's kept quality rows (the game's, then each league's) and when they were computed."""

    game: Game
    rows: list[QualityRow]
    computed_at: datetime | None

    @property
    def computing(self) -> bool:
        return self.computed_at is None


def quality_kept(*, game: Game) -> KeptQuality:
    """The game's quality rows as the last run of ``ratings.figures`` kept them: no replay here."""
    kept = figure_kept(game=game, name=QUALITY)
    rows = [] if kept.computing else quality_rows_of(kept.value, game=game)
    return KeptQuality(game=game, rows=rows, computed_at=kept.computed_at)


#: The scale a game's pair chance falls back on before its history can fit one (seed 000's Elo scale).
DEFAULT_PAIR_SCALE = 400.0
#: The fewest forecasts (pairs of players at a table) in the older half a scale is fitted on: below it the fit
#: follows a handful of games' luck, and the pair chance keeps the default scale.
MIN_FORECASTS_TO_FIT = 50


def pair_scale_from(row: QualityRow) -> float:
    """The pair scale a game's quality row gives: its fitted (or the system's own) scale, 400 without enough
    forecasts to fit one."""
    if row.scale is None or (row.scale_fitted and row.older_forecasts < MIN_FORECASTS_TO_FIT):
        return DEFAULT_PAIR_SCALE
    return float(row.scale)


def pair_scale(game: Game) -> float | None:
    """The logistic scale ``s`` of ``p = 1 / (1 + 10^(-(Ra - Rb) / s))``, the chance that of two players at a
    table the one rated Ra ends the game with more whists than the one rated Rb (the compare page and API).

    It is the scale the quality report fits on the game's own history (the older half, by maximum likelihood:
    ``ratings.engines.quality.fit_scale``), or the system's own scale for a system that has one; 400 for a
    game whose older half holds fewer than ``MIN_FORECASTS_TO_FIT`` forecasts (``pair_scale_from``). Fitting
    it replays the game, so it is the kept figure of ``ratings.figures``' last run, never computed here:
    None while a game's first run is being computed.
    """
    kept = figure_kept(game=game, name=PAIR_SCALE)
    return None if kept.computing else float(kept.value)


def quality_row_value(row) -> dict:
    report = row.report
    return {
        "league": row.league.pk if row.league else None,
        "scale": row.scale,
        "scale_fitted": row.scale_fitted,
        "split_at": row.split_at.isoformat() if row.split_at else None,
        "older_units": row.older_units,
        "newer_units": row.newer_units,
        "older_forecasts": row.older_forecasts,
        "drift": row.drift,
        "active_days": row.active_days,
        "report": {
            "count": report.count,
            "squared_error": report.squared_error,
            "baseline_squared_error": report.baseline_squared_error,
            "log_loss_sum": report.log_loss_sum,
            "bins": [[b.low, b.high, b.count, b.predicted_sum, b.observed_sum] for b in report.bins],
        },
    }


def quality_rows_of(value: list[dict], *, game: Game) -> list:
    """The kept quality rows as ``ratings.quality.QualityRow``s, leagues read now (a deleted one left out)."""
    leagues = {league.pk: league for league in game.leagues.all()}
    rows = []
    for item in value:
        if item["league"] is not None and item["league"] not in leagues:
            continue
        kept = item["report"]
        report = QualityReport(
            count=kept["count"],
            squared_error=kept["squared_error"],
            baseline_squared_error=kept["baseline_squared_error"],
            log_loss_sum=kept["log_loss_sum"],
            bins=[CalibrationBin(*b) for b in kept["bins"]],
        )
        rows.append(
            QualityRow(
                game=game,
                league=leagues.get(item["league"]),
                report=report,
                scale=item["scale"],
                scale_fitted=item["scale_fitted"],
                split_at=parse_datetime(item["split_at"]) if item["split_at"] else None,
                older_units=item["older_units"],
                newer_units=item["newer_units"],
                older_forecasts=item["older_forecasts"],
                drift=item["drift"],
                active_days=item["active_days"],
            )
        )
    return rows
