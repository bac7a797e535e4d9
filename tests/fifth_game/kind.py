"""The fifth game's kind: Durak, 2 to 6 players, one loser each deal (see ``tests/fifth_game/__init__.py``).

Its body is its own shape, ``{"players": [ids], "losers": [seat of each deal's loser]}``; its deals are
rows of its own model (``Round``), stored and read by the kind; a seat's result is the deals it lost.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.shortcuts import render
from rest_framework import serializers

from games.base import BaseKind
from games.entry import entry_submit
from games.fields import AnswerField
from matches.entry import form_now
from matches.inputs import GameInput, SeatInput, parse_id, players_by_id
from ratings.loaders import seat_rows
from tests.fifth_game.engine import SYSTEM, DurakGame
from tests.fifth_game.models import Round

SEATS = (2, 6)
MAX_DEALS = 60
PAGE = "durak_test/entry.html"
PART = "durak_rounds"


def rounds_of(match) -> list[int]:
    """Each deal's loser by seat number, from the rounds ``match_detail`` prefetched (or ``hold`` left)."""
    return [round_.loser for round_ in getattr(match, PART).all()]


class DurakKind(BaseKind):
    slug = SYSTEM.slug
    engine = SYSTEM
    result_noun = "game"
    parts = (PART,)
    templates = {**BaseKind.templates, "entry": PAGE}

    # --- results (matches) -----------------------------------------------------------------

    def clean(self, data, errors, game):
        raw_players, raw_losers = data.get("players"), data.get("losers")
        if not isinstance(raw_players, list) or not SEATS[0] <= len(raw_players) <= SEATS[1]:
            errors.add("players", f"Give {SEATS[0]} to {SEATS[1]} player ids.")
            return GameInput()
        ids = [parse_id(value) for value in raw_players]
        if None in ids or len(set(ids)) != len(ids):
            errors.add("players", "Player ids are different positive whole numbers.")
            return GameInput()
        if not isinstance(raw_losers, list) or not 1 <= len(raw_losers) <= MAX_DEALS:
            errors.add("losers", f"Give each deal's loser by seat number: 1 to {MAX_DEALS} deals.")
            return GameInput()
        losers = [parse_id(value) for value in raw_losers]
        if any(seat is None or seat > len(ids) for seat in losers):
            errors.add("losers", f"A loser is a seat number from 1 to {len(ids)}.")
            return GameInput()
        players = players_by_id(ids, errors, "players")
        if players is None:
            return GameInput()
        return GameInput(
            seats=tuple(
                SeatInput(player=players[pk], result=Decimal(losers.count(seat)))
                for seat, pk in enumerate(ids, start=1)
            ),
            parts={PART: tuple(losers)},
        )

    def stored_body(self, match):
        return {"players": [seat.player_id for seat in match.seats.all()], "losers": rounds_of(match)}

    def part_rows(self, match, cleaned):
        return {PART: [Round(match=match, number=n, loser=seat) for n, seat in enumerate(cleaned.parts[PART], 1)]}

    # --- rating input (ratings) ------------------------------------------------------------

    def load(self, chunk, context):
        ids = [row.id for row in chunk]
        seats = seat_rows(match_ids=ids)
        losers = defaultdict(list)
        for match_id, seat in Round.objects.filter(match_id__in=ids).values_list("match_id", "loser"):
            losers[match_id].append(seat - 1)
        inputs = []
        for row in chunk:
            players = tuple(seat.player_id for seat in seats[row.id])
            inputs.append((players, DurakGame(players=players, losers=tuple(losers[row.id]))))
        return inputs

    # --- API -------------------------------------------------------------------------------

    body_fields = {
        "players": serializers.ListField(
            child=serializers.IntegerField(min_value=1),
            min_length=SEATS[0],
            max_length=SEATS[1],
            help_text=f"The {SEATS[0]} to {SEATS[1]} players' ids, in seat order.",
        ),
        "losers": serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=SEATS[1]),
            min_length=1,
            max_length=MAX_DEALS,
            help_text="Each deal's loser, by seat number (1 for the first player), in the order of play.",
        ),
    }
    answer_fields = {
        "losers": AnswerField(
            serializers.ListField(
                child=serializers.IntegerField(), read_only=True, help_text="Each deal's loser, by seat number."
            ),
            rounds_of,
        )
    }

    # --- pages -----------------------------------------------------------------------------

    def entry_view(self, request, game):
        from leagues.models import Player

        def context(values, errors=None, saved=None):
            return {
                "game": game,
                "players": Player.objects.order_by("name", "id").only("id", "name"),
                "seats": range(1, SEATS[1] + 1),
                "values": values,
                "errors": errors or {},
                "saved": saved,
            }

        if request.method == "GET":
            return render(request, PAGE, context({"played_at": form_now()}))
        post = request.POST
        body = {
            "game": game.slug,
            "played_at": post.get("played_at", ""),
            "players": [post[f"player_{n}"] for n in range(1, SEATS[1] + 1) if post.get(f"player_{n}")],
            "losers": post.get("losers", "").split(),
        }
        return entry_submit(
            request,
            body=body,
            page=PAGE,
            on_error=lambda errors: context(post.dict(), errors),
            on_saved=lambda match: context({"played_at": post.get("played_at", "")}, saved=match),
        )
