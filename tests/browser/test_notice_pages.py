"""The notices' pages (issue 27) in a real Chromium at a phone's width and a desktop's: a person's choices
(reached from their own profile) saved and their address changed, and a mail's unsubscribe link, its button
and a tampered link, all within the window."""

import pytest

from notices.models import NoticeChoices
from notices.services import notice_choices_set, unsubscribe_token
from tests.factories import PlayerFactory, UserFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"
WIDTHS = [360, 1366]
LONG_NAME = "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"


@pytest.fixture
def ann():
    reference_data_ensure()
    user = UserFactory(username="ann", email="maximiliana.wolfeschlegelsteinhausen@example.org")
    PlayerFactory(name=LONG_NAME, user=user)
    return user


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.locator("main").get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_person_chooses_their_notices_and_changes_their_address(page, ann, width):
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, "ann")
    page.goto(f"/players/{ann.player.pk}/")
    page.get_by_role("link", name="Your email notices").click()
    page.wait_for_url("**/me/notices/")
    assert page.evaluate(FITS), "the choices page scrolls sideways"
    assert ann.email in page.locator("#address-now").inner_text()
    page.get_by_label("After each evening").check()
    page.get_by_label("New rating lists").check()
    page.get_by_role("button", name="Save my choices").click()
    page.locator("#saved").wait_for()
    assert page.get_by_label("After each evening").is_checked()
    assert not page.get_by_label("For referees").is_checked()
    choices = NoticeChoices.objects.get(user=ann)
    assert (choices.evening_digest, choices.new_lists, choices.referee_notices) == (True, True, False)

    page.get_by_label("Email address").fill("not an address")
    page.get_by_role("button", name="Save my address").click()
    page.locator("#error-email").wait_for()
    assert "Enter a valid email address." in page.locator("#error-email").inner_text()
    assert page.evaluate(FITS)
    page.get_by_label("Email address").fill("ann@example.org")
    page.get_by_role("button", name="Save my address").click()
    page.locator("#saved").wait_for()
    assert "ann@example.org" in page.locator("#address-now").inner_text()
    assert page.evaluate(FITS)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_unsubscribe_link_asks_then_unsubscribes_and_a_tampered_one_is_refused(page, ann, width):
    notice_choices_set(user=ann, evening_digest=True, new_lists=True, referee_notices=False)
    token = unsubscribe_token(user_id=ann.pk, notice="evening_digest")
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"/notices/unsubscribe/{token}/")  # signed out, as from a mail
    assert page.evaluate(FITS), "the unsubscribe page scrolls sideways"
    assert NoticeChoices.objects.get(user=ann).evening_digest  # opening the link changes nothing
    page.get_by_role("button", name="Unsubscribe").click()
    page.locator("#unsubscribed").wait_for()
    assert "no longer get the email after each evening" in page.locator("#unsubscribed").inner_text()
    assert page.evaluate(FITS)
    choices = NoticeChoices.objects.get(user=ann)
    assert (choices.evening_digest, choices.new_lists) == (False, True)

    answer = page.goto(f"/notices/unsubscribe/{token[:-3]}xyz/")
    assert answer.status == 400
    assert "not valid" in page.locator("#unsubscribe-error").inner_text()
    assert page.evaluate(FITS)
