"""What the bridge readers share: a traveller row, and a session of rows as one bridge result body.

Both readers (``games.bridge.pbn``, ``games.bridge.usebio``) reduce a file to
the travellers of each session: one row per table a board was at, its NS and
EW pairs as ``PlayerRef`` people with their numbers and section, and either
NS's played score (with the contract, declarer, tricks and lead where the file
has them) or the adjusted score the director gave; and the byes, a pair's
points on a board it had no opponents for. A session becomes one body in the
shape ``POST /api/matches/`` takes for bridge (``bridge_clean``), extended with
what the scorer knows: the scoring and its program's conventions
(``scoring_options``, defined in ``games.bridge.standings``), the movement,
the event's name, each board's dealer, vulnerability and deal. Several
sections of one session are one session: their pairs played the same boards
at the same time, and a match is the evening, not a room; each table keeps its
section.

Vocabulary: a *traveller line* is one table's row of a board; *printed
points* are the MPs or IMPs the scoring program wrote on it, read here only
to keep an adjusted row's and a bye's points and to tell which of the known
conventions the program followed (never to replace a played score's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.bridge.results import BRIDGE_MAX_BOARDS, BRIDGE_MAX_TABLES, BRIDGE_SCORE_LIMIT
from games.bridge.scoring import DIRECTIONS, contract_parse, ns_score
from games.bridge.standings import matchpoints
from games.imports import ImportPlan, PlayerRef, Problem, ProblemList

#: Larger than any real session file (the biggest of the eight real ones is 240 KB, hand records
#: included); refused before reading, so a hostile 50 MB file costs nothing.
IMPORT_MAX_BYTES = 5_000_000

#: Problems of each kind (blocking, notes) a plan lists before it only counts the rest.
PROBLEMS_SHOWN = 100

Pair = tuple[PlayerRef, PlayerRef]


#: The longest event name a body keeps.
EVENT_MAX = 200

_ADJUSTED = re.compile(r"A([+=-]?)([0-9]{2})?([0-9]{2})?", re.IGNORECASE)
_LEAD_RANKS = "AKQJT98765432"
#: The first letter of a direction word: North, East, Ost (Ö), South, West, Zuid.
_DIRECTION_LETTERS = "NEOÖSWZ"


@dataclass(frozen=True)
class Traveller:
    """One table of one board: a played score (``ns_score``) or an adjusted one (``adjusted``)."""

    board: int
    ns: Pair
    ew: Pair
    ns_score: int | None = None
    adjusted: dict | None = None
    section: str | None = None
    ns_pair: str = ""
    ew_pair: str = ""
    contract: str = ""
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""
    #: The MPs or IMPs the program printed for NS on a played line: read to tell its conventions.
    printed: Fraction | None = field(default=None, compare=False)

    def table(self) -> dict[str, Any]:
        """The line as a body's table: only what the file gave."""
        row: dict[str, Any] = {"ns": list(self.ns), "ew": list(self.ew)}
        if self.adjusted is not None:
            row["adjusted"] = dict(self.adjusted)
        else:
            row["ns_score"] = self.ns_score
        row["section"] = self.section
        row["ns_pair"], row["ew_pair"] = self.ns_pair, self.ew_pair
        for name in ("contract", "declarer", "tricks", "lead"):
            value = getattr(self, name)
            if value not in ("", None):
                row[name] = value
        return row


@dataclass(frozen=True)
class Bye:
    """A pair's points on a board it had no opponents for (a phantom's or a missing pair's table)."""

    board: int
    pair: str
    section: str | None = None
    direction: str | None = None  # "NS" or "EW" in a Mitchell, else None
    points: int | float | None = None


@dataclass
class Session:
    """What a reader knows of a session besides its lines: the body's session-level and board-level facts."""

    scoring: str | None = None
    scoring_options: dict[str, Any] = field(default_factory=dict)
    movement: str = "howell"
    event: str = ""
    #: Each board's "dealer", "vulnerability" and "deal", by number, as far as the file gives them.
    boards: dict[int, dict[str, str]] = field(default_factory=dict)


def printed_number(text: str | None) -> int | float | None:
    """A printed number ("24", "19.0", "-0.6", " 58.5") as an int when whole, else a float; None when not one."""
    value = (text or "").strip()
    try:
        parsed = Fraction(value)
    except (ValueError, ZeroDivisionError):
        return None
    return int(parsed) if parsed.denominator == 1 and "." not in value else float(value)


def decimals(text: str | None) -> int:
    """How many decimals a printed number has ("28.3": 1, "24": 0)."""
    value = (text or "").strip()
    return len(value.split(".", 1)[1]) if "." in value else 0


def adjusted_codes(ns_text: str | None, ew_text: str | None) -> tuple[Any, Any] | None:
    """The codes of an adjusted row, or None when it is not one: PBN's "A+", "A-", "A=" on each side,
    USEBIO's "A6040" (60 per cent to NS, 40 per cent to EW) in one. 60, 50 and 40 per cent read as A+, A= and A-."""

    def code(sign: str, percent: str | None) -> Any:
        if percent is not None:
            value = int(percent)
            return {60: "A+", 50: "A=", 40: "A-"}.get(value, value)
        return {"+": "A+", "-": "A-"}.get(sign, "A=")

    texts = [(text or "").strip() for text in (ns_text, ew_text)]
    found = [_ADJUSTED.fullmatch(text) for text in texts]
    if not any(found):
        return None
    if found[0] and found[0].group(3) is not None and not texts[1]:  # "A6040": both sides in one
        return code("", found[0].group(2)), code("", found[0].group(3))
    if found[0] and found[0].group(3) is not None and texts[1] == texts[0]:
        return code("", found[0].group(2)), code("", found[0].group(3))
    sides = []
    for match, text in zip(found, texts, strict=True):
        if match is None and text:
            return None
        sides.append(code(match.group(1), match.group(2)) if match else None)
    ns_code, ew_code = sides
    return ns_code or ew_code, ew_code or ns_code


def lead_card(text: str | None) -> str:
    """A lead as suit then rank ("SK", "HT"): PBN writes "S9", Compscore "9H" or "10H"."""
    value = (text or "").strip().upper().replace("10", "T")
    if len(value) == 2 and value[0] in "SHDC" and value[1] in _LEAD_RANKS:
        return value
    if len(value) == 2 and value[1] in "SHDC" and value[0] in _LEAD_RANKS:
        return value[1] + value[0]
    return ""


def direction_of(text: str | None) -> str | None:
    """ "NS" or "EW" from a file's direction words ("N-S", "E-W", Finnish "Ö-V", Dutch "N-Z", "O-W"), else None."""
    value = (text or "").strip().upper()
    if not value or value[0] not in _DIRECTION_LETTERS:
        return None
    return "NS" if value[0] in "NSZ" else "EW"


def played_line(
    *,
    board: int,
    contract: str,
    declarer: str,
    tricks: str,
    score: int,
    vulnerability: str | None,
    where: str,
    problems: list[Problem],
) -> dict[str, Any] | None:
    """A played line's contract, declarer and tricks as the body keeps them, checked against the printed
    score: a contract that is not one, or a score that is not the contract's, is a blocking problem (None)."""
    if not contract.strip():
        return {}
    parsed = contract_parse(contract)
    if parsed is None:
        problems.append(Problem(where, _("%(contract)r is not a contract.") % {"contract": contract}))
        return None
    if parsed.passed_out:
        if score != 0:
            problems.append(Problem(where, _("a passed-out board scores 0, not %(score)s.") % {"score": score}))
            return None
        return {"contract": "Pass"}
    who = declarer.strip().upper()
    taken = int(tricks) if tricks.strip().isdigit() else None
    if who not in DIRECTIONS or len(who) != 1 or taken is None or taken > 13:
        return {"contract": str(parsed), **({"declarer": who} if who in tuple(DIRECTIONS) else {})}
    expected = ns_score(parsed, who, taken, board=board, vulnerability=vulnerability)
    if expected != score:
        problems.append(
            Problem(
                where,
                _(
                    "%(contract)s by %(declarer)s taking %(tricks)s tricks scores %(expected)+d for NS, "
                    "not the printed %(score)+d."
                )
                % {"contract": parsed, "declarer": who, "tricks": taken, "expected": expected, "score": score},
            )
        )
        return None
    return {"contract": str(parsed), "declarer": who, "tricks": taken}


def fewer_results_convention(travellers: Iterable[Traveller], options: dict[str, Any]) -> str | None:
    """ "ties" or "neuberg": which way the program brought its short matchpoint boards to the top, told by
    the MPs it printed on them (a board with fewer played scores than the most tables any board had); None
    when no such board says."""
    boards: dict[tuple, list[Traveller]] = {}
    for row in travellers:
        field_name = None if options.get("sections") == "together" else row.section
        boards.setdefault((field_name, row.board), []).append(row)
    most: dict = {}
    for (field_name, _board), rows in boards.items():
        most[field_name] = max(most.get(field_name, 0), len(rows))
    verdict = None
    for (field_name, _board), rows in boards.items():
        played = [row for row in rows if row.adjusted is None and row.ns_score is not None]
        if len(played) == most[field_name] or not played or any(row.printed is None for row in played):
            continue
        shift = Fraction(most[field_name] - 1) if options.get("mp_points") == "deviation" else Fraction(0)
        printed = [row.printed + shift for row in played]
        close = {
            convention: all(
                abs(mine - theirs) <= Fraction(1, 10)
                for mine, theirs in zip(
                    matchpoints([row.ns_score for row in played], most[field_name], convention), printed, strict=True
                )
            )
            for convention in ("neuberg", "ties")
        }
        if close["ties"] and not close["neuberg"]:
            verdict = "ties"
        elif close["neuberg"] and not close["ties"]:
            return "neuberg"
    return verdict


def size_problem(data: bytes) -> Problem | None:
    if len(data) > IMPORT_MAX_BYTES:
        return Problem(
            _("file"),
            _("The file is %(size)s bytes; a session's results file is at most %(most)s.")
            % {
                "size": number_format(len(data), force_grouping=True),
                "most": number_format(IMPORT_MAX_BYTES, force_grouping=True),
            },
        )
    return None


def score_problem(score: int, where: str) -> Problem | None:
    """A played score the bridge cleaner would refuse, said where the file gives it."""
    if abs(score) > BRIDGE_SCORE_LIMIT or score % 10:
        return Problem(
            where,
            _("%(score)s is not a bridge score (a multiple of 10 within ±%(limit)s).")
            % {"score": score, "limit": number_format(BRIDGE_SCORE_LIMIT, force_grouping=True)},
        )
    return None


def pair_split(names: str, ids: tuple[str, str], where: str) -> Pair | Problem:
    """A pair's "First LAST - First LAST" as two people. Split on " - " only: names have hyphens."""
    people = [name.strip() for name in names.split(" - ")]
    if len(people) != 2 or not all(people):
        return Problem(where, _('"%(names)s" is not two names joined by " - ".') % {"names": names})
    return (PlayerRef(people[0], ids[0]), PlayerRef(people[1], ids[1]))


def federation_id(raw: str | None) -> str:
    """A member number as text, leading zeros kept. Magic Contest and Ruter mark guests "+4", "+520":
    a number per event, not a person's, so a guest is matched by name."""
    value = (raw or "").strip()
    return "" if value in ("", "-") or value.startswith("+") else value


def problems_capped(problems: ProblemList) -> ProblemList:
    """At most ``PROBLEMS_SHOWN`` blocking problems and as many notes, in file order, then a count of
    the rest: a hostile file of a million bad rows gives a preview a person can read. The plan kept at
    most ``PROBLEMS_KEPT`` of them while reading (``ProblemList``): those it only counted are in the count."""
    kept, counts = ProblemList(), {True: 0, False: 0}
    for problem in problems:
        counts[problem.blocking] += 1
        if counts[problem.blocking] <= PROBLEMS_SHOWN:
            kept.append(problem)
    left = len(problems) + getattr(problems, "more", 0) - len(kept)
    if left:
        more = ngettext("and %(count)s more problem like these.", "and %(count)s more problems like these.", left)
        kept.append(Problem(_("file"), more % {"count": number_format(left, force_grouping=True)}, False))
    return kept


def session_time(day: date, clock: time | None = None) -> str:
    """The session's start as ISO time: its clock time when the file has one, else noon, in the club's
    zone (``settings.TIME_ZONE``). Files give a date only; noon keeps the day whatever the zone."""
    zone = ZoneInfo(settings.TIME_ZONE)
    return datetime.combine(day, clock or time(12, 0), tzinfo=zone).isoformat()


def plan_about(plan: ImportPlan) -> dict[str, Any]:
    """What the file is, for the preview: the first session's event and date, and every session's sections,
    boards and pairs counted, its scoring."""
    if not plan.results:
        return {}
    first = plan.results[0]
    sections, pairs, boards = set(), set(), 0
    for body in plan.results:
        boards += len(body["boards"])
        mitchell = body.get("movement") == "mitchell"
        for board in body["boards"]:
            for table in board["tables"]:
                sections.add(table.get("section"))
                for side in ("ns", "ew"):
                    number = table.get(f"{side}_pair") or tuple(table[side])
                    pairs.add((table.get("section"), side if mitchell else "", number))
    return {
        "event": first.get("event", ""),
        "date": datetime.fromisoformat(first["played_at"]).date().isoformat(),
        "sections": len(sections),
        "boards": boards,
        "pairs": len(pairs),
        "scoring": first.get("scoring"),
    }


def session_body(
    travellers: list[Traveller],
    played_at: str,
    where: str,
    problems: list[Problem],
    *,
    byes: Iterable[Bye] = (),
    session: Session | None = None,
) -> dict | None:
    """The session's lines and byes as one bridge result body, board by board in number order.

    Every board a line or a bye names is kept, one played table or none included: the standings count it
    (the rating takes only boards with two played tables). No board at all, more boards than a session
    has or more tables than a board has are blocking.
    """
    session = session or Session()
    boards: dict[int, list[Traveller]] = {}
    for row in travellers:
        boards.setdefault(row.board, []).append(row)
    board_byes: dict[int, list[Bye]] = {}
    for bye in byes:
        board_byes.setdefault(bye.board, []).append(bye)
    numbers = sorted(set(boards) | set(board_byes))
    if not numbers:
        problems.append(Problem(where, _("no board has a score: nothing to import.")))
        return None
    if len(numbers) > BRIDGE_MAX_BOARDS:
        problems.append(
            Problem(
                where,
                _("%(count)d boards: a session has at most %(most)d.")
                % {"count": len(numbers), "most": BRIDGE_MAX_BOARDS},
            )
        )
        return None
    crowded = [number for number in numbers if len(boards.get(number, [])) > BRIDGE_MAX_TABLES]
    if crowded:
        problems.append(
            Problem(
                where,
                _("board %(number)d was played at more than %(most)d tables, the most a board has.")
                % {"number": crowded[0], "most": BRIDGE_MAX_TABLES},
            )
        )
        return None
    body_boards: list[dict[str, Any]] = []
    for number in numbers:
        board: dict[str, Any] = {"number": number, **session.boards.get(number, {})}
        board["tables"] = [row.table() for row in boards.get(number, [])]
        if number in board_byes:
            board["byes"] = [
                {"section": bye.section, "pair": bye.pair, "direction": bye.direction, "points": bye.points}
                for bye in board_byes[number]
            ]
        body_boards.append(board)
    body: dict[str, Any] = {"game": "bridge", "played_at": played_at, "boards": body_boards}
    if session.scoring:
        body["scoring"] = session.scoring
        body["scoring_options"] = dict(session.scoring_options)
    body["movement"] = session.movement
    if session.event:
        body["event"] = session.event[:EVENT_MAX]
    return body
