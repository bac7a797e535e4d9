"""Bridge results: cleaning a session's boards and tables, storing and reading them back.

A session is *boards* (deals played at several tables); each board has its
*tables*, each with two pairs, NS and EW, and either NS's score (a multiple
of 10) or, for a board played at one table or a two-table team match, the
*IMPs* (International Match Points) NS won. The seats are the session's
players in order of first appearance; their results come from the engine.
Body field: ``boards``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Q

from games.bridge.scoring import board_dealer, board_vulnerability
from leagues.models import Player
from matches.inputs import Errors, GameInput, MatchInput, SeatInput, parse_cents, parse_id, players_by_id
from matches.models import Board, BoardTable, Match
from matches.parts import hold
from ratings.engines.bridge import imps as to_imps

VULNERABILITY_NAMES = {"none": "None", "ns": "NS", "ew": "EW", "both": "All"}

BRIDGE_MAX_BOARDS = 100
BRIDGE_MAX_TABLES = 50
BRIDGE_SCORE_LIMIT = 10_000
BRIDGE_IMPS_LIMIT = Decimal(24)


@dataclass(frozen=True)
class TableInput:
    table: int
    ns: tuple[Player, Player]  # lowest id first
    ew: tuple[Player, Player]
    ns_score: int | None = None
    ns_imps: Decimal | None = None


@dataclass(frozen=True)
class BoardInput:
    number: int
    tables: tuple[TableInput, ...]


BRIDGE_SCORE_TEXT = re.compile(r"-?[0-9]{1,7}")


def _bridge_score(value: Any) -> int | None:
    """A table's NS score as a number, or None: a whole multiple of 10 within +-10,000, given as a
    JSON integer or as text ("420", " -50 "). The one reading of a score, for the API, the entry
    page and its preview alike."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and BRIDGE_SCORE_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or abs(value) > BRIDGE_SCORE_LIMIT or value % 10:
        return None
    return value


def _clean_pair(raw: Any, where: str, errors: Errors) -> tuple[int, int] | None:
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        errors.add("boards", f"{where}: a pair is a list of two player ids.")
        return None
    ids = [parse_id(value) for value in raw]
    if None in ids:
        errors.add("boards", f"{where}: player ids are positive whole numbers.")
        return None
    if ids[0] == ids[1]:
        errors.add("boards", f"{where}: a pair needs two different players.")
        return None
    return (min(ids), max(ids))


def _clean_bridge_table(raw: Any, where: str, errors: Errors) -> dict | None:
    if not isinstance(raw, Mapping):
        errors.add("boards", f"{where}: a table is an object with ns, ew and ns_score (or ns_imps).")
        return None
    if raw.get("ns") in (None, "", []) or raw.get("ew") in (None, "", []):
        errors.add("boards", f"{where}: both pairs are required (ns and ew), four players in all.")
        return None
    ns = _clean_pair(raw.get("ns"), f"{where}, NS", errors)
    ew = _clean_pair(raw.get("ew"), f"{where}, EW", errors)
    if ns is None or ew is None:
        return None
    table = {"ns": ns, "ew": ew, "ns_score": None, "ns_imps": None}
    has_score, has_imps = raw.get("ns_score") not in (None, ""), raw.get("ns_imps") not in (None, "")
    if has_score and has_imps:
        errors.add("boards", f"{where}: give the NS score or the NS IMPs, not both.")
        return None
    if has_score:
        score = _bridge_score(raw["ns_score"])
        if score is None:
            errors.add(
                "boards", f"{where}: the NS score is a whole multiple of 10 within \u00b1{BRIDGE_SCORE_LIMIT:,}."
            )
            return None
        table["ns_score"] = score
    if has_imps:
        imps = parse_cents(raw["ns_imps"], limit=BRIDGE_IMPS_LIMIT)
        if imps is None:
            errors.add("boards", f"{where}: the NS IMPs are a number within \u00b124 with at most two decimals.")
            return None
        table["ns_imps"] = imps
    return table


def _bridge_scoring_error(tables: list[dict]) -> str | None:
    """Which scores a board needs: every table's NS score, or IMPs for one table or a two-table match."""
    scores = [table["ns_score"] is not None for table in tables]
    imps = [table["ns_imps"] is not None for table in tables]
    if len(tables) == 1:
        return None if imps[0] else "a board played at one table is entered in IMPs (ns_imps), not a score"
    if all(scores):
        return None
    if len(tables) == 2 and imps[0] and not scores[1] and not imps[1]:
        return None
    if not any(scores) and not any(imps):
        return "the board has no scores"
    return "give every table's NS score, or for a two-table team match the IMPs of NS at table 1 (with EW at table 2)"


def bridge_clean(data: Mapping[str, Any], errors: Errors) -> GameInput:
    raw_boards = data.get("boards")
    if raw_boards in (None, "", []):
        errors.add("boards", "This field is required: at least one board with its tables.")
        return GameInput()
    if not isinstance(raw_boards, list | tuple):
        errors.add("boards", "Give a list of boards.")
        return GameInput()
    if len(raw_boards) > BRIDGE_MAX_BOARDS:
        errors.add("boards", f"At most {BRIDGE_MAX_BOARDS} boards in one session.")
        return GameInput()
    boards: list[tuple[int, list[dict]]] = []
    numbers: set[int] = set()
    for position, raw in enumerate(raw_boards, start=1):
        if not isinstance(raw, Mapping):
            errors.add("boards", f"Board {position}: a board is an object with number and tables.")
            continue
        number = parse_id(raw.get("number", position))
        if number is None or number > 10_000:
            errors.add("boards", f"Board {position}: the board number is a positive whole number.")
            continue
        where = f"Board {number}"
        if number in numbers:
            errors.add("boards", f"{where} appears twice in the session.")
            continue
        numbers.add(number)
        raw_tables = raw.get("tables")
        if not isinstance(raw_tables, list | tuple) or not raw_tables:
            errors.add("boards", f"{where}: no tables, so no scores.")
            continue
        if len(raw_tables) > BRIDGE_MAX_TABLES:
            errors.add("boards", f"{where}: at most {BRIDGE_MAX_TABLES} tables.")
            continue
        tables = [_clean_bridge_table(t, f"{where}, table {i}", errors) for i, t in enumerate(raw_tables, 1)]
        if None in tables:
            continue
        problem = _bridge_scoring_error(tables)
        if problem:
            errors.add("boards", f"{where}: {problem}.")
            continue
        seated = [player for table in tables for pair in (table["ns"], table["ew"]) for player in pair]
        twice = sorted({player for player in seated if seated.count(player) > 1})
        if twice:
            errors.add("boards", f"{where}: player(s) {', '.join(map(str, twice))} sit at two seats of the board.")
            continue
        boards.append((number, tables))
    if "boards" in errors:
        return GameInput()
    ids = sorted({player for _, tables in boards for t in tables for pair in (t["ns"], t["ew"]) for player in pair})
    players = players_by_id(ids, errors, "boards")
    if players is None:
        return GameInput()
    order: list[int] = []
    for _, tables in boards:
        for table in tables:
            for player in (*table["ns"], *table["ew"]):
                if player not in order:
                    order.append(player)
    return GameInput(
        seats=tuple(SeatInput(player=players[player_id], result=Decimal(0)) for player_id in order),
        parts={
            "boards": tuple(
                BoardInput(
                    number=number,
                    tables=tuple(
                        TableInput(
                            table=index,
                            ns=(players[t["ns"][0]], players[t["ns"][1]]),
                            ew=(players[t["ew"][0]], players[t["ew"][1]]),
                            ns_score=t["ns_score"],
                            ns_imps=t["ns_imps"],
                        )
                        for index, t in enumerate(tables, start=1)
                    ),
                )
                for number, tables in boards
            )
        },
    )


def _table_body(ns: list[int], ew: list[int], ns_score: int | None, ns_imps: Decimal | None) -> dict[str, Any]:
    """A table as a body gives it: one reading for a validated result and a stored one."""
    return {
        "ns": ns,
        "ew": ew,
        **({"ns_score": ns_score} if ns_score is not None else {}),
        **({"ns_imps": float(ns_imps)} if ns_imps is not None else {}),
    }


def bridge_input_body(cleaned: MatchInput) -> dict[str, Any]:
    return {
        "boards": [
            {
                "number": board.number,
                "tables": [
                    _table_body(
                        [table.ns[0].pk, table.ns[1].pk],
                        [table.ew[0].pk, table.ew[1].pk],
                        table.ns_score,
                        table.ns_imps,
                    )
                    for table in board.tables
                ],
            }
            for board in cleaned.parts["boards"]
        ]
    }


def bridge_stored_body(match: Match) -> dict[str, Any]:
    return {
        "boards": [
            {
                "number": board.number,
                "tables": [
                    _table_body(
                        [table.ns_1_id, table.ns_2_id], [table.ew_1_id, table.ew_2_id], table.ns_score, table.ns_imps
                    )
                    for table in board.tables.all()
                ],
            }
            for board in match.boards.all()
        ]
    }


def bridge_boards_store(match: Match, cleaned: MatchInput) -> None:
    boards = []
    for position, board_input in enumerate(cleaned.parts["boards"], start=1):
        board = Board.objects.create(
            match=match,
            number=board_input.number,
            position=position,
            dealer=board_dealer(board_input.number),
            vulnerability=VULNERABILITY_NAMES[board_vulnerability(board_input.number)],
        )
        tables = BoardTable.objects.bulk_create(
            BoardTable(
                board=board,
                table=table.table,
                ns_1=table.ns[0],
                ns_2=table.ns[1],
                ew_1=table.ew[0],
                ew_2=table.ew[1],
                ns_score=table.ns_score,
                ns_imps=table.ns_imps,
            )
            for table in board_input.tables
        )
        hold(board, "tables", sorted(tables, key=lambda table: table.table))
        boards.append(board)
    hold(match, "boards", sorted(boards, key=lambda board: board.position))


def bridge_tables_player_move(match_ids: list[int], *, drop_id: int, keep_id: int) -> None:
    """Put ``keep_id`` in ``drop_id``'s place at every table of these sessions, each pair kept lowest id first.

    The caller (a merge) has checked that no session seats both, so no table can end with one player twice.
    """
    tables = list(
        BoardTable.objects.filter(board__match_id__in=match_ids).filter(
            Q(ns_1=drop_id) | Q(ns_2=drop_id) | Q(ew_1=drop_id) | Q(ew_2=drop_id)
        )
    )
    for table in tables:
        ns = sorted(keep_id if p == drop_id else p for p in (table.ns_1_id, table.ns_2_id))
        ew = sorted(keep_id if p == drop_id else p for p in (table.ew_1_id, table.ew_2_id))
        table.ns_1_id, table.ns_2_id = ns
        table.ew_1_id, table.ew_2_id = ew
    # One statement: PostgreSQL checks the partners' order (a row constraint) on each row as it is written.
    BoardTable.objects.bulk_update(tables, ["ns_1", "ns_2", "ew_1", "ew_2"], batch_size=1000)


@dataclass(frozen=True)
class DuelPreview:
    first: int  # table numbers, from 1
    second: int
    imps: int | Decimal  # won by {NS(first), EW(second)}

    @property
    def outcome(self) -> str:
        if self.imps > 1:
            return "win"
        if self.imps < -1:
            return "loss"
        return "draw"


def bridge_board_preview(*, scores: list[str], imps: str | None = None) -> tuple[str, list[DuelPreview]]:
    """The entry page's IMP preview for one board: ("blank" | "incomplete" | "bad" | "ok", duels).

    ``scores`` are the NS scores per table as typed; ``imps`` the IMPs typed
    for a one- or two-table board scored in IMPs. Only a preview: the engine
    computes the same duels when the session is rated.
    """
    if imps is not None:
        if not imps.strip():
            return "blank", []
        value = parse_cents(imps, limit=BRIDGE_IMPS_LIMIT)
        if value is None:
            return "bad", []
        return "ok", [DuelPreview(first=1, second=2 if len(scores) == 2 else 1, imps=value)]
    if all(not score.strip() for score in scores):
        return "blank", []
    parsed = []
    for text in scores:
        if not text.strip():
            return "incomplete", []
        score = _bridge_score(text)
        if score is None:
            return "bad", []
        parsed.append(score)
    duels = [
        DuelPreview(first=t + 1, second=u + 1, imps=to_imps(parsed[t] - parsed[u]))
        for t in range(len(parsed))
        for u in range(t + 1, len(parsed))
    ]
    return "ok", duels
