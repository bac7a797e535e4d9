"""A bridge session's standings, computed as the club's scoring program computes them: pure, no database.

Vocabulary. A *body* is a bridge session as ``POST /api/matches/`` takes it (its players ids, or
``PlayerRef`` people in an import plan: carried through as given). A *pair* is known by its section and
number (``ns_pair``/``ew_pair``), and in a Mitchell movement also by its direction: NS pair 1 and EW pair 1
are two pairs; in a Howell a pair keeps its number whichever way it sits. A table without pair numbers (an
evening typed in without them) names its pair by its two players. The *field* of a board is the tables whose
scores are compared with each other: a section's own tables, or every section's (``"sections":
"together"``). A board's *points* for a pair are what the scoring gives it there: matchpoints (MP), IMPs
against every other table (cross-IMPs), IMPs against a datum (Butler), or the IMPs the body gives (plain).

Scorings (the body's ``"scoring"``; absent: ``"imps"``):

- ``"matchpoints"``: 2 MP per score beaten at the other tables of the field, 1 per score tied; the *top* is
  2 x (N - 1), N being the most tables a board of the field was scored at (played or adjusted). A board
  with fewer played scores n is scaled to N by Neuberg's formula, (MP + 1) x N / n - 1. An adjusted table
  is not compared with anybody: it gets the points the program printed, else A+ 60, A= 50, A- 40 per cent of
  the top (or the percentage it names). The standing is a pair's MPs as a percentage of the top times the
  boards it has a score on.
- ``"cross_imps"``: each played table against every other played table of the field, the IMPs summed, or
  averaged over the comparisons (see ``"cross_imps"`` below).
- ``"butler"``: each played table against the board's *datum*, the mean of the field's played scores less
  the highest and lowest ones, rounded to 10.
- ``"imps"``: the IMPs a table gives (``ns_imps``: a team match, a board at one table); a board given as
  scores is cross-IMPed and summed, as the session page ranks an evening.

An adjusted table in an IMP scoring gets its printed points, else A+ +3, A= 0, A- -3 IMPs. A bye is a
pair's points on a board it had no opponents for (a phantom's table); a pair's score is the sum of its
boards' points (or their percentage of the top, in matchpoints).

``scoring_options`` keys (the conventions that differ between programs; absent keys mean the default):

``"sections"``: ``"apart"`` (default) or ``"together"``
    Apart, each section is its own field and its own ranking. Together, a board's tables are compared
    across every section and all pairs ranked in one list (Ruter's cross-IMP across three sections).
``"fewer_results"``: ``"neuberg"`` (default) or ``"ties"``
    How a matchpoint board scored at fewer tables than the most is brought to the full top: Neuberg's
    formula, or each missing comparison counted as a tie, 1 MP (ScoreBridge: 3 scores of 4 give 5, 2, 1).
``"mp_points"``: ``"raw"`` (default) or ``"deviation"``
    How the program printed a board's MPs, which the adjusted tables' and byes' points are given in: as
    MPs from 0 to the top, or as the deviation from the average, top / 2 (Ruter i Norge: 0.6 is 60 per cent).
``"board_decimals"``: a whole number, or absent
    The decimals a board's points are rounded to (half up) before they are totalled: Magic Contest and
    Ruter print each board's MPs with one decimal and total those. Absent: exact.
``"total_decimals"``: a whole number, or absent
    The decimals a pair's total is rounded to (half up), before a matchpoint total becomes a percentage:
    Magic Contest prints Butler totals with one decimal. Absent: exact. A score is always given to 2 decimals.
``"cross_imps"``: ``"sum"`` (default) or ``"average"``
    A cross-IMP board's points are the sum of the IMPs against every other table (Ruter), or that sum
    divided by the number of comparisons (Compscore, whose lines read ``3.67``).
``"butler_drop"``: a whole number, default 1
    How many of the highest and as many of the lowest scores are left out of the Butler datum; never so
    many that no score is left (3 scores leave the middle one, whatever the number).
``"butler_datum"``: ``"mean"`` (default) or ``"median"``
    The datum of the scores kept: their mean, or their median.
``"butler_round"``: a whole number, default 10
    The datum is rounded to a multiple of it (half away from zero); 0 or 1: not rounded.
``"bye_points"``: ``"given"`` (default) or ``"average"``
    A bye counts the points the body gives it, or the pair's average over its other boards (Magic
    Contest: the printed points are that average rounded; the total uses it exactly, so a pair that sat
    out 4 of 28 boards has its 24 boards' IMPs times 28 / 24). A bye without points is the average.
``"tiebreak"``: ``"none"`` (default) or ``"head_to_head"``
    Tied pairs share a rank, or are ordered by the points they scored on the boards they played against
    each other (2 for more than the other, 1 for as many; summed over the tied pairs; Magic Contest
    France's ``Tiebreak`` column), sharing a rank only when that too is equal.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

from ratings.engines.bridge import imps as to_imps

SCORINGS = ("matchpoints", "cross_imps", "butler", "imps")

#: The options' defaults (see the module docstring).
DEFAULT_OPTIONS: dict[str, Any] = {
    "sections": "apart",
    "fewer_results": "neuberg",
    "mp_points": "raw",
    "board_decimals": None,
    "total_decimals": None,
    "cross_imps": "sum",
    "butler_drop": 1,
    "butler_datum": "mean",
    "butler_round": 10,
    "bye_points": "given",
    "tiebreak": "none",
}

#: An adjusted code's share of the top in matchpoints, and its IMPs in an IMP scoring.
ADJUSTED_SHARE = {"A+": Fraction(60, 100), "A=": Fraction(50, 100), "A-": Fraction(40, 100)}
ADJUSTED_IMPS = {"A+": Fraction(3), "A=": Fraction(0), "A-": Fraction(-3)}

PairKey = tuple  # (section, direction, number or frozenset of the two players)


@dataclass
class _PairScore:
    section: str | None
    direction: str | None
    pair: str | None
    players: list
    compared_in: str | None  # the field (section, or None for all) its boards were compared in
    boards: list[Fraction] = field(default_factory=list)  # played and adjusted boards' points
    byes: list[Fraction | None] = field(default_factory=list)
    #: Points on each board played, by the opponents' key: for the head-to-head tiebreak.
    against: dict[PairKey, list[tuple[Fraction, Fraction]]] = field(default_factory=lambda: defaultdict(list))

    def average(self) -> Fraction:
        """The pair's mean points over its played and adjusted boards: what a bye without points counts."""
        return sum(self.boards, Fraction(0)) / len(self.boards) if self.boards else Fraction(0)


@dataclass(frozen=True)
class TablePoints:
    """One table of a board as the session's scoring scores it: each side's pair (its ``PairKey``, as
    ``standing_pair_key`` gives a standings row's) and points. ``top`` is the matchpoint top of the table's
    field (0 in an IMP scoring); an ``adjusted`` table's points are its award."""

    ns_pair: PairKey
    ew_pair: PairKey
    ns_points: Fraction
    ew_points: Fraction
    adjusted: bool
    top: int


@dataclass(frozen=True)
class ByePoints:
    """A bye on a board: the pair credited and the points it counts (as given, else the pair's average)."""

    pair: PairKey
    points: Fraction
    top: int


@dataclass(frozen=True)
class BoardPoints:
    """A board's points by the session's scoring: ``tables`` in the body's order of its tables, its ``byes``
    in the body's order of its byes."""

    number: int
    tables: list[TablePoints]
    byes: list[ByePoints]


def matchpoints(scores: list[int], most: int, fewer_results: str = "neuberg") -> list[Fraction]:
    """NS's matchpoints for each of a board's played ``scores`` (NS's), the top being 2 x (``most`` - 1).

    2 per score beaten, 1 per score tied; with fewer scores than ``most``, Neuberg's formula
    (MP + 1) x most / n - 1, or (``"ties"``) 1 MP for each missing comparison.
    """
    n = len(scores)
    points = []
    for score in scores:
        raw = Fraction(sum(2 if other < score else 1 if other == score else 0 for other in scores) - 1)
        if n < most:
            raw = (raw + 1) * most / n - 1 if fewer_results == "neuberg" else raw + (most - n)
        points.append(raw)
    return points


def cross_imps(scores: list[int], average: bool = False) -> list[Fraction]:
    """NS's IMPs for each played score against every other one, summed or averaged per comparison."""
    n = len(scores)
    points = []
    for position, score in enumerate(scores):
        total = Fraction(sum(to_imps(score - other) for index, other in enumerate(scores) if index != position))
        points.append(total / (n - 1) if average and n > 1 else total)
    return points


def butler_datum(scores: list[int], drop: int = 1, datum: str = "mean", rounding: int = 10) -> Fraction:
    """The scores' datum: the highest ``drop`` and lowest ``drop`` left out (at most as many as leave one),
    then their mean (or median), rounded to a multiple of ``rounding``, halves away from zero."""
    ordered = sorted(scores)
    cut = min(max(drop, 0), (len(ordered) - 1) // 2)
    kept = ordered[cut : len(ordered) - cut]
    if datum == "median":
        middle = len(kept) // 2
        value = Fraction(kept[middle]) if len(kept) % 2 else Fraction(kept[middle - 1] + kept[middle], 2)
    else:
        value = Fraction(sum(kept), len(kept))
    if rounding and rounding > 1:
        units = abs(value) / rounding
        whole = int(units + Fraction(1, 2))  # half away from zero
        value = Fraction(whole * rounding) * (1 if value >= 0 else -1)
    return value


def butler(scores: list[int], drop: int = 1, datum: str = "mean", rounding: int = 10) -> list[Fraction]:
    """NS's IMPs for each played score against the board's datum (``butler_datum``)."""
    middle = butler_datum(scores, drop, datum, rounding)
    return [Fraction(to_imps(score - middle)) for score in scores]


def decimal_round(value: Fraction, decimals: int) -> Decimal:
    """``value`` to ``decimals`` places, halves up (away from zero)."""
    with localcontext() as context:
        context.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def _fraction(value: Any) -> Fraction | None:
    if value is None or isinstance(value, bool):
        return None
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _options(body: dict) -> dict[str, Any]:
    return {**DEFAULT_OPTIONS, **(body.get("scoring_options") or {})}


def _key(table: dict, side: str, mitchell: bool) -> tuple[PairKey, str | None]:
    """A side's pair key and its number: (section, direction in a Mitchell, number), or its players."""
    number = table.get(f"{side}_pair")
    direction = side.upper() if mitchell else None
    if number not in (None, ""):
        return (table.get("section"), direction, str(number)), str(number)
    return (table.get("section"), direction, frozenset(table[side])), None


class _Session:
    def __init__(self, body: dict) -> None:
        self.scoring = body.get("scoring") or "imps"
        if self.scoring not in SCORINGS:
            raise ValueError(f"unknown scoring {self.scoring!r}: one of {', '.join(SCORINGS)}")
        self.options = _options(body)
        self.mitchell = body.get("movement") == "mitchell"
        self.together = self.options["sections"] == "together"
        self.pairs: dict[PairKey, _PairScore] = {}
        self.boards = body.get("boards") or []
        self.tops = self._tops()
        #: Per board, in order: its number, each table's points by the table's ``id``, its byes (pair, given).
        self.credited: list[tuple[int, dict[int, TablePoints], list[tuple[_PairScore, PairKey, Fraction | None]]]] = []

    def field_of(self, section: str | None) -> str | None:
        return None if self.together else section

    def _tops(self) -> dict[str | None, int]:
        """Each field's top: 2 x (the most tables a board of it was scored at - 1)."""
        most: dict[str | None, int] = defaultdict(int)
        for board in self.boards:
            counts: dict[str | None, int] = defaultdict(int)
            for table in board.get("tables") or []:
                counts[self.field_of(table.get("section"))] += 1
            for name, count in counts.items():
                most[name] = max(most[name], count)
        return {name: 2 * (count - 1) for name, count in most.items()}

    def pair(self, key: PairKey, number: str | None, players: list, section: str | None) -> _PairScore:
        if key not in self.pairs:
            self.pairs[key] = _PairScore(
                section=section,
                direction=key[1],
                pair=number,
                players=list(players),
                compared_in=self.field_of(section),
            )
        return self.pairs[key]

    def adjusted_points(self, adjusted: dict, side: str, top: int) -> Fraction:
        printed = _fraction(adjusted.get(f"{side}_points"))
        code = adjusted.get(side)
        if self.scoring == "matchpoints":
            if printed is not None:
                return printed + Fraction(top, 2) if self.options["mp_points"] == "deviation" else printed
            percent = None if isinstance(code, str) else _fraction(code)
            share = (
                ADJUSTED_SHARE.get(code) if isinstance(code, str) else percent / 100 if percent is not None else None
            )
            return (share if share is not None else Fraction(1, 2)) * top
        if printed is not None:
            return printed
        if not isinstance(code, str) and (percent := _fraction(code)) is not None:
            return (percent - 50) * 3 / 10  # 60 per cent is A+, +3 IMPs
        return ADJUSTED_IMPS.get(code, Fraction(0))

    def played_points(self, tables: list[dict], top: int) -> list[Fraction]:
        """NS's points at each played table of one board's field."""
        scores = [int(table["ns_score"]) for table in tables if table.get("ns_score") is not None]
        if len(scores) != len(tables):  # a board given in IMPs (a team match, one table)
            return [_fraction(table.get("ns_imps")) or Fraction(0) for table in tables]
        options = self.options
        if self.scoring == "matchpoints":
            return matchpoints(scores, top // 2 + 1, options["fewer_results"])
        if self.scoring == "butler":
            return butler(scores, options["butler_drop"], options["butler_datum"], options["butler_round"])
        return cross_imps(scores, average=self.scoring == "cross_imps" and options["cross_imps"] == "average")

    def rounded(self, value: Fraction) -> Fraction:
        decimals = self.options["board_decimals"]
        return value if decimals is None else Fraction(decimal_round(value, int(decimals)))

    def add_board(self, board: dict) -> None:
        fields: dict[str | None, list[dict]] = defaultdict(list)
        for table in board.get("tables") or []:
            fields[self.field_of(table.get("section"))].append(table)
        credited: dict[int, TablePoints] = {}
        byes: list[tuple[_PairScore, PairKey, Fraction | None]] = []
        self.credited.append((board.get("number"), credited, byes))
        for name, tables in fields.items():
            top = self.tops.get(name, 0)
            played = [table for table in tables if not table.get("adjusted")]
            for table, ns_points in zip(played, self.played_points(played, top), strict=True):
                ew_points = top - ns_points if self.scoring == "matchpoints" else -ns_points
                credited[id(table)] = self._credit(
                    table, self.rounded(ns_points), self.rounded(ew_points), played=True, top=top
                )
            for table in tables:
                if adjusted := table.get("adjusted"):
                    ns_points = self.adjusted_points(adjusted, "ns", top)
                    ew_points = self.adjusted_points(adjusted, "ew", top)
                    credited[id(table)] = self._credit(table, ns_points, ew_points, played=False, top=top)
        for bye in board.get("byes") or []:
            section = bye.get("section")
            direction = (bye.get("direction") or None) if self.mitchell else None
            number = str(bye.get("pair"))
            key = (section, direction, number)
            score = self.pairs.get(key) or self.pair(key, number, [], section)
            points = _fraction(bye.get("points"))
            if points is not None and self.scoring == "matchpoints" and self.options["mp_points"] == "deviation":
                points += Fraction(self.tops.get(self.field_of(section), 0), 2)
            score.byes.append(None if self.options["bye_points"] == "average" else points)
            byes.append((score, key, score.byes[-1]))

    def _credit(self, table: dict, ns_points: Fraction, ew_points: Fraction, *, played: bool, top: int) -> TablePoints:
        ns_key, ns_number = _key(table, "ns", self.mitchell)
        ew_key, ew_number = _key(table, "ew", self.mitchell)
        section = table.get("section")
        ns = self.pair(ns_key, ns_number, table["ns"], section)
        ew = self.pair(ew_key, ew_number, table["ew"], section)
        for score, points in ((ns, ns_points), (ew, ew_points)):
            score.boards.append(points)
            if not score.players:
                score.players = list(table["ns"] if score is ns else table["ew"])
        if played:
            ns.against[ew_key].append((ns_points, ew_points))
            ew.against[ns_key].append((ew_points, ns_points))
        top = top if self.scoring == "matchpoints" else 0
        return TablePoints(ns_key, ew_key, ns_points, ew_points, adjusted=not played, top=top)

    def score(self, pair: _PairScore) -> Decimal:
        boards = list(pair.boards)
        average = pair.average()
        total = sum(boards, Fraction(0)) + sum((average if bye is None else bye for bye in pair.byes), Fraction(0))
        if self.options["total_decimals"] is not None:
            total = Fraction(decimal_round(total, int(self.options["total_decimals"])))
        if self.scoring != "matchpoints":
            return decimal_round(total, 2)
        counted = len(boards) + len(pair.byes)
        top = self.tops.get(pair.compared_in, 0)
        return decimal_round(total * 100 / (top * counted), 2) if top and counted else Decimal("0.00")


def _head_to_head(group: list[_PairScore], keys: dict[int, PairKey]) -> dict[int, int]:
    """Each tied pair's points against the others: 2 for more points on their boards together, 1 for as many."""
    points = {}
    for pair in group:
        total = 0
        for other in group:
            if other is pair:
                continue
            boards = pair.against.get(keys[id(other)], [])
            mine = sum((own for own, _ in boards), Fraction(0))
            theirs = sum((their for _, their in boards), Fraction(0))
            total += 2 if mine > theirs else 1 if mine == theirs else 0
        points[id(pair)] = total
    return points


def _ranked(pairs: list[tuple[PairKey, _PairScore, Decimal]], tiebreak: str) -> list[dict]:
    keys = {id(pair): key for key, pair, _ in pairs}
    ordered = sorted(pairs, key=lambda item: -item[2])
    rows: list[dict] = []
    position = 0
    while position < len(ordered):
        score = ordered[position][2]
        group = [item for item in ordered[position:] if item[2] == score]
        order = {id(pair): 0 for _, pair, _ in group}
        if tiebreak == "head_to_head" and len(group) > 1:
            order = _head_to_head([pair for _, pair, _ in group], keys)
        group.sort(key=lambda item: -order[id(item[1])])
        for _, pair, value in group:
            same = [item for item in group if order[id(item[1])] == order[id(pair)]]
            first = next(number for number, item in enumerate(group) if order[id(item[1])] == order[id(pair)])
            rows.append(
                {
                    "section": pair.section,
                    "direction": pair.direction,
                    "pair": pair.pair,
                    "players": pair.players,
                    "score": value,
                    "rank": position + first + 1,
                    "tied": len(same) > 1,
                }
            )
        position += len(group)
    return rows


def session_standings(body: dict) -> list[dict]:
    """The session's pairs ranked as its scoring program ranks them (see the module docstring): per section
    (unless the sections are one field) and, in a Mitchell, per direction, best first, ties sharing a rank.

    Each row: ``{"section", "direction", "pair", "players", "score", "rank", "tied"}``; ``score`` is a
    Decimal to 2 places, a percentage in matchpoints and IMPs otherwise. Raises ValueError for a scoring
    it does not know.
    """
    session = _Session(body)
    for board in session.boards:
        session.add_board(board)
    groups: dict[tuple, list[tuple[PairKey, _PairScore, Decimal]]] = defaultdict(list)
    for key, pair in session.pairs.items():
        groups[(pair.compared_in, pair.direction)].append((key, pair, session.score(pair)))
    rows: list[dict] = []
    for name in sorted(groups, key=lambda group: (str(group[0] or ""), group[1] != "NS", str(group[1] or ""))):
        rows.extend(_ranked(groups[name], session.options["tiebreak"]))
    return rows


def standing_pair_key(row: dict) -> PairKey:
    """The ``PairKey`` of a ``session_standings`` row: what ``TablePoints`` and ``ByePoints`` name it by."""
    number = row["pair"]
    return (row["section"], row["direction"], number if number is not None else frozenset(row["players"]))


def session_board_points(body: dict) -> list[BoardPoints]:
    """Each board's points for each table and bye by the session's scoring, in the body's order: the very
    points ``session_standings`` totals (one computation), so a pair's points over its tables and byes sum
    to its total: its IMPs, or in matchpoints its MPs, which are its percentage of ``top`` x the boards and
    byes it has (before ``"total_decimals"`` rounds the total). Raises ValueError as ``session_standings``.
    """
    session = _Session(body)
    for board in session.boards:
        session.add_board(board)
    points = []
    for (number, credited, byes), board in zip(session.credited, session.boards, strict=True):
        mp = session.scoring == "matchpoints"
        points.append(
            BoardPoints(
                number=number,
                tables=[credited[id(table)] for table in board.get("tables") or []],
                byes=[
                    ByePoints(
                        pair=key,
                        points=pair.average() if given is None else given,
                        top=session.tops.get(pair.compared_in, 0) if mp else 0,
                    )
                    for pair, key, given in byes
                ],
            )
        )
    return points
