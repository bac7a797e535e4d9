"""Bridge's entry page, the way a club scorer works: the evening, its pairs once, then travellers.

Vocabulary:
    evening     one session (one match): its movement, tables, declared boards and *scoring* (how the club
                ranks it: matchpoints, cross-IMPs, Butler, or a team match's IMPs).
    pair        a pair number of the evening and its two players. A Mitchell
                numbers its NS pairs 1..T and its EW pairs 1..T (keys "ns3",
                "ew3"); a Howell or a free movement numbers pairs 1..2T ("3").
    traveller   a board's rows, one per table that played it: NS pair number,
                EW pair number and the NS score, or the contract, declarer and
                result (kept as they are; the cleaner scores them), or an
                *adjusted* score (A+, A=, A-, or percentages such as A60/40) for a
                board that could not be played normally: not rated, counted in the standings.
    cell        one input of a traveller row, named ``b{board}-t{row}-{field}``.
    missing row a row the evening expects (both its pairs have players) on a board that has scores, but
                with no score: saving needs a choice for it, "not played" (left out) or an adjusted score.

The page reads its fields (``BridgeForm``), turns pair numbers into players
(``evening_body``), and hands the API's bridge body (its scoring, movement,
pair numbers and contracts included) to ``entry_submit``: the kind's cleaner
(``bridge_clean``) validates it, as it does an API call, and its messages
("Board 7, table 2: ...") are pointed back at the cell they name. Only what
cannot reach the cleaner (a pair number that is not the evening's, a
contract or result that does not read, a player in two pairs, a missing
row) is checked here. A movement (``games.bridge.movements``) only prefills
the pair numbers; the scorer may change any.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games.bridge.movements import MOVEMENTS, traveller_prefill
from games.bridge.results import BRIDGE_IMPS_LIMIT, BRIDGE_SCORE_LIMIT, bridge_score, session_scoring
from games.bridge.scoring import (
    board_dealer,
    board_vulnerability,
    board_vulnerability_name,
    contract_parse,
    ns_score_problem,
    traveller_score,
    tricks_parse,
)
from games.bridge.session import SEAT_LETTERS, SIDE_LETTERS
from games.entry import entry_check, entry_decimal, entry_initial_values, entry_submit
from games.pickers import picker_read
from leagues.models import Game, League, Player
from matches.entry import form_now
from matches.inputs import parse_cents, parse_id
from matches.models import Match
from ratings.engines.bridge import imps as to_imps

PAGE = "games/bridge/entry.html"
MAX_TABLES = 15
MAX_BOARDS = 36
#: Django refuses a form of more than 1,000 fields (DATA_UPLOAD_MAX_NUMBER_FIELDS): the travellers' cells
#: stay under this, the rest of the form (pairs, the evening's fields) fits in what is left.
MAX_CELLS = 900
START_TABLES = 3
START_BOARDS = 6
ROW_FIELDS = {"score": ("ns", "ew", "score"), "contract": ("ns", "ew", "contract", "by", "result")}
ENTRY_MODES = {"score": gettext_lazy("NS scores"), "contract": gettext_lazy("Contract, declarer and result")}
VULNERABLE = {
    "none": gettext_lazy("none vul"),
    "ns": gettext_lazy("NS vul"),
    "ew": gettext_lazy("EW vul"),
    "both": gettext_lazy("all vul"),
}
#: How the club ranks the evening (the body's ``scoring``). "imps" is a one- or two-table team match: the IMPs
#: of NS at table 1 are typed, not scores.
SCORINGS = {
    "matchpoints": gettext_lazy("Matchpoints"),
    "cross_imps": gettext_lazy("Cross-IMPs"),
    "butler": gettext_lazy("Butler"),
    "imps": gettext_lazy("Team match: IMPs of NS at table 1"),
}
#: What a missing row may be saved as: left out, or an adjusted score (NS's, then EW's).
MISSING_CHOICES = {
    "skip": gettext_lazy("not played: leave it out"),
    "A+/A-": gettext_lazy("adjusted: A+ NS, A− EW"),  # noqa: RUF001
    "A=/A=": gettext_lazy("adjusted: A= both"),
    "A-/A+": gettext_lazy("adjusted: A− NS, A+ EW"),  # noqa: RUF001
    "A-/A-": gettext_lazy("adjusted: A− both"),  # noqa: RUF001
}
#: A duel's outcome for NS in the board's preview (a draw is within 1 IMP).
OUTCOMES = {
    "win": pgettext_lazy("a duel's outcome", "win"),
    "loss": pgettext_lazy("a duel's outcome", "loss"),
    "draw": pgettext_lazy("a duel's outcome", "draw"),
}
ADJUSTED_CODES = re.compile(r"A([+=-])(?:/?A?([+=-]))?")
ADJUSTED_PERCENTS = re.compile(r"A?(\d{1,3}(?:\.\d{1,2})?)%?/(\d{1,3}(?:\.\d{1,2})?)%?")
OTHER_SIDE = {"+": "-", "-": "+", "=": "="}


def scoring_choices(tables: int) -> list[str]:
    """The scorings an evening of ``tables`` can have: a team match's IMPs at one or two tables, a pairs
    scoring at two or more."""
    if tables == 1:
        return ["imps"]
    pairs = ["matchpoints", "cross_imps", "butler"]
    return [*pairs, "imps"] if tables == 2 else pairs


def scoring_default(tables: int) -> str:
    """Matchpoints for a pairs evening of 3 tables or more (what clubs play); at two tables, where a board has
    one comparison, cross-IMPs (as the session page has always ranked such an evening); IMPs at one table."""
    return "imps" if tables == 1 else "cross_imps" if tables == 2 else "matchpoints"


def adjusted_looks(text: str) -> bool:
    """Whether a cell's text is meant as an adjusted score (A+, A=, A60/40, 60/40), not a score or contract."""
    value = text.strip().upper()
    return value.startswith("A") or "/" in value or "%" in value


def adjusted_parse(text: str) -> dict[str, str] | None:
    """An adjusted score as typed, as the body's ``adjusted``: "A+" (NS A+, EW A-), "A-", "A=", both sides'
    codes ("A+/A=", "A-A-"), or NS's and EW's percentages ("A60/40", "60/40", or with per cent signs); None
    when it is none."""
    value = text.strip().upper().replace(" ", "").replace("\u2212", "-").replace("\u2013", "-").replace(",", ".")
    if codes := ADJUSTED_CODES.fullmatch(value):
        ns = codes[1]
        return {"ns": f"A{ns}", "ew": f"A{codes[2] or OTHER_SIDE[ns]}"}
    percents = ADJUSTED_PERCENTS.fullmatch(value)
    if percents and all(Decimal(percent) <= 100 for percent in percents.groups()):
        return {"ns": percents[1], "ew": percents[2]}
    return None


def _where(board: int, table: int) -> str:
    """ "Board 3, table 2", in the cleaner's words (the same messages, so they translate alike)."""
    return _("%(where)s, table %(table)d") % {"where": _("Board %(number)d") % {"number": board}, "table": table}


def _adjusted_problem(board: int, table: int) -> str:
    return _(
        "%(where)s: an adjusted score is A+, A= or A− (NS’s; EW get the other), both sides’ "  # noqa: RUF001
        "(A+/A=), or NS’s and EW’s percentages (A60/40)."  # noqa: RUF001
    ) % {"where": _where(board, table)}


def _seated(prefill: dict[int, list[tuple[int, int] | None]], board: int, row: int) -> tuple[str, str]:
    """Row ``row`` of a board as the movement seats it, or blank: a board of an even-table Mitchell is
    played at one table fewer than the evening has, so the row of the table it skips stays empty."""
    seated = prefill.get(board, [])
    pairs = seated[row - 1] if row <= len(seated) else None
    return (str(pairs[0]), str(pairs[1])) if pairs else ("", "")


def _blank_row() -> dict[str, str]:
    return {"ns": "", "ew": "", "score": "", "contract": "", "by": "", "result": "", "missing": ""}


@dataclass
class BridgeForm:
    """The page's state, as posted: every field as typed (text), so a redisplay shows what was typed."""

    movement: str = "mitchell"
    tables: int = START_TABLES
    boards: int = START_BOARDS
    entry: str = "score"  # "score" | "contract"
    scoring: str = "matchpoints"  # a key of SCORINGS, one of scoring_choices(tables)
    pairs: dict[str, list[str]] = field(default_factory=dict)  # pair key -> [player pk, player pk]
    rows: dict[int, list[dict[str, str]]] = field(default_factory=dict)  # board -> rows of cells
    played_at: str = ""
    rated: str = "true"
    league: str = ""
    setup: str = ""  # the movement, tables and boards the rows were prefilled for
    missing_all: str = ""  # the choice for every missing row without its own (a key of MISSING_CHOICES)
    problems: dict[str, str] = field(default_factory=dict)  # setup field -> message
    typed: dict[str, str] = field(default_factory=dict)  # pair player field -> the text in its picker
    unread: dict[str, str] = field(default_factory=dict)  # pair player field -> why its typed text names nobody

    @classmethod
    def from_post(cls, post) -> BridgeForm:
        form = cls(played_at=post.get("played_at", ""), rated=post.get("rated", "true"), league=post.get("league", ""))
        form.movement = post.get("movement", "mitchell")
        if form.movement not in MOVEMENTS:
            form.movement = "mitchell"
        form.tables = form._count(
            post,
            "tables",
            START_TABLES,
            MAX_TABLES,
            _("The tables of an evening entered here are a whole number from 1 to %(high)d."),
        )
        form.boards = form._count(
            post,
            "boards",
            START_BOARDS,
            MAX_BOARDS,
            _("The boards of an evening entered here are a whole number from 1 to %(high)d."),
        )
        form.entry = post.get("entry", "score") if post.get("entry") in ENTRY_MODES else "score"
        # A scoring the tables cannot have (the team match's IMPs at 3 tables; "scores", the page's old word
        # for NS scores at each table) is the tables' default.
        scoring = post.get("scoring", "")
        form.scoring = scoring if scoring in scoring_choices(form.tables) else scoring_default(form.tables)
        if form.team:
            form.entry = "score"
        missing_all = post.get("missing-all", "")
        form.missing_all = missing_all if missing_all in MISSING_CHOICES else ""
        cells = len(ROW_FIELDS[form.entry]) * form.tables
        if cells * form.boards > MAX_CELLS:
            fitting = MAX_CELLS // cells
            form.problems["boards"] = _(
                "%(boards)d boards at %(tables)d tables are more traveller cells than one page holds: "
                "at most %(fitting)d boards here"
            ) % {"boards": form.boards, "tables": form.tables, "fitting": fitting} + (
                _("; entering NS scores takes fewer cells.") if form.entry == "contract" else "."
            )
            form.boards = fitting
        # Each player comes from a search picker: its chosen id, else the name or number typed (no JavaScript).
        for key, _label in form.pair_keys():
            picked = [picker_read(post, f"pair-{key}-{n}") for n in (1, 2)]
            form.pairs[key] = [one.value for one in picked]
            for n, one in enumerate(picked, start=1):
                form.typed[f"pair-{key}-{n}"] = one.name
                if one.problem:
                    form.unread[f"pair-{key}-{n}"] = one.problem
        form.setup = post.get("setup", "")
        prefill = traveller_prefill(form.movement, form.tables, form.boards) if form.setup != form.signature else {}
        for board in range(1, form.boards + 1):
            rows = []
            for t in range(1, form.tables + 1):
                row = {name: post.get(f"b{board}-t{t}-{name}", "").strip()[:20] for name in ROW_FIELDS["contract"]}
                row["score"] = post.get(f"b{board}-t{t}-score", "").strip()[:20]
                if form.team:  # IMPs may be typed with a decimal comma: "1,5" is 1.5
                    row["score"] = entry_decimal(row["score"])
                missing = post.get(f"b{board}-t{t}-missing", "")
                row["missing"] = missing if missing in MISSING_CHOICES else ""
                if prefill:
                    row["ns"], row["ew"] = _seated(prefill, board, t)
                rows.append(row)
            form.rows[board] = rows
        form.setup = form.signature
        return form

    def _count(self, post, name: str, default: int, high: int, problem: str) -> int:
        raw = post.get(name)
        if raw in (None, ""):
            return default
        number = parse_id(raw)
        if number is None or number > high:
            self.problems[name] = problem % {"high": high}
            return default if number is None else high
        return number

    @property
    def signature(self) -> str:
        return f"{self.movement}-{self.tables}-{self.boards}"

    @property
    def mitchell(self) -> bool:
        return self.movement == "mitchell"

    @property
    def team(self) -> bool:
        """A one- or two-table team match: the IMPs of NS at table 1 are typed, table 2 only has its pairs."""
        return self.scoring == "imps"

    @property
    def top_pair(self) -> int:
        return self.tables if self.mitchell else 2 * self.tables

    def pair_keys(self) -> list[tuple[str, str]]:
        numbers = range(1, self.tables + 1)
        if self.mitchell:
            return [(f"ns{n}", _("NS pair %(n)d") % {"n": n}) for n in numbers] + [
                (f"ew{n}", _("EW pair %(n)d") % {"n": n}) for n in numbers
            ]
        return [(str(n), _("Pair %(n)d") % {"n": n}) for n in range(1, 2 * self.tables + 1)]

    def pair_key(self, side: str, number: int) -> str:
        return f"{side}{number}" if self.mitchell else str(number)

    def row_played(self, rows: list[dict[str, str]], t: int) -> bool:
        """Whether row ``t`` (from 1) of a board was played: it has a score or a contract (or an adjusted
        score typed in its cell); in a team match scored in IMPs, every row of a board whose first row has
        its IMPs."""
        row = rows[0] if self.team else rows[t - 1]
        return bool(row["contract"] if self.entry == "contract" else row["score"])

    def choice(self, row: dict[str, str]) -> str:
        """What a missing row is saved as: its own choice, else the one for all of them, else "" (none yet)."""
        return row["missing"] or self.missing_all


@dataclass(frozen=True)
class MissingRow:
    """A row the evening expects but that has no score: both its pairs have players, and its board has scores."""

    board: int
    row: int
    ns: str
    ew: str

    @property
    def name(self) -> str:
        return f"b{self.board}-t{self.row}-missing"

    @property
    def message(self) -> str:
        return _("%(where)s (NS %(ns)s v EW %(ew)s) has no score") % {
            "where": _where(self.board, self.row),
            "ns": self.ns,
            "ew": self.ew,
        }


def missing_rows(form: BridgeForm) -> list[MissingRow]:
    """The rows a movement (or the pair numbers typed) expects but that have no score, on boards that have
    scores: both pair numbers are the evening's and both pairs have players (a sit-out pair has none, so its
    rows are not expected). A board with no score at all is an empty board (asked about apart); a team
    match's second row never has a score of its own."""
    if form.team:
        return []
    found = []
    for board, rows in form.rows.items():
        if not any(form.row_played(rows, t) for t in range(1, len(rows) + 1)):
            continue
        for t, row in enumerate(rows, start=1):
            if form.row_played(rows, t):
                continue
            numbers = [parse_id(row[side]) for side in ("ns", "ew")]
            if any(number is None or number > form.top_pair for number in numbers):
                continue
            keys = [form.pair_key(side, number) for side, number in zip(("ns", "ew"), numbers, strict=True)]
            if all(any(form.pairs.get(key, ["", ""])) for key in keys):
                found.append(MissingRow(board=board, row=t, ns=str(numbers[0]), ew=str(numbers[1])))
    return found


@dataclass(frozen=True)
class RowResult:
    """What one row gives the body's table beside its pairs (``fields``), its NS score when it was played and
    scored (for the preview), or the cell it cannot be read from and why (``problem``, with its place)."""

    fields: dict
    score: int | None = None
    cell: str = ""
    problem: str = ""


def _row_result(form: BridgeForm, board: int, t: int, row: dict[str, str]) -> RowResult:
    """A played row as the body's table takes it: the NS score (score mode, or a score typed in the contract
    cell), the contract, declarer and tricks (kept; the cleaner scores them), or an adjusted score."""
    if form.team:
        return RowResult(fields={"ns_imps": row["score"]})
    text = row["score"] if form.entry == "score" else row["contract"]
    cell = "score" if form.entry == "score" else "contract"
    if form.entry == "contract":
        contract = contract_parse(text)
        if contract is not None:
            if contract.passed_out:
                return RowResult(fields={"contract": str(contract)}, score=0)
            score, problem = traveller_score(
                contract=text,
                declarer=row["by"],
                result=row["result"],
                board=board,
                vulnerability=board_vulnerability_name(board),
            )
            if score is None:
                declarer = row["by"].strip().upper()
                where = "by" if len(declarer) != 1 or declarer not in "NESW" else "result"
                return RowResult(fields={}, cell=where, problem=f"{_where(board, t)}: {problem}.")
            tricks = tricks_parse(row["result"], contract)
            return RowResult(
                fields={"contract": str(contract), "declarer": row["by"].strip().upper(), "tricks": tricks},
                score=score,
            )
    score = bridge_score(text)
    if score is not None:
        return RowResult(fields={"ns_score": text}, score=score)
    if adjusted_looks(text):
        adjusted = adjusted_parse(text)
        if adjusted is None:
            return RowResult(fields={}, cell=cell, problem=_adjusted_problem(board, t))
        return RowResult(fields={"adjusted": adjusted})
    if form.entry == "contract":  # neither a contract, nor a score, nor an adjusted score
        _none, problem = traveller_score(contract=text, declarer=row["by"], result=row["result"], board=board)
        return RowResult(fields={}, cell="contract", problem=f"{_where(board, t)}: {problem}.")
    return RowResult(fields={"ns_score": text})  # not a bridge score: the cleaner says why, at this cell


@dataclass
class Reading:
    """What the form reads as: the API body, and the cells and messages of what it could not read."""

    body: dict
    cells: dict[str, str]  # cell name -> message
    filled: list[int]  # boards with at least one played row
    places: dict[tuple[int, int], int]  # (board, the body's table index) -> the page's row
    missing: list[MissingRow] = field(default_factory=list)  # rows with no score and no choice yet


def evening_body(form: BridgeForm, game: Game, *, implied: frozenset[str] = frozenset()) -> Reading:
    """The evening as the body ``POST /api/matches/`` takes: its scoring and movement, each played row as a
    table of its board with its pair numbers, and each missing row as its choice says.

    ``implied`` names what a correction shows but the stored session never had, and is not sent
    (``_implied``): "scoring", "movement", "pairs" (the pair numbers the page gave its partnerships).
    """
    cells: dict[str, str] = {}
    players: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for key, label in form.pair_keys():
        chosen = form.pairs.get(key, ["", ""])
        if not any(chosen) and not any(f"pair-{key}-{n}" in form.unread for n in (1, 2)):
            continue
        for n, value in enumerate(chosen, start=1):
            name = f"pair-{key}-{n}"
            if name in form.unread:
                cells[name] = _("%(pair)s, player %(n)d: %(problem)s") % {
                    "pair": label,
                    "n": n,
                    "problem": form.unread[name],
                }
            elif not value:
                cells[name] = _("%(pair)s needs two players.") % {"pair": label}
            elif parse_id(value) is None:
                cells[name] = _("%(pair)s: choose a player.") % {"pair": label}
            elif n == 2 and value == chosen[0]:
                cells[name] = _("%(pair)s needs two different players.") % {"pair": label}
            elif value in seen:
                cells[name] = _("%(pair)s, player %(n)d: this player is already in %(other)s.") % {
                    "pair": label,
                    "n": n,
                    "other": seen[value],
                }
            else:
                seen[value] = label
        players[key] = chosen
    known = {
        str(pk)
        for pk in Player.objects.filter(pk__in=[int(v) for v in seen if parse_id(v)]).values_list("pk", flat=True)
    }
    for key, label in form.pair_keys():
        for n, value in enumerate(form.pairs.get(key, ["", ""]), start=1):
            if value in seen and value not in known:
                cells.setdefault(
                    f"pair-{key}-{n}",
                    _("%(pair)s, player %(n)d: no player has the id %(id)s.") % {"pair": label, "n": n, "id": value},
                )
    expected = {(missing.board, missing.row): missing for missing in missing_rows(form)}
    unresolved: list[MissingRow] = []
    boards, filled, places = [], [], {}
    for board, rows in form.rows.items():
        tables, at = [], {}
        for t, row in enumerate(rows, start=1):
            if form.row_played(rows, t):
                result = _row_result(form, board, t, rows[0] if form.team else row)
            elif (board, t) in expected:
                choice = form.choice(row)
                if choice == "skip":
                    continue
                if not choice:
                    unresolved.append(expected[(board, t)])
                    continue
                result = RowResult(fields={"adjusted": adjusted_parse(choice)})
            else:
                continue
            where = _where(board, t)
            pair_of, numbers = {}, {}
            for side in ("ns", "ew"):
                number = parse_id(row[side])
                key = form.pair_key(side, number) if number is not None and number <= form.top_pair else None
                if key is None:
                    cells[f"b{board}-t{t}-{side}"] = _(
                        "%(where)s: %(side)s pair “%(typed)s” is not a pair of the evening (1–%(top)d)."  # noqa: RUF001
                    ) % {"where": where, "side": SIDE_LETTERS[side.upper()], "typed": row[side], "top": form.top_pair}
                elif key not in players:
                    cells[f"b{board}-t{t}-{side}"] = _("%(where)s: %(side)s pair %(number)d has no players yet.") % {
                        "where": where,
                        "side": SIDE_LETTERS[side.upper()],
                        "number": number,
                    }
                elif key in at:
                    pair = (
                        _("%(side)s pair %(number)d") % {"side": SIDE_LETTERS[side.upper()], "number": number}
                        if form.mitchell
                        else _("pair %(number)d") % {"number": number}
                    )
                    cells[f"b{board}-t{t}-{side}"] = _(
                        "%(where)s: %(pair)s already plays board %(board)d at table %(table)d."
                    ) % {"where": where, "pair": pair, "board": board, "table": at[key]}
                else:
                    at[key] = t
                    pair_of[side], numbers[side] = key, number
            if result.problem and (not form.team or t == 1):  # a team match's IMPs are row 1's
                cells[f"b{board}-t{t}-{result.cell}"] = result.problem
            if len(pair_of) < 2 or result.problem:
                continue
            table = {"ns": players[pair_of["ns"]], "ew": players[pair_of["ew"]]}
            if not form.team or not tables:  # a team match's second table has its pairs only
                table |= result.fields
            if "pairs" not in implied:
                table["ns_pair"], table["ew_pair"] = str(numbers["ns"]), str(numbers["ew"])
            places[(board, len(tables) + 1)] = t
            tables.append(table)
        if any(form.row_played(rows, t) for t in range(1, len(rows) + 1)):
            filled.append(board)
            boards.append({"number": board, "tables": tables})
    body = {"game": game.slug, "played_at": form.played_at, "rated": form.rated}
    if "scoring" not in implied:
        body["scoring"] = form.scoring
    if "movement" not in implied:
        # The cleaner knows Mitchell and Howell; a free movement's pairs are numbered 1..2T as a Howell's are.
        body["movement"] = "mitchell" if form.mitchell else "howell"
    body["boards"] = boards
    if form.league:
        body["league"] = form.league
    return Reading(body=body, cells=cells, filled=filled, places=places, missing=unresolved)


def _placeholder(text: str, name: str, pattern: str) -> str:
    """``text`` escaped for a regular expression, its placeholder ``%(name)…`` matching ``pattern``."""
    return re.sub(re.escape(re.escape(f"%({name})")) + r"[sd]", lambda _m: pattern, re.escape(text))


def cleaner_place() -> re.Pattern:
    """Where a cleaner's message says it is, in the language it was written in: "Board 7, table 2, NS: ..."
    gives the board, the table and the side (the cleaner's ``%(where)s`` formats, read back)."""
    board = _placeholder(_("Board %(number)d"), "number", r"(\d+)")
    table = _("%(where)s, table %(table)d")
    before, _where_mark, after = table.partition("%(where)s")
    table_part = _placeholder(after, "table", r"(\d+)")
    return re.compile(f"^{re.escape(before)}{board}(?:{table_part})?(?:, (NS|EW))?")


def _players_words() -> tuple[str, str]:
    """The stems of a cleaner's message about a table's players (not its score), in the page's language."""
    return (
        pgettext("stem of words about a bridge pair in an error message", "pair"),
        pgettext("stem of words about a seat at a bridge table in an error message", "seat"),
    )


def cleaner_cells(messages: list[str], reading: Reading, form: BridgeForm) -> dict[str, str]:
    """The cleaner's messages about boards, each at the cell it names ("Board 7, table 2, NS: ...")."""
    cells = {}
    place_pattern = cleaner_place()
    for message in messages:
        place = place_pattern.match(message)
        if not place or int(place.group(1)) not in form.rows:
            cells.setdefault("boards", message)
            continue
        board, table, side = int(place.group(1)), place.group(2), place.group(3)
        row = reading.places.get((board, int(table))) if table else None
        if row is None:
            rows = form.rows[board]
            row = next((t for t in range(1, len(rows) + 1) if form.row_played(rows, t)), 1)
            if table:
                message = message.replace(_where(board, int(table)), _("Board %(number)d") % {"number": board}, 1)
        else:
            message = message.replace(_where(board, int(table)), _where(board, row), 1)
        about_players = any(word in message for word in _players_words())
        name = side.lower() if side else ("ns" if about_players else "score")
        if name == "score" and form.entry == "contract":
            name = "contract"
        cells.setdefault(f"b{board}-t{row}-{name}", message)
    return cells


def signed(imps: int) -> str:
    return f"+{imps}" if imps > 0 else f"\u2212{-imps}" if imps < 0 else "0"


@dataclass(frozen=True)
class RowNet:
    row: int
    ns: str
    ew: str
    imps: int

    @property
    def signed(self) -> str:
        return signed(self.imps)


def board_preview(form: BridgeForm, board: int) -> dict:
    """One board's line: each played row's NS and EW pair with NS's net IMPs against the other rows,
    and the duels (row against row) for the details. Only a preview: the engine rates the same duels.

    A score the board cannot have at its vulnerability is flagged at its cell (``cell``) in the cleaner's
    words; an adjusted row is not rated, so it is not in the line."""
    rows = form.rows.get(board, [])
    played, problem, cell = [], "", ""
    vulnerability = board_vulnerability_name(board)
    for t, row in enumerate(rows, start=1):
        if not form.row_played(rows, t):
            continue
        result = _row_result(form, board, t, row)
        if form.team:
            value = parse_cents(row["score"], limit=BRIDGE_IMPS_LIMIT)
            if value is None:
                problem = _("%(where)s: the NS IMPs are a number within ±24 with at most two decimals.") % {
                    "where": _where(board, t)
                }
                cell = f"b{board}-t{t}-score"
                break
            return {"board": board, "status": "ok", "imps_line": value, "rows": [], "duels": []}
        if result.problem:
            problem, cell = result.problem, f"b{board}-t{t}-{result.cell}"
            break
        if "adjusted" in result.fields:
            continue
        text_cell = "score" if form.entry == "score" else "contract"
        if result.score is None:
            problem = _("%(where)s: the NS score is a whole multiple of 10 within ±%(limit)s.") % {
                "where": _where(board, t),
                "limit": number_format(BRIDGE_SCORE_LIMIT, force_grouping=True),
            }
            cell = f"b{board}-t{t}-{text_cell}"
            break
        if "ns_score" in result.fields and (why := ns_score_problem(result.score, vulnerability)):
            problem, cell = f"{_where(board, t)}: {why}", f"b{board}-t{t}-{text_cell}"
            break
        played.append((t, row, result.score))
    if problem:
        return {"board": board, "status": "bad", "problem": problem, "cell": cell, "rows": [], "duels": []}
    if len(played) < 2:
        return {"board": board, "status": "blank" if not played else "incomplete", "rows": [], "duels": []}
    duels = [
        {
            "first": t,
            "second": u,
            "imps": to_imps(a - b),
            "signed": signed(to_imps(a - b)),
            "outcome": OUTCOMES["win" if to_imps(a - b) > 1 else "loss" if to_imps(a - b) < -1 else "draw"],
        }
        for i, (t, _row, a) in enumerate(played)
        for (u, _other, b) in played[i + 1 :]
    ]
    nets = [
        RowNet(
            row=t,
            ns=row["ns"] or "?",
            ew=row["ew"] or "?",
            imps=sum(to_imps(score - other) for _t, _row, other in played),
        )
        for t, row, score in played
    ]
    return {"board": board, "status": "ok", "rows": nets, "duels": duels}


def _pair_fields(form: BridgeForm, cells: dict[str, str]) -> list[dict]:
    chosen = {value for pair in form.pairs.values() for value in pair if parse_id(value)}
    names = dict(Player.objects.filter(pk__in=[int(value) for value in chosen]).values_list("pk", "name"))
    fields = []
    for key, label in form.pair_keys():
        for n, value in enumerate(form.pairs.get(key, ["", ""]), start=1):
            name = f"pair-{key}-{n}"
            fields.append(
                {
                    "key": key,
                    "label": _("%(pair)s, player %(n)d") % {"pair": label, "n": n},
                    "name": name,
                    "value": value,
                    "value_name": names.get(int(value), "") if parse_id(value) else form.typed.get(name, ""),
                    "invalid": name in cells,
                    "error": [cells[name]] if name in cells else None,
                    "first": n == 1,
                    "pair": label,
                }
            )
    return fields


def _form_context(
    game: Game, form: BridgeForm, *, cells=None, errors=None, saved=None, short=None, missing=None, focus=""
) -> dict:
    """The page's context. ``missing``: the rows saving asked a choice for (nothing was saved); a row that
    already has a choice shows it too, so a redraw keeps it."""
    cells = cells or {}
    if not form.played_at:
        form.played_at = form_now()
    asked = {(row.board, row.row) for row in missing or ()}
    shown_missing = [
        row
        for row in missing_rows(form)
        if (row.board, row.row) in asked or form.choice(form.rows[row.board][row.row - 1])
    ]
    if not focus and cells:
        focus = next(iter(cells))
    if not focus and missing:
        focus = "missing-all"
    boards = []
    for board, rows in form.rows.items():
        preview = board_preview(form, board)
        flagged = preview.get("cell", "") if preview["status"] == "bad" and preview.get("cell") not in cells else ""
        board_missing = [row for row in shown_missing if row.board == board]
        missing_at = {row.row: row for row in board_missing}
        boards.append(
            {
                "number": board,
                "dealer": SEAT_LETTERS[board_dealer(board)],
                "vulnerable": VULNERABLE[board_vulnerability(board)],
                "rows": [
                    {
                        "table": t,
                        # a row the movement leaves empty (an even Mitchell's board is played at one table
                        # fewer): Enter passes it over, Tab still reaches it
                        "spare": form.movement != "free" and not row["ns"] and not row["ew"],
                        "cells": [
                            {
                                "field": name,
                                "name": f"b{board}-t{t}-{name}",
                                "value": row[name],
                                "invalid": f"b{board}-t{t}-{name}" in cells or f"b{board}-t{t}-{name}" == flagged,
                                "described": (
                                    f"error-b{board}-t{t}-{name}"
                                    if f"b{board}-t{t}-{name}" in cells
                                    else f"preview-{board}"
                                    if f"b{board}-t{t}-{name}" == flagged
                                    else f"missing-b{board}-t{t}"
                                    if t in missing_at and name in ("score", "contract")
                                    else ""
                                ),
                                "flagged": f"b{board}-t{t}-{name}" == flagged,
                                "focus": f"b{board}-t{t}-{name}" == focus,
                            }
                            for name in ROW_FIELDS[form.entry]
                            if not (name == "score" and form.team and t > 1)
                        ],
                    }
                    for t, row in enumerate(rows, start=1)
                ],
                "messages": [(name, message) for name, message in cells.items() if name.startswith(f"b{board}-t")],
                "missing": [
                    {"row": row, "choice": form.rows[board][row.row - 1]["missing"], "asked": (board, row.row) in asked}
                    for row in board_missing
                ],
                "preview": preview,
            }
        )
    return {
        "game": game,
        "form": form,
        "movements": MOVEMENTS,
        "entry_modes": ENTRY_MODES,
        "scorings": [(value, SCORINGS[value]) for value in scoring_choices(form.tables)],
        "missing_choices": MISSING_CHOICES,
        "leagues": League.objects.filter(game=game).order_by("tier"),
        "pair_fields": _pair_fields(form, cells),
        "pair_count": len(form.pair_keys()),
        "boards": boards,
        "cells": cells,
        "focus": focus,
        "errors": errors or {},
        "saved": saved,
        "short": short,
        "missing": missing or [],
        "shown_missing": shown_missing,
    }


def _answer(request, game, form, **context):
    template = f"{PAGE}#entry-form" if request.htmx else PAGE
    return render(request, template, _form_context(game, form, **context))


def _implied(request, form: BridgeForm) -> frozenset[str]:
    """What a correction shows of a stored session that the session never had, so saving it unchanged does not
    add it: the scoring a session without one is ranked by, a free movement, and the pair numbers the page
    gave the partnerships of a session stored without pair numbers (API, older entries)."""
    correction = getattr(request, "correction", None)
    if correction is None:
        return frozenset()
    stored = correction.stored
    implied = set()
    if "scoring" not in stored and form.scoring == session_scoring(stored):
        implied.add("scoring")
    if "movement" not in stored and form.movement == "free":
        implied.add("movement")
    numbered = any(
        "ns_pair" in table or "ew_pair" in table for board in stored.get("boards", ()) for table in board["tables"]
    )
    if not numbered and form.movement == "free":
        implied.add("pairs")
    return frozenset(implied)


def entry(request, game: Game):
    """Record a bridge evening: its movement, scoring and pairs, then the travellers board by board.

    POST actions: ``save`` (default; asks first about missing rows and when fewer boards are filled than
    declared), ``save_short`` (save the boards filled), ``add_board``, ``refresh`` (the evening's setup
    changed) and ``check`` (one board's live preview, ``board`` naming it).
    """
    post = request.POST if request.method == "POST" else entry_initial_values(request)
    form = BridgeForm.from_post(post)
    if request.method == "GET":
        return render(request, PAGE, _form_context(game, form))
    action = request.POST.get("action", "save")
    if action == "check":
        board = parse_id(request.POST.get("board")) or 1
        return render(request, f"{PAGE}#board-preview", {"form": form, "preview": board_preview(form, board)})
    if action == "add_board":
        if form.boards < MAX_BOARDS and (form.boards + 1) * form.tables * len(ROW_FIELDS[form.entry]) <= MAX_CELLS:
            form.boards += 1
            prefill = traveller_prefill(form.movement, form.tables, form.boards)
            form.rows[form.boards] = [_blank_row() for _t in range(form.tables)]
            if prefill:  # the new board joins the last set; every other board keeps what was typed
                for t, row in enumerate(form.rows[form.boards], start=1):
                    row["ns"], row["ew"] = _seated(prefill, form.boards, t)
            form.setup = form.signature
        else:
            form.problems["boards"] = _("No more boards fit on this page.")
        first = "score" if form.entry == "score" else "contract"
        return _answer(request, game, form, focus=f"b{form.boards}-t1-{first}")
    if action == "refresh" or form.problems:
        return _answer(request, game, form)
    reading = evening_body(form, game, implied=_implied(request, form))
    if reading.cells:
        return _answer(request, game, form, cells=reading.cells)
    short = None
    if action != "save_short" and reading.filled and len(reading.filled) < form.boards:
        short = {"filled": len(reading.filled), "empty": [board for board in form.rows if board not in reading.filled]}
    if reading.missing or short:
        # The questions are asked of an evening that would be saved: what the cleaner refuses comes first
        # (shown with the missing rows, whose choice is needed as well).
        errors = entry_check(request, body=reading.body)
        if errors:
            cells = cleaner_cells(errors.get("boards", []), reading, form)
            return _answer(request, game, form, cells=cells, errors=errors, missing=reading.missing)
        return _answer(request, game, form, short=short, missing=reading.missing)
    fresh = BridgeForm.from_post({})
    fresh.movement, fresh.tables, fresh.boards, fresh.entry = form.movement, form.tables, form.boards, form.entry
    fresh.scoring, fresh.pairs = form.scoring, form.pairs
    fresh.played_at, fresh.rated, fresh.league = form.played_at, form.rated, form.league
    prefill = traveller_prefill(fresh.movement, fresh.tables, fresh.boards)
    fresh.rows = {board: [_blank_row() for _t in range(fresh.tables)] for board in range(1, fresh.boards + 1)}
    for board, rows in fresh.rows.items():
        for t, row in enumerate(rows, start=1):
            row["ns"], row["ew"] = _seated(prefill, board, t)
    fresh.setup = fresh.signature

    def on_error(errors):
        cells = cleaner_cells(errors.get("boards", []), reading, form)
        return _form_context(game, form, cells=cells, errors=errors)

    return entry_submit(
        request,
        body=reading.body,
        page=PAGE,
        on_error=on_error,
        on_saved=lambda match: _form_context(game, fresh, saved=match),
    )


def _number_field(value) -> str:
    """A stored score, IMPs or percentage as a traveller cell shows it: 420, -50, 2.5."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _adjusted_text(adjusted: dict) -> str | None:
    """A stored adjusted score as its cell shows it ("A+", "A=/A-", "A60/40"), or None when the page cannot
    show it (the points a scoring program printed, a code on one side and a percentage on the other)."""
    if set(adjusted) != {"ns", "ew"}:
        return None
    ns, ew = adjusted["ns"], adjusted["ew"]
    if isinstance(ns, str) and isinstance(ew, str):
        return ns if ew == f"A{OTHER_SIDE[ns[1]]}" else f"{ns}/{ew}"
    if isinstance(ns, int | float) and isinstance(ew, int | float):
        return f"A{_number_field(ns)}/{_number_field(ew)}"
    return None


def _result_text(contract_text: str, tricks: int) -> str:
    """The tricks declarer took as a traveller's result: "=", "+1", "-2"."""
    over = tricks - (contract_parse(contract_text).level + 6)
    return "=" if over == 0 else f"{over:+d}"


def _pair_numbers(all_tables, movement: str) -> dict[tuple[str, str], tuple[int, int]] | None:
    """The session's own pair numbers, {(side, number): players} ("ns"/"ew" in a Mitchell, "" otherwise),
    when every table has them as whole numbers and each number is one partnership; else None."""
    numbers: dict[tuple[str, str], tuple[int, int]] = {}
    for table in all_tables:
        for side, number, pair in (
            ("ns", table.ns_pair, (table.ns_1_id, table.ns_2_id)),
            ("ew", table.ew_pair, (table.ew_1_id, table.ew_2_id)),
        ):
            if not number.isdigit() or int(number) < 1:
                return None
            key = (side if movement == "mitchell" else "", str(int(number)))
            if numbers.setdefault(key, pair) != pair:
                return None  # one number, two partnerships
    if len(set(numbers.values())) != len(numbers):
        return None  # one partnership under two numbers
    return numbers


def bridge_entry_initial(match: Match) -> dict[str, str] | None:
    """A stored session as the evening page's fields, to correct it (``games.entry``); None when the page
    cannot show it faithfully, and admin's JSON form corrects it instead.

    The page shows the session's scoring (or, stored without one, the scoring it is ranked by), its
    movement and pair numbers when every table has them (else a *free* movement, each partnership numbered
    in order of first appearance), each board's tables as its rows (a Mitchell's by NS pair number, where
    the page puts them; else in stored order), and either NS scores or, when a table has a contract, the
    contracts, declarers and results (a table without one shows its score in the contract cell). Adjusted
    scores show as typed (A+, A60/40). That maps when the boards are numbered 1 to N (as this page numbers
    them: a PBN import's boards 17 to 24 are not), each board has its number's dealer and vulnerability and
    no deal, bye, section or lead (the page has no cell for them), the page holds the boards and tables, and
    the scoring is one the page has: a pairs scoring with every table's score (or adjusted score) at two
    tables or more, or a team match's IMPs at table 1 of one table or of two at every board.
    """
    boards = list(match.boards.all())
    if not boards or [board.number for board in boards] != list(range(1, len(boards) + 1)):
        return None
    facts = match.facts or {}
    if facts.get("event") or facts.get("scoring_options"):
        return None
    if any(
        board.deal
        or board.byes
        or (board.dealer or board_dealer(board.number)) != board_dealer(board.number)
        or (board.vulnerability or board_vulnerability_name(board.number)) != board_vulnerability_name(board.number)
        for board in boards
    ):
        return None
    rows = {board.number: list(board.tables.all()) for board in boards}
    all_tables = [table for board_rows in rows.values() for table in board_rows]
    if any(table.section or table.lead for table in all_tables):
        return None
    adjusted = {table.pk: _adjusted_text(table.adjusted) for table in all_tables if table.adjusted is not None}
    if None in adjusted.values():
        return None
    tables = max(len(board_rows) for board_rows in rows.values())
    imps = any(table.ns_imps is not None for table in all_tables)
    if imps:
        team = all(
            board_rows[0].ns_imps is not None
            and len(board_rows) == tables
            and all(table.ns_imps is None and table.ns_score is None for table in board_rows[1:])
            for board_rows in rows.values()
        )
        if tables > 2 or not team or adjusted or any(table.contract for table in all_tables):
            return None
    elif tables < 2 or any(table.ns_score is None and table.adjusted is None for table in all_tables):
        return None
    contracts = any(table.contract for table in all_tables)
    if any(
        table.contract
        and contract_parse(table.contract) is not None
        and not contract_parse(table.contract).passed_out
        and (not table.declarer or table.tricks is None)
        for table in all_tables
    ):
        return None  # a contract without its result: the page has no cell for the score beside it
    movement = facts.get("movement", "")
    numbers = _pair_numbers(all_tables, movement) if any(t.ns_pair or t.ew_pair for t in all_tables) else None
    if any(t.ns_pair or t.ew_pair for t in all_tables) and numbers is None:
        return None
    if numbers is None:  # no pair numbers: the page numbers the partnerships as they first sit, a free movement
        movement, numbers = "free", {}
        for table in all_tables:
            for pair in ((table.ns_1_id, table.ns_2_id), (table.ew_1_id, table.ew_2_id)):
                if pair not in numbers.values():
                    numbers[("", str(len(numbers) + 1))] = pair
    elif movement not in ("mitchell", "howell"):
        movement = "free"
    top = max(int(number) for _side, number in numbers)
    by_number = movement == "mitchell" and all(
        [int(table.ns_pair) for table in board_rows] == sorted({int(table.ns_pair) for table in board_rows})
        for board_rows in rows.values()
    )
    tables = max(tables, top if movement == "mitchell" else -(-top // 2))
    entry = "contract" if contracts else "score"
    scoring = facts.get("scoring") or ("imps" if imps else "cross_imps")
    if scoring not in scoring_choices(tables) or (scoring == "imps") != imps:
        return None
    if tables > MAX_TABLES or len(boards) > MAX_BOARDS or len(ROW_FIELDS[entry]) * tables * len(boards) > MAX_CELLS:
        return None
    fields = {
        "movement": movement,
        "tables": str(tables),
        "boards": str(len(boards)),
        "entry": entry,
        "scoring": scoring,
        "setup": f"{movement}-{tables}-{len(boards)}",  # the rows are the session's, not a movement's
    }
    key_of = {pair: side + number for (side, number), pair in numbers.items()}
    for (side, number), (first, second) in numbers.items():
        fields[f"pair-{side}{number}-1"], fields[f"pair-{side}{number}-2"] = str(first), str(second)
    for board, board_rows in rows.items():
        for position, table in enumerate(board_rows, start=1):
            row = int(table.ns_pair) if by_number else position
            ns, ew = key_of[(table.ns_1_id, table.ns_2_id)], key_of[(table.ew_1_id, table.ew_2_id)]
            fields[f"b{board}-t{row}-ns"], fields[f"b{board}-t{row}-ew"] = ns.lstrip("nsew"), ew.lstrip("nsew")
            if table.adjusted is not None:
                text = adjusted[table.pk]
            elif table.contract:
                text = table.contract
                if not contract_parse(table.contract).passed_out:
                    fields[f"b{board}-t{row}-by"] = table.declarer
                    fields[f"b{board}-t{row}-result"] = _result_text(table.contract, table.tricks)
            else:
                score = table.ns_imps if imps else table.ns_score
                text = _number_field(score) if score is not None else ""
            if text:
                fields[f"b{board}-t{row}-{'contract' if entry == 'contract' else 'score'}"] = text
    return fields
