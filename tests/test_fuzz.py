"""Property-based fuzzing of every write endpoint (hypothesis): whatever arrives,
the answer is never a 5xx, and a refused request stores nothing.

Bodies are random JSON values, and random mutations of valid bodies (the
interesting case: almost right). Names with HTML are checked escaped on pages.
"""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games.bridge.models import Board
from games.preferans.models import Deal
from leagues.models import Player
from matches.models import AuditEntry, Match, Seat
from tests import factories
from tests.conftest import FIGURES
from tests.factories import api_token_for

pytestmark = pytest.mark.django_db

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=25,
)
HOSTILE_TEXT = st.sampled_from(
    ["", " ", "<script>alert(1)</script>", "' OR 1=1 --", "\x00", "9" * 400, "NaN", "-0", "1e309", "\u202e"]
)
FIELD_VALUES = json_values | HOSTILE_TEXT


def stored():
    return (
        Match.objects.count(),
        Seat.objects.count(),
        Deal.objects.count(),
        Board.objects.count(),
        Player.objects.count(),
        AuditEntry.objects.count(),
    )


@pytest.fixture
def client(reference_data):
    client = APIClient()
    admin = factories.AdminFactory()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(admin)}")
    return client


@pytest.fixture
def valid_bodies(reference_data):
    ids = [player.pk for player in factories.PlayerFactory.create_batch(8)]
    played = (timezone.now() - timedelta(hours=1)).isoformat()
    return [
        {"game": "slaps", "played_at": played, "players": ids[:2], "winner": ids[0]},
        {
            "game": "preferans",
            "played_at": played,
            "seats": [{"player": ids[0]}, {"bot": "normal"}],
            "deals": [[1, -1]],
        },
        factories.bridge_session_body(ids, timezone.now() - timedelta(hours=1), [(420, -50)]),
    ]


def check(response, before, tried):
    tried.append(response.status_code)
    assert response.status_code < 500, response.content[:500]
    if response.status_code >= 400:
        assert stored() == before


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(body=json_values)
def test_random_json_to_every_write_endpoint(client, valid_bodies, body):
    tried = FIGURES.setdefault("hostile cases tried", [])
    match_id = Match.objects.values_list("pk", flat=True).first() or 1
    for url in ["/api/matches/", "/api/players/", f"/api/matches/{match_id}/correct/"]:
        before = stored()
        response = client.post(url, json.dumps(body), content_type="application/json")
        check(response, before, tried)


@FUZZ
@given(index=st.integers(0, 2), field=st.text(min_size=1, max_size=12), value=FIELD_VALUES, drop=st.booleans())
def test_almost_valid_results(client, valid_bodies, index, field, value, drop):
    tried = FIGURES.setdefault("hostile cases tried", [])
    body = dict(valid_bodies[index])
    key = list(body)[sum(map(ord, field)) % len(body)]
    if drop:
        body.pop(key)
    else:
        body[key] = value
    before = stored()
    check(client.post("/api/matches/", body, format="json"), before, tried)


@FUZZ
@given(
    deal=st.lists(FIELD_VALUES, min_size=0, max_size=5),
    board=st.dictionaries(
        st.sampled_from(["number", "tables", "ns", "ew", "ns_score", "ns_imps"]), FIELD_VALUES, max_size=4
    ),
)
def test_deals_and_boards_with_random_insides(client, valid_bodies, deal, board):
    tried = FIGURES.setdefault("hostile cases tried", [])
    preferans = {**valid_bodies[1], "deals": [deal]}
    before = stored()
    check(client.post("/api/matches/", preferans, format="json"), before, tried)
    bridge = {**valid_bodies[2], "boards": [board]}
    before = stored()
    check(client.post("/api/matches/", bridge, format="json"), before, tried)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.text(min_size=1, max_size=100) | HOSTILE_TEXT)
def test_player_names_are_stored_clean_or_refused_and_always_escaped(client, name):
    before = stored()
    response = client.post("/api/players/", {"name": name}, format="json")
    check(response, before, FIGURES.setdefault("hostile cases tried", []))
    if response.status_code == 201:
        player = Player.objects.get(pk=response.json()["id"])
        page = client.get(f"/players/{player.pk}/").content.decode()
        assert "<script>alert(1)</script>" not in page
