"""A match answer is built from what ``matches.selectors`` loaded: serializing it adds no query.

The counts are pinned per game, as the pages' are: a serializer field that
reached for a relation not loaded (a bot's slug, a board's tables, a
confirming referee) would add a query per row and fail here.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from config.models import ApiToken
from leagues.models import League
from tests.factories import PlayerFactory, RefereeFactory, bridge_session_body

pytestmark = pytest.mark.django_db

AGO = timezone.now() - timedelta(hours=2)


def bodies(ids):
    played = AGO.isoformat()
    return {
        "slaps": {
            "game": "slaps",
            "played_at": played,
            "players": ids[:2],
            "winner": ids[0],
            "league": "slaps-amateur",
        },
        "preferans": {
            "game": "preferans",
            "played_at": played,
            "seats": [{"player": ids[0]}, {"bot": "hard"}, {"player": ids[1]}, {"bot": "easy"}],
            "deals": [[4, -2, -2, 0], [-6, 3, 3, 0], [1, 1, -1, -1]],
        },
        "bridge": bridge_session_body(ids, AGO, [(420, -50), (100, 100), (-600, 620)]),
    }


# A rated match read back by a referee: the token with its user (1), the match with its game,
# referee, league and confirming referee (1), its seats with players and bots (1), its ledger rows
# (1), and its deals (1) or its boards and their tables with the four players of each (6): nothing
# per row. The same counts as before the answer went through serializers. The token's last use was
# just written (below), so this request does not write it again (``config.tokens.LAST_USED_EVERY``).
QUERIES = {"slaps": 4, "preferans": 5, "bridge": 10}


@pytest.mark.parametrize("game", list(QUERIES))
def test_a_rated_match_is_read_in_a_fixed_number_of_queries(
    referee_client, game, django_assert_num_queries, django_capture_on_commit_callbacks
):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    ids = [player.pk for player in PlayerFactory.create_batch(8)]
    with django_capture_on_commit_callbacks(execute=True):
        created = referee_client.post("/api/matches/", bodies(ids)[game], format="json").json()
    if game == "slaps":  # confirmed by a second referee, so confirmed_by and league are in the answer
        from rest_framework.test import APIClient

        from tests.factories import api_token_for

        second = APIClient()
        second.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(RefereeFactory())}")
        with django_capture_on_commit_callbacks(execute=True):
            assert second.post(f"/api/matches/{created['id']}/confirm/").status_code == 200
    ApiToken.objects.update(last_used_at=timezone.now())
    with django_assert_num_queries(QUERIES[game]):
        answer = referee_client.get(f"/api/matches/{created['id']}/")
    assert answer.json()["status"] == "rated"
    assert answer.json()["rating_changes"]


def _token_client(user):
    from rest_framework.test import APIClient

    from tests.factories import api_token_for

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(user)}")
    return client


# Void, correct and confirm leave finding the match to their service, which looks it up (the views
# used to look it up first as well, one query more each). Pinned for a Slaps match of a two-step league:
# the token with its user, its first use written (``last_used_at``, once a minute: this client's first
# request), the service's reads, locks and writes, and the answer (``match_detail``).
# A correction deletes only the parts its game has (its kind's ``parts``): none for Slaps, two queries
# fewer than when every match's deals and boards were deleted.
WRITE_QUERIES = {"void": 13, "correct": 22, "confirm": 12}


@pytest.mark.parametrize("action", list(WRITE_QUERIES))
def test_void_correct_and_confirm_look_the_match_up_once(
    referee_client, action, django_assert_num_queries, django_capture_on_commit_callbacks
):
    from tests.factories import AdminFactory

    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    ids = [player.pk for player in PlayerFactory.create_batch(8)]
    body = bodies(ids)["slaps"]
    with django_capture_on_commit_callbacks(execute=True):
        created = referee_client.post("/api/matches/", body, format="json").json()
    client = _token_client(RefereeFactory() if action == "confirm" else AdminFactory())
    payload = {**body, "winner": ids[1]} if action == "correct" else None
    with django_assert_num_queries(WRITE_QUERIES[action]):
        response = client.post(f"/api/matches/{created['id']}/{action}/", payload, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == {"void": "void", "correct": "submitted", "confirm": "submitted"}[action]


def test_void_correct_and_confirm_of_an_unknown_match_answer_404_as_before(referee_client):
    from tests.factories import AdminFactory

    admin = _token_client(AdminFactory())
    for client, action, body in [
        (admin, "void", None),
        (admin, "correct", '{"game": "slaps"}'),
        (admin, "correct", "{not json"),
        (referee_client, "confirm", None),
    ]:
        response = client.post(f"/api/matches/{10**9}/{action}/", body, content_type="application/json")
        assert response.status_code == 404, (action, body, response.content)
        assert response.json() == {"detail": "No Match matches the given query."}
