"""Bridge's entry page: pairs at tables, then each board's NS scores (or IMPs), with a live IMP preview.

The page is reached through ``results/<game>/`` (``games.entry.result_entry``,
which checks the referee and limits the writes) for any game of the bridge
kind; ``BridgeForm`` reads its fields and writes them back, and turns them
into the API's bridge body.
"""

from dataclasses import dataclass

from django.shortcuts import render

from games.bridge.results import bridge_board_preview
from games.entry import entry_submit
from leagues.models import Game, League, Player
from matches.entry import bounded_int, form_now

PAGE = "games/bridge/entry.html"
MAX_TABLES_ON_PAGE = 8
START_ROWS = 4
MAX_ROWS = 100


@dataclass
class BridgeForm:
    """The session page's state: tables and their pairs, the scoring mode and the boards typed so far."""

    tables: int
    scoring: str  # "scores": NS score per table; "imps": one IMP figure per board (1 or 2 tables)
    pairs: list[dict[str, list[str]]]  # per table {"ns": [id, id], "ew": [id, id]}
    rows: list[dict]  # {"number": str, "scores": [str per table], "imps": str}
    played_at: str
    rated: str
    league: str

    @classmethod
    def from_post(cls, post) -> "BridgeForm":
        tables = bounded_int(post.get("tables"), 2, 1, MAX_TABLES_ON_PAGE)
        scoring = post.get("scoring", "scores")
        if tables == 1 or scoring not in ("scores", "imps") or (scoring == "imps" and tables > 2):
            scoring = "imps" if tables == 1 else "scores"
        count = bounded_int(post.get("rows"), START_ROWS, 1, MAX_ROWS)
        return cls(
            tables=tables,
            scoring=scoring,
            pairs=[
                {side: [post.get(f"{side}-{t}-{n}", "") for n in (1, 2)] for side in ("ns", "ew")}
                for t in range(1, tables + 1)
            ],
            rows=[
                {
                    "number": post.get(f"board-{r}-number", "") or str(r),
                    "scores": [post.get(f"board-{r}-{t}", "") for t in range(1, tables + 1)],
                    "imps": post.get(f"board-{r}-imps", ""),
                }
                for r in range(1, count + 1)
            ],
            played_at=post.get("played_at", ""),
            rated=post.get("rated", "true"),
            league=post.get("league", ""),
        )

    def filled(self, row: dict) -> bool:
        return bool(row["imps"].strip()) if self.scoring == "imps" else any(s.strip() for s in row["scores"])

    def body(self, game: Game) -> dict:
        boards = []
        for row in self.rows:
            if not self.filled(row):
                continue
            tables = []
            for index, pair in enumerate(self.pairs):
                table = {"ns": pair["ns"], "ew": pair["ew"]}
                if self.scoring == "scores":
                    table["ns_score"] = row["scores"][index]
                elif index == 0:
                    table["ns_imps"] = row["imps"]
                tables.append(table)
            boards.append({"number": row["number"], "tables": tables})
        body = {"game": game.slug, "played_at": self.played_at, "rated": self.rated, "boards": boards}
        if self.league:
            body["league"] = self.league
        return body


def _form_context(game: Game, form: BridgeForm, *, errors=None, saved=None) -> dict:
    if not form.played_at:
        form.played_at = form_now()
    rows = []
    for number, row in enumerate(form.rows, start=1):
        status, duels = bridge_board_preview(scores=row["scores"], imps=row["imps"] if form.scoring == "imps" else None)
        rows.append({"index": number, **row, "status": status, "duels": duels})
    return {
        "game": game,
        "form": form,
        "player_options": list(Player.objects.order_by("name", "id").values_list("pk", "name")),
        "leagues": League.objects.filter(game=game).order_by("tier"),
        "table_numbers": list(range(1, form.tables + 1)),
        "pair_fields": [
            {"table": t, "side": side, "label": f"Table {t} {side.upper()}", "values": form.pairs[t - 1][side]}
            for t in range(1, form.tables + 1)
            for side in ("ns", "ew")
        ],
        "rows": rows,
        "errors": errors or {},
        "saved": saved,
    }


def entry(request, game: Game):
    """Record a bridge session: pairs at tables, then the boards' NS scores (or IMPs).

    POST actions: ``save`` (default), ``add_row``, ``refresh`` (tables or
    scoring changed) and ``check`` (the live IMP preview).
    """
    form = BridgeForm.from_post(request.POST if request.method == "POST" else {})
    if request.method == "GET":
        return render(request, PAGE, _form_context(game, form))
    action = request.POST.get("action", "save")
    if action == "check":
        return render(request, f"{PAGE}#preview-response", _form_context(game, form))
    if action in ("add_row", "refresh"):
        if action == "add_row" and len(form.rows) < MAX_ROWS:
            number = len(form.rows) + 1
            form.rows.append({"number": str(number), "scores": [""] * form.tables, "imps": ""})
        template = f"{PAGE}#entry-form" if request.htmx else PAGE
        return render(request, template, _form_context(game, form))
    fresh = BridgeForm.from_post({})
    fresh.tables, fresh.scoring, fresh.pairs = form.tables, form.scoring, form.pairs
    fresh.rows = [{"number": str(r), "scores": [""] * form.tables, "imps": ""} for r in range(1, START_ROWS + 1)]
    fresh.played_at, fresh.rated, fresh.league = form.played_at, form.rated, form.league
    return entry_submit(
        request,
        body=form.body(game),
        page=PAGE,
        on_error=lambda errors: _form_context(game, form, errors=errors),
        on_saved=lambda match: _form_context(game, fresh, saved=match),
    )
