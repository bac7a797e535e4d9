"""Reading a USEBIO 1.2 XML results file into travellers, with defusedxml.

USEBIO (the EBU's results exchange format) nests EVENT / SESSION / SECTION,
each with PARTICIPANTS (PAIR, PLAYER) and BOARDs of TRAVELLER_LINEs; Compscore
and ScoreBridge leave out SESSION and SECTION and put PARTICIPANTS and BOARD
directly under EVENT. Both are read: every SESSION (or the EVENT itself) is a
session, its SECTIONs (or itself) its sections, pairs keyed by (section, pair
number). The XML is parsed by defusedxml, which refuses entity declarations
and external references; the DOCTYPE's DTD is never loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring
from django.utils.translation import gettext as _

from games.bridge.scoring import vulnerability_parse
from games.bridge.travellers import (
    Bye,
    Pair,
    Session,
    Traveller,
    adjusted_codes,
    direction_of,
    federation_id,
    fewer_results_convention,
    lead_card,
    played_line,
    printed_number,
    score_problem,
    session_body,
    session_time,
)
from games.imports import ImportPlan, PlayerRef, Problem

SCORE = re.compile(r"-?[0-9]+")
DAY = re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")
ISO_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def _text(element: Element, name: str) -> str:
    child = element.find(name)
    return (child.text or "").strip() if child is not None else ""


def usebio_root(data: bytes) -> Element:
    """The USEBIO element, or ValueError saying why not: not XML, truncated, a wrong encoding, an
    entity declaration (billion laughs) or an external reference, another root."""
    try:
        root = fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as error:
        raise ValueError(
            _("The XML declares entities or external references, which are refused: %(error)s.") % {"error": error}
        ) from error
    except ParseError as error:
        raise ValueError(
            _("Not readable XML (truncated, or not in its declared encoding?): %(error)s.") % {"error": error}
        ) from error
    if root.tag != "USEBIO":
        raise ValueError(_("The root element is <%(tag)s>, not <USEBIO>: not a USEBIO file.") % {"tag": root.tag})
    return root


def _day(text: str) -> date | None:
    found = DAY.fullmatch(text)
    parts = (found.group(3), found.group(2), found.group(1)) if found else None
    if found is None and (iso := ISO_DAY.fullmatch(text)):
        parts = iso.groups()
    try:
        return date(*map(int, parts)) if parts else None
    except ValueError:
        return None


PAIR_NUMBER = re.compile(r"([0-9A-Za-z]*?[0-9]+)\s*(NS|EW|N|E)?", re.IGNORECASE)
HAND_DIRECTIONS = {"N": "N", "NORTH": "N", "E": "E", "EAST": "E", "S": "S", "SOUTH": "S", "W": "W", "WEST": "W"}
#: EVENT_TYPE, then SCORING_METHOD, in standings' words.
SCORINGS = {
    "MP_PAIRS": "matchpoints",
    "CROSS_IMP": "cross_imps",
    "BUTLER_PAIRS": "butler",
    "IMP_PAIRS": "imps",
    "MATCHPOINTS": "matchpoints",
    "MATCH_POINTS": "matchpoints",
    "CROSS_IMPS": "cross_imps",
    "BUTLER": "butler",
    "IMPS": "imps",
}


def _pair_number(text: str, direction: str = "") -> tuple[str, str]:
    """A pair number as the body keeps it and its direction: Compscore's "1NS" is pair "1" of the NS line,
    as is "1" with DIRECTION "NS" (or "N-S"); a Howell's "3" has none ("")."""
    value = text.strip().upper()
    found = PAIR_NUMBER.fullmatch(value)
    side = direction_of(direction) or ""
    if found is None:
        return value, side
    suffix = found.group(2)
    if suffix:
        side = "NS" if suffix.startswith("N") else "EW"
    return found.group(1), side


def _pairs(section: Element, where: str, problems: list[Problem]) -> tuple[dict[tuple[str, str], Pair], bool]:
    """The section's pairs by (number, direction: "" in a Howell), and whether they sit a Mitchell."""
    pairs: dict[tuple[str, str], Pair] = {}
    mitchell = False
    for participants in section.findall("PARTICIPANTS"):
        if participants.find("TEAM") is not None or participants.find("PLAYER") is not None:
            problems.append(
                Problem(f"{where}/PARTICIPANTS", _("a team or individual event: only pairs events import."))
            )
            return {}, False
        for index, element in enumerate(participants.findall("PAIR"), start=1):
            number = _text(element, "PAIR_NUMBER")
            players = element.findall("PLAYER")
            names = [_text(player, "PLAYER_NAME") for player in players]
            if not number or len(players) != 2 or not all(names):
                problems.append(
                    Problem(f"{where}/PARTICIPANTS/PAIR {index}", _("a pair is a PAIR_NUMBER and two named PLAYERs."))
                )
                continue
            pair = tuple(
                PlayerRef(name, federation_id(_text(player, "NATIONAL_ID_NUMBER")))
                for name, player in zip(names, players, strict=True)
            )
            key = _pair_number(number, _text(element, "DIRECTION"))
            mitchell |= bool(key[1])
            pairs[key] = pair
    return pairs, mitchell


def _pair(pairs: dict[tuple[str, str], Pair], number: str, side: str, mitchell: bool) -> Pair | None:
    return pairs.get((number, side if mitchell else "")) or pairs.get((number, ""))


def _points(line: Element, side: str) -> tuple[str, int | float | None]:
    """The points the program printed for a side of a line (NS_MATCH_POINTS, NS_CROSS_IMP_POINTS ...)."""
    for child in line:
        if child.tag.startswith(f"{side}_") and child.tag.endswith("_POINTS"):
            text = (child.text or "").strip()
            return text, printed_number(text)
    return "", None


@dataclass
class _Reading:
    travellers: list[Traveller] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    fractional_imps: bool = False  # a played line's printed IMPs not whole: averaged cross-IMPs
    negative_points: bool = False


def _traveller(line: Element, board: int, where: str, context: tuple, reading: _Reading, problems: list) -> None:
    """One TRAVELLER_LINE: a bye (one pair number missing), an artificial score (``A5050``, ``A6040``, with
    its printed points, which stand even where they are not the code's), or a played score, its contract
    checked against it. PASS scores 0: played."""
    pairs, mitchell, section, kind, facts = context
    ns_text, ew_text = _text(line, "NS_PAIR_NUMBER"), _text(line, "EW_PAIR_NUMBER")
    score = _text(line, "SCORE")
    where = f"{where} ({ns_text or '-'} v {ew_text or '-'})"
    (ns_printed, ns_points), ew_points = _points(line, "NS"), _points(line, "EW")[1]
    if not ns_text or not ew_text:
        present = [
            (side, text, points)
            for side, text, points in (("NS", ns_text, ns_points), ("EW", ew_text, ew_points))
            if text
        ]
        if not present:
            problems.append(Problem(where, _("a line without a pair: nothing to keep."), False))
        for side, text, points in present:
            number, _side = _pair_number(text, side)
            reading.byes.append(Bye(board, number, section, side if mitchell else None, points))
        return
    (ns_number, _ns_side), (ew_number, _ew_side) = _pair_number(ns_text, "NS"), _pair_number(ew_text, "EW")
    ns, ew = _pair(pairs, ns_number, "NS", mitchell), _pair(pairs, ew_number, "EW", mitchell)
    if ns is None or ew is None:
        unknown = ns_text if ns is None else ew_text
        problems.append(Problem(where, _("pair %(pair)s is not among the PARTICIPANTS.") % {"pair": unknown}))
        return
    row = {"board": board, "ns": ns, "ew": ew, "section": section, "ns_pair": ns_number, "ew_pair": ew_number}
    if codes := adjusted_codes(score, None):
        adjusted = {"ns": codes[0], "ew": codes[1], "ns_points": ns_points, "ew_points": ew_points}
        reading.travellers.append(Traveller(**row, adjusted=adjusted))
        return
    if not score:
        problems.append(Problem(where, _("no score: the board was not played at this table."), False))
        return
    if not SCORE.fullmatch(score):
        problems.append(Problem(where, _("the score %(score)r is not a number.") % {"score": score}))
        return
    if problem := score_problem(int(score), where):
        problems.append(problem)
        return
    play = played_line(
        board=board,
        contract=_text(line, "CONTRACT"),
        declarer=_text(line, "PLAYED_BY"),
        tricks=_text(line, "TRICKS"),
        score=int(score),
        vulnerability=facts.get(board, {}).get("vulnerability"),
        where=where,
        problems=problems,
    )
    if play is None:
        return
    for points in (ns_points, ew_points):
        if points is not None:
            reading.fractional_imps |= "IMP" in kind and points != int(points)
            reading.negative_points |= "MATCH" in kind and points < 0
    printed = Fraction(ns_printed) if ns_points is not None else None
    reading.travellers.append(
        Traveller(**row, ns_score=int(score), lead=lead_card(_text(line, "LEAD")), printed=printed, **play)
    )


def _deals(root: Element) -> dict[int, dict[str, str]]:
    """Each board's deal from a HANDSET (a BOARD of four HANDs, each a DIRECTION and its suits) as PBN's
    deal text "N:spades.hearts.diamonds.clubs ..." (North, East, South, West), and its DEALER and
    VULNERABILITY where given."""
    facts: dict[int, dict[str, str]] = {}
    for handset in [*root.iter("HANDSET")]:
        for board in handset.findall("BOARD"):
            number = _text(board, "BOARD_NUMBER")
            if not number.isdigit():
                continue
            hands = {}
            for hand in board.findall("HAND"):
                seat = HAND_DIRECTIONS.get(_text(hand, "DIRECTION").upper())
                suits = [
                    _text(hand, suit).upper().replace("10", "T") for suit in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")
                ]
                if seat and sum(len(suit) for suit in suits) == 13:
                    hands[seat] = ".".join(suits)
            board_facts: dict[str, str] = {}
            if len(hands) == 4:
                board_facts["deal"] = "N:" + " ".join(hands[seat] for seat in "NESW")
            dealer = HAND_DIRECTIONS.get(_text(board, "DEALER").upper())
            if dealer:
                board_facts["dealer"] = dealer
            if vulnerability := vulnerability_parse(_text(board, "VULNERABILITY")):
                board_facts["vulnerability"] = vulnerability
            facts[int(number)] = board_facts
    return facts


def _scoring(event: Element) -> str | None:
    for word in (event.get("EVENT_TYPE", ""), _text(event, "SCORING_METHOD")):
        if scoring := SCORINGS.get(word.strip().upper()):
            return scoring
    return None


def _options(scoring: str | None, reading: _Reading) -> dict:
    """The program's conventions (``games.bridge.standings``) its printed points show."""
    options: dict = {}
    if scoring == "matchpoints":
        options["mp_points"] = "deviation" if reading.negative_points else "raw"
        if convention := fewer_results_convention(reading.travellers, options):
            options["fewer_results"] = convention
    elif scoring == "cross_imps":
        options["cross_imps"] = "average" if reading.fractional_imps else "sum"
    return options


def _section_name(section: Element, position: int, count: int) -> str | None:
    name = _text(section, "SECTION_ID") or _text(section, "SECTION_NAME") or section.get("SECTION_ID", "")
    return name or (str(position) if count > 1 else None)


def _session(session: Element, event: Element, where: str, plan: ImportPlan, deals: dict) -> None:
    problems = plan.problems
    day = _day(_text(session, "DATE") or _text(event, "DATE"))
    if day is None:
        problems.append(Problem(where, _("no session date (DATE, DD/MM/YYYY).")))
    reading = _Reading()
    sections = session.findall("SECTION") or [session]
    scoring = _scoring(event)
    mitchell = False
    for position, section in enumerate(sections, start=1):
        section_where = f"{where}/SECTION {position}" if section is not session else where
        name = _section_name(section, position, len(sections)) if section is not session else None
        named_by = next((e for e in (section, session, event) if e.find("PARTICIPANTS") is not None), section)
        pairs, section_mitchell = _pairs(named_by, section_where, problems)
        mitchell |= section_mitchell
        for board_element in section.findall("BOARD"):
            number = _text(board_element, "BOARD_NUMBER")
            if not number.isdigit() or not 0 < int(number) <= 10_000:
                problems.append(
                    Problem(
                        f"{section_where}/BOARD", _("the BOARD_NUMBER %(number)r is not a number.") % {"number": number}
                    )
                )
                continue
            kind = "IMP" if scoring in ("cross_imps", "butler", "imps") else "MATCH"
            for index, line in enumerate(board_element.findall("TRAVELLER_LINE"), start=1):
                line_where = f"{section_where}/BOARD {number}/TRAVELLER_LINE {index}"
                context = (pairs, section_mitchell, name, kind, deals)
                _traveller(line, int(number), line_where, context, reading, problems)
    if plan.blocking or day is None:
        return
    facts = Session(
        scoring=scoring,
        scoring_options=_options(scoring, reading),
        movement="mitchell" if mitchell else "howell",
        event=_text(event, "EVENT_DESCRIPTION") or _text(event, "TITLE") or _text(event, "EVENT_NAME"),
        boards=deals,
    )
    body = session_body(reading.travellers, session_time(day), where, problems, byes=reading.byes, session=facts)
    if body is not None:
        plan.results.append(body)


def usebio_plan(root: Element) -> ImportPlan:
    plan = ImportPlan()
    events = root.findall("EVENT")
    if not events:
        plan.problems.append(Problem("USEBIO", _("no EVENT element.")))
    deals = _deals(root)
    for position, event in enumerate(events, start=1):
        kind = event.get("EVENT_TYPE", "").upper()
        where = f"EVENT {position}"
        if "TEAM" in kind or "INDIVIDUAL" in kind:
            plan.problems.append(Problem(where, _("a %(kind)s event: only pairs events import.") % {"kind": kind}))
            continue
        sessions = event.findall("SESSION") or [event]
        for index, session in enumerate(sessions, start=1):
            _session(session, event, f"{where}/SESSION {index}" if session is not event else where, plan, deals)
    return plan
