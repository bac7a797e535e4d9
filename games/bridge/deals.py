"""Hand records: a board's deal, its double-dummy table and its par, as clubs publish them.

Vocabulary:

- **deal**: the four hands of a board, as PBN deal text (PBN 2.1's ``Deal`` tag):
  ``"N:KQT6.AJT.T984.65 A2.K9876.72.9742 J543.43.AQ5.AKJ3 987.Q52.KJ63.QT8"``: the
  first hand's seat, a colon, then four hands clockwise from it, each four suits
  ``spades.hearts.diamonds.clubs`` of ranks ``AKQJT98765432`` (a void is empty). The
  deal text this module returns always starts with North (``"N:"``), writes ten as
  ``T`` and each suit from the ace down, so two texts of one deal are equal strings.
- **double-dummy table**: for each declarer and strain, the tricks the declarer's
  side takes when all four players see all the cards and play perfectly:
  ``{"N": {"C": 7, "D": 9, "H": 6, "S": 10, "NT": 8}, "E": {...}, "S": {...}, "W": {...}}``
  (declarers N, E, S, W; strains C, D, H, S, NT).
- **par**: the result when both sides bid perfectly on the double-dummy table (DDS's
  *dealer* par: with a tie, the side that can bid first gets it), as
  ``{"score": 420, "contracts": ["4S NS"]}``: ``score`` from North-South's side
  (negative when East-West score), ``contracts`` each ``"<level><strain><X|XX> <declarers>"``:
  level 1-7, strain ``C D H S NT``, ``X``/``XX`` when doubled/redoubled (par
  sacrifices are doubled), then who declares it for that score: one seat (``"N"``) or
  both seats of the side (``"NS"``, ``"EW"``) when either partner does; e.g. ``"4S N"``,
  ``"5DX E"``, ``"3NTX EW"``. ``["Pass"]`` with score 0 when the par is a pass-out.
  Overtricks and undertricks are not in the text (the table has them).
- **dealer** ``"N" | "E" | "S" | "W"``; **vulnerability** ``"None" | "NS" | "EW" | "All"``
  (PBN's synonyms ``"Love"``, ``"-"`` and ``"Both"`` are read too).

Pure: no database and no models. The solving is Bo Haglund's DDS through ``endplay``
(``endplay.dds.calc_all_tables``, ``endplay.dds.par``), which checks nothing of the
deal it is given; this module checks every deal first. Not a deal, an unknown dealer or
vulnerability: a ``DealError`` (a ``ValueError``) whose message says what is wrong and
where (the hand, the card, the deal's place in the list); nothing is computed then.

Cost: solving a deal's table takes a good part of a second of CPU, par from a solved table next to
nothing (figures in docs/performance.md). So a session's hand records are analysed in a background
task (``games.bridge.analysis``), never in a request.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TypedDict

from django.utils.translation import gettext as _
from endplay.dds import calc_all_tables
from endplay.dds import par as endplay_par
from endplay.dds.ddtable import DDTable
from endplay.types import Deal, Denom, Penalty, Player, Vul

#: Seats clockwise from North, as PBN and DDS number them (0-3).
SEATS = ("N", "E", "S", "W")
#: Suits in the order a PBN hand writes them.
SUITS = ("S", "H", "D", "C")
#: Strains in a double-dummy table, from the lowest.
STRAINS = ("C", "D", "H", "S", "NT")
RANKS = "AKQJT98765432"
VULNERABILITIES = {
    "None": Vul.none,
    "Love": Vul.none,
    "-": Vul.none,
    "NS": Vul.ns,
    "EW": Vul.ew,
    "All": Vul.both,
    "Both": Vul.both,
}
#: DDS solves at most 200 (declarer-independent) strain problems a call: 40 deals of five strains.
BATCH = 40

DEAL = re.compile(r"^\s*([NESWnesw])\s*:\s*(.*?)\s*$", re.DOTALL)
SEAT_NAMES = {"NORTH": "N", "EAST": "E", "SOUTH": "S", "WEST": "W"}
SUIT_NAMES = {"SPADES": "S", "HEARTS": "H", "DIAMONDS": "D", "CLUBS": "C"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
DENOM_STRAINS = {Denom.clubs: "C", Denom.diamonds: "D", Denom.hearts: "H", Denom.spades: "S", Denom.nt: "NT"}
PENALTIES = {Penalty.passed: "", Penalty.doubled: "X", Penalty.redoubled: "XX"}
# DDS keeps per-thread state of its own and ctypes lets go of the GIL during a call: two Python threads
# solving at once (a threaded server) would share that state, so one solve at a time in a process.
SOLVER = threading.Lock()


class DealError(ValueError):
    """Not a deal, or an unknown dealer or vulnerability: the message says what and where."""


class ParResult(TypedDict):
    score: int
    contracts: list[str]


class HandRecord(TypedDict):
    double_dummy: dict[str, dict[str, int]]
    par: ParResult


def seat_name(seat: str) -> str:
    names = {"N": _("North"), "E": _("East"), "S": _("South"), "W": _("West")}
    return names[seat]


def suit_read(seat: str, suit: str, ranks: str) -> str:
    """One suit of one hand, ranks in any order (``10`` for ``T``), as ``AKQJT98765432`` from the top."""
    cards = ranks.strip().upper().replace("10", "T")
    for rank in cards:
        if rank not in RANKS:
            raise DealError(
                _("%(seat)s's %(suit)s have %(rank)r, which is not a rank (AKQJT98765432; ten is T or 10).")
                % {"seat": seat_name(seat), "suit": SUIT_SYMBOLS[suit], "rank": rank}
            )
    for rank in set(cards):
        if cards.count(rank) > 1:
            raise DealError(
                _("%(seat)s holds %(card)s twice.") % {"seat": seat_name(seat), "card": SUIT_SYMBOLS[suit] + rank}
            )
    return "".join(rank for rank in RANKS if rank in cards)


def deal_check(hands: dict[str, dict[str, str]]) -> str:
    """The PBN text (from North) of hands already read suit by suit: 13 cards each, every card once."""
    for seat in SEATS:
        count = sum(len(hands[seat][suit]) for suit in SUITS)
        if count != 13:
            raise DealError(_("%(seat)s holds %(count)d cards, not 13.") % {"seat": seat_name(seat), "count": count})
    for suit in SUITS:
        holder: dict[str, str] = {}
        for seat in SEATS:
            for rank in hands[seat][suit]:
                if rank in holder:
                    raise DealError(
                        _("%(card)s is dealt twice: to %(first)s and to %(second)s.")
                        % {
                            "card": SUIT_SYMBOLS[suit] + rank,
                            "first": seat_name(holder[rank]),
                            "second": seat_name(seat),
                        }
                    )
                holder[rank] = seat
    # 52 cards, none twice: each of the 52 is there once.
    return "N:" + " ".join(".".join(hands[seat][suit] for suit in SUITS) for seat in SEATS)


def deal_parse(text: str) -> str:
    """PBN deal text checked and written from North (see the module's *deal*); ``DealError`` if not a deal.

    Accepts any first seat (``"E:..."`` lists East, South, West, North), spaces around the
    colon and between hands, ranks in any order and case, ``10`` for ten. Refuses, naming
    the hand or the card: another first letter, not four hands, a hand not of four suits,
    an unknown hand (``-``) or spot card (``x``), a rank that is not one, a hand that does
    not hold 13 cards, a card in two hands.
    """
    if not isinstance(text, str):
        raise DealError(_("A deal is PBN text, not %(type)s.") % {"type": type(text).__name__})
    if not text.strip():
        raise DealError(_("The deal is empty: no hands are given."))
    match = DEAL.match(text)
    if not match:
        raise DealError(
            _("%(text)r is not a PBN deal: it starts with the first hand's seat (N, E, S or W) and a colon.")
            % {"text": text[:80]}
        )
    first = SEATS.index(match.group(1).upper())
    given = match.group(2).split()
    if len(given) != 4:
        raise DealError(
            _("%(text)r is not a PBN deal: it has %(count)d hands, not 4.") % {"text": text[:80], "count": len(given)}
        )
    hands: dict[str, dict[str, str]] = {}
    for offset, hand in enumerate(given):
        seat = SEATS[(first + offset) % 4]
        suits = hand.split(".")
        if len(suits) != 4:
            raise DealError(
                _("%(seat)s's hand %(hand)r is not four suits (spades.hearts.diamonds.clubs).")
                % {"seat": seat_name(seat), "hand": hand}
            )
        hands[seat] = {suit: suit_read(seat, suit, ranks) for suit, ranks in zip(SUITS, suits, strict=True)}
    return deal_check(hands)


def deal_from_hands(hands: Mapping[str, Mapping[str, str | None]]) -> str:
    """The PBN deal text (from North) of four hands given per seat and suit; ``DealError`` if not a deal.

    ``hands`` is ``{"N": {"S": "KQT6", "H": "AJT", "D": "T984", "C": "65"}, "E": {...}, "S": ..., "W": ...}``
    as USEBIO's HANDSET gives them. Seats may also be named (``"North"``) and suits too
    (``"Spades"``), in any case; a suit left out or ``None`` or ``""`` is a void.
    """
    read: dict[str, dict[str, str]] = {}
    for key, suits in hands.items():
        seat = SEAT_NAMES.get(str(key).upper(), str(key).upper())
        if seat not in SEATS:
            raise DealError(_("%(key)r is not a seat: N, E, S or W.") % {"key": key})
        if seat in read:
            raise DealError(_("%(seat)s's hand is given twice.") % {"seat": seat_name(seat)})
        given: dict[str, str] = {}
        for suit_key, ranks in suits.items():
            suit = SUIT_NAMES.get(str(suit_key).upper(), str(suit_key).upper())
            if suit not in SUITS:
                raise DealError(
                    _("%(seat)s's hand has %(key)r, which is not a suit: S, H, D or C.")
                    % {"seat": seat_name(seat), "key": suit_key}
                )
            if suit in given:
                raise DealError(
                    _("%(seat)s's %(suit)s are given twice.") % {"seat": seat_name(seat), "suit": SUIT_SYMBOLS[suit]}
                )
            given[suit] = suit_read(seat, suit, ranks or "")
        read[seat] = {suit: given.get(suit, "") for suit in SUITS}
    missing = [seat_name(seat) for seat in SEATS if seat not in read]
    if missing:
        raise DealError(_("The hands of %(seats)s are missing.") % {"seats": ", ".join(missing)})
    return deal_check(read)


def deals_read(deals: Iterable[str]) -> list[str]:
    """Each deal checked, a bad one named by its place in the list (1 for the first)."""
    checked = []
    for number, text in enumerate(deals, start=1):
        try:
            checked.append(deal_parse(text))
        except DealError as error:
            raise DealError(_("Deal %(number)d: %(problem)s") % {"number": number, "problem": error}) from error
    return checked


def tables_solve(deals: Sequence[str]) -> list[DDTable]:
    """endplay's double-dummy tables of checked deals, ``BATCH`` deals a DDS call (each call is multi-threaded)."""
    tables: list[DDTable] = []
    for start in range(0, len(deals), BATCH):
        batch = [Deal(text) for text in deals[start : start + BATCH]]
        with SOLVER:
            solved = calc_all_tables(batch)
            tables.extend(solved[index] for index in range(len(batch)))
    return tables


def table_dict(table: DDTable) -> dict[str, dict[str, int]]:
    return {seat: {DENOM_STRAINS[denom]: table[denom, Player(SEATS.index(seat))] for denom in Denom} for seat in SEATS}


def double_dummy(deals: Sequence[str]) -> list[dict[str, dict[str, int]]]:
    """The double-dummy table of each deal (see the module's vocabulary), in the deals' order.

    Deals are checked first (``DealError`` naming the first bad one by its place) and
    solved ``BATCH`` at a time, so any number may be given.
    """
    return [table_dict(table) for table in tables_solve(deals_read(deals))]


def dealer_read(dealer: str) -> Player:
    seat = SEAT_NAMES.get(str(dealer).upper(), str(dealer).upper())
    if seat not in SEATS:
        raise DealError(_("%(dealer)r is not a dealer: N, E, S or W.") % {"dealer": dealer})
    return Player(SEATS.index(seat))


def vulnerability_read(vulnerability: str) -> Vul:
    if vulnerability not in VULNERABILITIES:
        raise DealError(
            _("%(vulnerability)r is not a vulnerability: None, NS, EW or All.") % {"vulnerability": vulnerability}
        )
    return VULNERABILITIES[vulnerability]


def par_from_table(table: DDTable, dealer: Player, vulnerability: Vul) -> ParResult:
    """Par of one solved table (see the module's *par* for the contract text)."""
    with SOLVER:
        found = endplay_par(table, vulnerability, dealer)
        # endplay yields a contract both partners make once per partner, rewriting its one record in
        # between (endplay 0.5.12): copy each as it comes, and read the list once.
        contracts = [contract.copy() for contract in found]
        score = found.score
    texts: dict[str, str] = {}  # contract without declarer -> its declarers
    for contract in contracts:
        if contract.is_passout():
            continue
        call = f"{contract.level}{DENOM_STRAINS[contract.denom]}{PENALTIES[contract.penalty]}"
        texts[call] = texts.get(call, "") + SEATS[contract.declarer]
    if not texts:
        return {"score": score, "contracts": ["Pass"]}
    return {
        "score": score,
        "contracts": [f"{call} {''.join(seat for seat in SEATS if seat in who)}" for call, who in texts.items()],
    }


def par(deal: str, *, dealer: str, vulnerability: str) -> ParResult:
    """The par of one deal with its dealer and vulnerability: ``{"score": 420, "contracts": ["4S NS"]}``."""
    checked = deal_parse(deal)
    seat, vul = dealer_read(dealer), vulnerability_read(vulnerability)
    return par_from_table(tables_solve([checked])[0], seat, vul)


def analyse(deals: Sequence[tuple[str, str, str]]) -> list[HandRecord]:
    """``{"double_dummy": ..., "par": ...}`` for each (deal, dealer, vulnerability), the tables solved in batches.

    Everything is checked before anything is solved: a bad deal, dealer or vulnerability
    is a ``DealError`` naming its place in the list.
    """
    checked = []
    for number, (deal, dealer, vulnerability) in enumerate(deals, start=1):
        try:
            checked.append((deal_parse(deal), dealer_read(dealer), vulnerability_read(vulnerability)))
        except DealError as error:
            raise DealError(_("Deal %(number)d: %(problem)s") % {"number": number, "problem": error}) from error
    tables = tables_solve([deal for deal, _dealer, _vul in checked])
    return [
        {"double_dummy": table_dict(table), "par": par_from_table(table, dealer, vul)}
        for table, (_deal, dealer, vul) in zip(tables, checked, strict=True)
    ]
