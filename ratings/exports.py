"""A league's leaderboard and a player's history as CSV, for spreadsheets and club websites.

*Leaderboard CSV*: the league's whole table as its page shows it, best
first, ties broken by name (then id), one row per player: ``rank``,
``player_id``, ``player``, ``federation_id``, ``rating``, ``peak_rating``,
``rated_matches``, ``provisional``, ``active``, ``inactive_since``: the
players the leaderboard shows (its league's active players, or everyone
with ``include_inactive=true``), ranked among them. *History CSV*: one row per rating
change (a ledger row: a Slaps match, a Preferans deal, a bridge board),
oldest first: ``played_at`` (in the club's zone), ``game``, ``league``,
``match``, ``unit``, ``opponents`` (whom the player met in that unit, by
name, from the game's kind: ``history_opponents``), ``rating_before``,
``rating_after``, ``delta``.

Rows are read a chunk at a time and written as they are read
(``config.csvout``): a league of 100,000 players streams. Federation
numbers are the club's data: ``with_ids=False`` (a public download) leaves
the column empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from zoneinfo import ZoneInfo

from django.conf import settings

from config.csvout import csv_lines
from leagues.kinds import kind_of
from leagues.models import Game, League, Player
from matches.selectors import match_detail_queryset, matches_parts_read
from ratings.models import PlayerRating
from ratings.selectors import (
    Activity,
    Sort,
    league_activity,
    player_history,
    provisional_matches,
    rating_decimals,
    rating_number,
)

LEADERBOARD_COLUMNS = (
    "rank",
    "player_id",
    "player",
    "federation_id",
    "rating",
    "peak_rating",
    "rated_matches",
    "provisional",
    "active",
    "inactive_since",
)
HISTORY_COLUMNS = (
    "played_at",
    "game",
    "league",
    "match",
    "unit",
    "opponents",
    "rating_before",
    "rating_after",
    "delta",
)
CHUNK = 2000  # rows read per query


def leaderboard_csv_pieces(
    *, league: League, sort: str = Sort.CURRENT, with_ids: bool, activity: Activity | None = None
) -> Iterator[str]:
    """The league's table as CSV pieces (module docstring): the players its leaderboard shows for
    ``activity`` (default: today's active players), ranked among them."""
    field = Sort.FIELDS[Sort.clean(sort)]
    decimals = rating_decimals(league.game)
    provisional_after = provisional_matches(league.game)
    activity = activity or league_activity(league=league)
    ratings = PlayerRating.objects.filter(league=league)
    if activity.shown_from is not None:
        ratings = ratings.filter(last_played_at__gte=activity.shown_from)
    ratings = ratings.order_by(f"-{field}", "player__search_name", "player_id").values_list(
        "player_id", "player__name", "player__federation_id", "rating", "peak_rating", "rated_matches", "last_played_at"
    )

    def rows():
        for rank, (player_id, name, federation_id, rating, peak, matches, last_played_at) in enumerate(
            ratings.iterator(chunk_size=CHUNK), start=1
        ):
            inactive_since = activity.inactive_since(last_played_at)
            yield {
                "rank": rank,
                "player_id": player_id,
                "player": name,
                "federation_id": federation_id if with_ids else "",
                "rating": rating_number(rating, decimals=decimals),
                "peak_rating": rating_number(peak, decimals=decimals),
                "rated_matches": matches,
                "provisional": "yes" if matches < provisional_after else "no",
                "active": "yes" if activity.active(last_played_at) else "no",
                "inactive_since": inactive_since.isoformat() if inactive_since else "",
            }

    return csv_lines(LEADERBOARD_COLUMNS, rows())


def history_csv_pieces(*, player: Player, game: Game | None = None) -> Iterator[str]:
    """The player's ledger, oldest first, as CSV pieces (module docstring): one query for a chunk of rows,
    and one read of the chunk's matches with their seats and parts, for the opponents."""
    zone = ZoneInfo(settings.TIME_ZONE)
    decimals_by_game: dict[int, int] = {}

    def rows():
        changes = player_history(player=player, game=game).select_related(None).select_related("game")
        chunk = []
        for change in changes.iterator(chunk_size=CHUNK):
            chunk.append(change)
            if len(chunk) == CHUNK:
                yield from chunk_rows(chunk)
                chunk = []
        yield from chunk_rows(chunk)

    def chunk_rows(chunk):
        if not chunk:
            return
        matches = match_detail_queryset().in_bulk({change.match_id for change in chunk})
        matches_parts_read(matches.values())
        for change in chunk:
            match = matches[change.match_id]
            decimals = decimals_by_game.setdefault(change.game_id, rating_decimals(change.game))
            kind = kind_of(change.game)
            opponents = kind.history_opponents(match, player.pk, change.unit) if kind is not None else []
            yield {
                "played_at": change.played_at.astimezone(zone).isoformat(),
                "game": change.game.slug,
                "league": match.league.slug if match.league_id else "",
                "match": change.match_id,
                "unit": change.unit,
                "opponents": "; ".join(opponents),
                "rating_before": rating_number(change.rating_before, decimals=decimals),
                "rating_after": rating_number(change.rating_after, decimals=decimals),
                "delta": rating_number(change.delta, decimals=decimals),
            }

    return csv_lines(HISTORY_COLUMNS, rows())
