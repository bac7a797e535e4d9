"""A match answer is built from what ``matches.selectors`` loaded: serializing it adds no query.

The counts are pinned per game, as the pages' are: a serializer field that
reached for a relation not loaded (a bot's slug, a board's tables, a
confirming referee) would add a query per row and fail here.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

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
# per row. The same counts as before the answer went through serializers.
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
        from rest_framework.authtoken.models import Token
        from rest_framework.test import APIClient

        second = APIClient()
        second.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=RefereeFactory()).key}")
        with django_capture_on_commit_callbacks(execute=True):
            assert second.post(f"/api/matches/{created['id']}/confirm/").status_code == 200
    with django_assert_num_queries(QUERIES[game]):
        answer = referee_client.get(f"/api/matches/{created['id']}/")
    assert answer.json()["status"] == "rated"
    assert answer.json()["rating_changes"]
