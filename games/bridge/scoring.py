"""Duplicate bridge scoring: a contract, its declarer and the tricks, as North-South's score.

Vocabulary: a *contract* is a level (1-7), a strain (C, D, H, S or N for
no trumps) and how far it was doubled (0, 1 = doubled, 2 = redoubled), or a
passed-out board (level 0). The *result* is given as the referee reads it off
a traveller: "=", "+1", "-2", or the tricks declarer took ("10"). Vulnerability
and dealer follow from the board number (the standard 16-board cycle, Laws of
Duplicate Bridge 2017, Law 2).

Pure functions, no database: the entry page (``games.bridge.views``) reads a
traveller row with them, and the scores they give are ordinary NS scores, so
the body ``POST /api/matches/`` takes is unchanged.

Why not ``endplay`` (PyPI), which scores contracts too: its wheel installs
here, but it pulls matplotlib, numpy and tqdm into a web server for a table
of forty lines; its ``Contract`` parser does not read the "=", "+1" results a
traveller gives either. The scores here are the Laws' (Law 77) and are tested
against hand-calculated values (tests/games/test_bridge_scoring.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STRAINS = "CDHSN"
DIRECTIONS = "NESW"

#: Board 1..16's vulnerability: "none", "ns", "ew" or "both" (Law 2); board 17 starts again.
VULNERABILITY = (
    "none", "ns", "ew", "both", "ns", "ew", "both", "none",
    "ew", "both", "none", "ns", "both", "none", "ns", "ew",
)  # fmt: skip

_SYMBOLS = {
    "\u2663": "C",
    "\u2666": "D",
    "\u2665": "H",
    "\u2660": "S",
    "\u2667": "C",
    "\u2662": "D",
    "\u2661": "H",
    "\u2664": "S",
}
_CONTRACT = re.compile(r"([1-7])(NT|SA|N|S|H|D|C)(XX|RE|R|X|)")
_PASSED = {"P", "PASS", "AP", "PASSED", "PASSEDOUT", "ALLPASS"}
_RESULT = re.compile(r"(=|[+-][0-9]{1,2}|[0-9]{1,2})")


@dataclass(frozen=True)
class Contract:
    level: int  # 0: passed out
    strain: str = ""
    doubled: int = 0  # 0, 1 (X) or 2 (XX)

    @property
    def passed_out(self) -> bool:
        return self.level == 0

    def __str__(self) -> str:
        if self.passed_out:
            return "Pass"
        return f"{self.level}{'NT' if self.strain == 'N' else self.strain}{'X' * self.doubled}"


def board_vulnerability(number: int) -> str:
    return VULNERABILITY[(number - 1) % 16]


def board_dealer(number: int) -> str:
    return DIRECTIONS[(number - 1) % 4]


def declarer_vulnerable(number: int, declarer: str) -> bool:
    side = "ns" if declarer in "NS" else "ew"
    return board_vulnerability(number) in (side, "both")


def contract_parse(text: str) -> Contract | None:
    """A contract as a traveller writes it: "4S", "4♠", "3NT", "3N", "4HX", "4HXX", "6♥x", "Pass"."""
    value = "".join(_SYMBOLS.get(char, char) for char in (text or "").strip()).upper().replace(" ", "")
    if value in _PASSED:
        return Contract(level=0)
    match = _CONTRACT.fullmatch(value)
    if not match:
        return None
    level, strain, doubled = match.groups()
    strain = "N" if strain in ("NT", "SA", "N") else strain
    return Contract(level=int(level), strain=strain, doubled={"": 0, "X": 1, "XX": 2, "R": 2, "RE": 2}[doubled])


def tricks_parse(text: str, contract: Contract) -> int | None:
    """The tricks declarer took, from "=", "+1", "-2" or the number of tricks ("10"); None when impossible."""
    value = (text or "").strip().replace("\u2212", "-").replace("\u2013", "-")
    if not _RESULT.fullmatch(value) or contract.passed_out:
        return None
    needed = contract.level + 6
    if value == "=":
        tricks = needed
    elif value[0] in "+-":
        tricks = needed + int(value)
        if int(value[1:]) == 0:
            return None
    else:
        tricks = int(value)
    return tricks if 0 <= tricks <= 13 else None


def _trick_value(strain: str) -> int:
    return 20 if strain in "CD" else 30


def contract_score(contract: Contract, tricks: int, *, vulnerable: bool) -> int:
    """Declarer's side's score (Law 77): positive when the contract makes, negative when it fails."""
    if contract.passed_out:
        return 0
    needed = contract.level + 6
    multiplier = (1, 2, 4)[contract.doubled]
    if tricks < needed:
        down = needed - tricks
        if contract.doubled == 0:
            return -down * (100 if vulnerable else 50)
        first, second_third, later = (200, 300, 300) if vulnerable else (100, 200, 300)
        penalty = first + second_third * min(down - 1, 2) + later * max(down - 3, 0)
        return -penalty * contract.doubled
    trick_points = (_trick_value(contract.strain) * contract.level + (10 if contract.strain == "N" else 0)) * multiplier
    score = trick_points
    score += (500 if vulnerable else 300) if trick_points >= 100 else 50
    if contract.level == 6:
        score += 750 if vulnerable else 500
    elif contract.level == 7:
        score += 1500 if vulnerable else 1000
    score += (0, 50, 100)[contract.doubled]
    over = tricks - needed
    if contract.doubled == 0:
        score += over * _trick_value(contract.strain)
    else:
        score += over * (200 if vulnerable else 100) * contract.doubled
    return score


def ns_score(contract: Contract, declarer: str, tricks: int, *, board: int) -> int:
    """North-South's score for the board: declarer's, turned round when East or West declared."""
    if contract.passed_out:
        return 0
    score = contract_score(contract, tricks, vulnerable=declarer_vulnerable(board, declarer))
    return score if declarer in "NS" else -score


def traveller_score(*, contract: str, declarer: str, result: str, board: int) -> tuple[int | None, str]:
    """A traveller's contract, declarer and result as NS's score, or (None, what is wrong)."""
    parsed = contract_parse(contract)
    if parsed is None:
        return None, f"\u201c{contract.strip()}\u201d is not a contract (e.g. 4S, 3NTX, 6\u2665XX, Pass)"
    if parsed.passed_out:
        return 0, ""
    who = (declarer or "").strip().upper()
    if len(who) != 1 or who not in DIRECTIONS:
        return None, "the declarer is N, E, S or W"
    tricks = tricks_parse(result, parsed)
    if tricks is None:
        return (
            None,
            f"\u201c{(result or '').strip()}\u201d is not a result of {parsed} (e.g. =, +1, -2, or the tricks taken)",
        )
    return ns_score(parsed, who, tricks, board=board), ""
