"""The fourth game's kind: Rummy points, a table of 2 to 6 players who each score points.

Defined only in the test suite, with no edit anywhere else: the kind, its
engine (``engine``) and its entry page's template. The worker and the web
processes load it as a club would load its own game, by import path:
``CARDRANK_EXTRA_GAME_KINDS=tests.fourth_game.kind.RummyKind``.
"""

from __future__ import annotations

from decimal import Decimal

from django.shortcuts import render
from rest_framework import serializers

from games.base import BaseKind
from games.entry import entry_submit
from games.imports import ImportPlan, PlayerRef, Problem
from matches.entry import form_now
from matches.inputs import GameInput, SeatInput, parse_cents, parse_id, players_by_id
from tests.fourth_game.engine import SYSTEM, RummyHand

SEATS = (2, 6)
SCORE_LIMIT = Decimal(1000)
PAGE = "rummy_test/entry.html"


def rummy_sheet_read(data: bytes) -> ImportPlan:
    """The club's score sheet, a hand a line: ``played at;name=points;name=points...`` (a ``.rummy`` file).

    Its own file format, read by the kind's importer as a bridge kind reads PBN; the points are checked
    when each hand is stored (``clean``), the line's shape here.
    """
    plan = ImportPlan()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ImportPlan(problems=[Problem("file", "The sheet is not UTF-8 text.")])
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        played_at, *cells = line.split(";")
        pairs = [cell.partition("=") for cell in cells]
        if not cells or any(not name.strip() or not sign for name, sign, _ in pairs):
            plan.problems.append(Problem(f"line {number}", "Write a hand as: played at;name=points;name=points."))
            continue
        plan.results.append(
            {
                "played_at": played_at.strip(),
                "players": [PlayerRef(name.strip()) for name, _, _ in pairs],
                "scores": [points.strip() for _, _, points in pairs],
            }
        )
        plan.sources.append(f"line {number}")
    return plan


class RummyKind(BaseKind):
    slug = SYSTEM.slug
    engine = SYSTEM
    result_noun = "hand"
    templates = {**BaseKind.templates, "entry": PAGE}
    # The schema's RummyResult (issue 26): its own players, 2 to 6, beside Slaps's two.
    body_fields = {
        "players": serializers.ListField(
            child=serializers.IntegerField(min_value=1),
            min_length=SEATS[0],
            max_length=SEATS[1],
            help_text=f"The {SEATS[0]} to {SEATS[1]} players' ids.",
        ),
        "scores": serializers.ListField(
            child=serializers.FloatField(), help_text="Rummy points (test): each player's points, in their order."
        ),
    }

    # --- results (matches) -----------------------------------------------------------------

    def clean(self, data, errors, game):
        raw_players, raw_scores = data.get("players"), data.get("scores")
        if not isinstance(raw_players, list) or not SEATS[0] <= len(raw_players) <= SEATS[1]:
            errors.add("players", f"Give {SEATS[0]} to {SEATS[1]} player ids.")
            return GameInput()
        ids = [parse_id(value) for value in raw_players]
        if None in ids or len(set(ids)) != len(ids):
            errors.add("players", "Player ids are different positive whole numbers.")
            return GameInput()
        scores = [parse_cents(value, limit=SCORE_LIMIT) for value in raw_scores or []]
        if len(scores) != len(ids) or None in scores:
            errors.add("scores", f"One score per player, each within ±{SCORE_LIMIT}.")
            return GameInput()
        players = players_by_id(ids, errors, "players")
        if players is None:
            return GameInput()
        return GameInput(
            seats=tuple(SeatInput(player=players[pk], result=score) for pk, score in zip(ids, scores, strict=True))
        )

    def input_body(self, cleaned):
        return {
            "players": [seat.player.pk for seat in cleaned.seats],
            "scores": [float(seat.result) for seat in cleaned.seats],
        }

    def stored_body(self, match):
        seats = list(match.seats.all())
        return {"players": [seat.player_id for seat in seats], "scores": [float(seat.result) for seat in seats]}

    # --- rating input (ratings) ------------------------------------------------------------

    def engine_input(self, seats):
        return RummyHand(players=tuple(seat.player_id for seat in seats), scores=tuple(float(s.result) for s in seats))

    # --- pages -----------------------------------------------------------------------------

    def entry_view(self, request, game):
        from leagues.models import Player

        def context(values, errors=None, saved=None):
            return {
                "game": game,
                "players": Player.objects.order_by("name", "id").only("id", "name"),
                "seats": range(1, 5),
                "values": values,
                "errors": errors or {},
                "saved": saved,
            }

        if request.method == "GET":
            return render(request, PAGE, context({"played_at": form_now()}))
        post = request.POST
        filled = [n for n in range(1, 5) if post.get(f"player_{n}")]
        body = {
            "game": game.slug,
            "played_at": post.get("played_at", ""),
            "players": [post[f"player_{n}"] for n in filled],
            "scores": [post.get(f"score_{n}", "") for n in filled],
        }
        return entry_submit(
            request,
            body=body,
            page=PAGE,
            on_error=lambda errors: context(post.dict(), errors),
            on_saved=lambda match: context({"played_at": post.get("played_at", "")}, saved=match),
        )

    # --- import: the files of its own formats ------------------------------------------------

    importers = {"rummy-sheet": rummy_sheet_read}
    importer_files = {"rummy-sheet": (".rummy", "Rummy score sheet (test)")}
