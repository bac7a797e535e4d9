"""The match API's game fields come from each game's kind: a game's answer and body have its own fields only,
in the order first published (issue 26: they were one union of every game's)."""

import pytest

from leagues.kinds import KINDS
from web.match_apis import MatchAnswerSerializer, MatchBodySerializer, match_answer_serializer

SHARED_BEFORE = ["id", "game", "played_at", "rated", "status", "referee", "league", "seats", "players"]
SHARED_AFTER = ["rating_changes", "awaiting_confirmation", "confirmed_by", "rated_after", "disputed_by"]


@pytest.mark.parametrize(
    ("system", "own"),
    [("elo", ["winner"]), ("preferans", ["deals"]), ("bridge", ["boards", "scoring", "standings"])],
)
def test_a_games_answer_has_the_shared_fields_and_its_own_only(system, own):
    assert list(match_answer_serializer(KINDS[system]).fields) == [*SHARED_BEFORE, *own, *SHARED_AFTER]


def test_the_answer_of_a_game_without_a_kind_has_the_shared_fields():
    assert list(match_answer_serializer(None).fields) == [*SHARED_BEFORE, *SHARED_AFTER]
    assert list(MatchAnswerSerializer().fields) == [*SHARED_BEFORE, *SHARED_AFTER]


def test_the_answer_serializer_is_made_once_per_kind():
    assert match_answer_serializer(KINDS["elo"]) is match_answer_serializer(KINDS["elo"])
    assert match_answer_serializer(KINDS["elo"]) is not match_answer_serializer(KINDS["preferans"])


@pytest.mark.parametrize(
    ("system", "own"),
    [
        ("elo", ["players", "winner"]),
        ("preferans", ["seats", "deals"]),
        ("bridge", ["boards", "scoring", "movement", "event", "scoring_options"]),
    ],
)
def test_a_games_body_has_the_shared_fields_and_its_own_only(system, own):
    body = type("Body", (MatchBodySerializer,), {"kind": KINDS[system]})
    assert list(body().fields) == ["game", "played_at", "rated", *own, "league"]


@pytest.mark.django_db
def test_a_bridge_body_without_board_numbers_fits_the_schema_and_is_numbered_by_place(reference_data):
    """The server numbers a board by its place when the body gives no number; the schema says so (it used to
    require ``number``, refusing bodies the server takes)."""
    import json
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    from matches.models import Match
    from tests.factories import PlayerFactory, RefereeFactory, api_token_for, bridge_session_body
    from tests.schema_members import members_fitting

    players = [PlayerFactory(name=f"Numberless {n}") for n in range(8)]
    body = bridge_session_body([p.pk for p in players], timezone.now() - timedelta(hours=2), [(110, 140), (-90, 90)])
    for board in body["boards"]:
        del board["number"]
    published = Client().get("/api/schema/?format=json").json()
    assert members_fitting(published, "MatchSubmit", body) == ["BridgeResult"]
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_for(RefereeFactory())}")
    created = api.post("/api/matches/", json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    stored = Match.objects.get(pk=created.json()["id"])
    assert list(stored.boards.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert [board["number"] for board in created.json()["boards"]] == [1, 2]
    too_high = dict(body, boards=[dict(body["boards"][0], number=10_001)])
    assert members_fitting(published, "MatchSubmit", too_high) == []  # the server's limit, in the schema too
