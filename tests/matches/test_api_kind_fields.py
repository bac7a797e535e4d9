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
