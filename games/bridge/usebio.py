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
from datetime import date
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from games.bridge.travellers import (
    Pair,
    Traveller,
    federation_id,
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
        raise ValueError(f"The XML declares entities or external references, which are refused: {error}.") from error
    except ParseError as error:
        raise ValueError(f"Not readable XML (truncated, or not in its declared encoding?): {error}.") from error
    if root.tag != "USEBIO":
        raise ValueError(f"The root element is <{root.tag}>, not <USEBIO>: not a USEBIO file.")
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


def _pair_key(number: str, direction: str) -> str:
    """The key a traveller names a pair by: its number as written ("1NS" in a Compscore Mitchell, "3" in
    a Howell), or a plain number with its direction ("1" + "NS"): a Mitchell numbers each line from 1."""
    side = direction.upper().replace("-", "").replace("/", "")
    return number.upper() + side if number.isdigit() and side else number.upper()


def _pairs(section: Element, where: str, problems: list[Problem]) -> dict[str, Pair]:
    pairs: dict[str, Pair] = {}
    for participants in section.findall("PARTICIPANTS"):
        if participants.find("TEAM") is not None or participants.find("PLAYER") is not None:
            problems.append(Problem(f"{where}/PARTICIPANTS", "a team or individual event: only pairs events import."))
            return {}
        for index, element in enumerate(participants.findall("PAIR"), start=1):
            number = _text(element, "PAIR_NUMBER")
            players = element.findall("PLAYER")
            names = [_text(player, "PLAYER_NAME") for player in players]
            if not number or len(players) != 2 or not all(names):
                problems.append(
                    Problem(f"{where}/PARTICIPANTS/PAIR {index}", "a pair is a PAIR_NUMBER and two named PLAYERs.")
                )
                continue
            pair = tuple(
                PlayerRef(name, federation_id(_text(player, "NATIONAL_ID_NUMBER")))
                for name, player in zip(names, players, strict=True)
            )
            pairs[_pair_key(number, _text(element, "DIRECTION"))] = pair
    return pairs


def _pair(pairs: dict[str, Pair], number: str, side: str) -> Pair | None:
    return pairs.get(_pair_key(number, side)) or pairs.get(number.upper())


def _traveller(line: Element, board: int, where: str, pairs: dict, problems: list[Problem]) -> Traveller | None:
    """One TRAVELLER_LINE as a played table, or None with the problem: an artificial score (``A5050``,
    ``A6040``: its supplied points stand, but there was no play), a bye, no score. PASS scores 0: played."""
    ns_number, ew_number = _text(line, "NS_PAIR_NUMBER"), _text(line, "EW_PAIR_NUMBER")
    score = _text(line, "SCORE")
    where = f"{where} ({ns_number or '-'} v {ew_number or '-'})"
    if score.upper().startswith("A"):
        problems.append(Problem(where, f"an adjusted score ({score}) is not a rated duel.", False))
        return None
    if not ns_number or not ew_number:
        problems.append(Problem(where, "a bye (a pair without opponents) is not a rated duel.", False))
        return None
    if not score:
        problems.append(Problem(where, "no score: the board was not played at this table.", False))
        return None
    if not SCORE.fullmatch(score):
        problems.append(Problem(where, f"the score {score!r} is not a number."))
        return None
    if problem := score_problem(int(score), where):
        problems.append(problem)
        return None
    ns, ew = _pair(pairs, ns_number, "NS"), _pair(pairs, ew_number, "EW")
    if ns is None or ew is None:
        unknown = ns_number if ns is None else ew_number
        problems.append(Problem(where, f"pair {unknown} is not among the PARTICIPANTS."))
        return None
    return Traveller(board=board, ns=ns, ew=ew, ns_score=int(score))


def _session(session: Element, event: Element, where: str, plan: ImportPlan) -> None:
    problems = plan.problems
    day = _day(_text(session, "DATE") or _text(event, "DATE"))
    if day is None:
        problems.append(Problem(where, "no session date (DATE, DD/MM/YYYY)."))
    travellers: list[Traveller] = []
    sections = session.findall("SECTION") or [session]
    for position, section in enumerate(sections, start=1):
        section_where = f"{where}/SECTION {position}" if section is not session else where
        named_by = next((e for e in (section, session, event) if e.find("PARTICIPANTS") is not None), section)
        pairs = _pairs(named_by, section_where, problems)
        for board_element in section.findall("BOARD"):
            number = _text(board_element, "BOARD_NUMBER")
            if not number.isdigit() or not 0 < int(number) <= 10_000:
                problems.append(Problem(f"{section_where}/BOARD", f"the BOARD_NUMBER {number!r} is not a number."))
                continue
            for index, line in enumerate(board_element.findall("TRAVELLER_LINE"), start=1):
                line_where = f"{section_where}/BOARD {number}/TRAVELLER_LINE {index}"
                traveller = _traveller(line, int(number), line_where, pairs, problems)
                if traveller is not None:
                    travellers.append(traveller)
    if plan.blocking or day is None:
        return
    body = session_body(travellers, session_time(day), where, problems)
    if body is not None:
        plan.results.append(body)


def usebio_plan(root: Element) -> ImportPlan:
    plan = ImportPlan()
    events = root.findall("EVENT")
    if not events:
        plan.problems.append(Problem("USEBIO", "no EVENT element."))
    for position, event in enumerate(events, start=1):
        kind = event.get("EVENT_TYPE", "").upper()
        where = f"EVENT {position}"
        if "TEAM" in kind or "INDIVIDUAL" in kind:
            plan.problems.append(Problem(where, f"a {kind} event: only pairs events import."))
            continue
        sessions = event.findall("SESSION") or [event]
        for index, session in enumerate(sessions, start=1):
            _session(session, event, f"{where}/SESSION {index}" if session is not event else where, plan)
    return plan
