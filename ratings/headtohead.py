"""Head-to-head reads: a player's record against each opponent, and two players compared.

Vocabulary:
    meeting         a rated result two players (or two bridge pairs) shared: a Slaps match, a
                    Preferans game at one table, a bridge board where one pair met the other.
    record          what their meetings add up to from one side: meetings, won, drawn, lost, the last
                    meeting, the points each scored (Preferans whists, bridge IMPs; none for Slaps) and the
                    rating change against them.
    rating change   against an opponent: the sum of the player's ledger deltas in the units they shared
                    (a Slaps match's delta; every deal of a Preferans game shared; a bridge board's delta
                    where the pair was met). A unit shared with several opponents counts for each.

Only rated results count (``Match.Status.RATED``): friendlies, results waiting to be rated or
confirmed and voided ones are left out, so a record and its rating change read the same results.

This module reads seats and the ledger for games of seats (the default of ``games.base.BaseKind``);
a kind whose meetings are not seats (bridge: pairs at a board's tables) reads its own and fills the same
``HeadToHeadRow``. One aggregate query per list, whatever the number of opponents.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from django.db import connection
from django.db.models import Count, F, FilteredRelation, Max, Q, Sum
from django.utils.dateparse import parse_datetime
from django.utils.timezone import is_aware, make_aware

from config.decimals import CENT
from leagues.models import Game, League, Player
from matches.models import Match, Seat
from ratings.models import PlayerRating, RatingChange


@dataclass(frozen=True)
class Opponent:
    """A player as a head-to-head row names them."""

    id: int
    name: str

    def get_absolute_url(self) -> str:
        return f"/players/{self.id}/"


@dataclass(frozen=True)
class HeadToHeadRow:
    """A player's (or pair's) record against one opponent (or opposing pair)."""

    opponents: tuple[Opponent, ...]
    meetings: int
    wins: int
    draws: int
    losses: int
    last_met: datetime | None
    rating_change: Decimal
    points_for: Decimal | None = None
    points_against: Decimal | None = None

    @property
    def name(self) -> str:
        return " & ".join(opponent.name for opponent in self.opponents)

    @property
    def ids(self) -> str:
        """The opponents' ids as the compare page's ``b`` takes them: "12" or "12,13"."""
        return ",".join(str(opponent.id) for opponent in self.opponents)


# One pass over the player's seats in the game's rated matches, each joined to the other seats held by players;
# the player's deltas come summed per match from the ledger's player index (a Preferans game has a row a
# deal), so joining them multiplies nothing.
_SEATS_HEAD_TO_HEAD_SQL = """
SELECT theirs.player_id, player.name, COUNT(*) AS meetings,
       COUNT(*) FILTER (WHERE mine.result > theirs.result) AS wins,
       COUNT(*) FILTER (WHERE mine.result = theirs.result) AS draws,
       COUNT(*) FILTER (WHERE mine.result < theirs.result) AS losses,
       MAX(played.played_at) AS last_met,
       COALESCE(SUM(deltas.total), 0) AS change,
       SUM(mine.result) AS points_for,
       SUM(theirs.result) AS points_against
FROM {seat} AS mine
JOIN {match} AS played ON played.id = mine.match_id AND played.game_id = %(game)s AND played.status = %(rated)s
JOIN {seat} AS theirs ON theirs.match_id = mine.match_id AND theirs.player_id IS NOT NULL
                     AND theirs.player_id <> mine.player_id
JOIN {player} AS player ON player.id = theirs.player_id
LEFT JOIN (
    SELECT match_id, SUM(delta) AS total FROM {change}
    WHERE player_id = %(player)s AND game_id = %(game)s GROUP BY match_id
) AS deltas ON deltas.match_id = mine.match_id
WHERE mine.player_id = %(player)s {only}
GROUP BY theirs.player_id, player.name
ORDER BY meetings DESC, player.name, theirs.player_id
"""


def seats_head_to_head(*, player_id: int, game: Game, opponent_ids: list[int] | None = None) -> list[HeadToHeadRow]:
    """The player's record against every player they shared a rated result of ``game`` with (or only those
    of ``opponent_ids``), most meetings first, then by name. One query (SQL: the ORM would read the player's
    own seat and deltas with a subquery a row, which a long history pays for).

    A result is won against an opponent when the player's seat result is above theirs (Slaps: 1 against 0;
    Preferans: more whists over the game), drawn when equal, lost when below. ``points_for`` and
    ``points_against`` sum the two seats' results over the meetings."""
    sql = _SEATS_HEAD_TO_HEAD_SQL.format(
        seat=Seat._meta.db_table,
        match=Match._meta.db_table,
        player=Player._meta.db_table,
        change=RatingChange._meta.db_table,
        only=_only(opponent_ids),
    )
    params = {"game": game.pk, "rated": Match.Status.RATED.value, "player": player_id}
    params.update({f"only{index}": pk for index, pk in enumerate(opponent_ids or ())})
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        HeadToHeadRow(
            opponents=(Opponent(opponent_id, name),),
            meetings=meetings,
            wins=wins,
            draws=draws,
            losses=losses,
            last_met=_moment(last_met),
            rating_change=_cents(change),
            points_for=_cents(points_for),
            points_against=_cents(points_against),
        )
        for opponent_id, name, meetings, wins, draws, losses, last_met, change, points_for, points_against in rows
    ]


def _only(opponent_ids: list[int] | None) -> str:
    """The filter on the opponents, one placeholder each (``= ANY(array)`` is PostgreSQL's alone); none: ``1 = 0``."""
    if opponent_ids is None:
        return ""
    if not opponent_ids:
        return "AND 1 = 0"
    return "AND theirs.player_id IN ({})".format(", ".join(f"%(only{index})s" for index in range(len(opponent_ids))))


def _cents(value) -> Decimal | None:
    """A sum of the ledger's or the seats' decimals as the database returns it (PostgreSQL a Decimal, SQLite a
    float), to the cent they are kept to."""
    return None if value is None else Decimal(str(value)).quantize(CENT)


def _moment(value) -> datetime | None:
    """``MAX(played_at)`` as a datetime (SQLite returns the stored text from a raw query)."""
    if value is None or isinstance(value, datetime):
        return value
    moment = parse_datetime(str(value))
    return moment if moment is None or is_aware(moment) else make_aware(moment, UTC)


def seats_meetings(*, a_id: int, b_id: int, game: Game, limit: int) -> list[Match]:
    """The latest rated results of ``game`` both players sat at, newest first, with their seats."""
    return list(
        Match.objects.filter(game=game, status=Match.Status.RATED, seats__player_id=a_id)
        .filter(seats__player_id=b_id)
        .select_related("game")
        .prefetch_related("seats__player", "seats__bot")
        .order_by("-played_at", "-pk")[:limit]
    )


def game_ratings(*, game: Game, player_ids: list[int]) -> dict[int, PlayerRating | None]:
    """Each player's rating row in ``game`` (None for one who has no rated result in it yet). One query."""
    found = {
        rating.player_id: rating
        for rating in PlayerRating.objects.filter(game=game, player_id__in=player_ids).select_related("league")
    }
    return {pk: found.get(pk) for pk in player_ids}


def league_top_players(*, league: League, limit: int) -> list[Player]:
    """The league's ``limit`` best rated players, best first (ties by name). One query."""
    ratings = (
        PlayerRating.objects.filter(league=league)
        .select_related("player")
        .order_by("-rating", "player__search_name", "player_id")[:limit]
    )
    players = []
    for rating in ratings:
        rating.player.rating = rating.rating
        players.append(rating.player)
    return players


def seats_crosstable(*, game: Game, player_ids: list[int]) -> dict[tuple[int, int], HeadToHeadRow]:
    """Every record among ``player_ids`` in ``game``, keyed (player, opponent), both ways round; pairs that
    never met are absent. Two queries: each of the players' seats joined to the match's other seats held by
    the same players, grouped by the two; the opponents' names."""
    rows = (
        Seat.objects.filter(match__game=game, match__status=Match.Status.RATED, player_id__in=player_ids)
        .annotate(other=FilteredRelation("match__seats", condition=Q(match__seats__player_id__in=player_ids)))
        .filter(other__isnull=False)
        .values("player_id", "other__player_id")
        .annotate(
            meetings=Count("pk"),
            wins=Count("pk", filter=Q(result__gt=F("other__result"))),
            draws=Count("pk", filter=Q(result=F("other__result"))),
            losses=Count("pk", filter=Q(result__lt=F("other__result"))),
            last_met=Max("match__played_at"),
            points_for=Sum("result"),
            points_against=Sum("other__result"),
        )
        .order_by()
    )
    # Each seat also meets itself through the join: those (player, player) groups are dropped here.
    rows = [row for row in rows if row["player_id"] != row["other__player_id"]]
    names = dict(Player.objects.filter(pk__in={row["other__player_id"] for row in rows}).values_list("pk", "name"))
    return {
        (row["player_id"], row["other__player_id"]): HeadToHeadRow(
            opponents=(Opponent(row["other__player_id"], names[row["other__player_id"]]),),
            meetings=row["meetings"],
            wins=row["wins"],
            draws=row["draws"],
            losses=row["losses"],
            last_met=row["last_met"],
            rating_change=Decimal(0),  # not shown in a crosstable's cell: the compare page has it
            points_for=row["points_for"],
            points_against=row["points_against"],
        )
        for row in rows
    }
