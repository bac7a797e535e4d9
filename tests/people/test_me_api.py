"""``GET /api/me/`` (issue 27): the signed-in person's player and latest claim, by token or session; a
visitor is 401."""

import pytest
from rest_framework.test import APIClient

from people.services import claim_decide, claim_request
from tests.conftest import api_for
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_visitor_is_refused(reference_data):
    answer = APIClient().get("/api/me/")
    assert answer.status_code == 401
    assert "detail" in answer.json()


def test_a_person_without_claims_has_nothing_yet(reference_data):
    assert api_for(UserFactory(username="ann")).get("/api/me/").json() == {"player": None, "claim": None}


def test_a_waiting_then_approved_claim(referee):
    ann, player = UserFactory(username="ann"), PlayerFactory(name="Ann Lee")
    claim = claim_request(user=ann, player=player, message="me")
    waiting = api_for(ann).get("/api/me/").json()
    assert waiting["player"] is None
    assert {key: waiting["claim"][key] for key in ("id", "player", "status", "decided_at", "reason")} == {
        "id": claim.pk,
        "player": {"id": player.pk, "name": "Ann Lee"},
        "status": "pending",
        "decided_at": None,
        "reason": "",
    }
    claim_decide(claim_id=claim.pk, by=referee, approve=True)
    approved = api_for(ann).get("/api/me/").json()
    assert approved["player"] == {"id": player.pk, "name": "Ann Lee"}
    assert approved["claim"]["status"] == "approved"
    assert approved["claim"]["decided_at"].endswith("Z")


def test_a_session_works_too(reference_data):
    ann, player = UserFactory(username="ann"), PlayerFactory(name="Ann Lee")
    player.user = ann
    player.save()
    client = APIClient()
    client.force_login(ann)
    assert client.get("/api/me/").json()["player"] == {"id": player.pk, "name": "Ann Lee"}
