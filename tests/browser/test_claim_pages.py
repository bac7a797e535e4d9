"""Claims of player records (issue 27) in a real Chromium at a phone's width (360 px) and a laptop's
(1366 px), under the CSP: a person claims a player with "This is me" on its profile, a referee approves
it on /claims/, and the person's "Me" link (behind the phone's Menu button) leads to their profile. No page
scrolls sideways and no script fails."""

import pytest

from leagues.models import Player
from people.models import PlayerClaim
from people.services import claim_request
from tests.factories import PlayerFactory, RefereeFactory, UserFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"
WIDTHS = [360, 1366]
LONG_NAME = "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"


@pytest.fixture
def people():
    reference_data_ensure()
    return {
        "ann": UserFactory(username="ann", email="ann.private@example.org"),
        "referee": RefereeFactory(username="claims-referee"),
        "player": PlayerFactory(name=LONG_NAME),
    }


@pytest.fixture
def open_page(browser, live_server):
    contexts = []

    def opened(width: int):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.errors = []
        page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        return page

    yield opened
    for context in contexts:
        context.close()


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.locator("main").get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_person_claims_a_player_with_this_is_me(open_page, people, width):
    page = open_page(width)
    sign_in(page, "ann")
    player = people["player"]
    page.goto(f"/players/{player.pk}/")
    assert page.evaluate(FITS), "the profile scrolls sideways"
    page.get_by_text("This is me", exact=True).click()  # the summary opens the small form
    page.get_by_label("A word for the referee (optional)").fill("Tuesdays at the club, the one in the red hat.")
    assert page.evaluate(FITS), "the open form scrolls sideways"
    page.get_by_role("button", name=f"Claim {LONG_NAME} as me").click()
    page.get_by_role("status").wait_for()
    page.wait_for_function(SETTLED)
    assert "a referee will approve or refuse it" in page.locator("#me").inner_text()
    assert page.get_by_role("button", name="Withdraw my claim").is_visible()
    assert page.evaluate(FITS)
    claim = PlayerClaim.objects.get()
    assert (claim.user.username, claim.player_id, claim.status) == ("ann", player.pk, "pending")
    assert claim.message == "Tuesdays at the club, the one in the red hat."
    assert page.errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_referee_approves_a_claim_on_the_claims_page(open_page, people, width):
    claim = claim_request(user=people["ann"], player=people["player"], message="It is me. " * 40)
    claim_request(user=UserFactory(username="bob"), player=PlayerFactory(name="Bob Ek"))
    page = open_page(width)
    sign_in(page, "claims-referee")
    if width == 360:
        page.get_by_role("button", name="Menu").click()
    page.locator("#site-menu").get_by_role("link", name="Claims").click()
    page.wait_for_url("**/claims/")
    assert page.evaluate(FITS), "the claims page scrolls sideways"
    assert page.locator(".claim-card").count() == 2
    assert "ann.private@example.org" not in page.content()

    page.get_by_role("button", name=f"Approve #{claim.pk}").click()
    page.locator("#claim-done").wait_for()
    page.wait_for_function(SETTLED)
    assert "is now claimed" in page.locator("#claim-done").inner_text()
    assert page.locator(".claim-card").count() == 1
    assert page.evaluate(FITS)
    assert Player.objects.get(pk=people["player"].pk).user_id == people["ann"].pk
    assert page.errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_me_link_leads_a_person_to_their_profile(open_page, people, width):
    player = people["player"]
    player.user = people["ann"]
    player.save()
    page = open_page(width)
    sign_in(page, "ann")
    me = page.locator("#site-menu").get_by_role("link", name="Me", exact=True)
    if width == 360:
        assert not me.is_visible()  # folded behind the Menu button
        page.get_by_role("button", name="Menu").click()
    assert me.is_visible()
    assert page.evaluate(FITS), "the header scrolls sideways"
    me.click()
    page.wait_for_url(f"**/players/{player.pk}/")
    assert page.locator("#me").get_by_text("This is you").is_visible()
    assert page.evaluate(FITS)
    assert page.errors == []
