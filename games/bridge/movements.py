"""Movements: who sits where in each round of a bridge evening, and which boards they play.

Vocabulary: a *round* is the part of the evening in which every table plays
one *board set*; a *seating* is one table in one round: its NS pair, its EW
pair (pair numbers) and its board set. The entry page uses a movement only to
prefill the pair numbers of each traveller row; the scorer can change any.

- **Mitchell** (``T`` tables): NS pairs 1..T stay at their table; EW pairs
  1..T move up a table and the boards down a table each round. With an even
  number of tables the EW pairs skip a table after half the rounds (a skip
  Mitchell), and the evening has T-1 rounds so no EW pair meets a board or an
  NS pair twice; with an odd number it has T rounds.
- **Howell** (``T`` tables, pairs 1..2T, every pair meeting every other once):
  the circle method. Pair 2T stays put, pairs 1..2T-1 rotate; in round r the
  pairs r±k meet at table k+1. Table k plays board set r + c[k], with offsets
  ``c`` found by a small search so that no pair meets a set twice; where none
  exists (2, 3 and 5 tables) all tables share the round's set, relaying the
  boards as a real 2- or 3-table Howell does.

Pure functions, no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.utils.translation import gettext_lazy, pgettext_lazy

MOVEMENTS = {
    "mitchell": gettext_lazy("Mitchell"),
    "howell": gettext_lazy("Howell"),
    "free": pgettext_lazy("a bridge movement: pairs sit as the scorer types", "Free"),
}


@dataclass(frozen=True)
class Seating:
    round: int  # from 1
    table: int  # from 1
    ns: int  # pair numbers
    ew: int
    board_set: int  # from 1


def mitchell(tables: int) -> list[Seating]:
    rounds = tables - 1 if tables % 2 == 0 else tables
    seatings = []
    for r in range(rounds):
        skip = 1 if tables % 2 == 0 and r >= tables // 2 else 0
        for t in range(tables):
            ew = (t - r - skip) % tables
            seatings.append(Seating(round=r + 1, table=t + 1, ns=t + 1, ew=ew + 1, board_set=(t + r) % tables + 1))
    return seatings


@cache
def _howell_offsets(tables: int) -> tuple[int, ...]:
    """Offsets c[0..T-1], distinct, with {c[0]} and every c[k]±k distinct modulo 2T-1; zeros where none exists."""
    size = 2 * tables - 1
    offsets, sets, values = [0], {0}, {0}

    def place(k: int) -> bool:
        if k == tables:
            return True
        for v in range(size):
            up, down = (v + k) % size, (v - k) % size
            if v in sets or up in values or down in values:
                continue
            offsets.append(v)
            sets.add(v)
            values.update((up, down))
            if place(k + 1):
                return True
            offsets.pop()
            sets.discard(v)
            values.difference_update((up, down))
        return False

    return tuple(offsets) if place(1) else (0,) * tables


def howell(tables: int) -> list[Seating]:
    pairs = 2 * tables
    size = pairs - 1
    offsets = _howell_offsets(tables)
    seatings = []
    for r in range(size):
        fixed, moving = (pairs, r + 1) if r % 2 == 0 else (r + 1, pairs)
        seatings.append(Seating(round=r + 1, table=1, ns=fixed, ew=moving, board_set=(r + offsets[0]) % size + 1))
        for k in range(1, tables):
            ns, ew = (r + k) % size + 1, (r - k) % size + 1
            seatings.append(Seating(round=r + 1, table=k + 1, ns=ns, ew=ew, board_set=(r + offsets[k]) % size + 1))
    return seatings


def movement_seatings(movement: str, tables: int) -> list[Seating]:
    if movement == "mitchell":
        return mitchell(tables)
    if movement == "howell":
        return howell(tables)
    return []


def board_set_of(board: int, boards: int, sets: int) -> int:
    """Board 1..boards in set 1..sets, in order, the sets as even as the numbers allow."""
    return (board - 1) * sets // boards + 1


def traveller_prefill(movement: str, tables: int, boards: int) -> dict[int, list[tuple[int, int] | None]]:
    """Each board's traveller rows as (NS pair, EW pair) per the movement, or {} for a free movement.

    Rows go by table, as the page labels them: where a board set meets each table at most once (every
    Mitchell, most Howells) row t is table t, and a table the set skips (an even-table Mitchell's) is
    None, an empty row; in a Mitchell NS pair t sits at table t all evening. A set that comes back to a
    table (a small Howell's relay) lists its rows by table, then round."""
    seatings = movement_seatings(movement, tables)
    if not seatings:
        return {}
    sets = max(seating.board_set for seating in seatings)
    by_set: dict[int, list[Seating]] = {}
    for seating in seatings:
        by_set.setdefault(seating.board_set, []).append(seating)
    rows: dict[int, list[tuple[int, int] | None]] = {}
    for board_set, seated in by_set.items():
        seated = sorted(seated, key=lambda s: (s.table, s.round))
        if len({s.table for s in seated}) == len(seated):
            at: list[tuple[int, int] | None] = [None] * tables
            for s in seated:
                at[s.table - 1] = (s.ns, s.ew)
            rows[board_set] = at
        else:
            rows[board_set] = [(s.ns, s.ew) for s in seated]
    return {board: rows[board_set_of(board, boards, sets)] for board in range(1, boards + 1)}
