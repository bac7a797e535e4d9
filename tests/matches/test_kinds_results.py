"""The results side reaches a game only through its kind: a game defined here, and nowhere in Cardrank,
is cleaned, stored, read back as a body, corrected and voided by ``matches.services`` as the three are.

The game is a seats-only one like Slaps, but with scores: ``{"players": [ids], "scores": [numbers]}``.
Its kind is short because ``matches.inputs`` holds what every cleaner reads (ids, players, cents)
and ``games.base.BaseKind`` stores no parts for a game that has none.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from games.base import BaseKind
from leagues.kinds import kind_register, kind_unregister
from leagues.models import Game
from matches.bodies import match_input_as_body
from matches.cleaning import match_clean
from matches.inputs import GameInput, SeatInput, parse_cents, parse_id, players_by_id
from matches.selectors import match_as_body, match_detail
from matches.services import match_correct, match_due_at, match_submit, match_void
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory

pytestmark = pytest.mark.django_db

AGO = timezone.now() - timedelta(hours=2)


class ScoresKind(BaseKind):
    slug = "scores-test"

    def clean(self, data, errors, game):
        ids = [parse_id(value) for value in data.get("players") or []]
        scores = [parse_cents(value, limit=Decimal(100)) for value in data.get("scores") or []]
        if len(ids) < 2 or None in ids or len(set(ids)) != len(ids):
            errors.add("players", "Two or more different player ids.")
            return GameInput()
        if len(scores) != len(ids) or None in scores:
            errors.add("scores", "One score per player.")
            return GameInput()
        players = players_by_id(ids, errors, "players")
        if players is None:
            return GameInput()
        return GameInput(seats=tuple(SeatInput(player=players[i], result=s) for i, s in zip(ids, scores, strict=True)))

    def input_body(self, cleaned):
        seats = cleaned.seats
        return {"players": [seat.player.pk for seat in seats], "scores": [float(seat.result) for seat in seats]}

    def stored_body(self, match):
        seats = match.seats.all()
        return {"players": [seat.player_id for seat in seats], "scores": [float(seat.result) for seat in seats]}


@pytest.fixture
def scores_game(reference_data):
    kind_register(ScoresKind())
    yield Game.objects.create(slug="scores", name="Scores", rating_system="scores-test")
    kind_unregister("scores-test")


def body(ids, scores, **fields):
    return {"game": "scores", "played_at": AGO.isoformat(), "rated": False, "players": ids, "scores": scores, **fields}


def test_a_game_of_its_own_kind_goes_through_the_write_path(scores_game):
    ids = [player.pk for player in PlayerFactory.create_batch(3)]
    match = match_submit(referee=RefereeFactory(), data=body(ids, [3, 1.5, -2]))
    stored = match_detail(match_id=match.pk)
    assert [seat.result for seat in stored.seats.all()] == [Decimal(3), Decimal("1.5"), Decimal(-2)]
    assert match_as_body(stored) == match_input_as_body(match_clean(data=body(ids, [3, 1.5, -2])))
    assert match_due_at(game=scores_game, league=None, played_at=AGO) is None  # no rating periods

    admin = AdminFactory()
    match_correct(match_id=match.pk, by=admin, data=body(ids, [0, 0, 0]))
    assert match_as_body(match_detail(match_id=match.pk))["scores"] == [0.0, 0.0, 0.0]
    assert match_void(match_id=match.pk, by=admin).status == "void"


def test_its_cleaner_errors_are_keyed_by_its_fields(scores_game):
    with pytest.raises(ValidationError) as raised:
        match_clean(data=body([1, 2], [1]))
    assert raised.value.message_dict == {"scores": ["One score per player."]}


def test_a_system_without_a_kind_still_cannot_take_results(scores_game):
    kind_unregister("scores-test")
    with pytest.raises(ValidationError) as raised:
        match_clean(data=body([1, 2], [1, 2]))
    assert raised.value.message_dict == {"game": ["Results for Scores cannot be entered yet."]}


@pytest.mark.parametrize(
    ("value", "limit", "read"),
    [
        ("12.5", Decimal(24), Decimal("12.50")),
        (-24, Decimal(24), Decimal("-24.00")),
        (24.01, Decimal(24), None),  # over the limit
        ("1.005", Decimal(24), None),  # a part of a cent
        (True, Decimal(24), None),
        ("nan", Decimal(10_000), None),
        (" -9999.99 ", Decimal(10_000), Decimal("-9999.99")),
    ],
)
def test_cents_are_whole_cents_within_a_limit(value, limit, read):
    assert parse_cents(value, limit=limit) == read
