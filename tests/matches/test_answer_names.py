"""A match answer names its referees by display name for the public, by username for staff (issue 25, "Names").

A username is half a login: the public (anonymous readers, and every reader who is not staff,
referees included) reads a referee's full name, or null when none is set; staff read the username.
The public match page shows the display name only.
"""

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import League
from matches.confirmation import match_confirm, match_dispute
from matches.services import match_submit
from tests.conftest import api_for
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory

PEOPLE = ("referee", "confirmed_by", "disputed_by")


def _slaps(ann, bob) -> dict:
    return {"game": "slaps", "played_at": timezone.now().isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk}


@pytest.fixture
def named(reference_data, django_capture_on_commit_callbacks):
    """A two-step result entered by a referee with a full name, confirmed by one without, and a second one
    disputed by a referee with a full name."""
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    entered_by = RefereeFactory(username="ref-login-enter", first_name="Edna", last_name="Entry")
    confirmer = RefereeFactory(username="ref-login-confirm")
    disputer = RefereeFactory(username="ref-login-dispute", first_name="Dora")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    with django_capture_on_commit_callbacks(execute=True):
        confirmed = match_submit(referee=entered_by, data=_slaps(ann, bob))
        match_confirm(match_id=confirmed.pk, by=confirmer)
        disputed = match_submit(referee=entered_by, data=_slaps(bob, ann))
        match_dispute(match_id=disputed.pk, by=disputer, note="Wrong winner.")
    return {"confirmed": confirmed.pk, "disputed": disputed.pk}


@pytest.mark.parametrize("reader", ["anonymous", "referee"])
def test_a_public_answer_names_referees_by_display_name_never_username(named, reader):
    client = APIClient() if reader == "anonymous" else api_for(RefereeFactory(username="ref-login-reader"))
    confirmed = client.get(f"/api/matches/{named['confirmed']}/")
    disputed = client.get(f"/api/matches/{named['disputed']}/")
    assert confirmed.status_code == disputed.status_code == 200
    assert [confirmed.json()[field] for field in PEOPLE] == ["Edna Entry", None, None]
    assert [disputed.json()[field] for field in PEOPLE] == ["Edna Entry", None, "Dora"]
    for answer in (confirmed, disputed):
        assert b"ref-login" not in answer.content


def test_staff_read_the_usernames(named):
    staff = api_for(AdminFactory())
    confirmed = staff.get(f"/api/matches/{named['confirmed']}/").json()
    disputed = staff.get(f"/api/matches/{named['disputed']}/").json()
    assert [confirmed[field] for field in PEOPLE] == ["ref-login-enter", "ref-login-confirm", None]
    assert [disputed[field] for field in PEOPLE] == ["ref-login-enter", None, "ref-login-dispute"]


def test_a_referees_own_submission_answers_with_display_names(reference_data):
    """A write's answer is public too when its reader is not staff: the referee reads their own display name."""
    referee = RefereeFactory(username="ref-login-self")
    ann, bob = PlayerFactory(), PlayerFactory()
    single = api_for(referee).post("/api/matches/", _slaps(ann, bob), format="json")
    batch = api_for(referee).post("/api/matches/batch/", {"matches": [_slaps(bob, ann)]}, format="json")
    assert single.status_code == batch.status_code == 201, (single.json(), batch.json())
    assert single.json()["referee"] is None
    assert batch.json()["matches"][0]["referee"] is None
    assert b"ref-login" not in single.content + batch.content


def test_the_match_page_shows_the_display_name_not_the_username(named, client):
    page = client.get(f"/matches/{named['confirmed']}/")
    assert page.status_code == 200
    assert "referee Edna Entry" in page.content.decode()
    assert b"ref-login" not in page.content
