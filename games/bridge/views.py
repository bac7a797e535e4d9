"""Bridge's entry page, the way a club scorer works: the evening, its pairs once, then travellers.

Vocabulary:
    evening     one session (one match): its movement, tables and declared boards.
    pair        a pair number of the evening and its two players. A Mitchell
                numbers its NS pairs 1..T and its EW pairs 1..T (keys "ns3",
                "ew3"); a Howell or a free movement numbers pairs 1..2T ("3").
    traveller   a board's rows, one per table that played it: NS pair number,
                EW pair number and the NS score, or the contract, declarer and
                result (the score computed, ``games.bridge.scoring``).
    cell        one input of a traveller row, named ``b{board}-t{row}-{field}``.

The page reads its fields (``BridgeForm``), turns pair numbers into players
and contracts into scores (``evening_body``), and hands the API's bridge body
to ``entry_submit``: the kind's cleaner (``bridge_clean``) validates it, as it
does an API call, and its messages ("Board 7, table 2: ...") are pointed back
at the cell they name. Only what cannot reach the cleaner (a pair number that
is not the evening's, a contract that does not parse, a player in two pairs)
is checked here. A movement (``games.bridge.movements``) only prefills the
pair numbers; the scorer may change any.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.shortcuts import render

from games.bridge.movements import MOVEMENTS, traveller_prefill
from games.bridge.results import BRIDGE_IMPS_LIMIT, _bridge_score
from games.bridge.scoring import board_dealer, board_vulnerability, traveller_score
from games.entry import entry_decimal, entry_initial_values, entry_submit
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
ENTRY_MODES = {"score": "NS scores", "contract": "Contract, declarer and result"}
VULNERABLE = {"none": "none vul", "ns": "NS vul", "ew": "EW vul", "both": "all vul"}
CLEANER_PLACE = re.compile(r"^Board (\d+)(?:, table (\d+))?(?:, (NS|EW))?")


def _seated(prefill: dict[int, list[tuple[int, int] | None]], board: int, row: int) -> tuple[str, str]:
    """Row ``row`` of a board as the movement seats it, or blank: a board of an even-table Mitchell is
    played at one table fewer than the evening has, so the row of the table it skips stays empty."""
    seated = prefill.get(board, [])
    pairs = seated[row - 1] if row <= len(seated) else None
    return (str(pairs[0]), str(pairs[1])) if pairs else ("", "")


@dataclass
class BridgeForm:
    """The page's state, as posted: every field as typed (text), so a redisplay shows what was typed."""

    movement: str = "mitchell"
    tables: int = START_TABLES
    boards: int = START_BOARDS
    entry: str = "score"  # "score" | "contract"
    scoring: str = "scores"  # "scores" | "imps" (one table, or a two-table team match)
    pairs: dict[str, list[str]] = field(default_factory=dict)  # pair key -> [player pk, player pk]
    rows: dict[int, list[dict[str, str]]] = field(default_factory=dict)  # board -> rows of cells
    played_at: str = ""
    rated: str = "true"
    league: str = ""
    setup: str = ""  # the movement, tables and boards the rows were prefilled for
    problems: dict[str, str] = field(default_factory=dict)  # setup field -> message
    typed: dict[str, str] = field(default_factory=dict)  # pair player field -> the text in its picker
    unread: dict[str, str] = field(default_factory=dict)  # pair player field -> why its typed text names nobody

    @classmethod
    def from_post(cls, post) -> BridgeForm:
        form = cls(played_at=post.get("played_at", ""), rated=post.get("rated", "true"), league=post.get("league", ""))
        form.movement = post.get("movement", "mitchell")
        if form.movement not in MOVEMENTS:
            form.movement = "mitchell"
        form.tables = form._count(post, "tables", START_TABLES, MAX_TABLES, "tables")
        form.boards = form._count(post, "boards", START_BOARDS, MAX_BOARDS, "boards")
        form.entry = post.get("entry", "score") if post.get("entry") in ENTRY_MODES else "score"
        form.scoring = "imps" if form.tables == 1 or (form.tables == 2 and post.get("scoring") == "imps") else "scores"
        if form.scoring == "imps":
            form.entry = "score"
        cells = len(ROW_FIELDS[form.entry]) * form.tables
        if cells * form.boards > MAX_CELLS:
            fitting = MAX_CELLS // cells
            form.problems["boards"] = (
                f"{form.boards} boards at {form.tables} tables are more traveller cells than one page holds: "
                f"at most {fitting} boards here"
                + ("; entering NS scores takes fewer cells." if form.entry == "contract" else ".")
            )
            form.boards = fitting
        # Each player comes from a search picker: its chosen id, else the name or number typed (no JavaScript).
        for key, _ in form.pair_keys():
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
                if form.scoring == "imps":  # IMPs may be typed with a decimal comma: "1,5" is 1.5
                    row["score"] = entry_decimal(row["score"])
                if prefill:
                    row["ns"], row["ew"] = _seated(prefill, board, t)
                rows.append(row)
            form.rows[board] = rows
        form.setup = form.signature
        return form

    def _count(self, post, name: str, default: int, high: int, what: str) -> int:
        raw = post.get(name)
        if raw in (None, ""):
            return default
        number = parse_id(raw)
        if number is None or number > high:
            self.problems[name] = f"The {what} of an evening entered here are a whole number from 1 to {high}."
            return default if number is None else high
        return number

    @property
    def signature(self) -> str:
        return f"{self.movement}-{self.tables}-{self.boards}"

    @property
    def mitchell(self) -> bool:
        return self.movement == "mitchell"

    def pair_keys(self) -> list[tuple[str, str]]:
        numbers = range(1, self.tables + 1)
        if self.mitchell:
            return [(f"ns{n}", f"NS pair {n}") for n in numbers] + [(f"ew{n}", f"EW pair {n}") for n in numbers]
        return [(str(n), f"Pair {n}") for n in range(1, 2 * self.tables + 1)]

    def pair_key(self, side: str, number: int) -> str:
        return f"{side}{number}" if self.mitchell else str(number)

    def row_played(self, rows: list[dict[str, str]], t: int) -> bool:
        """Whether row ``t`` (from 1) of a board was played: it has a score or a contract; in a team
        match scored in IMPs, every row of a board whose first row has its IMPs."""
        row = rows[0] if self.scoring == "imps" else rows[t - 1]
        return bool(row["contract"] if self.entry == "contract" else row["score"])


@dataclass
class Reading:
    """What the form reads as: the API body, and the cells and messages of what it could not read."""

    body: dict
    cells: dict[str, str]  # cell name -> message
    filled: list[int]  # boards with at least one played row
    places: dict[tuple[int, int], int]  # (board, the body's table index) -> the page's row


def _row_score(form: BridgeForm, board: int, row: dict[str, str]) -> tuple[str | None, str, str]:
    """The row's NS score as the body gives it (text), or (None, cell, message)."""
    if form.entry == "score":
        return row["score"], "", ""
    if _bridge_score(row["contract"]) is not None:  # an adjusted or typed score in the contract cell
        return row["contract"], "", ""
    score, problem = traveller_score(contract=row["contract"], declarer=row["by"], result=row["result"], board=board)
    if score is None:
        cell = "contract" if "contract" in problem else "by" if "declarer" in problem else "result"
        return None, cell, problem
    return str(score), "", ""


def evening_body(form: BridgeForm, game: Game) -> Reading:
    """The evening as the body ``POST /api/matches/`` takes: each played row as a table of its board."""
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
                cells[name] = f"{label}, player {n}: {form.unread[name]}"
            elif not value:
                cells[name] = f"{label} needs two players."
            elif parse_id(value) is None:
                cells[name] = f"{label}: choose a player."
            elif n == 2 and value == chosen[0]:
                cells[name] = f"{label} needs two different players."
            elif value in seen:
                cells[name] = f"{label}, player {n}: this player is already in {seen[value]}."
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
                cells.setdefault(f"pair-{key}-{n}", f"{label}, player {n}: no player has the id {value}.")
    boards, filled, places = [], [], {}
    for board, rows in form.rows.items():
        tables, at = [], {}
        for t, row in enumerate(rows, start=1):
            if not form.row_played(rows, t):
                continue
            where = f"Board {board}, table {t}"
            pair_of = {}
            for side in ("ns", "ew"):
                number = parse_id(row[side])
                top = form.tables if form.mitchell else 2 * form.tables
                key = form.pair_key(side, number) if number is not None and number <= top else None
                if key is None:
                    cells[f"b{board}-t{t}-{side}"] = (
                        f"{where}: {side.upper()} pair \u201c{row[side]}\u201d is not a pair "
                        f"of the evening (1\u2013{top})."
                    )
                elif key not in players:
                    cells[f"b{board}-t{t}-{side}"] = f"{where}: {side.upper()} pair {number} has no players yet."
                elif key in at:
                    pair = f"{side.upper()} pair {number}" if form.mitchell else f"pair {number}"
                    cells[f"b{board}-t{t}-{side}"] = f"{where}: {pair} already plays board {board} at table {at[key]}."
                else:
                    at[key] = t
                    pair_of[side] = key
            score, cell, problem = _row_score(form, board, rows[0] if form.scoring == "imps" else row)
            if problem and (form.scoring != "imps" or t == 1):  # a team match's IMPs are row 1's
                cells[f"b{board}-t{t}-{cell}"] = f"{where}: {problem}."
            if len(pair_of) < 2 or problem:
                continue
            table = {"ns": players[pair_of["ns"]], "ew": players[pair_of["ew"]]}
            if form.scoring == "imps":
                if len(tables) == 0:
                    table["ns_imps"] = score
            else:
                table["ns_score"] = score
            places[(board, len(tables) + 1)] = t
            tables.append(table)
        if any(form.row_played(rows, t) for t in range(1, len(rows) + 1)):
            filled.append(board)
            boards.append({"number": board, "tables": tables})
    body = {"game": game.slug, "played_at": form.played_at, "rated": form.rated, "boards": boards}
    if form.league:
        body["league"] = form.league
    return Reading(body=body, cells=cells, filled=filled, places=places)


def cleaner_cells(messages: list[str], reading: Reading, form: BridgeForm) -> dict[str, str]:
    """The cleaner's messages about boards, each at the cell it names ("Board 7, table 2, NS: ...")."""
    cells = {}
    for message in messages:
        place = CLEANER_PLACE.match(message)
        if not place or int(place.group(1)) not in form.rows:
            cells.setdefault("boards", message)
            continue
        board, table, side = int(place.group(1)), place.group(2), place.group(3)
        row = reading.places.get((board, int(table))) if table else None
        if row is None:
            rows = form.rows[board]
            row = next((t for t in range(1, len(rows) + 1) if form.row_played(rows, t)), 1)
            message = message.replace(f", table {table}", "") if table else message
        else:
            message = message.replace(f"table {table}", f"table {row}", 1)
        name = side.lower() if side else ("ns" if "pair" in message or "seat" in message else "score")
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
    and the duels (row against row) for the details. Only a preview: the engine rates the same duels."""
    rows = form.rows.get(board, [])
    played, problem = [], ""
    for t, row in enumerate(rows, start=1):
        if not form.row_played(rows, t):
            continue
        text, _, why = _row_score(form, board, row)
        if form.scoring == "imps":
            value = parse_cents(text, limit=BRIDGE_IMPS_LIMIT) if text is not None else None
            if value is None:
                problem = why or f"table {t}: IMPs are a number within \u00b124"
                break
            return {"board": board, "status": "ok", "imps_line": value, "rows": [], "duels": []}
        score = _bridge_score(text) if text is not None else None
        if score is None:
            problem = why or f"table {t}: a score is a multiple of 10 within \u00b110,000"
            break
        played.append((t, row, score))
    if problem:
        return {"board": board, "status": "bad", "problem": problem, "rows": [], "duels": []}
    if len(played) < 2:
        return {"board": board, "status": "blank" if not played else "incomplete", "rows": [], "duels": []}
    duels = [
        {
            "first": t,
            "second": u,
            "imps": to_imps(a - b),
            "signed": signed(to_imps(a - b)),
            "outcome": "win" if to_imps(a - b) > 1 else "loss" if to_imps(a - b) < -1 else "draw",
        }
        for i, (t, _, a) in enumerate(played)
        for (u, _, b) in played[i + 1 :]
    ]
    nets = [
        RowNet(
            row=t, ns=row["ns"] or "?", ew=row["ew"] or "?", imps=sum(to_imps(score - other) for _, _, other in played)
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
                    "label": f"{label}, player {n}",
                    "name": name,
                    "value": value,
                    "value_name": names.get(int(value), "") if parse_id(value) else form.typed.get(name, ""),
                    "invalid": name in cells,
                    "first": n == 1,
                    "pair": label,
                }
            )
    return fields


def _form_context(game: Game, form: BridgeForm, *, cells=None, errors=None, saved=None, short=None, focus="") -> dict:
    cells = cells or {}
    if not form.played_at:
        form.played_at = form_now()
    if not focus and cells:
        focus = next(iter(cells))
    boards = []
    for board, rows in form.rows.items():
        boards.append(
            {
                "number": board,
                "dealer": board_dealer(board),
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
                                "invalid": f"b{board}-t{t}-{name}" in cells,
                                "focus": f"b{board}-t{t}-{name}" == focus,
                            }
                            for name in ROW_FIELDS[form.entry]
                            if not (name == "score" and form.scoring == "imps" and t > 1)
                        ],
                    }
                    for t, row in enumerate(rows, start=1)
                ],
                "preview": board_preview(form, board),
            }
        )
    return {
        "game": game,
        "form": form,
        "movements": MOVEMENTS,
        "entry_modes": ENTRY_MODES,
        "leagues": League.objects.filter(game=game).order_by("tier"),
        "pair_fields": _pair_fields(form, cells),
        "pair_count": len(form.pair_keys()),
        "boards": boards,
        "cells": cells,
        "focus": focus,
        "errors": errors or {},
        "saved": saved,
        "short": short,
    }


def _answer(request, game, form, **context):
    template = f"{PAGE}#entry-form" if request.htmx else PAGE
    return render(request, template, _form_context(game, form, **context))


def entry(request, game: Game):
    """Record a bridge evening: its movement and pairs, then the travellers board by board.

    POST actions: ``save`` (default; asks first when fewer boards are filled than declared),
    ``save_short`` (save anyway), ``add_board``, ``refresh`` (the evening's setup changed) and
    ``check`` (one board's live preview, ``board`` naming it).
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
            form.rows[form.boards] = [
                {"ns": "", "ew": "", "score": "", "contract": "", "by": "", "result": ""} for _ in range(form.tables)
            ]
            if prefill:  # the new board joins the last set; every other board keeps what was typed
                for t, row in enumerate(form.rows[form.boards], start=1):
                    row["ns"], row["ew"] = _seated(prefill, form.boards, t)
            form.setup = form.signature
        else:
            form.problems["boards"] = "No more boards fit on this page."
        first = "score" if form.entry == "score" else "contract"
        return _answer(request, game, form, focus=f"b{form.boards}-t1-{first}")
    if action == "refresh" or form.problems:
        return _answer(request, game, form)
    reading = evening_body(form, game)
    if reading.cells:
        return _answer(request, game, form, cells=reading.cells)
    if action != "save_short" and reading.filled and len(reading.filled) < form.boards:
        empty = [board for board in form.rows if board not in reading.filled]
        return _answer(request, game, form, short={"filled": len(reading.filled), "empty": empty})
    fresh = BridgeForm.from_post({})
    fresh.movement, fresh.tables, fresh.boards, fresh.entry = form.movement, form.tables, form.boards, form.entry
    fresh.scoring, fresh.pairs = form.scoring, form.pairs
    fresh.played_at, fresh.rated, fresh.league = form.played_at, form.rated, form.league
    prefill = traveller_prefill(fresh.movement, fresh.tables, fresh.boards)
    fresh.rows = {
        board: [
            {
                "ns": _seated(prefill, board, t + 1)[0],
                "ew": _seated(prefill, board, t + 1)[1],
                "score": "",
                "contract": "",
                "by": "",
                "result": "",
            }
            for t in range(fresh.tables)
        ]
        for board in range(1, fresh.boards + 1)
    }
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
    """A stored score or IMPs as a traveller cell shows it: 420, -50, 2.5."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def bridge_entry_initial(match: Match) -> dict[str, str] | None:
    """A stored session as the evening page's fields, to correct it (``games.entry``); None when the page
    cannot show it faithfully, and admin's JSON form corrects it instead.

    A session keeps its boards and their tables' players and scores, not the movement, the pair
    numbers or how the scores were typed. So the page shows it as a *free* movement entering NS
    scores: each partnership numbered in order of first appearance, each board's tables as its rows
    in stored order. That maps when the boards are numbered 1 to N (as this page numbers them: a PBN
    import's boards 17 to 24 are not), the partnerships fit the page's pair numbers (two per table),
    the page holds the boards and tables, and the scoring is the page's: NS scores at two or more
    tables, or a team match's IMPs at table 1 of one table or of two at every board.
    """
    boards = list(match.boards.all())
    if not boards or [board.number for board in boards] != list(range(1, len(boards) + 1)):
        return None
    rows = {board.number: list(board.tables.all()) for board in boards}
    tables = max(len(board_rows) for board_rows in rows.values())
    all_tables = [table for board_rows in rows.values() for table in board_rows]
    imps = any(table.ns_imps is not None for table in all_tables)
    if imps:
        team = all(
            board_rows[0].ns_imps is not None
            and len(board_rows) == tables
            and all(table.ns_imps is None and table.ns_score is None for table in board_rows[1:])
            for board_rows in rows.values()
        )
        if tables > 2 or not team:
            return None
    elif tables < 2 or any(table.ns_score is None for table in all_tables):
        return None
    if tables > MAX_TABLES or len(boards) > MAX_BOARDS or len(ROW_FIELDS["score"]) * tables * len(boards) > MAX_CELLS:
        return None
    pairs: dict[tuple[int, int], int] = {}
    for table in all_tables:
        for pair in ((table.ns_1_id, table.ns_2_id), (table.ew_1_id, table.ew_2_id)):
            pairs.setdefault(pair, len(pairs) + 1)
    if len(pairs) > 2 * tables:
        return None
    fields = {
        "movement": "free",
        "tables": str(tables),
        "boards": str(len(boards)),
        "entry": "score",
        "scoring": "imps" if imps else "scores",
        "setup": f"free-{tables}-{len(boards)}",  # the rows are the session's, not a movement's
    }
    for (first, second), number in pairs.items():
        fields[f"pair-{number}-1"], fields[f"pair-{number}-2"] = str(first), str(second)
    for board, board_rows in rows.items():
        for row, table in enumerate(board_rows, start=1):
            fields[f"b{board}-t{row}-ns"] = str(pairs[(table.ns_1_id, table.ns_2_id)])
            fields[f"b{board}-t{row}-ew"] = str(pairs[(table.ew_1_id, table.ew_2_id)])
            score = table.ns_imps if imps else table.ns_score
            if score is not None:
                fields[f"b{board}-t{row}-score"] = _number_field(score)
    return fields
