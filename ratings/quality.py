"""Rating-quality reports over the stored history (services side).

Streams a game's ledger, asks the game's engine what each row predicted and
what happened, and hands the pairs to ``ratings.engines.quality``. Used by
the quality page and ``manage.py rating_quality``.
"""

from __future__ import annotations

from dataclasses import dataclass

from leagues.models import Game, League
from ratings.engines import REGISTRY
from ratings.engines.quality import QualityReport, quality_report
from ratings.models import RatingChange

STREAM_CHUNK = 5000


@dataclass
class QualityRow:
    game: Game
    league: League | None
    report: QualityReport


def rating_quality(*, game: Game, league: League | None = None) -> QualityReport:
    """Prediction quality of a game's ratings, over every rated unit (or those of one league's players)."""
    system = REGISTRY.get(game.rating_system)
    if system is None:
        return QualityReport()
    rows = RatingChange.objects.filter(game=game)
    if league is not None:
        rows = rows.filter(league_after=league)
    values = rows.order_by().values_list("details", "rating_before").iterator(chunk_size=STREAM_CHUNK)

    def pairs():
        for details, rating_before in values:
            pair = system.prediction(details or {}, float(rating_before))
            if pair is not None:
                yield pair

    return quality_report(pairs())


def rating_quality_overview() -> list[QualityRow]:
    """Every game, then each of its leagues."""
    result = []
    for game in Game.objects.prefetch_related("leagues").order_by("name"):
        result.append(QualityRow(game=game, league=None, report=rating_quality(game=game)))
        for league in game.leagues.all():
            result.append(QualityRow(game=game, league=league, report=rating_quality(game=game, league=league)))
    return result


def pair_scale(game: Game) -> float:
    """The logistic scale ``s`` of ``p = 1 / (1 + 10^(-(Ra - Rb) / s))``, the chance that of two players at a
    table the one rated Ra ends the game with more whists than the one rated Rb.

    Provisional: the engine's default 400.0 for every game. The fitted scale per game (issue 16's Preferans
    quality measure) replaces this function; its callers (the compare page and API) keep calling it.
    """
    return 400.0
