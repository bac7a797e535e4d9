"""Reading a PBN results file (PBN 2.1 §5: ``ScoreTable`` and ``TotalScoreTable``) into travellers.

Magic Contest and Ruter write one game per board; each game's ``ScoreTable`` is
the board's traveller, one row per table, and the first game's
``TotalScoreTable`` names the pairs. Both tables are read by column name (the
header's ``Name\\width+alignment`` list), never by position or width: widths
and column sets differ between programs and sessions. A file is one session.

Not the ``endplay`` library: its PBN reader is about deals, auctions and play
(and brings a compiled double-dummy solver); the result tables are a small
tokenizer here, and the real files' quirks (localized directions, ``-`` for no
value, ``A+``/``Bye`` scores, sections) are handled where they are read.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from dataclasses import dataclass, field
from datetime import date, time

from games.bridge.travellers import (
    Pair,
    Traveller,
    federation_id,
    pair_split,
    score_problem,
    session_body,
    session_time,
)
from games.imports import ImportPlan, Problem

TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
META = re.compile(r'<META\s+name=(\w+)\s+content="([^"]*)"', re.IGNORECASE)
CHARSET = re.compile(rb"^%.*charset=([A-Za-z0-9_-]+)", re.IGNORECASE | re.MULTILINE)
TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')
SCORE = re.compile(r"-?[0-9]+")
DAY = re.compile(r"([0-9]{4})\.([0-9]{2})\.([0-9]{2})")
CLOCK = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")

#: ScoreTable columns of events that are not pairs: a pairs importer refuses them.
NOT_PAIRS = {"PlayerId_North": "an individual event", "TeamId_Home": "a team event", "TeamId_NS": "a team event"}
#: The tables read; others (``OptimumResultTable`` ...) are skipped with their rows.
READ_TABLES = ("ScoreTable", "TotalScoreTable")
NEEDED = ("PairId_NS", "PairId_EW", "Score_NS", "Score_EW")


@dataclass
class Table:
    line: int
    columns: list[str]
    rows: list[tuple[int, list[str | None]]] = field(default_factory=list)


@dataclass
class Game:
    line: int
    tags: dict[str, tuple[int, str]] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)


def pbn_decode(data: bytes) -> str:
    """The file's text: a byte-order mark or a ``%Content-type: ...; charset=`` hint first, then strict
    UTF-8 (Ruter i Norge writes it without a mark), then Windows-1252 (Magic Contest, older Ruter).
    Raises ValueError when no reading fits (NUL bytes, UTF-16 without a mark, bytes cp1252 lacks)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    if b"\x00" in data:
        raise ValueError("The file has NUL bytes: it is binary, or UTF-16 without a byte-order mark, not PBN text.")
    hint = CHARSET.search(data[:4096])
    candidates = ["utf-8", "cp1252"]
    if hint:
        with contextlib.suppress(LookupError):  # an unknown charset name: the usual readings
            candidates.insert(0, codecs.lookup(hint.group(1).decode("ascii")).name)
    for encoding in candidates:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise ValueError("The file is neither UTF-8 nor Windows-1252 text.")


def _tokens(text: str) -> list[str | None] | None:
    """A table row's values: quoted strings whole, bare words, ``-`` as None; None when a quote is open."""
    values: list[str | None] = []
    for match in TOKEN.finditer(text):
        quoted, bare = match.groups()
        if bare is not None and '"' in bare:
            return None
        values.append(quoted if quoted is not None else (None if bare == "-" else bare))
    return values


def _games(text: str, meta: dict[str, str], problems: list[Problem]) -> list[Game]:
    """The file's games (tag pairs, tables with their rows), and its ``% <META>`` header values."""
    games: list[Game] = []
    game: Game | None = None
    table: Table | None = None
    in_comment = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_comment:
            in_comment = "}" not in stripped
            continue
        if not stripped:
            game, table = None, None
            continue
        if stripped.startswith("%"):
            if found := META.search(stripped):
                meta[found.group(1)] = found.group(2)
            continue
        if stripped.startswith(";"):
            continue
        if stripped.startswith("{"):
            in_comment = "}" not in stripped
            continue
        if stripped.startswith("["):
            tag = TAG.match(stripped)
            if tag is None:
                problems.append(Problem(f"line {number}", 'not a PBN tag ([Name "value"]).'))
                continue
            if game is None:
                game = Game(line=number)
                games.append(game)
            name, value = tag.groups()
            game.tags[name] = (number, value)
            table = None
            if name in READ_TABLES:
                table = Table(line=number, columns=[column.split("\\")[0] for column in value.split(";")])
                game.tables[name] = table
            continue
        if table is not None:
            row = _tokens(stripped)
            if row is None or len(row) != len(table.columns):
                problems.append(
                    Problem(
                        f"line {number}",
                        f"a table row with {len(table.columns)} values was expected: {stripped[:80]!r}",
                    )
                )
                continue
            table.rows.append((number, row))
    return games


def _pairs(games: list[Game], problems: list[Problem]) -> dict[tuple[str, str], Pair]:
    """Every pair by (section, pair id) from the TotalScoreTable: "A - B" names and MemberID1/2."""
    total = next((game.tables["TotalScoreTable"] for game in games if "TotalScoreTable" in game.tables), None)
    if total is None:
        problems.append(Problem("file", "no TotalScoreTable: the file does not name the pairs."))
        return {}
    if "Names" not in total.columns:
        what = "an individual event (Name, not Names)" if "Name" in total.columns else "no Names column"
        problems.append(Problem(f"line {total.line}", f"the TotalScoreTable has {what}: only pairs events import."))
        return {}
    if "PairId" not in total.columns:
        problems.append(Problem(f"line {total.line}", "the TotalScoreTable has no PairId column."))
        return {}
    pairs: dict[tuple[str, str], Pair] = {}
    for number, values in total.rows:
        row = dict(zip(total.columns, values, strict=True))
        ids = (federation_id(row.get("MemberID1")), federation_id(row.get("MemberID2")))
        pair = pair_split(row.get("Names") or "", ids, f"line {number}")
        if isinstance(pair, Problem):
            problems.append(pair)
            continue
        pairs[(row.get("Section") or "", row.get("PairId") or "")] = pair
    return pairs


def _session_day(games: list[Game], meta: dict[str, str], problems: list[Problem]) -> date | None:
    """The session's date. ``[Date]`` can be a multi-session contest's last day (Magic Contest France);
    the first session (META ``CRSession`` 1) was played on the contest's first day, ``[EventDate]``."""
    tags = games[0].tags if games else {}
    name = "EventDate" if meta.get("CRSession") == "1" and "EventDate" in tags else "Date"
    line, value = tags.get(name, (0, ""))
    found = DAY.fullmatch(value.strip())
    if found:
        try:
            return date(*map(int, found.groups()))
        except ValueError:
            pass
    problems.append(Problem(f"line {line}" if line else "file", f'no session date ({name} "YYYY.MM.DD").'))
    return None


def _session_clock(games: list[Game]) -> time | None:
    found = CLOCK.fullmatch(games[0].tags.get("Time", (0, ""))[1].strip()) if games else None
    try:
        return time(int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)) if found else None
    except ValueError:
        return None


def _travellers(games: list[Game], pairs: dict[tuple[str, str], Pair], problems: list[Problem]) -> list[Traveller]:
    travellers: list[Traveller] = []
    for game in games:
        table = game.tables.get("ScoreTable")
        if table is None:
            continue
        not_pairs = next((what for column, what in NOT_PAIRS.items() if column in table.columns), None)
        missing = [column for column in NEEDED if column not in table.columns]
        if not_pairs or missing:
            why = f"{not_pairs}: only pairs events import" if not_pairs else f"no {', '.join(missing)} column"
            problems.append(Problem(f"line {table.line}", f"the ScoreTable has {why}."))
            continue
        board_line, board_text = game.tags.get("Board", (table.line, ""))
        if not board_text.strip().isdigit() or not 0 < int(board_text) <= 10_000:
            problems.append(Problem(f"line {board_line}", f"the board number {board_text!r} is not a number."))
            continue
        board = int(board_text)
        for number, values in table.rows:
            row = dict(zip(table.columns, values, strict=True))
            where = f"line {number} (board {board})"
            traveller = _traveller(row, board, where, pairs, problems)
            if traveller is not None:
                travellers.append(traveller)
    return travellers


def _traveller(row: dict, board: int, where: str, pairs: dict, problems: list[Problem]) -> Traveller | None:
    """One ScoreTable row as a played table, or None with the problem: adjusted (``A+``, ``A-``, split),
    ``Bye`` or a missing pair (a phantom's opponents), no score. A passed-out board is ``"0"``: played."""
    ns_raw, ew_raw = row["Score_NS"], row["Score_EW"]
    scores = {value for value in (ns_raw, ew_raw) if value is not None}
    if any(value.upper().startswith("A") for value in scores):
        problems.append(Problem(where, f"an adjusted score ({ns_raw} / {ew_raw}) is not a rated duel.", False))
        return None
    if "Bye" in scores or row["PairId_NS"] is None or row["PairId_EW"] is None:
        problems.append(Problem(where, "a bye (a pair without opponents) is not a rated duel.", False))
        return None
    if not scores:
        problems.append(Problem(where, "no score: the board was not played at this table.", False))
        return None
    if not all(SCORE.fullmatch(value) for value in scores):
        problems.append(Problem(where, f"the score {ns_raw} / {ew_raw} is not a number."))
        return None
    ns_score = int(ns_raw or 0) - int(ew_raw or 0)
    if problem := score_problem(ns_score, where):
        problems.append(problem)
        return None
    section = row.get("Section") or ""
    # A TotalScoreTable without a Section column names pairs whose ids are unique across sections.
    found = [pairs.get((section, row[column])) or pairs.get(("", row[column])) for column in ("PairId_NS", "PairId_EW")]
    if None in found:
        unknown = [row[column] for column, pair in zip(("PairId_NS", "PairId_EW"), found, strict=True) if pair is None]
        problems.append(Problem(where, f"pair {', '.join(unknown)} is not in the TotalScoreTable."))
        return None
    return Traveller(board=board, ns=found[0], ew=found[1], ns_score=ns_score)


def pbn_plan(text: str) -> ImportPlan:
    plan = ImportPlan()
    meta: dict[str, str] = {}
    games = _games(text, meta, plan.problems)
    if not any("ScoreTable" in game.tables for game in games):
        plan.problems.append(Problem("file", "no ScoreTable: this is not a PBN results file."))
        return plan
    for game in games:
        line, competition = game.tags.get("Competition", (0, "Pairs"))
        if competition.strip().lower() not in ("", "pairs", "#"):
            plan.problems.append(Problem(f"line {line}", f"a {competition} event: only pairs events import."))
            return plan
    pairs = _pairs(games, plan.problems)
    day = _session_day(games, meta, plan.problems)
    travellers = _travellers(games, pairs, plan.problems)
    if plan.blocking or day is None:
        return plan
    body = session_body(travellers, session_time(day, _session_clock(games)), "session", plan.problems)
    if body is not None:
        plan.results.append(body)
    return plan
