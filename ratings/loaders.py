"""Engine inputs: what a replay hands each game's kind to load, and the reads any game of seats shares.

A replay asks the game's kind (``leagues.kinds.kind_of``) to load a chunk of
matches into (rated players in seat order, engine input) pairs
(``GameKind.load``); the kind reads what its game stores (seats, deals,
boards) with a fixed number of queries per chunk. ``ReplayContext`` is what
a replay keeps between chunks: the game, where the replay starts, and the
kind's own state (``GameKind.replay_state``: bridge's deals per pair so far).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NamedTuple

from django.db.models import Q

from leagues.models import Game
from matches.models import Seat
from ratings.history import LedgerKey, MatchRow, key_before

# (rated players in seat order, engine input), one pair per match of a chunk, in the chunk's order.
EngineInputs = list[tuple[tuple[int, ...], object]]


class ReplayContext:
    """What a replay keeps in memory besides ratings, from one chunk to the next."""

    def __init__(self, *, game: Game, start: LedgerKey, state: Any = None) -> None:
        self.game = game
        self.start = start
        #: The kind's own replay state (``GameKind.replay_state()``), carried across chunks.
        self.state = state

    def before_start(self, *, played_at_field: str, id_field: str) -> Q:
        """Rows of results played before the replay's start: a kind reading history the replay does not go through."""
        return key_before(self.start, played_at_field=played_at_field, id_field=id_field)


class SeatRow(NamedTuple):
    """A seat as the engine input is built from it: its player (or bot) and its result."""

    player_id: int | None
    bot_id: int | None
    result: Decimal


def seat_rows(*, match_ids: list[int]) -> dict[int, list[SeatRow]]:
    """The seats of the matches, in seat order, with one query: {match id: [SeatRow, ...]}."""
    seats: dict[int, list[SeatRow]] = defaultdict(list)
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "bot_id", "result")
    )
    for match_id, player_id, bot_id, result in rows:
        seats[match_id].append(SeatRow(player_id, bot_id, result))
    return seats


def seats_inputs(chunk: list[MatchRow], *, engine_input: Callable[[list[SeatRow]], object]) -> EngineInputs:
    """A game of seats only: each match's players in seat order, and the input its kind builds from the seats."""
    seats = seat_rows(match_ids=[row.id for row in chunk])
    inputs = []
    for row in chunk:
        table = seats[row.id]
        players = tuple(seat.player_id for seat in table if seat.player_id is not None)
        inputs.append((players, engine_input(table)))
    return inputs
