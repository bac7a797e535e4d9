"""The match API's game fields come from the registered kinds, in the order first published."""

from ratings.match_apis import MatchInputSerializer, MatchOutputSerializer


def test_the_answer_has_every_kinds_fields_in_the_published_order():
    assert list(MatchOutputSerializer().fields) == [
        "id",
        "game",
        "played_at",
        "rated",
        "status",
        "referee",
        "league",
        "seats",
        "players",
        "winner",
        "deals",
        "boards",
        "scoring",
        "standings",
        "rating_changes",
        "awaiting_confirmation",
        "confirmed_by",
        "rated_after",
        "disputed_by",
    ]


def test_the_body_has_every_kinds_fields_in_the_published_order():
    assert list(MatchInputSerializer().fields) == [
        "game",
        "played_at",
        "rated",
        "players",
        "winner",
        "seats",
        "deals",
        "boards",
        "scoring",
        "movement",
        "event",
        "scoring_options",
        "league",
    ]
