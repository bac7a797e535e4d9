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
from fractions import Fraction

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.bridge.scoring import vulnerability_parse
from games.bridge.travellers import (
    Bye,
    Pair,
    Session,
    Traveller,
    adjusted_codes,
    decimals,
    direction_of,
    federation_id,
    fewer_results_convention,
    lead_card,
    pair_split,
    played_line,
    printed_number,
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
BUTLER = re.compile(r"butler-([0-9]+)", re.IGNORECASE)
CLOCK = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")

#: ScoreTable columns of events that are not pairs: a pairs importer refuses them.
NOT_PAIRS = {
    "PlayerId_North": gettext_lazy("an individual event"),
    "TeamId_Home": gettext_lazy("a team event"),
    "TeamId_NS": gettext_lazy("a team event"),
}
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


def _line(number: int) -> str:
    """Where a problem is: a line of the file, in the reader's language."""
    return _("line %(number)d") % {"number": number}


def pbn_decode(data: bytes) -> str:
    """The file's text: a byte-order mark or a ``%Content-type: ...; charset=`` hint first, then strict
    UTF-8 (Ruter i Norge writes it without a mark), then Windows-1252 (Magic Contest, older Ruter).
    Raises ValueError when no reading fits (NUL bytes, UTF-16 without a mark, bytes cp1252 lacks)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    if b"\x00" in data:
        raise ValueError(_("The file has NUL bytes: it is binary, or UTF-16 without a byte-order mark, not PBN text."))
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
    raise ValueError(_("The file is neither UTF-8 nor Windows-1252 text."))


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
                problems.append(Problem(_line(number), _('not a PBN tag ([Name "value"]).')))
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
                        _line(number),
                        _("a table row with %(count)d values was expected: %(row)r")
                        % {"count": len(table.columns), "row": stripped[:80]},
                    )
                )
                continue
            table.rows.append((number, row))
    return games


def _total_table(games: list[Game]) -> Table | None:
    return next((game.tables["TotalScoreTable"] for game in games if "TotalScoreTable" in game.tables), None)


def _pairs(games: list[Game], problems: list[Problem]) -> tuple[dict[tuple[str, str, str], Pair], bool]:
    """Every pair by (section, pair id, direction in a Mitchell else "") from the TotalScoreTable: "A - B"
    names and MemberID1/2; and whether the movement is a Mitchell (a pair id named once per direction)."""
    total = _total_table(games)
    if total is None:
        problems.append(Problem(_("file"), _("no TotalScoreTable: the file does not name the pairs.")))
        return {}, False
    if "Names" not in total.columns:
        if "Name" in total.columns:
            why = _("the TotalScoreTable has an individual event (Name, not Names): only pairs events import.")
        else:
            why = _("the TotalScoreTable has no Names column: only pairs events import.")
        problems.append(Problem(_line(total.line), why))
        return {}, False
    if "PairId" not in total.columns:
        problems.append(Problem(_line(total.line), _("the TotalScoreTable has no PairId column.")))
        return {}, False
    rows = [(number, dict(zip(total.columns, values, strict=True))) for number, values in total.rows]
    seen: dict[tuple[str, str], set] = {}
    for _number, row in rows:
        seen.setdefault((row.get("Section") or "", row.get("PairId") or ""), set()).add(
            direction_of(row.get("Direction"))
        )
    mitchell = any(len(directions - {None}) > 1 for directions in seen.values())
    pairs: dict[tuple[str, str, str], Pair] = {}
    for number, row in rows:
        ids = (federation_id(row.get("MemberID1")), federation_id(row.get("MemberID2")))
        pair = pair_split(row.get("Names") or "", ids, _line(number))
        if isinstance(pair, Problem):
            problems.append(pair)
            continue
        direction = (direction_of(row.get("Direction")) or "") if mitchell else ""
        pairs[(row.get("Section") or "", row.get("PairId") or "", direction)] = pair
    return pairs, mitchell


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
    problems.append(
        Problem(_line(line) if line else _("file"), _('no session date (%(tag)s "YYYY.MM.DD").') % {"tag": name})
    )
    return None


def _session_clock(games: list[Game]) -> time | None:
    found = CLOCK.fullmatch(games[0].tags.get("Time", (0, ""))[1].strip()) if games else None
    try:
        return time(int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)) if found else None
    except ValueError:
        return None


@dataclass
class _Reading:
    """What the ScoreTables give: the lines, the byes, and what the rows say of the program's conventions."""

    travellers: list[Traveller] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    board_facts: dict[int, dict[str, str]] = field(default_factory=dict)
    points_column: str = ""  # "MP" or "IMP": the printed points' columns
    point_decimals: int = 0
    negative_points: bool = False  # an MP below zero: MPs printed as deviations from the average
    fractional_points: bool = False  # a played line's printed IMPs not whole: averaged cross-IMPs
    had_bye_rows: bool = False


def _board_facts(game: Game) -> dict[str, str]:
    """The board's dealer, vulnerability and deal, as far as its tags give them."""
    facts: dict[str, str] = {}
    dealer = game.tags.get("Dealer", (0, ""))[1].strip().upper()
    if len(dealer) == 1 and dealer in "NESW":
        facts["dealer"] = dealer
    if "Vulnerable" in game.tags and (vulnerability := vulnerability_parse(game.tags["Vulnerable"][1])):
        facts["vulnerability"] = vulnerability
    deal = game.tags.get("Deal", (0, ""))[1].strip()
    if deal:
        facts["deal"] = deal
    return facts


def _travellers(games: list[Game], pairs: dict, mitchell: bool, problems: list[Problem]) -> _Reading:
    reading = _Reading()
    for game in games:
        table = game.tables.get("ScoreTable")
        if table is None:
            continue
        not_pairs = next((what for column, what in NOT_PAIRS.items() if column in table.columns), None)
        missing = [column for column in NEEDED if column not in table.columns]
        if not_pairs or missing:
            if not_pairs:
                why = _("the ScoreTable has %(what)s: only pairs events import.") % {"what": not_pairs}
            else:
                why = _("the ScoreTable has no %(columns)s column.") % {"columns": ", ".join(missing)}
            problems.append(Problem(_line(table.line), why))
            continue
        board_line, board_text = game.tags.get("Board", (table.line, ""))
        if not board_text.strip().isdigit() or not 0 < int(board_text) <= 10_000:
            problems.append(
                Problem(_line(board_line), _("the board number %(number)r is not a number.") % {"number": board_text})
            )
            continue
        board = int(board_text)
        reading.board_facts[board] = _board_facts(game)
        kind = next((name for name in ("MP", "IMP") if f"{name}_NS" in table.columns), "")
        reading.points_column = reading.points_column or kind
        for number, values in table.rows:
            row = dict(zip(table.columns, values, strict=True))
            where = _("line %(line)d (board %(board)d)") % {"line": number, "board": board}
            _traveller(row, board, where, (pairs, mitchell, kind), reading, problems)
    return reading


def _traveller(row: dict, board: int, where: str, context: tuple, reading: _Reading, problems: list[Problem]) -> None:
    """One ScoreTable row: a bye (``"Bye"``, or a pair id ``-``: a phantom's opponents), an adjusted score
    (``A+``, ``A-``, ``A=``, split or paired), or a played score, its contract checked against it. A
    passed-out board is ``"0"``: played."""
    pairs, mitchell, kind = context
    ns_raw, ew_raw = row["Score_NS"], row["Score_EW"]
    ns_id, ew_id = row["PairId_NS"], row["PairId_EW"]
    section = row.get("Section") or None
    printed = {side: (row.get(f"{kind}_{side.upper()}") if kind else None) for side in ("ns", "ew")}
    if "BYE" in {(value or "").upper() for value in (ns_raw, ew_raw)} or ns_id is None or ew_id is None:
        reading.had_bye_rows = True
        present = [(side, pair_id) for side, pair_id in (("ns", ns_id), ("ew", ew_id)) if pair_id is not None]
        if not present:
            problems.append(Problem(where, _("a row without a pair: nothing to keep."), False))
        for side, pair_id in present:
            points = printed_number(printed[side])
            reading.byes.append(Bye(board, pair_id, section, side.upper() if mitchell else None, points))
        return
    found = [_pair(pairs, section, pair_id, side, mitchell) for side, pair_id in (("NS", ns_id), ("EW", ew_id))]
    if None in found:
        unknown = [pair_id for pair_id, pair in zip((ns_id, ew_id), found, strict=True) if pair is None]
        problems.append(
            Problem(where, _("pair %(pair)s is not in the TotalScoreTable.") % {"pair": ", ".join(unknown)})
        )
        return
    line = {"board": board, "ns": found[0], "ew": found[1], "section": section, "ns_pair": ns_id, "ew_pair": ew_id}
    if codes := adjusted_codes(ns_raw, ew_raw):
        adjusted = {"ns": codes[0], "ew": codes[1]}
        adjusted |= {f"{side}_points": printed_number(printed[side]) for side in ("ns", "ew")}
        reading.travellers.append(Traveller(**line, adjusted=adjusted))
        return
    scores = [value for value in (ns_raw, ew_raw) if value is not None]
    if not scores:
        problems.append(Problem(where, _("no score: the board was not played at this table."), False))
        return
    if not all(SCORE.fullmatch(value) for value in scores):
        problems.append(Problem(where, _("the score %(ns)s / %(ew)s is not a number.") % {"ns": ns_raw, "ew": ew_raw}))
        return
    ns_score = int(ns_raw or 0) - int(ew_raw or 0)
    if problem := score_problem(ns_score, where):
        problems.append(problem)
        return
    vulnerability = reading.board_facts.get(board, {}).get("vulnerability")
    play = played_line(
        board=board,
        contract=row.get("Contract") or "",
        declarer=row.get("Declarer") or "",
        tricks=row.get("Result") or "",
        score=ns_score,
        vulnerability=vulnerability,
        where=where,
        problems=problems,
    )
    if play is None:
        return
    ns_points = printed_number(printed["ns"])
    for value in (printed["ns"], printed["ew"]):
        if printed_number(value) is not None:
            reading.point_decimals = max(reading.point_decimals, decimals(value))
            reading.negative_points |= kind == "MP" and printed_number(value) < 0
            reading.fractional_points |= kind == "IMP" and printed_number(value) != int(printed_number(value))
    reading.travellers.append(
        Traveller(
            **line,
            ns_score=ns_score,
            lead=lead_card(row.get("Lead")),
            printed=Fraction(str(ns_points)) if ns_points is not None else None,
            **play,
        )
    )


def _pair(pairs: dict, section: str | None, pair_id: str, side: str, mitchell: bool) -> Pair | None:
    direction = side if mitchell else ""
    # A TotalScoreTable without a Section column names pairs whose ids are unique across sections.
    return pairs.get((section or "", pair_id, direction)) or pairs.get(("", pair_id, direction))


def _scoring(games: list[Game], meta: dict[str, str]) -> tuple[str | None, str]:
    """The scoring (standings' word) and the file's own words for it: ``[Scoring]``, else META ScoringType."""
    words = next((game.tags["Scoring"][1] for game in games if "Scoring" in game.tags), meta.get("ScoringType", ""))
    lowered = words.strip().lower()
    if lowered.startswith(("matchpoint", "mp")):
        return "matchpoints", words
    if "butler" in lowered:
        return "butler", words
    if "cross" in lowered:
        return "cross_imps", words
    if lowered.startswith("imp"):
        return "imps", words
    return None, words


def _options(scoring: str | None, words: str, games: list[Game], reading: _Reading, generator: str) -> dict:
    """The program's conventions (``games.bridge.standings``), from what the file says: see
    docs/bridge-files.md for each rule and the file that showed it."""
    options: dict = {}
    total = _total_table(games)
    rows = [dict(zip(total.columns, values, strict=True)) for _, values in total.rows] if total else []
    sections = {row.get("Section") for row in rows if row.get("Section")}
    if len(sections) > 1 and all(row.get("Rank") for row in rows):
        firsts = {row.get("Section") for row in rows if row.get("Rank") == "1"}
        options["sections"] = "together" if len(firsts) == 1 else "apart"
    if scoring != "matchpoints" and total and "TotalScoreIMP" in total.columns:  # the IMPs, as printed
        options["total_decimals"] = max((decimals(row.get("TotalScoreIMP")) for row in rows), default=2)
    if any(row.get("Tiebreak") for row in rows):
        options["tiebreak"] = "head_to_head"
    if reading.had_bye_rows:
        options["bye_points"] = "average"
    if scoring == "matchpoints":
        options["mp_points"] = "deviation" if reading.negative_points else "raw"
        # Magic Contest France totals the board MPs it printed (one decimal): 7 of file 1's 44 percentages
        # differ from the exact MPs'. Ruter totals the exact MPs: 2 of file 2's 36 differ from the printed ones'.
        if reading.points_column == "MP" and "france" in generator.lower():
            options["board_decimals"] = reading.point_decimals
        if convention := fewer_results_convention(reading.travellers, options):
            options["fewer_results"] = convention
    elif scoring == "cross_imps":
        options["cross_imps"] = "average" if reading.fractional_points else "sum"
    elif scoring == "butler":
        found = BUTLER.search(words)
        options["butler_drop"] = int(found.group(1)) if found else 1
        options["butler_datum"] = "median" if "median" in words.lower() else "mean"
    return options


def pbn_plan(text: str) -> ImportPlan:
    plan = ImportPlan()
    meta: dict[str, str] = {}
    games = _games(text, meta, plan.problems)
    if not any("ScoreTable" in game.tables for game in games):
        plan.problems.append(Problem(_("file"), _("no ScoreTable: this is not a PBN results file.")))
        return plan
    for game in games:
        line, competition = game.tags.get("Competition", (0, "Pairs"))
        if competition.strip().lower() not in ("", "pairs", "#"):
            plan.problems.append(
                Problem(_line(line), _("a %(kind)s event: only pairs events import.") % {"kind": competition})
            )
            return plan
    pairs, mitchell = _pairs(games, plan.problems)
    day = _session_day(games, meta, plan.problems)
    reading = _travellers(games, pairs, mitchell, plan.problems)
    if plan.blocking or day is None:
        return plan
    scoring, words = _scoring(games, meta)
    session = Session(
        scoring=scoring,
        scoring_options=_options(scoring, words, games, reading, meta.get("Generator", "")),
        movement="mitchell" if mitchell else "howell",
        event=next((game.tags["Event"][1].strip() for game in games if "Event" in game.tags), ""),
        boards=reading.board_facts,
    )
    played_at = session_time(day, _session_clock(games))
    body = session_body(reading.travellers, played_at, "session", plan.problems, byes=reading.byes, session=session)
    if body is not None:
        plan.results.append(body)
    return plan
