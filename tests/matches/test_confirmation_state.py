"""Two-step confirmation follows the result's state (issue 12, item 8), through HTTP on the production settings.

* A voided result cannot be confirmed: 400 with a clear message, and nothing
  changes (no audit entry, the waiting flag as it was, no rating).
* A result is confirmed once, and never by the referee who entered (or the
  admin who last corrected) the version that waits.
* A correction is re-examined like a new entry: a rated result corrected to
  one that needs confirmation waits, and its ratings are taken out until it
  is confirmed; one corrected to a result that needs none no longer waits.
* The confirmation page names the version its referee read: a result an
  admin corrected in the meantime is not confirmed unseen.

Expected ledgers are hand calculations (seed 000) and the oracle's replay
(``assert_ledger_is_the_oracles``), never the rating service's own.
"""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import Game, League
from matches.models import AuditEntry, Match
from ratings.models import PlayerRating, RatingChange
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def slaps(winner, loser) -> dict:
    return {"game": "slaps", "played_at": PLAYED.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def audit(match_id: int) -> list[str]:
    return list(AuditEntry.objects.filter(match_id=match_id).order_by("id").values_list("action", flat=True))


@pytest.fixture
def amateur_two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


def test_a_voided_result_cannot_be_confirmed(production, amateur_two_step, admin_user):
    first, second = RefereeFactory(), RefereeFactory()
    ann, bob = PlayerFactory(), PlayerFactory()
    created = api_for(first).post("/api/matches/", slaps(ann, bob), format="json")
    assert created.status_code == 201
    match_id = created.json()["id"]
    assert created.json()["awaiting_confirmation"] is True
    assert api_for(admin_user).post(f"/api/matches/{match_id}/void/").status_code == 200

    refused = api_for(second).post(f"/api/matches/{match_id}/confirm/")

    assert refused.status_code == 400
    assert refused["Content-Type"] == "application/json"
    assert refused.json() == {"non_field_errors": ["This result was voided: there is nothing to confirm."]}
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.awaiting_confirmation, match.confirmed_by) == ("void", True, None)
    assert audit(match_id) == ["submitted", "voided"]
    assert not RatingChange.objects.exists()
    assert not PlayerRating.objects.exists()

    # The confirmation page says so too, and changes nothing either.
    page = Client()
    page.force_login(second)
    answer = page.post("/results/confirm/", {"match": match_id}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert "This result was voided: there is nothing to confirm." in answer.content.decode()
    assert audit(match_id) == ["submitted", "voided"]
    assert Match.objects.get(pk=match_id).confirmed_by is None


def test_a_result_is_confirmed_once_and_by_someone_else(
    production, amateur_two_step, django_capture_on_commit_callbacks
):
    first, second, third = RefereeFactory(), RefereeFactory(first_name="Sam", last_name="Second"), RefereeFactory()
    ann, bob = PlayerFactory(), PlayerFactory()
    match_id = api_for(first).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]

    own = api_for(first).post(f"/api/matches/{match_id}/confirm/")
    assert own.status_code == 400
    assert own.json() == {
        "non_field_errors": ["A second referee must confirm: you entered (or corrected) this result."]
    }
    assert audit(match_id) == ["submitted"]
    assert Match.objects.get(pk=match_id).awaiting_confirmation is True

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = api_for(second).post(f"/api/matches/{match_id}/confirm/")
    assert confirmed.status_code == 200
    assert confirmed.json()["confirmed_by"] == "Sam Second"  # a display name, never a username
    assert Match.objects.get(pk=match_id).status == "rated"  # rated once the confirmation committed

    for who in (second, third):
        again = api_for(who).post(f"/api/matches/{match_id}/confirm/")
        assert again.status_code == 400
        assert again.json() == {"non_field_errors": ["This result is not waiting for confirmation."]}
    assert audit(match_id) == ["submitted", "confirmed"]
    assert Match.objects.get(pk=match_id).confirmed_by == second
    # Seed 000: both 1000, E = 1/2, K = 32: 1016 and 984, once.
    assert sorted(PlayerRating.objects.values_list("rating", flat=True)) == [984, 1016]
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="slaps")) == 2


def test_a_correction_is_re_examined_for_confirmation(
    production, reference_data, admin_user, django_capture_on_commit_callbacks
):
    """Only the pro league is two-step, and the amateur threshold is 1010. Pia beat Zed first
    (1000 v 1000, E = 1/2, K = 32: 1016, promoted to pro). Ann beat Bob, amateurs: rated at once.
    An admin corrects it to Ann against Pia, a pro: it now waits, and the replay takes Ann's and
    Bob's ratings out. Corrected again to two amateurs (Bob won), it no longer waits and is rated."""
    League.objects.filter(slug="slaps-amateur").update(promotion_threshold=1010)
    League.objects.filter(slug="slaps-pro").update(requires_confirmation=True)
    referee = RefereeFactory()
    ann, bob, pia, zed = PlayerFactory.create_batch(4)
    slaps_game = Game.objects.get(slug="slaps")
    earlier = {"played_at": (PLAYED - timedelta(hours=1)).isoformat()}
    with django_capture_on_commit_callbacks(execute=True):
        assert api_for(referee).post("/api/matches/", slaps(pia, zed) | earlier, format="json").status_code == 201
        match_id = api_for(referee).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
    assert PlayerRating.objects.get(player=pia).league.slug == "slaps-pro"
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=ann).rating == 1016

    with django_capture_on_commit_callbacks(execute=True):
        corrected = api_for(admin_user).post(f"/api/matches/{match_id}/correct/", slaps(ann, pia), format="json")
    assert corrected.status_code == 200
    assert corrected.json()["awaiting_confirmation"] is True
    assert Match.objects.get(pk=match_id).status == "submitted"
    assert not RatingChange.objects.filter(match_id=match_id).exists()
    assert not PlayerRating.objects.filter(player__in=[ann, bob]).exists()
    assert PlayerRating.objects.get(player=pia).rating == 1016  # untouched: the result is not rated yet
    assert assert_ledger_is_the_oracles(game=slaps_game) == 2

    with django_capture_on_commit_callbacks(execute=True):
        back = api_for(admin_user).post(f"/api/matches/{match_id}/correct/", slaps(bob, ann), format="json")
    assert back.status_code == 200
    assert back.json()["awaiting_confirmation"] is False
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=bob).rating == 1016
    assert PlayerRating.objects.get(player=ann).rating == 984
    assert assert_ledger_is_the_oracles(game=slaps_game) == 4
    assert audit(match_id) == ["submitted", "corrected", "corrected"]


def test_a_result_corrected_after_the_page_was_read_is_not_confirmed_unseen(
    production, amateur_two_step, admin_user, django_capture_on_commit_callbacks
):
    """Cid reads the confirmation page; an admin then corrects the waiting result (Bob won, not Ann).
    Cid's click names the version he read: refused, nothing changes. Read again, the new version
    is confirmed and rated: Bob 1016, Ann 984 (seed 000)."""
    first, cid = RefereeFactory(), RefereeFactory()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    match_id = api_for(first).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
    page = Client()
    page.force_login(cid)

    def shown_version() -> str:
        html = page.get("/results/confirm/").content.decode()
        return re.search(rf'name="match" value="{match_id}"><input type="hidden" name="version" value="(\d+)"', html)[1]

    read = shown_version()
    corrected = api_for(admin_user).post(f"/api/matches/{match_id}/correct/", slaps(bob, ann), format="json")
    assert corrected.json()["awaiting_confirmation"] is True
    assert audit(match_id) == ["submitted", "corrected"]

    stale = page.post("/results/confirm/", {"match": match_id, "version": read}, HTTP_HX_REQUEST="true")
    assert "This result was corrected after you read it: read it again, then confirm." in stale.content.decode()
    assert audit(match_id) == ["submitted", "corrected"]
    assert Match.objects.get(pk=match_id).awaiting_confirmation is True

    fresh = shown_version()
    assert fresh != read
    with django_capture_on_commit_callbacks(execute=True):
        page.post("/results/confirm/", {"match": match_id, "version": fresh}, HTTP_HX_REQUEST="true")
    assert audit(match_id) == ["submitted", "corrected", "confirmed"]
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=bob).rating == 1016
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="slaps")) == 2
