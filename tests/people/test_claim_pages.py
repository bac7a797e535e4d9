"""The claims' pages (issue 27) through Django's test client: "This is me" on a profile, /claims/ for
referees and admins, /me/, and the header's "Me" link. Forms work as plain posts and with htmx; a post
without its CSRF token is refused; nobody else ever reads a person's email address or username."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from leagues.models import Player
from people.models import PlayerClaim
from people.services import claim_request
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, UserFactory

pytestmark = pytest.mark.django_db

EMAIL = "ann.secret@example.org"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def ann(reference_data):
    return UserFactory(username="annlee", email=EMAIL, first_name="", last_name="")


@pytest.fixture
def player(reference_data):
    return PlayerFactory(name="Ann Lee")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text(response) -> str:
    return response.content.decode()


def test_a_visitor_sees_no_claim_form_and_a_claimed_player_says_claimed(client, player, ann):
    assert "This is me" not in text(client.get(player.get_absolute_url()))
    player.user = ann
    player.save()
    shown = text(client.get(player.get_absolute_url()))
    assert "Claimed" in shown
    assert EMAIL not in shown
    assert "annlee" not in shown


def test_a_person_claims_from_the_profile_without_javascript(ann, player):
    browser = signed_in(ann)
    profile = text(browser.get(player.get_absolute_url()))
    assert "This is me" in profile
    assert f'action="/players/{player.pk}/claim/"' in profile

    answer = browser.post(f"/players/{player.pk}/claim/", {"message": "Tuesdays at the club."})

    assert answer.status_code == 302
    assert answer["Location"] == f"/players/{player.pk}/#me"
    claim = PlayerClaim.objects.get()
    assert (claim.user, claim.player, claim.status, claim.message) == (ann, player, "pending", "Tuesdays at the club.")
    profile = text(browser.get(player.get_absolute_url()))
    assert "a referee will approve or refuse it" in profile
    assert "Withdraw my claim" in profile
    assert "This is me" not in profile


def test_with_htmx_the_box_alone_answers_and_an_error_is_shown_in_it(ann, player):
    browser = signed_in(ann)
    answer = browser.post(f"/players/{player.pk}/claim/", {"message": "me"}, **HTMX)
    assert answer.status_code == 200
    assert text(answer).lstrip().startswith('<section class="claim-box" id="me"')
    assert "Withdraw my claim" in text(answer)
    assert "<html" not in text(answer)

    other = PlayerFactory(name="Someone Else")
    refused = browser.post(f"/players/{other.pk}/claim/", {"message": "x"}, **HTMX)
    assert refused.status_code == 200
    assert "withdraw that claim" in text(refused)
    assert PlayerClaim.objects.count() == 1


def test_a_claim_of_an_already_claimed_player_is_refused_on_the_page(ann, player):
    player.user = UserFactory(username="owner")
    player.save()
    answer = signed_in(ann).post(f"/players/{player.pk}/claim/", {"message": "mine!"})
    assert answer.status_code == 200
    assert "That player is already claimed" in text(answer)
    assert not PlayerClaim.objects.exists()


def test_a_too_long_message_is_refused_and_kept_in_the_form(ann, player):
    answer = signed_in(ann).post(f"/players/{player.pk}/claim/", {"message": "y" * 501})
    assert "Keep it to 500 characters (this is 501)" in text(answer)
    assert "y" * 501 in text(answer)  # given back to be shortened
    assert not PlayerClaim.objects.exists()


def test_a_post_without_its_csrf_token_is_refused(ann, player, reference_data):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(ann)
    assert strict.post(f"/players/{player.pk}/claim/", {"message": "hi"}).status_code == 403
    assert not PlayerClaim.objects.exists()
    claim = claim_request(user=ann, player=player)
    referee = Client(enforce_csrf_checks=True)
    referee.force_login(RefereeFactory())
    assert referee.post("/claims/", {"claim": claim.pk, "decision": "approve"}).status_code == 403
    assert strict.post(f"/claims/{claim.pk}/withdraw/").status_code == 403
    claim.refresh_from_db()
    assert claim.status == "pending"


def test_a_visitor_posting_a_claim_is_sent_to_sign_in(client, player):
    answer = client.post(f"/players/{player.pk}/claim/", {"message": "hi"})
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/login/")
    assert not PlayerClaim.objects.exists()


def test_withdrawing_from_the_profile(ann, player):
    claim = claim_request(user=ann, player=player)
    answer = signed_in(ann).post(f"/claims/{claim.pk}/withdraw/")
    assert answer.status_code == 302
    claim.refresh_from_db()
    assert claim.status == "withdrawn"
    # Someone else's claim is not theirs to withdraw.
    again = claim_request(user=ann, player=player)
    answer = signed_in(UserFactory(username="mallory")).post(f"/claims/{again.pk}/withdraw/")
    assert "Only the person who asked" in text(answer)
    again.refresh_from_db()
    assert again.status == "pending"


def test_the_claims_page_is_for_referees_and_admins(client, ann, player):
    claim_request(user=ann, player=player)
    assert client.get("/claims/").status_code == 302  # to sign in
    assert signed_in(ann).get("/claims/").status_code == 403
    for decider in (RefereeFactory(), AdminFactory()):
        page = signed_in(decider).get("/claims/")
        assert page.status_code == 200
        assert "Ann Lee" in text(page)


def test_a_referee_approves_on_the_claims_page_and_the_person_gets_their_me_link(ann, player):
    claim = claim_request(user=ann, player=player, message="The one with the red hat.")
    referee = signed_in(RefereeFactory())
    page = text(referee.get("/claims/"))
    assert "The one with the red hat." in page
    assert "Asked by annlee" in page
    assert EMAIL not in page

    answer = referee.post("/claims/", {"claim": claim.pk, "decision": "approve"})
    assert answer.status_code == 200
    assert "is now claimed" in text(answer)
    assert Player.objects.get(pk=player.pk).user == ann

    again = referee.post("/claims/", {"claim": claim.pk, "decision": "approve"}, **HTMX)
    assert "already decided (approved)" in text(again)
    assert "<html" not in text(again)

    home = text(signed_in(ann).get("/"))
    assert f'href="/players/{player.pk}/" class="me-link"' in home
    profile = text(signed_in(ann).get(player.get_absolute_url()))
    assert "This is you" in profile
    assert "This is not me" in profile


def test_a_referee_refuses_with_a_reason_the_person_reads(ann, player):
    claim = claim_request(user=ann, player=player)
    signed_in(RefereeFactory()).post("/claims/", {"claim": claim.pk, "decision": "refuse", "reason": "Wrong Ann."})
    claim.refresh_from_db()
    assert (claim.status, claim.reason) == ("refused", "Wrong Ann.")
    profile = text(signed_in(ann).get(player.get_absolute_url()))
    assert "Wrong Ann." in profile
    assert "This is me" in profile  # and may ask again


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"decision": "maybe"}, "Approve or refuse"),
        ({"decision": "approve", "claim": "abc"}, "no longer exists"),
        ({"decision": "approve", "claim": "99999999"}, "no longer exists"),
        ({"decision": "refuse", "reason": "r" * 201}, "Keep it to 200 characters"),
    ],
)
def test_hostile_decisions_change_nothing(ann, player, form, says):
    claim = claim_request(user=ann, player=player)
    answer = signed_in(RefereeFactory()).post("/claims/", {"claim": claim.pk, **form})
    assert says in text(answer)
    claim.refresh_from_db()
    assert claim.status == "pending"


def test_a_referee_sees_their_own_claim_without_buttons_and_cannot_post_a_decision(player):
    referee = RefereeFactory()
    claim = claim_request(user=referee, player=player)
    browser = signed_in(referee)
    page = text(browser.get("/claims/"))
    assert "This claim is yours" in page
    assert f"Approve #{claim.pk}" not in page
    answer = browser.post("/claims/", {"claim": claim.pk, "decision": "approve"})
    assert "their own claim" in text(answer)
    claim.refresh_from_db()
    assert claim.status == "pending"


def test_the_claims_list_names_no_email_address(player, reference_data):
    person = UserFactory(username="bob@example.org", email="bob@example.org")
    claim_request(user=person, player=player)
    page = text(signed_in(RefereeFactory()).get("/claims/"))
    assert "example.org" not in page
    assert "Asked by bob," in page


def test_the_claims_list_is_paged(reference_data):
    for number in range(23):
        claim_request(user=UserFactory(username=f"person{number:02d}"), player=PlayerFactory(name=f"P{number:02d}"))
    referee = signed_in(RefereeFactory())
    first, second = text(referee.get("/claims/")), text(referee.get("/claims/?page=2"))
    assert "Page 1 of 2 · 23 claims" in first
    assert first.count('class="claim-card"') == 20
    assert second.count('class="claim-card"') == 3
    assert "P22" in second
    assert "P22" not in first


def test_me_sends_a_person_to_their_player_or_explains(client, ann, player):
    assert client.get("/me/").status_code == 302
    assert client.get("/me/")["Location"].startswith("/accounts/login/")
    explained = signed_in(ann).get("/me/")
    assert explained.status_code == 200
    assert "How to claim your player" in text(explained)
    claim_request(user=ann, player=player)
    assert "Ann Lee" in text(signed_in(ann).get("/me/"))
    player.user = ann
    player.save()
    answer = signed_in(ann).get("/me/")
    assert (answer.status_code, answer["Location"]) == (302, f"/players/{player.pk}/")


def test_unclaiming_from_the_profile(ann, player):
    player.user = ann
    player.save()
    answer = signed_in(ann).post(f"/players/{player.pk}/unclaim/")
    assert answer.status_code == 302
    assert Player.objects.get(pk=player.pk).user is None
    # Another person's undo is refused, and changes nothing.
    player.user = ann
    player.save()
    answer = signed_in(UserFactory(username="mallory")).post(f"/players/{player.pk}/unclaim/")
    assert "Only the person themself" in text(answer)
    assert Player.objects.get(pk=player.pk).user == ann


@pytest.mark.parametrize("has_player", [False, True])
def test_the_header_me_link_costs_no_query(ann, player, has_player):
    """The person's player is joined to their row (config.auth): the header reads no player of its own."""
    if has_player:
        player.user = ann
        player.save()
    browser = signed_in(ann)
    browser.get("/calculator/")  # the session's first read
    with CaptureQueriesContext(connection) as queries:
        shown = text(browser.get("/calculator/"))
    assert ("me-link" in shown) is has_player
    reads = [query["sql"] for query in queries.captured_queries if "leagues_player" in query["sql"]]
    assert len(reads) == 1
    # The row is read with its joins (the player, and the language choice: config.auth), in one query.
    assert 'FROM "auth_user"' in reads[0]
    assert 'LEFT OUTER JOIN "leagues_player"' in reads[0]
