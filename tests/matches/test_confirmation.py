"""Two-step results (Tabbycat's ballot confirmation): a league may require a second
referee to confirm a result before it is rated."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import League
from matches.models import AuditEntry, Match
from ratings.models import RatingChange
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory

pytestmark = pytest.mark.django_db


def slaps_body(winner, loser):
    played_at = (timezone.now() - timedelta(hours=1)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [winner.pk, loser.pk], "winner": winner.pk}


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


def test_a_result_waits_for_a_second_referee(two_step, django_capture_on_commit_callbacks):
    first, second = RefereeFactory(), RefereeFactory(first_name="Sam", last_name="Second")
    ann, bob = PlayerFactory(), PlayerFactory()
    body = slaps_body(ann, bob)
    with django_capture_on_commit_callbacks(execute=True):
        created = api_for(first).post("/api/matches/", body, format="json").json()
    assert created["status"] == "submitted"
    assert created["awaiting_confirmation"] is True
    assert not RatingChange.objects.exists()

    own = api_for(first).post(f"/api/matches/{created['id']}/confirm/")
    assert own.status_code == 400
    assert "second referee" in own.json()["non_field_errors"][0]

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = api_for(second).post(f"/api/matches/{created['id']}/confirm/")
    assert confirmed.status_code == 200
    assert confirmed.json()["confirmed_by"] == "Sam Second"  # a display name, never a username
    assert Match.objects.get(pk=created["id"]).status == "rated"
    assert RatingChange.objects.count() == 2
    assert api_for(second).post(f"/api/matches/{created['id']}/confirm/").status_code == 400
    assert list(AuditEntry.objects.order_by("id").values_list("action", flat=True)) == ["submitted", "confirmed"]
    assert APIClient().post(f"/api/matches/{created['id']}/confirm/").status_code == 401


def test_leagues_without_the_setting_rate_at_once(reference_data, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    body = slaps_body(ann, bob)
    with django_capture_on_commit_callbacks(execute=True):
        created = api_for(RefereeFactory()).post("/api/matches/", body, format="json").json()
    assert created["awaiting_confirmation"] is False
    assert Match.objects.get(pk=created["id"]).status == "rated"


def test_the_confirmation_page(two_step, django_capture_on_commit_callbacks):
    first, second = RefereeFactory(), RefereeFactory()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = slaps_body(ann, bob)
    match_id = api_for(first).post("/api/matches/", body, format="json").json()["id"]
    mine = Client()
    mine.force_login(first)
    assert "yours" in mine.get("/results/confirm/").content.decode()
    theirs = Client()
    theirs.force_login(second)
    page = theirs.get("/results/confirm/").content.decode()
    # The whole result, as the kind shows it: who beat whom.
    won = f'<strong><a href="/players/{ann.pk}/">Ann</a></strong> won against <a href="/players/{bob.pk}/">Bob</a>'
    assert won in page
    with django_capture_on_commit_callbacks(execute=True):
        after = theirs.post("/results/confirm/", {"match": match_id}, HTTP_HX_REQUEST="true").content.decode()
    assert "Nothing waits for confirmation" in after
    assert Match.objects.get(pk=match_id).status == "rated"
    again = theirs.post("/results/confirm/", {"match": match_id}, HTTP_HX_REQUEST="true").content.decode()
    assert "not waiting for confirmation" in again
