"""A stored bridge session read as a club's evening: its standings, each board's traveller, each pair's
scorecard and the boards' hand records (the session page and ``games.bridge.pages``).

Vocabulary. A session has two results, and its pages say which is which:

- the **standings**, the club's result: pairs placed by the session's scoring (matchpoints, cross-IMPs,
  Butler or plain IMPs) exactly as the club's scoring program computes it, per section and, in a Mitchell,
  per direction (``games.bridge.standings``, over the stored session read as a body, ``bridge_stored_body``);
- the **rating**, Cardrank's: each player's change over the evening from seed 003's IMP duels against the
  other tables (the ledger rows, ``session_rating_changes``).

A *pair* is what the standings name: a section, a direction in a Mitchell and a pair number, or its two
players for an evening typed in without numbers. Its *slug* names it in an address
(``/matches/ID/pairs/NS3/``). A *traveller* is one board's every table: the pairs, the contract and the
play, the score and each side's points by the session's scoring. A *scorecard* is one pair's evening board
by board. A *hand record* is a board's four hands, its double-dummy table and its par.

Reads only what the match page's query prefetched (the boards, their tables and players, the ledger rows):
no query of its own. The computation is pure and linear in the tables (a 22-table evening's standings and
points take a few milliseconds), so a request does it; nothing here solves a deal (the hand records'
double-dummy tables and par are filled by a task, ``games.bridge.analysis``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cached_property

from django.urls import reverse
from django.utils import dateformat, timezone
from django.utils.formats import get_format
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from games.bridge.results import bridge_stored_body, session_scoring
from games.bridge.scoring import SEAT_LETTERS, SIDE_LETTERS, contract_parse, no_trumps
from games.bridge.standings import (
    BoardPoints,
    PairKey,
    TablePoints,
    decimal_round,
    session_board_points,
    session_standings,
    standing_pair_key,
)
from ratings.engines.bridge import imps as to_imps

#: How the session page names a scoring, in "the club's standings, by ...".
SCORING_WORDS = {
    "matchpoints": gettext_lazy("matchpoints"),
    "cross_imps": gettext_lazy("cross-IMPs"),
    "butler": gettext_lazy("Butler IMPs (against a datum)"),
    "imps": gettext_lazy("IMPs"),
}
MOVEMENT_WORDS = {"mitchell": gettext_lazy("Mitchell"), "howell": gettext_lazy("Howell")}
DIRECTION_WORDS = {"NS": gettext_lazy("North-South"), "EW": gettext_lazy("East-West")}
SEAT_WORDS = {
    "N": gettext_lazy("North"),
    "E": gettext_lazy("East"),
    "S": gettext_lazy("South"),
    "W": gettext_lazy("West"),
}
VULNERABILITY_WORDS = {
    "None": gettext_lazy("None vulnerable"),
    "NS": gettext_lazy("North-South vulnerable"),
    "EW": gettext_lazy("East-West vulnerable"),
    "All": gettext_lazy("Both vulnerable"),
}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_WORDS = {
    "S": gettext_lazy("spades"),
    "H": gettext_lazy("hearts"),
    "D": gettext_lazy("diamonds"),
    "C": gettext_lazy("clubs"),
    "N": gettext_lazy("no trumps"),
}
#: A compass diagram's seats, and the double-dummy table's declarers and strains, in the order clubs print.
COMPASS = ("N", "W", "E", "S")
DD_DECLARERS = ("N", "S", "E", "W")
DD_STRAINS = ("NT", "S", "H", "D", "C")
MINUS = "\u2212"


# --- display helpers: numbers and cards as the pages show them -------------------------------------------------


def points_text(value: Fraction | Decimal | None, *, signed: bool = False) -> str:
    """Points to at most 2 decimals, trailing zeros dropped ("3.5", "58.33"); with ``signed``, "+3" and a true
    minus sign (U+2212). Empty for None."""
    if value is None:
        return ""
    number = decimal_round(Fraction(value), 2)
    if number == 0:
        return "0"
    text = f"{abs(number):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".").replace(".", get_format("DECIMAL_SEPARATOR"))
    if number < 0:
        return MINUS + text
    return "+" + text if signed else text


def suit_html(letter: str) -> SafeString:
    """A suit's symbol (♠ ♥ ♦ ♣) with its name for a screen reader; "NT" for no trumps."""
    if letter in ("N", "NT"):
        return format_html(
            '<abbr class="strain-nt" title="{}">{}</abbr>',
            SUIT_WORDS["N"],
            no_trumps(),
        )
    return format_html(
        '<span class="suit suit-{}" aria-hidden="true">{}</span><span class="visually-hidden">{}</span>',
        letter.lower(),
        SUIT_SYMBOLS[letter],
        SUIT_WORDS[letter],
    )


def contract_html(text: str) -> SafeString:
    """A contract as a traveller prints it: "4♠X", "3NT", "Pass"; as stored when it is not one."""
    contract = contract_parse(text) if text else None
    if contract is None:
        return format_html("{}", text)
    if contract.passed_out:
        return format_html("{}", _("Pass"))
    return format_html("{}{}{}", contract.level, suit_html(contract.strain), "X" * contract.doubled)


def result_text(contract_text: str, tricks: int | None) -> str:
    """Tricks against the contract: "=", "+1", "-2" (a true minus); empty without a contract (passed out) or tricks."""
    contract = contract_parse(contract_text) if contract_text else None
    if contract is None or contract.passed_out or tricks is None:
        return ""
    over = tricks - contract.level - 6
    return "=" if over == 0 else f"+{over}" if over > 0 else f"{MINUS}{-over}"


def card_html(text: str) -> SafeString:
    """A card ("SK", "H10", "DT") as "♠K"; as stored when it is not one."""
    if len(text) >= 2 and text[0].upper() in SUIT_SYMBOLS:
        rank = text[1:].upper().replace("T", "10")
        return format_html("{}{}", suit_html(text[0].upper()), rank)
    return format_html("{}", text)


def adjusted_text(code) -> str:
    """An adjusted award as written: "A+", "A=", "A-" (a true minus), or a percentage ("60" and a per cent sign)."""
    if code is None or code == "":
        return ""
    if isinstance(code, str):
        return code.replace("-", MINUS)
    return f"{points_text(Fraction(str(code)))}%"


def _whole(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def rating_changes_over(rows) -> dict[int, int]:
    """Each player's rating change over ledger ``rows`` in unit order, by player id: the whole rating after the
    last less the whole rating before the first, as the ratings are shown."""
    spans: dict[int, tuple[Decimal, Decimal]] = {}
    for change in rows:
        before, _after = spans.get(change.player_id, (change.rating_before, None))
        spans[change.player_id] = (before, change.rating_after)
    return {player_id: _whole(after) - _whole(before) for player_id, (before, after) in spans.items()}


def session_rating_changes(match) -> dict[int, int]:
    """Each player's rating change over the session, by player id, from the match's ledger rows (prefetched by
    the match page, in unit order)."""
    return rating_changes_over(match.rating_changes.all())


def session_title(match) -> str:
    """The evening's title: its club (the league it is filed under, else the game) and its local date."""
    club = match.league.name if match.league_id else match.game.name
    when = dateformat.format(
        timezone.localtime(match.played_at), pgettext("date format of a bridge session's title", "l j F Y")
    )
    return _("%(club)s, %(date)s") % {"club": club, "date": when}


# --- the pairs and their standings -----------------------------------------------------------------------------


def _slug_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_") or "_"


def pair_slug(key: PairKey) -> str:
    """A pair's name in an address: "3" (a Howell), "NS3" (a Mitchell), "A-NS3" (section A), "p12-13" (no
    number: its players' ids)."""
    section, direction, who = key
    last = "p" + "-".join(str(pk) for pk in sorted(who)) if isinstance(who, frozenset) else _slug_part(who)
    last = (direction or "") + last
    return f"{_slug_part(section)}-{last}" if section else last


@dataclass
class Pair:
    """A pair of the evening as the standings name it, with its players (Player rows) and its standing."""

    key: PairKey
    slug: str
    match_id: int
    players: list
    score: Decimal | None = None
    rank: int | None = None
    tied: bool = False
    #: The score as the standings print it: a percentage to two decimals in matchpoints, "+12.5" IMPs otherwise.
    score_text: str = ""
    #: Each player's rating change over the evening, (player, change), None while not rated.
    changes: list = field(default_factory=list)

    @property
    def section(self) -> str | None:
        return self.key[0]

    @property
    def direction(self) -> str | None:
        return self.key[1]

    @property
    def number(self) -> str | None:
        return None if isinstance(self.key[2], frozenset) else self.key[2]

    @property
    def place(self) -> str:
        return "" if self.rank is None else f"{self.rank}{'=' if self.tied else ''}"

    @property
    def label(self) -> str:
        """ "NS 3", "3", "A NS 3"; empty without a number. The direction in the reader's letters."""
        if self.number is None:
            return ""
        direction = SIDE_LETTERS.get(self.direction, self.direction) if self.direction else None
        return " ".join(str(part) for part in (self.section, direction, self.number) if part)

    @property
    def direction_text(self) -> str:
        """The pair's direction in a Mitchell in the reader's letters ("NS", Russian "СЮ"); empty otherwise."""
        return str(SIDE_LETTERS.get(self.direction, self.direction)) if self.direction else ""

    @property
    def names(self) -> str:
        return " & ".join(player.name for player in self.players)

    def get_absolute_url(self) -> str:
        return reverse("bridge-scorecard", kwargs={"pk": self.match_id, "pair": self.slug})


@dataclass
class StandingGroup:
    """One ranking of the standings: a section's, a direction's, or the evening's only one."""

    heading: str
    slug: str
    pairs: list[Pair]


class SessionReading:
    """A stored session read once for a page: its body, scoring, pairs and standings; its boards' points on
    demand. ``match`` comes with its boards, tables and their players prefetched (the match page's query, or
    ``games.bridge.pages``' lighter one), and its ledger rows when ``ratings`` (the players' changes)."""

    def __init__(self, match, *, ratings: bool = True) -> None:
        self.match = match
        stored = bridge_stored_body(match)
        self.scoring = session_scoring(stored)
        # Ranked by the scoring the page names, as the match answer ranks it (games.bridge.api): a session
        # stored without one is scored in IMPs, as it always was here.
        self.body = {**stored, "scoring": self.scoring}
        self.matchpoints = self.scoring == "matchpoints"
        self.boards = list(match.boards.all())
        self.players = {}
        for board in self.boards:
            for table in board.tables.all():
                for player in (table.ns_1, table.ns_2, table.ew_1, table.ew_2):
                    self.players[player.pk] = player
        changes = session_rating_changes(match) if ratings else {}
        self.pairs: dict[PairKey, Pair] = {}
        slugs: set[str] = set()
        groups: dict[tuple, list[Pair]] = {}
        for row in session_standings(self.body):
            pair = self._pair(standing_pair_key(row), row["players"], slugs, changes)
            pair.score, pair.rank, pair.tied = row["score"], row["rank"], row["tied"]
            pair.score_text = self.score_text(pair)
            groups.setdefault((row["section"], row["direction"]), []).append(pair)
        self.groups = [
            StandingGroup(
                heading=self._heading(section, direction),
                slug="-".join(_slug_part(part) for part in (section, direction) if part) or "all",
                pairs=rows,
            )
            for (section, direction), rows in groups.items()
        ]

    def _pair(self, key: PairKey, player_ids, slugs: set[str], changes: dict[int, int]) -> Pair:
        slug = pair_slug(key)
        while slug in slugs:  # two pairs whose names write alike (sections "A 1" and "A-1"): the later one
            slug += "~"
        slugs.add(slug)
        players = [self.players[pk] for pk in player_ids if pk in self.players]
        pair = Pair(key=key, slug=slug, match_id=self.match.pk, players=players)
        pair.changes = [(player, changes.get(player.pk)) for player in players]
        self.pairs[key] = pair
        return pair

    def _heading(self, section: str | None, direction: str | None) -> str:
        if section and direction:
            return _("Section %(section)s, %(direction)s") % {
                "section": section,
                "direction": DIRECTION_WORDS[direction],
            }
        if section:
            return _("Section %(section)s") % {"section": section}
        if direction:
            return str(DIRECTION_WORDS[direction])
        return _("Standings")

    def pair_of_slug(self, slug: str) -> Pair | None:
        return next((pair for pair in self.pairs.values() if pair.slug == slug), None)

    def pairs_of_player(self, player_id: int) -> list[Pair]:
        """The pairs the player sat in (usually one; a substitute sits in a pair numbered for another), most
        boards first."""
        counts: dict[PairKey, int] = {}
        for board, points in zip(self.boards, self.board_points, strict=True):
            for table, table_points in zip(board.tables.all(), points.tables, strict=True):
                if player_id in (table.ns_1_id, table.ns_2_id):
                    counts[table_points.ns_pair] = counts.get(table_points.ns_pair, 0) + 1
                elif player_id in (table.ew_1_id, table.ew_2_id):
                    counts[table_points.ew_pair] = counts.get(table_points.ew_pair, 0) + 1
        return [self.pairs[key] for key in sorted(counts, key=lambda key: -counts[key])]

    @cached_property
    def board_points(self) -> list[BoardPoints]:
        return session_board_points(self.body)

    @property
    def scoring_words(self) -> str:
        return str(SCORING_WORDS.get(self.scoring, self.scoring))

    @property
    def points_unit(self) -> str:
        return _("MP") if self.matchpoints else _("IMPs")

    def facts(self) -> dict:
        facts = self.match.facts or {}
        return {
            "event": facts.get("event", ""),
            "movement": MOVEMENT_WORDS.get(facts.get("movement", ""), ""),
            "scoring": self.scoring_words,
            "boards": len(self.boards),
            "pairs": len(self.pairs),
        }

    def score_text(self, pair: Pair) -> str:
        if pair.score is None:
            return ""
        return f"{points_text(pair.score)}%" if self.matchpoints else points_text(pair.score, signed=True)

    # --- a board's traveller ------------------------------------------------------------------------------

    def traveller(self, position: int) -> dict:
        """The board at ``position`` (0-based, in the order played) as its traveller: a line per table, the
        byes, the top, the hand record."""
        board = self.boards[position]
        points = self.board_points[position]
        lines = []
        for table, table_points in zip(board.tables.all(), points.tables, strict=True):
            lines.append(self._line(table, table_points))
        byes = [
            {"pair": self.pairs[bye.pair], "points": points_text(bye.points, signed=not self.matchpoints)}
            for bye in points.byes
        ]
        tops = sorted({line["points"].top for line in lines if line["points"].top})
        return {
            "board": board,
            "dealer": SEAT_WORDS.get(board.dealer, board.dealer),
            "vulnerability": VULNERABILITY_WORDS.get(board.vulnerability, board.vulnerability),
            "lines": lines,
            "byes": byes,
            "tops": tops,
            "hand": hand_record(board),
            "previous": self.boards[position - 1] if position else None,
            "next": self.boards[position + 1] if position + 1 < len(self.boards) else None,
        }

    def _line(self, table, table_points: TablePoints) -> dict:
        score = table.ns_score
        adjusted = table.adjusted or None
        signed = not self.matchpoints
        return {
            "table": table,
            "declarer": SEAT_LETTERS.get(table.declarer, table.declarer),
            "points": table_points,
            "ns": self.pairs[table_points.ns_pair],
            "ew": self.pairs[table_points.ew_pair],
            "contract": contract_html(table.contract),
            "result": result_text(table.contract, table.tricks),
            "lead": card_html(table.lead) if table.lead else "",
            "ns_score": score if score is not None and score >= 0 else None,
            "ew_score": -score if score is not None and score < 0 else None,
            "adjusted": (adjusted_text(adjusted.get("ns")), adjusted_text(adjusted.get("ew"))) if adjusted else None,
            "ns_points": points_text(table_points.ns_points, signed=signed),
            "ew_points": points_text(table_points.ew_points, signed=signed),
        }

    # --- a pair's scorecard -------------------------------------------------------------------------------

    def scorecard(self, pair: Pair) -> dict:
        """The pair's evening board by board: each line's opponents, direction, play, score from the pair's
        side, its points and the running total; byes as lines of their own."""
        lines = []
        total = Fraction(0)
        counted = 0
        top = 0
        signed = not self.matchpoints
        for position, (board, points) in enumerate(zip(self.boards, self.board_points, strict=True)):
            for table, table_points in zip(board.tables.all(), points.tables, strict=True):
                if pair.key not in (table_points.ns_pair, table_points.ew_pair):
                    continue
                ns = table_points.ns_pair == pair.key
                own = table_points.ns_points if ns else table_points.ew_points
                total += own
                counted += 1
                top = table_points.top or top
                score = table.ns_score if ns or table.ns_score is None else -table.ns_score
                adjusted = table.adjusted or None
                lines.append(
                    {
                        "board": board,
                        "position": position,
                        "direction": SIDE_LETTERS["NS" if ns else "EW"],
                        "opponents": self.pairs[table_points.ew_pair if ns else table_points.ns_pair],
                        "contract": contract_html(table.contract),
                        "declarer": SEAT_LETTERS.get(table.declarer, table.declarer),
                        "result": result_text(table.contract, table.tricks),
                        "score": "" if score is None else points_text(Fraction(score), signed=True),
                        "adjusted": adjusted_text(adjusted.get("ns" if ns else "ew")) if adjusted else "",
                        "points": points_text(own, signed=signed),
                        "total": points_text(total, signed=signed),
                    }
                )
            for bye in points.byes:
                if bye.pair == pair.key:
                    total += bye.points
                    counted += 1
                    top = bye.top or top
                    lines.append(
                        {
                            "board": board,
                            "position": position,
                            "bye": True,
                            "points": points_text(bye.points, signed=signed),
                            "total": points_text(total, signed=signed),
                        }
                    )
        return {
            "lines": lines,
            "total": total,
            "total_text": points_text(total, signed=signed),
            "boards": counted,
            "top": top,
            "possible": top * counted,
        }


# --- a board's hand record -----------------------------------------------------------------------------------


def _par_contract_html(text: str) -> SafeString:
    """A par contract ("4S N", "5DX E", "3NTX EW", "Pass") with the suit's symbol."""
    if text == "Pass":
        return format_html("{}", _("Pass"))
    found = re.fullmatch(r"([1-7])(NT|[SHDC])(X{0,2}) ([NESW]{1,2})", text)
    if not found:
        return format_html("{}", text)
    level, strain, doubled, declarers = found.groups()
    seats = "".join(str(SEAT_LETTERS[seat]) for seat in declarers)
    return format_html("{}{}{} {}", level, suit_html(strain), doubled, seats)


def hand_record(board) -> dict | None:
    """A board's hand record for its compass diagram, or None without a deal: each hand by seat (its suits,
    spades first, as (suit HTML, cards)), the double-dummy table by declarer and strain, and the par; the last
    two None while the board waits for its analysis."""
    if not board.deal:
        return None
    first, _colon, rest = board.deal.partition(":")
    order = "NESW"
    start = order.index(first.strip().upper() or "N")
    hands = {}
    for offset, hand in enumerate(rest.split()):
        seat = order[(start + offset) % 4]
        suits = hand.split(".")
        hands[seat] = {
            "seat": seat,
            "name": SEAT_WORDS[seat],
            "dealer": seat == board.dealer,
            "suits": [
                (suit_html(letter), cards.replace("T", "10") or "—")
                for letter, cards in zip("SHDC", suits, strict=False)
            ],
        }
    double_dummy = None
    if board.double_dummy:
        double_dummy = [
            {
                "declarer": declarer,
                "name": SEAT_WORDS[declarer],
                "tricks": [board.double_dummy.get(declarer, {}).get(strain) for strain in DD_STRAINS],
            }
            for declarer in DD_DECLARERS
        ]
    par = None
    if board.par:
        score = int(board.par.get("score") or 0)
        par = {
            "side": SIDE_LETTERS["NS"] if score > 0 else SIDE_LETTERS["EW"] if score < 0 else "",
            "score": abs(score),
            "contracts": format_html_join(
                ", ", "{}", ((_par_contract_html(c),) for c in board.par.get("contracts", []))
            ),
        }
    return {
        "hands": [hands.get(seat) for seat in COMPASS],
        "letters": SEAT_LETTERS,
        "dealer": SEAT_WORDS.get(board.dealer, board.dealer),
        "vulnerability": VULNERABILITY_WORDS.get(board.vulnerability, board.vulnerability),
        "double_dummy": double_dummy,
        "strains": [suit_html(strain) for strain in DD_STRAINS],
        "par": par,
    }


# --- the session page (the match page's context) ----------------------------------------------------------------


@dataclass
class PairTotal:
    """A pair's net IMPs over the evening: the referee's check of the entered scores on the confirmations
    list (``_confirm_result.html``), not the standings."""

    players: tuple  # the two Player rows, the pair's lowest id first
    imps: Decimal = Decimal(0)
    boards: int = 0
    rank: int = 0
    tied: bool = False


def _table_nets(tables) -> list[tuple[Decimal, Decimal]]:
    """(NS net, EW net) per table of a board."""
    if all(table.ns_score is not None for table in tables) and len(tables) > 1:
        nets = [sum(to_imps(t.ns_score - u.ns_score) for u in tables if u is not t) for t in tables]
        return [(Decimal(net), Decimal(-net)) for net in nets]
    first = tables[0].ns_imps or Decimal(0)
    if len(tables) == 2:  # a team match: NS at table 1 and EW at table 2 are one team
        return [(first, -first), (-first, first)]
    return [(first, -first)] + [(Decimal(0), Decimal(0))] * (len(tables) - 1)


def session_pair_ranking(match) -> list[PairTotal]:
    """The pairs by net IMPs (each board's score against every other table's): the confirmations list's
    check of what was entered. The session page shows the standings instead."""
    pairs: dict[frozenset, PairTotal] = {}
    for board in match.boards.all():
        tables = [table for table in board.tables.all() if not table.adjusted]
        if not tables:
            continue
        for table, (ns_net, ew_net) in zip(tables, _table_nets(tables), strict=True):
            for first, second, net in ((table.ns_1, table.ns_2, ns_net), (table.ew_1, table.ew_2, ew_net)):
                key = frozenset((first.pk, second.pk))
                total = pairs.setdefault(key, PairTotal(players=tuple(sorted((first, second), key=lambda p: p.pk))))
                total.imps += net
                total.boards += 1
    ranked = sorted(pairs.values(), key=lambda total: (-total.imps, -total.boards, total.players[0].name))
    for position, total in enumerate(ranked):
        previous = ranked[position - 1] if position else None
        if previous is not None and previous.imps == total.imps:
            total.rank, total.tied, previous.tied = previous.rank, True, True
        else:
            total.rank = position + 1
    return ranked


def session_sides(match) -> list[list[tuple[Decimal, tuple[int, ...]]]]:
    """The session's standings as contests for a season's points (``ResultsPart.season_sides``): a group of
    pairs per ranking, each pair (score, its players' ids). ``match`` comes with its boards and tables."""
    groups: dict[tuple, list[tuple[Decimal, tuple[int, ...]]]] = {}
    stored = bridge_stored_body(match)
    for row in session_standings({**stored, "scoring": session_scoring(stored)}):
        groups.setdefault((row["section"], row["direction"]), []).append((row["score"], tuple(row["players"])))
    return list(groups.values())


def session_page_context(match) -> dict:
    """What the session page shows beside the match: the standings with each player's rating change, the
    facts, the boards (each linked to its traveller); the IMP check the confirmations list shows."""
    reading = SessionReading(match)
    return {
        "session": reading,
        "standing_groups": reading.groups,
        "session_facts": reading.facts(),
        "session_boards": len(reading.boards),
        "session_pairs": len(reading.pairs),
        "board_rows": [
            {"board": board, "has_deal": bool(board.deal), "tables": len(board.tables.all())}
            for board in reading.boards
        ],
        # Computed only where it is read (the confirmations list): the session page shows the standings.
        "pair_ranking": SimpleLazyObject(lambda: session_pair_ranking(match)),
    }
