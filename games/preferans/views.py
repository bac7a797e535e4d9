"""Preferans's pages: the entry page (seats of players or bots, deals row by row) and the match page's deals.

The entry page is reached through ``results/<game>/`` (``games.entry.result_entry``,
which checks the referee and limits the writes) for any game of the
Preferans kind; ``PreferansForm`` reads its fields and writes them back, and
turns them into the API's Preferans body.
"""

from dataclasses import dataclass

from django.shortcuts import render

from games.entry import entry_submit
from games.preferans.results import preferans_deals_preview
from leagues.models import Bot, Game, Player
from matches.entry import form_now
from matches.models import Match

PAGE = "games/preferans/entry.html"
SEAT_SLOTS = 4
START_ROWS = 4
MAX_ROWS = 200


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
            count = int(post.get("rows", START_ROWS))
        except ValueError:
            count = START_ROWS
        count = min(max(count, 1), MAX_ROWS)
        slots = range(1, SEAT_SLOTS + 1)
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

    def body(self, game: Game) -> dict:
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
        return {"game": game.slug, "played_at": self.played_at, "rated": self.rated, "seats": seats, "deals": deals}


def _form_context(game: Game, form: PreferansForm, *, errors=None, saved=None) -> dict:
    active = form.active
    previews, totals = preferans_deals_preview(rows=[[row[index] for index in active] for row in form.rows])
    if not form.played_at:
        form.played_at = form_now()
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
        "slots": list(range(1, SEAT_SLOTS + 1)),
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


def entry(request, game: Game):
    """Record a Preferans game: 2-4 seats (players or bots) and its deals, row by row.

    POST actions: ``save`` (default) submits through ``match_submit``;
    ``add_row`` and ``refresh`` re-render the form (a new deal row, or new
    seats); ``check`` answers the live zero-sum check only.
    """
    if request.method == "GET":
        form = PreferansForm.from_post({})
        return render(request, PAGE, _form_context(game, form))
    form = PreferansForm.from_post(request.POST)
    action = request.POST.get("action", "save")
    if action == "check":
        return render(request, f"{PAGE}#check-response", _form_context(game, form))
    if action in ("add_row", "refresh"):
        if action == "add_row" and len(form.rows) < MAX_ROWS:
            form.rows.append([""] * SEAT_SLOTS)
        template = f"{PAGE}#entry-form" if request.htmx else PAGE
        return render(request, template, _form_context(game, form))
    fresh = PreferansForm.from_post({"played_at": form.played_at, "rated": form.rated})
    fresh.seats = form.seats  # the same table usually plays on
    return entry_submit(
        request,
        body=form.body(game),
        page=PAGE,
        on_error=lambda errors: _form_context(game, form, errors=errors),
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
