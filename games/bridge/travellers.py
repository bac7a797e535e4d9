"""What the bridge readers share: a traveller row, and a session of rows as one bridge result body.

Both readers (``games.bridge.pbn``, ``games.bridge.usebio``) reduce a file to
the travellers of each session: one row per table a board was played at, its
NS and EW pairs as ``PlayerRef`` people, and NS's score. A session becomes one
body in the shape ``POST /api/matches/`` takes for bridge (``bridge_clean``):
every board's tables, the engine then comparing each table with every other
table of the board. Several sections of one session are one session: their
pairs played the same boards at the same time (the scorer compares across
sections in cross-IMP and barometer events anyway), and a match is the
evening, not a room.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from games.bridge.results import BRIDGE_MAX_BOARDS, BRIDGE_MAX_TABLES, BRIDGE_SCORE_LIMIT
from games.imports import PlayerRef, Problem

#: Larger than any real session file (the biggest of the eight real ones is 240 KB, hand records
#: included); refused before reading, so a hostile 50 MB file costs nothing.
IMPORT_MAX_BYTES = 5_000_000

#: Problems of each kind (blocking, notes) a plan lists before it only counts the rest.
PROBLEMS_SHOWN = 100

Pair = tuple[PlayerRef, PlayerRef]


@dataclass(frozen=True)
class Traveller:
    """One table's played score on one board."""

    board: int
    ns: Pair
    ew: Pair
    ns_score: int


def size_problem(data: bytes) -> Problem | None:
    if len(data) > IMPORT_MAX_BYTES:
        return Problem(
            "file", f"The file is {len(data):,} bytes; a session's results file is at most {IMPORT_MAX_BYTES:,}."
        )
    return None


def score_problem(score: int, where: str) -> Problem | None:
    """A played score the bridge cleaner would refuse, said where the file gives it."""
    if abs(score) > BRIDGE_SCORE_LIMIT or score % 10:
        return Problem(where, f"{score} is not a bridge score (a multiple of 10 within \u00b1{BRIDGE_SCORE_LIMIT:,}).")
    return None


def pair_split(names: str, ids: tuple[str, str], where: str) -> Pair | Problem:
    """A pair's "First LAST - First LAST" as two people. Split on " - " only: names have hyphens."""
    people = [name.strip() for name in names.split(" - ")]
    if len(people) != 2 or not all(people):
        return Problem(where, f'"{names}" is not two names joined by " - ".')
    return (PlayerRef(people[0], ids[0]), PlayerRef(people[1], ids[1]))


def federation_id(raw: str | None) -> str:
    """A member number as text, leading zeros kept. Magic Contest and Ruter mark guests "+4", "+520":
    a number per event, not a person's, so a guest is matched by name."""
    value = (raw or "").strip()
    return "" if value in ("", "-") or value.startswith("+") else value


def problems_capped(problems: list[Problem]) -> list[Problem]:
    """At most ``PROBLEMS_SHOWN`` blocking problems and as many notes, in file order, then a count of
    the rest: a hostile file of a million bad rows gives a preview a person can read."""
    kept, counts = [], {True: 0, False: 0}
    for problem in problems:
        counts[problem.blocking] += 1
        if counts[problem.blocking] <= PROBLEMS_SHOWN:
            kept.append(problem)
    if len(kept) < len(problems):
        kept.append(Problem("file", f"and {len(problems) - len(kept):,} more problems like these.", False))
    return kept


def session_time(day: date, clock: time | None = None) -> str:
    """The session's start as ISO time: its clock time when the file has one, else noon, in the club's
    zone (``settings.TIME_ZONE``). Files give a date only; noon keeps the day whatever the zone."""
    zone = ZoneInfo(settings.TIME_ZONE)
    return datetime.combine(day, clock or time(12, 0), tzinfo=zone).isoformat()


def session_body(travellers: list[Traveller], played_at: str, where: str, problems: list[Problem]) -> dict | None:
    """The session's travellers as one bridge result body, board by board in number order.

    A board left with fewer than two played tables has nothing to compare, so no duel: it is
    dropped with a note (the cleaner refuses a lone table without IMPs). No board left is blocking.
    """
    boards: dict[int, list[Traveller]] = {}
    for row in travellers:
        boards.setdefault(row.board, []).append(row)
    body_boards: list[dict[str, Any]] = []
    for number in sorted(boards):
        rows = boards[number]
        if len(rows) < 2:
            problems.append(
                Problem(f"{where}, board {number}", "fewer than two tables played the board: no duel", False)
            )
            continue
        body_boards.append(
            {
                "number": number,
                "tables": [{"ns": list(row.ns), "ew": list(row.ew), "ns_score": row.ns_score} for row in rows],
            }
        )
    if not body_boards:
        problems.append(Problem(where, "no board was played at two tables or more: nothing to rate."))
        return None
    if len(body_boards) > BRIDGE_MAX_BOARDS:
        problems.append(Problem(where, f"{len(body_boards)} boards: a session has at most {BRIDGE_MAX_BOARDS}."))
        return None
    crowded = [board["number"] for board in body_boards if len(board["tables"]) > BRIDGE_MAX_TABLES]
    if crowded:
        problems.append(
            Problem(
                where, f"board {crowded[0]} was played at more than {BRIDGE_MAX_TABLES} tables, the most a board has."
            )
        )
        return None
    return {"game": "bridge", "played_at": played_at, "boards": body_boards}
