"""Reading seasons: a league's seasons, their podiums and moves (the honours board), a season's table.

Every read is bounded: seasons a page at a time, the podiums and moves of a page's seasons in one query
each, a table a page at a time (``games.seasons`` writes the lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import QuerySet

from leagues.models import League, Season, SeasonMove, SeasonStanding
from leagues.names import name_key

#: The lines of a podium: ranks 1 to 3 (ties share a rank, so a podium may hold more than three).
PODIUM_RANKS = 3


def seasons_of(*, league: League) -> QuerySet[Season]:
    """The league's seasons, the latest first."""
    return Season.objects.filter(league=league).order_by("-first_day")


@dataclass
class Honours:
    """A season on the honours board: its podium (closed seasons) and the players it moved."""

    season: Season
    podium: list[SeasonStanding] = field(default_factory=list)
    up: list[SeasonMove] = field(default_factory=list)
    down: list[SeasonMove] = field(default_factory=list)

    @property
    def champions(self) -> list[SeasonStanding]:
        return [line for line in self.podium if line.rank == 1]


def season_honours(seasons: list[Season]) -> list[Honours]:
    """Each season with its podium (a closed season's frozen table; a running one's has none yet) and its
    moves, in two queries whatever the number of seasons."""
    honours = {season.pk: Honours(season) for season in seasons}
    closed = [season.pk for season in seasons if season.closed_at is not None]
    for line in SeasonStanding.objects.filter(season_id__in=closed, rank__lte=PODIUM_RANKS).order_by(
        "season_id", "rank", "search_name", "player_id"
    ):
        honours[line.season_id].podium.append(line)
    for move in (
        SeasonMove.objects.filter(season_id__in=list(honours)).select_related("player", "to_league").order_by("id")
    ):
        target = (
            honours[move.season_id].up if move.direction == SeasonMove.Direction.UP else honours[move.season_id].down
        )
        target.append(move)
    return [honours[season.pk] for season in seasons]


def season_lines(*, season: Season, search: str = "") -> QuerySet[SeasonStanding]:
    """A season's table, best first (a shared rank in name order), searched by name when ``search`` is given:
    by the lines' search keys (``leagues.names.name_key``: any case and script, ё as its undotted letter)."""
    lines = SeasonStanding.objects.filter(season=season).order_by("rank", "search_name", "player_id")
    key = name_key(search)
    return lines.filter(search_name__contains=key) if key else lines


def season_moved(*, season: Season) -> dict[int, str]:
    """{player id: "up" or "down"} for the players the season moved."""
    return dict(SeasonMove.objects.filter(season=season).values_list("player_id", "direction"))
