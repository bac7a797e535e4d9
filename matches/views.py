"""Result entry pages (referees) and the public match page.

The entry form posts the same shape the API takes to ``match_submit``;
errors come back inline, keyed by field, without a full reload (HTMX swaps the
form partial). Without JavaScript the form posts normally and redirects to the
new match (post/redirect/get).
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_ratelimit.decorators import ratelimit

from config.permissions import user_can_submit
from games.bridge.results import bridge_board_preview
from games.preferans.results import preferans_deals_preview
from leagues.models import Bot, Game, League, Player
from leagues.services import player_create
from matches import selectors
from matches.confirmation import match_confirm
from matches.models import Match
from matches.services import match_submit
from ratings.selectors import match_detail_rated_of, match_detail_rated_queryset


def _page_write_rate(group, request):
    return settings.CARDRANK_PAGE_WRITE_RATE


# Result-entry posts per signed-in user (live checks included: they are cheap but still writes' kin).
limit_writes = ratelimit(key="user_or_ip", rate=_page_write_rate, method="POST", block=True)


def _referee_required(request):
    if not user_can_submit(request.user):
        raise PermissionDenied("Only referees can enter results.")


def _entry_submit(request, *, body: dict, page: str, on_error, on_saved):
    """Submit an entry page's result through ``match_submit`` and answer as every entry page does.

    Errors come back inline in the form partial (HTMX) or as the whole page
    with status 400; a saved result gives a fresh form (HTMX, with an
    ``HX-Trigger: result-saved`` event) or a redirect to the new match.
    ``on_error(errors)`` and ``on_saved(match)`` build the template contexts.
    """
    try:
        match = match_submit(referee=request.user, data=body)
    except ValidationError as error:
        context = on_error(error.message_dict)
        if request.htmx:
            return render(request, f"{page}#entry-form", context)
        return render(request, page, context, status=400)
    if not request.htmx:
        return redirect(match)
    response = render(request, f"{page}#entry-form", on_saved(match_detail_rated_of(match)))
    response["HX-Trigger"] = "result-saved"
    return response


def _slaps_form_context(*, values=None, errors=None, saved=None):
    values = values or {}
    now = timezone.localtime().replace(second=0, microsecond=0)
    return {
        "game": get_object_or_404(Game, slug="slaps"),
        "players": Player.objects.order_by("name", "id").only("id", "name"),
        "values": {
            "player_a": values.get("player_a", ""),
            "player_b": values.get("player_b", ""),
            "winner": values.get("winner", ""),
            "played_at": values.get("played_at") or now.strftime("%Y-%m-%dT%H:%M"),
            "rated": values.get("rated", "true"),
        },
        "errors": errors or {},
        "saved": saved,
    }


def slaps_form_to_body(post) -> dict:
    """Turn the entry form's fields into the API's Slaps body."""
    player_a, player_b = post.get("player_a", ""), post.get("player_b", "")
    winner = {"a": player_a, "b": player_b}.get(post.get("winner", ""), "")
    return {
        "game": "slaps",
        "played_at": post.get("played_at", ""),
        "rated": post.get("rated", "true"),
        "players": [player_a, player_b] if (player_a or player_b) else [],
        "winner": winner,
    }


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def slaps_result_entry(request):
    _referee_required(request)
    if request.method == "GET":
        return render(request, "matches/slaps_entry.html", _slaps_form_context())
    values = request.POST.dict()
    # After a save, keep the time and the rated/friendly choice for the next result at the table.
    keep = {"played_at": values.get("played_at", ""), "rated": values.get("rated", "true")}
    return _entry_submit(
        request,
        body=slaps_form_to_body(request.POST),
        page="matches/slaps_entry.html",
        on_error=lambda errors: _slaps_form_context(values=values, errors=errors),
        on_saved=lambda match: _slaps_form_context(values=keep, saved=match),
    )


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_POST
@limit_writes
def player_quick_create(request):
    """Add a player from the entry page; returns the refreshed form with them selectable."""
    _referee_required(request)
    values = request.POST.dict()
    errors = {}
    try:
        player = player_create(name=request.POST.get("name"))
    except ValidationError as error:
        errors = {"new_player": error.message_dict.get("name", error.messages)}
    else:
        for slot in ("player_a", "player_b"):
            if not values.get(slot):
                values[slot] = str(player.pk)
                break
    context = _slaps_form_context(values=values, errors=errors)
    if request.htmx:
        return render(request, "matches/slaps_entry.html#entry-form", context)
    return render(request, "matches/slaps_entry.html", context, status=400 if errors else 200)


def match_page(request, pk):
    match = get_object_or_404(match_detail_rated_queryset(), pk=pk)
    totals = {}
    for change in match.rating_changes.all():
        first, _ = totals.get(change.player_id, (change, None))
        totals[change.player_id] = (first, change)
    seats = [
        {"seat": seat, "total": totals.get(seat.player_id) if seat.player_id else None} for seat in match.seats.all()
    ]
    return render(
        request,
        "matches/match.html",
        {"match": match, "seats": seats, "deal_rows": selectors.match_deal_rows(match)},
    )


def recent_matches_page(request):
    return render(request, "matches/recent.html", {"matches": selectors.matches_recent(limit=50)})


# --- Preferans --------------------------------------------------------------------------------

PREFERANS_SEAT_SLOTS = 4
PREFERANS_START_ROWS = 4
PREFERANS_MAX_ROWS = 200


@dataclass
class PreferansForm:
    """The entry page's state, read from (and written back into) the form's fields."""

    seats: list[str]  # "p:<id>", "b:<slug>" or "" per slot
    rows: list[list[str]]  # whists per row, one cell per slot
    played_at: str
    rated: str

    @classmethod
    def from_post(cls, post) -> "PreferansForm":
        try:
            count = int(post.get("rows", PREFERANS_START_ROWS))
        except ValueError:
            count = PREFERANS_START_ROWS
        count = min(max(count, 1), PREFERANS_MAX_ROWS)
        slots = range(1, PREFERANS_SEAT_SLOTS + 1)
        return cls(
            seats=[post.get(f"seat-{slot}", "") for slot in slots],
            rows=[[post.get(f"deal-{row}-{slot}", "") for slot in slots] for row in range(1, count + 1)],
            played_at=post.get("played_at", ""),
            rated=post.get("rated", "true"),
        )

    @property
    def active(self) -> list[int]:
        """Indexes of the filled seat slots, in order."""
        return [index for index, value in enumerate(self.seats) if value]

    def body(self) -> dict:
        """The API's Preferans body: filled seats in order, non-blank rows, one whist per filled seat."""
        seats = []
        for index in self.active:
            kind, _, value = self.seats[index].partition(":")
            seats.append({"player": value} if kind == "p" else {"bot": value})
        deals = [
            [row[index] for index in self.active]
            for row in self.rows
            if any(row[index].strip() for index in self.active)
        ]
        return {"game": "preferans", "played_at": self.played_at, "rated": self.rated, "seats": seats, "deals": deals}


def _preferans_context(form: PreferansForm, *, errors=None, saved=None) -> dict:
    game = get_object_or_404(Game, slug="preferans")
    active = form.active
    previews, totals = preferans_deals_preview(rows=[[row[index] for index in active] for row in form.rows])
    if not form.played_at:
        form.played_at = timezone.localtime().replace(second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M")
    player_options = [(f"p:{pk}", name) for pk, name in Player.objects.order_by("name", "id").values_list("pk", "name")]
    bot_options = [
        (f"b:{bot.slug}", f"{bot.name} ({bot.rating:.0f}, max {bot.max_rating:.0f})")
        for bot in Bot.objects.filter(game=game, active=True).order_by("rating")
    ]
    return {
        "game": game,
        "form": form,
        "player_options": player_options,
        "bot_options": bot_options,
        "seat_fields": [{"slot": slot, "value": value} for slot, value in enumerate(form.seats, start=1)],
        "slots": list(range(1, PREFERANS_SEAT_SLOTS + 1)),
        "rows": [
            {"number": number, "cells": list(enumerate(row, start=1)), "preview": previews[number - 1]}
            for number, row in enumerate(form.rows, start=1)
        ],
        "active_slots": [index + 1 for index in active],
        "totals": dict(zip([index + 1 for index in active], totals, strict=True)),
        "unbalanced": [preview.number for preview in previews if preview.status == "unbalanced"],
        "errors": errors or {},
        "saved": saved,
    }


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def preferans_result_entry(request):
    """Record a Preferans game: 2-4 seats (players or bots) and its deals, row by row.

    POST actions: ``save`` (default) submits through ``match_submit``;
    ``add_row`` and ``refresh`` re-render the form (a new deal row, or new
    seats); ``check`` answers the live zero-sum check only.
    """
    _referee_required(request)
    if request.method == "GET":
        form = PreferansForm.from_post({})
        return render(request, "matches/preferans_entry.html", _preferans_context(form))
    form = PreferansForm.from_post(request.POST)
    action = request.POST.get("action", "save")
    if action == "check":
        return render(request, "matches/preferans_entry.html#check-response", _preferans_context(form))
    if action in ("add_row", "refresh"):
        if action == "add_row" and len(form.rows) < PREFERANS_MAX_ROWS:
            form.rows.append([""] * PREFERANS_SEAT_SLOTS)
        template = "matches/preferans_entry.html#entry-form" if request.htmx else "matches/preferans_entry.html"
        return render(request, template, _preferans_context(form))
    fresh = PreferansForm.from_post({"played_at": form.played_at, "rated": form.rated})
    fresh.seats = form.seats  # the same table usually plays on
    return _entry_submit(
        request,
        body=form.body(),
        page="matches/preferans_entry.html",
        on_error=lambda errors: _preferans_context(form, errors=errors),
        on_saved=lambda match: _preferans_context(fresh, saved=match),
    )


# --- Bridge -----------------------------------------------------------------------------------

BRIDGE_MAX_TABLES_ON_PAGE = 8
BRIDGE_START_ROWS = 4
BRIDGE_MAX_ROWS = 100


def _bounded_int(value, default: int, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


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
        tables = _bounded_int(post.get("tables"), 2, 1, BRIDGE_MAX_TABLES_ON_PAGE)
        scoring = post.get("scoring", "scores")
        if tables == 1 or scoring not in ("scores", "imps") or (scoring == "imps" and tables > 2):
            scoring = "imps" if tables == 1 else "scores"
        count = _bounded_int(post.get("rows"), BRIDGE_START_ROWS, 1, BRIDGE_MAX_ROWS)
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

    def body(self) -> dict:
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
        body = {"game": "bridge", "played_at": self.played_at, "rated": self.rated, "boards": boards}
        if self.league:
            body["league"] = self.league
        return body


def _bridge_context(form: BridgeForm, *, errors=None, saved=None) -> dict:
    game = get_object_or_404(Game, slug="bridge")
    if not form.played_at:
        form.played_at = timezone.localtime().replace(second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M")
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


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def bridge_result_entry(request):
    """Record a bridge session: pairs at tables, then the boards' NS scores (or IMPs).

    POST actions: ``save`` (default), ``add_row``, ``refresh`` (tables or
    scoring changed) and ``check`` (the live IMP preview).
    """
    _referee_required(request)
    form = BridgeForm.from_post(request.POST if request.method == "POST" else {})
    if request.method == "GET":
        return render(request, "matches/bridge_entry.html", _bridge_context(form))
    action = request.POST.get("action", "save")
    if action == "check":
        return render(request, "matches/bridge_entry.html#preview-response", _bridge_context(form))
    if action in ("add_row", "refresh"):
        if action == "add_row" and len(form.rows) < BRIDGE_MAX_ROWS:
            number = len(form.rows) + 1
            form.rows.append({"number": str(number), "scores": [""] * form.tables, "imps": ""})
        template = "matches/bridge_entry.html#entry-form" if request.htmx else "matches/bridge_entry.html"
        return render(request, template, _bridge_context(form))
    fresh = BridgeForm.from_post({})
    fresh.tables, fresh.scoring, fresh.pairs = form.tables, form.scoring, form.pairs
    fresh.rows = [{"number": str(r), "scores": [""] * form.tables, "imps": ""} for r in range(1, BRIDGE_START_ROWS + 1)]
    fresh.played_at, fresh.rated, fresh.league = form.played_at, form.rated, form.league
    return _entry_submit(
        request,
        body=form.body(),
        page="matches/bridge_entry.html",
        on_error=lambda errors: _bridge_context(form, errors=errors),
        on_saved=lambda match: _bridge_context(fresh, saved=match),
    )


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def confirmations(request):
    """Results of two-step leagues waiting for a second referee; confirm one with a click (HTMX)."""
    _referee_required(request)
    error = None
    if request.method == "POST":
        try:
            # The version the page showed: a result corrected since is not confirmed unseen.
            seen = request.POST.get("version", "")
            version = _bounded_int(seen, 0, 0, 2**62) if seen else None
            match_confirm(
                match_id=_bounded_int(request.POST.get("match"), 0, 0, 2**62), by=request.user, version=version
            )
        except Match.DoesNotExist:
            error = "That result no longer exists."
        except ValidationError as problem:
            error = " ".join(problem.messages)
    context = {"matches": selectors.matches_awaiting_confirmation(), "error": error}
    template = "matches/confirmations.html#list" if request.htmx else "matches/confirmations.html"
    return render(request, template, context)
