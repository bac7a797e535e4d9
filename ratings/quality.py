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

from leagues.models import Game, League
from ratings.caching import cached, rating_version
from ratings.engines import REGISTRY
from ratings.engines.quality import QualityReport
from ratings.evaluation import ACTIVE_DAYS, Candidate, evaluate_leagues, game_fingerprint, history_load, split_time
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
    drift: float | None = None

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
            "active_days": ACTIVE_DAYS,
            **self.report.as_dict(),
        }


def _row(game: Game, league: League | None, candidate: Candidate | None, split_at) -> QualityRow:
    if candidate is None:
        return QualityRow(game=game, league=league, report=QualityReport())
    return QualityRow(
        game=game,
        league=league,
        report=candidate.report,
        scale=candidate.scale,
        scale_fitted=candidate.scale_fitted,
        split_at=split_at,
        older_units=candidate.older_units,
        newer_units=candidate.newer_units,
        drift=candidate.drift.drift,
    )


def rating_quality_rows(*, game: Game, leagues: list[League | None]) -> list[QualityRow]:
    """The game's quality under its current parameters, for all its results (None) and each league given.

    The history is read and replayed once; a league's row scores only the results filed under it.
    """
    system = REGISTRY.get(game.rating_system)
    if system is None or not hasattr(system, "forecasts"):  # an engine that forecasts nothing is left out
        return [QualityRow(game=game, league=league, report=QualityReport()) for league in leagues]
    # Cached under what the figures are computed from: the results, the rules, and the ratings' version.
    key = (
        "quality",
        game.pk,
        game_fingerprint(game),
        rating_version(game_id=game.pk),
        ",".join(str(league.pk) if league else "all" for league in leagues),
    )
    return cached(key, lambda: _quality_rows(game, leagues))


def _quality_rows(game: Game, leagues: list[League | None]) -> list[QualityRow]:
    history = history_load(game=game)
    parameters = rating_parameters(game=game)
    split_at = split_time(history, SPLIT)
    candidates = evaluate_leagues(
        history,
        parameters,
        split_at=split_at,
        current=True,
        leagues=[league.pk if league else None for league in leagues],
    )
    return [_row(game, league, candidate, split_at) for league, candidate in zip(leagues, candidates, strict=True)]


def rating_quality_row(*, game: Game, league: League | None = None) -> QualityRow:
    return rating_quality_rows(game=game, leagues=[league])[0]


def rating_quality(*, game: Game, league: League | None = None) -> QualityReport:
    """Prediction quality of a game's ratings on the newer half (or on the results filed under one league)."""
    return rating_quality_row(game=game, league=league).report


def rating_quality_overview() -> list[QualityRow]:
    """Every game, then each of its leagues."""
    result = []
    for game in Game.objects.prefetch_related("leagues").order_by("name"):
        result += rating_quality_rows(game=game, leagues=[None, *game.leagues.all()])
    return result


def pair_scale(game: Game) -> float:
    """The logistic scale ``s`` of ``p = 1 / (1 + 10^(-(Ra - Rb) / s))``, the chance that of two players at a
    table the one rated Ra ends the game with more whists than the one rated Rb.

    Provisional: the engine's default 400.0 for every game. The fitted scale per game (issue 16's Preferans
    quality measure) replaces this function; its callers (the compare page and API) keep calling it.
    """
    return 400.0
