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

A *vulnerability* in the API's words is "None", "NS", "EW" or "All" (as
``Board.vulnerability`` stores it); ``vulnerability_parse`` also reads PBN's
``[Vulnerable]`` spellings. ``possible_ns_scores`` is every NS score a board
at a vulnerability can give (any contract, doubled or not, by either side,
any number of tricks, or passed out), and ``ns_score_problem`` says in a
referee's words why a typed score is not among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

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


#: The API's words for a vulnerability (``Board.vulnerability``), by the cycle's words above.
VULNERABILITY_NAMES = {"none": "None", "ns": "NS", "ew": "EW", "both": "All"}
# PBN's [Vulnerable] tag also writes "Love" or "-" for none and "Both" for all.
_VULNERABILITY_WORDS = {
    **{name.upper(): name for name in VULNERABILITY_NAMES.values()},
    "LOVE": "None",
    "-": "None",
    "BOTH": "All",
}


def board_vulnerability(number: int) -> str:
    return VULNERABILITY[(number - 1) % 16]


def board_vulnerability_name(number: int) -> str:
    """Board ``number``'s vulnerability in the API's words: "None", "NS", "EW" or "All"."""
    return VULNERABILITY_NAMES[board_vulnerability(number)]


def vulnerability_parse(text: str) -> str | None:
    """The API's word ("None", "NS", "EW", "All") for those words or PBN's "Love", "-", "Both", in any case;
    None when ``text`` is none of them."""
    return _VULNERABILITY_WORDS.get((text or "").strip().upper())


def _vulnerability(text: str) -> str:
    name = vulnerability_parse(text)
    if name is None:
        raise ValueError(_("%(text)r is not a vulnerability (None, NS, EW or All)") % {"text": text})
    return name


def _side_vulnerable(vulnerability: str, declarer: str) -> bool:
    return vulnerability in ("NS" if declarer in "NS" else "EW", "All")


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


def ns_score(
    contract: Contract, declarer: str, tricks: int, *, board: int | None = None, vulnerability: str | None = None
) -> int:
    """North-South's score for the board: declarer's, turned round when East or West declared.

    Declarer's vulnerability is the board number's (the 16-board cycle) unless ``vulnerability``
    ("None", "NS", "EW", "All", or PBN's words) says otherwise, as a file's ``[Vulnerable]`` tag does.
    """
    if contract.passed_out:
        return 0
    if vulnerability is not None:
        vulnerable = _side_vulnerable(_vulnerability(vulnerability), declarer)
    elif board is not None:
        vulnerable = declarer_vulnerable(board, declarer)
    else:
        raise ValueError("ns_score needs the board number or its vulnerability")
    score = contract_score(contract, tricks, vulnerable=vulnerable)
    return score if declarer in "NS" else -score


def traveller_score(
    *, contract: str, declarer: str, result: str, board: int, vulnerability: str | None = None
) -> tuple[int | None, str]:
    """A traveller's contract, declarer and result as NS's score, or (None, what is wrong); the board's
    vulnerability is its number's unless ``vulnerability`` (as ``ns_score`` reads it) is given."""
    parsed = contract_parse(contract)
    if parsed is None:
        return None, _("“%(contract)s” is not a contract (e.g. 4S, 3NTX, 6♥XX, Pass)") % {"contract": contract.strip()}
    if parsed.passed_out:
        return 0, ""
    who = (declarer or "").strip().upper()
    if len(who) != 1 or who not in DIRECTIONS:
        return None, _("the declarer is N, E, S or W")
    tricks = tricks_parse(result, parsed)
    if tricks is None:
        return (
            None,
            _("“%(result)s” is not a result of %(contract)s (e.g. =, +1, -2, or the tricks taken)")
            % {"result": (result or "").strip(), "contract": parsed},
        )
    return ns_score(parsed, who, tricks, board=board, vulnerability=vulnerability), ""


# --- Scores a board can have -------------------------------------------------------------------------------------

#: How far a typed score may be from a possible one to be named as what the referee meant (+60: +50 or +70).
NEAR = 20

#: A seat's and a side's letters as people read them (translated); files and forms keep N/E/S/W.
SEAT_LETTERS = {
    "N": pgettext_lazy("bridge seat letter: North", "N"),
    "E": pgettext_lazy("bridge seat letter: East", "E"),
    "S": pgettext_lazy("bridge seat letter: South", "S"),
    "W": pgettext_lazy("bridge seat letter: West", "W"),
}
SIDE_LETTERS = {
    "NS": pgettext_lazy("bridge side letters: North-South", "NS"),
    "EW": pgettext_lazy("bridge side letters: East-West", "EW"),
}


def no_trumps() -> str:
    """ "NT" as people read it (Russian "БК")."""
    return pgettext("bridge strain: no trumps, abbreviated", "NT")


_SUIT_SIGNS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660", "N": "NT"}


@dataclass(frozen=True)
class _Outcome:
    """One way a board ends: a contract by one side and the tricks declarer took."""

    side: str  # "NS" or "EW", declarer's side
    contract: Contract
    tricks: int

    def ns_score_at(self, vulnerability: str) -> int:
        return ns_score(self.contract, self.side[0], self.tricks, vulnerability=vulnerability)


@cache
def _outcomes(vulnerability: str) -> dict[int, tuple[_Outcome, ...]]:
    """Every contract (1-7, each strain, undoubled to redoubled) by either side with 0-13 tricks, by its NS score
    at ``vulnerability``; 0 for a passed-out board. 2 x 7 x 5 x 3 x 14 = 2,940 outcomes, worked out once."""
    found: dict[int, list[_Outcome]] = {0: [_Outcome("NS", Contract(level=0), 0)]}
    for side in ("NS", "EW"):
        for level in range(1, 8):
            for strain in STRAINS:
                for doubled in (0, 1, 2):
                    for tricks in range(14):
                        outcome = _Outcome(side, Contract(level, strain, doubled), tricks)
                        found.setdefault(outcome.ns_score_at(vulnerability), []).append(outcome)
    return {score: tuple(outcomes) for score, outcomes in found.items()}


def possible_ns_scores(vulnerability: str) -> frozenset[int]:
    """Every NS score a board at ``vulnerability`` ("None", "NS", "EW", "All") can produce, 0 included;
    ValueError for a word that is no vulnerability (``vulnerability_parse`` first to test one)."""
    return _possible(_vulnerability(vulnerability))


@cache
def _possible(vulnerability: str) -> frozenset[int]:
    return frozenset(_outcomes(vulnerability))


@cache
def _possible_anywhere() -> frozenset[int]:
    return frozenset().union(*(_possible(vulnerability) for vulnerability in VULNERABILITY_NAMES.values()))


def ns_score_problem(score: int, vulnerability: str) -> str | None:
    """None when a board at ``vulnerability`` can give NS ``score``; else why not, in a referee's words.

    A score another vulnerability gives is explained by its simplest contract ("+420 cannot be scored when
    NS are vulnerable (4♥ or 4♠ making is 620)"); one no board gives gets the possible scores its digits
    make with a doubled key or an extra digit taken out (+4200: did you mean +420?), or the smallest or
    nearest possible scores.
    """
    here = _vulnerability(vulnerability)
    if score in _possible(here):
        return None
    typed = f"{score:+d}"
    if score % 10:
        return _("%(score)s is not a bridge score: every score is a multiple of 10") % {"score": typed}
    elsewhere = [
        outcome
        for there in VULNERABILITY_NAMES.values()
        if there != here
        for outcome in _outcomes(there).get(score, ())
    ]
    if elsewhere:
        return _("%(score)s cannot be scored %(when)s (%(reading)s)") % {
            "score": typed,
            "when": _vulnerable_words(here),
            "reading": _reading(elsewhere, here),
        }
    anywhere = _possible_anywhere()
    for slips in _slips(score):  # a doubled key first, then any one digit too many
        if meant := [value for value in slips if value in _possible(here)]:
            return _("%(score)s is not a bridge score: did you mean %(meant)s?") % {
                "score": typed,
                "meant": _or([f"{value:+d}" for value in meant]),
            }
        if meant := [value for value in slips if value in anywhere]:  # +4200 when NS are vulnerable: +420 is wrong too
            return _("%(score)s is not a bridge score; %(meant)s") % {
                "score": typed,
                "meant": ns_score_problem(meant[0], here),
            }
    possible = _possible(here)
    same_sign = [value for value in possible if value * score > 0]
    smallest = min(same_sign, key=abs)
    if abs(score) < abs(smallest):
        return _("%(score)s is not a bridge score: the smallest %(sign)s score is %(smallest)s") % {
            "score": typed,
            "sign": _("plus") if score > 0 else _("minus"),
            "smallest": f"{smallest:+d}",
        }
    # Its neighbours, when they are near enough to be a slip of the pen (+60: +50 or +70).
    below = max((value for value in possible if value < score), default=0)
    above = min((value for value in possible if value > score), default=0)
    nearest = [value for value in (below, above) if value and abs(value - score) <= NEAR]
    if nearest:
        return _("%(score)s is not a bridge score: did you mean %(meant)s?") % {
            "score": typed,
            "meant": _or([f"{value:+d}" for value in nearest]),
        }
    return _("%(score)s is not a bridge score") % {"score": typed}


def _vulnerable_words(vulnerability: str) -> str:
    return {
        "None": _("when neither side is vulnerable"),
        "NS": _("when NS are vulnerable"),
        "EW": _("when EW are vulnerable"),
        "All": _("when both sides are vulnerable"),
    }[vulnerability]


def _or(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return _("%(first)s or %(last)s") % {"first": ", ".join(items[:-1]), "last": items[-1]}


def _reading(outcomes: list[_Outcome], here: str) -> str:
    """The simplest of ``outcomes`` (undoubled first, then fewest over- or undertricks, then the lowest level),
    with every strain that reads the same, and what it scores ``here``: "4♥ or 4♠ making is 620"."""

    def simplicity(outcome: _Outcome) -> tuple[int, int, int, int]:
        needed = outcome.contract.level + 6
        return (outcome.contract.doubled, abs(outcome.tricks - needed), outcome.contract.level, outcome.side != "NS")

    first = min(outcomes, key=simplicity)
    scored = first.ns_score_at(here)
    contract, side = first.contract, first.side
    down = contract.level + 6 - first.tricks
    if down > 0:  # the level and strain change nothing: "2 down doubled by EW"
        what = (
            _("%(count)d down by %(side)s"),
            _("%(count)d down doubled by %(side)s"),
            _("%(count)d down redoubled by %(side)s"),
        )[contract.doubled] % {"count": down, "side": SIDE_LETTERS.get(side, side)}
    else:
        strains = sorted(
            {
                outcome.contract.strain
                for outcome in outcomes
                if simplicity(outcome) == simplicity(first) and outcome.ns_score_at(here) == scored
            },
            key=STRAINS.index,
        )
        signs = {**_SUIT_SIGNS, "N": no_trumps()}
        contracts = _or([f"{contract.level}{signs[strain]}{'X' * contract.doubled}" for strain in strains])
        result = _("making") if down == 0 else f"+{-down}"
        what = (
            f"{contracts} {result}" if side == "NS" else _("%(contract)s by EW") % {"contract": f"{contracts} {result}"}
        )
    return _("%(what)s is %(score)s") % {"what": what, "score": scored}


def _slips(score: int) -> tuple[list[int], list[int]]:
    """The numbers ``score``'s digits make with one taken out, closest first: where a key was doubled
    (4200 -> 420), then anywhere (4300 -> 400, 300). Never 0 nor a number that would start with 0."""
    digits = str(abs(score))
    sign = -1 if score < 0 else 1

    def without(positions) -> list[int]:
        values = {digits[:i] + digits[i + 1 :] for i in positions}
        found = {sign * int(value) for value in values if value and value[0] != "0"}
        return sorted(found, key=lambda value: (abs(value - score), value))

    doubled = [i for i in range(1, len(digits)) if digits[i] == digits[i - 1]]
    return without(doubled), without(range(len(digits)))


#: Contracts a club evening often reaches, for made-up evenings (demo data, benchmarks): part-scores,
#: games and the odd slam, each with how often it is the board's contract.
USUAL_CONTRACTS = (("4S", 5), ("4H", 5), ("3N", 6), ("2S", 3), ("2H", 3), ("1N", 3), ("3C", 2), ("3D", 2))
USUAL_CONTRACTS += (("5D", 1), ("6N", 1), ("2SX", 1), ("5CX", 1))


def usual_contract(rng) -> tuple[Contract, str]:
    """A contract a club evening often reaches, and its declarer (``rng``: a ``random.Random``)."""
    texts, weights = zip(*USUAL_CONTRACTS, strict=True)
    return contract_parse(rng.choices(texts, weights=weights)[0]), rng.choice(DIRECTIONS)


def plausible_result(
    rng, number: int, *, edge: float = 0.0, contract: Contract | None = None, declarer: str = ""
) -> tuple[Contract, str, int, int]:
    """A result that can happen on board ``number``, as (contract, declarer, tricks, NS score): the contract
    given (else a usual one, ``usual_contract``), making within a trick or two; ``edge`` (in tricks, + for
    NS) tilts the tricks toward the stronger pair. Made-up evenings only: demo data, benchmarks."""
    if contract is None or not declarer:
        contract, declarer = usual_contract(rng)
    towards = edge if declarer in "NS" else -edge
    tricks = max(0, min(13, round(contract.level + 6 + rng.gauss(0, 1) + towards)))
    return contract, declarer, tricks, ns_score(contract, declarer, tricks, board=number)
