"""Confirmation like Tabbycat, in a real browser on the demo: the demo ``referee`` sees "To confirm (2)",
confirms one result and reads its rating changes, disputes the other with a note; an admin finds the
dispute in admin with its note. At a phone's width (360 px) and a desktop's, without console errors."""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from matches.models import AuditEntry, Match
from ratings.models import RatingChange
from tests.factories import reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
NOTE = "Deal 3 is on the sheet twice: the game had one deal fewer."


@pytest.fixture
def demo(settings):
    """The demo as ``make run`` loads it (DEBUG on: the demo password), small."""
    settings.DEBUG = True
    reference_data_ensure()
    call_command(
        "demo_data",
        *["--players", "8", "--matches", "30", "--preferans-games", "6", "--bridge-weeks", "1"],
        stdout=StringIO(),
    )
    waiting = list(Match.objects.filter(awaiting_confirmation=True).order_by("played_at", "id"))
    assert len(waiting) == 2
    return waiting


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("cardrank-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")


def shown_number(text: str) -> Decimal:
    return Decimal(text.replace("\u2212", "-").replace("\u00b1", ""))


def test_the_demo_referee_confirms_one_result_and_disputes_the_other(browser, live_server, demo):
    first, second = demo
    context = browser.new_context(base_url=live_server.url, viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    sign_in(page, "referee")
    assert page.locator("#to-confirm-count").text_content() == " (2)"
    page.goto("/results/confirm/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360  # no sideways scroll on a phone
    cards = page.locator(".confirm-list > li")
    assert cards.count() == 2
    assert cards.nth(0).get_attribute("data-match") == str(first.pk)
    assert "entered by scorer" in cards.nth(0).inner_text()

    # Confirm the first: the message names it and gives every player's rating change, read from the page.
    cards.nth(0).get_by_role("button", name=f"Confirm #{first.pk}").click()
    done = page.get_by_role("status")
    done.wait_for()
    page.wait_for_function(SETTLED)
    assert f"Confirmed Preferans game #{first.pk}" in done.inner_text()
    rows = done.locator(".confirm-changes li")
    stored = {
        change.player.name: change
        for change in RatingChange.objects.filter(match=first).select_related("player").order_by("unit")
    }
    assert rows.count() == len(stored) == 3
    for index in range(rows.count()):
        text = rows.nth(index).inner_text()  # "Name 2303.60 → 2320.57 +16.97"
        before, arrow, after, delta = text.rsplit(" ", 4)[-4:]
        assert arrow == "→"
        assert shown_number(after) - shown_number(before) == shown_number(delta)  # adds up as read
        player = next(player for player in stored if text.startswith(player))
        assert shown_number(after) == stored[player].rating_after  # the player's last deal
    assert page.locator("#to-confirm-count").text_content() == " (1)"  # the menu follows, without a reload
    assert Match.objects.get(pk=first.pk).status == "rated"

    # Dispute the other, with a note: it stays unrated and moves to the disputed section.
    card = page.locator(f'.confirm-card[data-match="{second.pk}"]')
    card.locator("summary", has_text="Dispute").click()
    card.get_by_label("What is wrong with this result?").fill(NOTE)
    card.get_by_role("button", name=f"Dispute #{second.pk}").click()
    page.wait_for_function(SETTLED)
    assert f"Disputed Preferans game #{second.pk}" in page.get_by_role("status").inner_text()
    disputed = page.locator(f'.confirm-card.disputed[data-match="{second.pk}"]')
    assert disputed.locator(".dispute-note").inner_text() == NOTE
    assert page.locator("#to-confirm-count").text_content() == ""
    assert page.get_by_text("Nothing waits for confirmation.").is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    match = Match.objects.get(pk=second.pk)
    assert (match.status, match.awaiting_confirmation, match.dispute_note) == ("submitted", True, NOTE)
    assert not RatingChange.objects.filter(match=second).exists()
    assert AuditEntry.objects.filter(match=second, action="disputed").count() == 1
    assert errors == []
    context.close()

    # The admin sees the dispute: the filter lists it, its page shows the note.
    admin = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 900}).new_page()
    admin.goto("/admin/login/")
    admin.get_by_label("Username").fill("admin")
    admin.get_by_label("Password").fill("cardrank-demo")
    admin.get_by_role("button", name="Log in").click()
    admin.goto("/admin/matches/match/")
    admin.get_by_role("link", name="Disputed").click()
    admin.wait_for_url("**disputed=yes**")
    listed = admin.locator("#result_list tbody tr")
    assert listed.count() == 1
    listed.first.locator(f'a[href*="/admin/matches/match/{second.pk}/change/"]').click()
    admin.wait_for_url(f"**/admin/matches/match/{second.pk}/change/**")
    assert NOTE in admin.locator(".field-dispute_note").inner_text()
    assert "referee" in admin.locator(".field-disputed_by").inner_text()
    admin.context.close()
