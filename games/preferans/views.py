"""Preferans's pages: the entry page (seats of players or bots, deals row by row) and the match page's deals.

The entry page is reached through ``results/<game>/`` (``web.entry_pages.result_entry``,
which checks the referee and limits the writes) for any game of the
Preferans kind; ``PreferansForm`` reads its fields and writes them back, and
turns them into the API's Preferans body.

Each seat is a player picker (``seat-N-player``, ``games.pickers``) or a bot
(``seat-N-bot``); a post naming the seat whole (``seat-N`` = ``p:<id>`` or
``b:<slug>``, as the page's selects did) is read too. "Deals played"
(``declared``) draws that many rows, and saving fewer filled deals asks first:
the form comes back with a confirmation (``confirm_short=1``), asked only of
deals that would be saved: the deals are checked first (zero-sum and the
rest, ``games.entry.entry_check``), and a game that is refused answers its
errors, not the question.

The deal columns are headed by the seats' players (or bots) as soon as they
are chosen (choosing one redraws the form), whists may be typed with a
decimal comma ("1,5"), and the league is chosen on the page when the game has
several. Errors the cleaner says with ids are said with seats and names
(``preferans_page_errors``).
"""

from dataclasses import dataclass, field

from django.db.models import Q
from django.shortcuts import render
from django.utils.formats import get_format
from django.utils.translation import gettext as _

from games.entry import (
    entry_check,
    entry_decimal,
    entry_initial_values,
    entry_league_chosen,
    entry_league_errors,
    entry_leagues,
    entry_submit,
)
from games.pickers import is_player_id, picker_names, picker_read
from games.preferans.results import preferans_deals_preview
from games.setup import kept
from leagues.models import Bot, Game
from matches.entry import bounded_int, form_now
from matches.models import Match

PAGE = "games/preferans/entry.html"
SEAT_SLOTS = 4
START_ROWS = 4
MAX_ROWS = 200


def _seat_read(post, slot: int) -> tuple[str, str, str]:
    """Seat ``slot`` of a post: ("p:<id>", "b:<slug>" or "", the name typed in its picker, a problem)."""
    whole = post.get(f"seat-{slot}", "")
    if whole:
        return whole, "", ""
    bot = post.get(f"seat-{slot}-bot", "")
    picked = picker_read(post, f"seat-{slot}-player")
    if bot and picked.value:
        return "", picked.name, _("Seat %(number)s: a player or a bot, not both.") % {"number": slot}
    if bot:
        return f"b:{bot}", "", ""
    return (f"p:{picked.value}" if picked.value else ""), picked.name, picked.problem


@dataclass
class PreferansForm:
    """The entry page's state, read from (and written back into) the form's fields."""

    seats: list[str]  # "p:<id>", "b:<slug>" or "" per slot
    rows: list[list[str]]  # whists per row, one cell per slot
    played_at: str
    rated: str
    typed: list[str] = field(default_factory=lambda: [""] * SEAT_SLOTS)  # what each seat's picker shows
    problems: list[str] = field(default_factory=list)  # seats the pickers could not read
    declared: int = 0  # "Deals played": 0 when not given
    league: str = ""  # the league field: a slug, or "" for the entry league

    @classmethod
    def from_post(cls, post) -> "PreferansForm":
        declared = bounded_int(post.get("declared"), 0, 0, MAX_ROWS)
        count = max(bounded_int(post.get("rows", START_ROWS), START_ROWS, 1, MAX_ROWS), declared)
        slots = range(1, SEAT_SLOTS + 1)
        seats = [_seat_read(post, slot) for slot in slots]
        return cls(
            seats=[seat for seat, _, _ in seats],
            rows=[[post.get(f"deal-{row}-{slot}", "") for slot in slots] for row in range(1, count + 1)],
            played_at=post.get("played_at", ""),
            rated=post.get("rated", "true"),
            typed=[typed for _, typed, _ in seats],
            problems=[problem for _, _, problem in seats if problem],
            declared=declared,
            league=post.get("league", ""),
        )

    @property
    def active(self) -> list[int]:
        """Indexes of the filled seat slots, in order."""
        return [index for index, value in enumerate(self.seats) if value]

    def body(self, game: Game) -> dict:
        """The API's Preferans body: filled seats in order, non-blank rows, one whist per filled seat (a
        decimal comma read as a point)."""
        seats = []
        for index in self.active:
            kind, _colon, value = self.seats[index].partition(":")
            seats.append({"player": value} if kind == "p" else {"bot": value})
        body = {"game": game.slug, "played_at": self.played_at, "rated": self.rated, "seats": seats}
        body["deals"] = self.filled_deals()
        if self.league:
            body["league"] = self.league
        return body

    def filled_deals(self) -> list[list[str]]:
        """The rows with a whist in a filled seat, each the filled seats' whists (a decimal comma read as a point)."""
        return [
            [entry_decimal(row[index]) for index in self.active]
            for row in self.rows
            if any(row[index].strip() for index in self.active)
        ]


def _seat_fields(form: PreferansForm, seat_errors: dict[int, list[str]], invalid: bool, bots: dict[str, str]) -> list:
    """Each seat's fields, and its ``heading``: the chosen player's name, the bot's, else "Seat N" (what
    heads its column of whists)."""
    players = {slot: seat.partition(":")[2] for slot, seat in enumerate(form.seats, start=1) if seat.startswith("p:")}
    names = picker_names(players.values())
    fields = []
    for slot, seat in enumerate(form.seats, start=1):
        player = players.get(slot, "")
        bot = seat[2:] if seat.startswith("b:") else ""
        label = _("Seat %(number)s") % {"number": slot}
        fields.append(
            {
                "slot": slot,
                "value": seat,
                "label": label,
                "heading": names.get(player) or bots.get(bot) or label,
                "player_field": f"seat-{slot}-player",
                "player": player,
                "player_name": names.get(player, form.typed[slot - 1]),
                "bot": bot,
                "invalid": invalid,
                "error": seat_errors.get(slot, []),
            }
        )
    return fields


def _bot_rows(game: Game, named: list[str]) -> list[tuple[str, str, str, str]]:
    """The bots a seat may choose, by rating, as (slug, name, rating, maximum rating): the active ones, and
    those ``named`` by slug. Plain data, so that a kept list is good in any language."""
    bots = Bot.objects.filter(game=game).filter(Q(active=True) | Q(slug__in=named)).order_by("rating")
    return [(bot.slug, bot.name, f"{bot.rating:.0f}", f"{bot.max_rating:.0f}") for bot in bots]


def _bot_choices(rows: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str]]:
    """The bots as (slug, option label, name), the label in the page's language."""
    return [
        (slug, _("%(name)s (%(rating)s, max %(max)s)") % {"name": name, "rating": rating, "max": top}, name)
        for slug, name, rating, top in rows
    ]


def preferans_page_errors(errors: dict, form: PreferansForm) -> tuple[dict, dict[int, list[str]]]:
    """A refused game's errors as the entry page says them: the seats' by seat, in names and words.

    The cleaner's ``seats`` errors speak of the body (ids, a seat's number among the filled ones); the
    page reads what the form shows instead: fewer than two seats, a player in two seats, a chosen
    player no longer in the list. Returns the errors without what was said by seat, and the seats'
    messages by slot; a seats' error the form does not explain stays under ``seats``.
    """
    if "seats" not in errors:
        return errors, {}
    errors = dict(errors)
    by_seat: dict[int, list[str]] = {}
    general: list[str] = []
    players = {slot: seat[2:] for slot, seat in enumerate(form.seats, start=1) if seat.startswith("p:")}
    names = picker_names(players.values())
    if len(form.active) < 2:
        general.append(_("Choose at least two seats: a player or a bot in each."))
    held: dict[str, int] = {}
    for slot, player in players.items():
        if not is_player_id(player):
            by_seat[slot] = [_("Choose this seat's player again.")]
        elif player not in names:
            by_seat[slot] = [_("That player is no longer in the list: choose this seat's player again.")]
        elif player in held:
            by_seat[slot] = [
                _("%(name)s already holds seat %(seat)s: choose another player.")
                % {"name": names[player], "seat": held[player]}
            ]
        else:
            held[player] = slot
    if general or by_seat:
        errors["seats"] = general
    if not errors["seats"]:
        del errors["seats"]
    return errors, by_seat


def _form_context(game: Game, form: PreferansForm, *, errors=None, saved=None, short=None) -> dict:
    errors, seat_errors = preferans_page_errors(dict(errors or {}), form)
    if form.problems:
        errors["seats"] = form.problems + list(errors.get("seats", []))
    active = form.active
    rows = [[entry_decimal(row[index]) for index in active] for row in form.rows]
    previews, totals = preferans_deals_preview(rows=rows)
    if not form.played_at:
        form.played_at = form_now()
    # A retired bot the form names (a corrected game's) stays choosable: it is what was played. Otherwise
    # the active bots, kept until a bot or the game changes (``games.setup``).
    named = [seat[2:] for seat in form.seats if seat.startswith("b:")]
    bot_rows = _bot_rows(game, named) if named else kept("bot-rows", lambda: _bot_rows(game, []), game=game)
    bot_choices = _bot_choices(bot_rows)
    bots = {slug: name for slug, _label, name in bot_choices}
    seat_fields = _seat_fields(form, seat_errors, invalid=bool(errors.get("seats")), bots=bots)
    headings = {field["slot"]: field["heading"] for field in seat_fields}
    leagues = entry_leagues(game)
    return {
        "game": game,
        "form": form,
        "bot_options": [(slug, label) for slug, label, _name in bot_choices],
        "seat_fields": seat_fields,
        "slots": list(range(1, SEAT_SLOTS + 1)),
        "rows": [
            {
                "number": number,
                "cells": [
                    {"slot": slot, "value": value, "heading": headings[slot]} for slot, value in enumerate(row, start=1)
                ],
                "preview": previews[number - 1],
                # After a refused save, the cells of a deal that is not zero-sum are marked (and focused).
                "invalid": bool(errors.get("deals")) and previews[number - 1].status == "unbalanced",
            }
            for number, row in enumerate(form.rows, start=1)
        ],
        "active_slots": [index + 1 for index in active],
        "totals": dict(zip([index + 1 for index in active], totals, strict=True)),
        "unbalanced": [preview.number for preview in previews if preview.status == "unbalanced"],
        "leagues": leagues,
        "league": entry_league_chosen(leagues, form.league),
        "errors": errors,
        "saved": saved,
        "short": short,
    }


def _league_words(request, game: Game, form: PreferansForm, errors: dict) -> dict:
    """The league's error said with the players' names (``games.entry.entry_league_errors``)."""
    players = [seat[2:] for seat in form.seats if seat.startswith("p:")]
    return entry_league_errors(errors, game=game, chosen=request.POST.get("league", ""), player_ids=players)


def entry(request, game: Game):
    """Record a Preferans game: 2-4 seats (players or bots) and its deals, row by row.

    POST actions: ``save`` (default) submits through ``match_submit``, after asking when fewer deals
    are filled than declared; ``add_row`` and ``refresh`` re-render the form (a new deal row, or new
    seats); ``check`` answers the live zero-sum check only.
    """
    if request.method == "GET":
        form = PreferansForm.from_post(entry_initial_values(request))
        return render(request, PAGE, _form_context(game, form))
    form = PreferansForm.from_post(request.POST)
    action = request.POST.get("action", "save")
    if action == "check":
        return render(request, f"{PAGE}#check-response", _form_context(game, form))
    template = f"{PAGE}#entry-form" if request.htmx else PAGE
    if action in ("add_row", "refresh"):
        if action == "add_row" and len(form.rows) < MAX_ROWS:
            form.rows.append([""] * SEAT_SLOTS)
        return render(request, template, _form_context(game, form))
    body = form.body(game)
    if len(body["deals"]) < form.declared and request.POST.get("confirm_short") != "1" and not form.problems:
        # The deals are checked first: a game that would be refused answers its errors, not the question.
        errors = _league_words(request, game, form, entry_check(request, body=body))
        short = None if errors else {"declared": form.declared, "filled": len(body["deals"])}
        context = _form_context(game, form, errors=errors, short=short)
        return render(request, template, context, status=200 if request.htmx else 400)
    fresh = PreferansForm.from_post({"played_at": form.played_at, "rated": form.rated, "league": form.league})
    fresh.seats = form.seats  # the same table usually plays on
    return entry_submit(
        request,
        body=body,
        page=PAGE,
        on_error=lambda errors: _form_context(game, form, errors=_league_words(request, game, form, errors)),
        on_saved=lambda match: _form_context(game, fresh, saved=match),
    )


def deal_rows(match: Match) -> list[dict]:
    """A Preferans game as rows: each deal's whists and each player's rating change, by seat.

    Works on a match from ``match_detail_queryset`` (everything prefetched).
    """
    seats = list(match.seats.all())
    changes = {(change.unit, change.player_id): change for change in match.rating_changes.all()}
    rows = []
    for deal in match.deals.all():
        unit = deal.number - 1
        rows.append(
            {
                "number": deal.number,
                "cells": [
                    {"whists": whists, "change": changes.get((unit, seat.player_id)) if seat.player_id else None}
                    for seat, whists in zip(seats, deal.whists, strict=True)
                ],
            }
        )
    return rows


def _whists_field(whists: float) -> str:
    """Whists as the entry page's cell shows them: 4, -2.5, 0.25 (no trailing zeros), with the language's
    decimal separator ("-2,5" in Russian: the cell is read back by ``entry_decimal``, which takes either)."""
    text = f"{whists:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text.replace(".", get_format("DECIMAL_SEPARATOR"))


def preferans_entry_initial(match: Match) -> dict[str, str]:
    """A stored Preferans game as its entry form's fields: each seat (a player or a bot), every deal's whists."""
    fields: dict[str, str] = {}
    deals = list(match.deals.all())
    for slot, seat in enumerate(match.seats.all(), start=1):
        if seat.player_id:
            fields[f"seat-{slot}-player"] = str(seat.player_id)
        else:
            fields[f"seat-{slot}-bot"] = seat.bot.slug
        for number, deal in enumerate(deals, start=1):
            fields[f"deal-{number}-{slot}"] = _whists_field(deal.whists[slot - 1])
    fields["rows"] = str(max(len(deals), 1))
    return fields
