"""A referee enters a Slaps result with the keyboard only, choosing both players through the search
pickers (static/js/picker.js): Enter chooses or moves on and never saves early; only the button saves."""

import pytest

from leagues.models import Game
from matches.models import Match
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"


def active(page) -> str:
    return page.evaluate("document.activeElement.id || document.activeElement.name || ''")


def hidden(page, name: str) -> str:
    return page.locator(f'input[type=hidden][name="{name}"]').input_value()


def options(page, input_id: str) -> list[str]:
    page.wait_for_function(SETTLED)
    return page.locator(f"#{input_id}-listbox [role=option][data-id]").evaluate_all(
        "(items) => items.map((item) => item.dataset.name)"
    )


def test_a_slaps_result_entered_with_the_keyboard_through_the_pickers(page, live_server):
    reference_data_ensure()
    cid, dee = PlayerFactory(name="Cid"), PlayerFactory(name="Dee")
    PlayerFactory(name="Dean"), PlayerFactory(name="Ann")
    PlayerFactory.create_batch(30)  # more than one search answers
    RefereeFactory(username="keys")

    page.goto("/accounts/login/?next=/results/slaps/")
    page.get_by_label("Username").fill("keys")
    page.get_by_label("Password").fill("correct horse battery")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url and url.endswith("/results/slaps/"))
    page.evaluate("window.__stillHere = true")

    player_a = page.locator("#player_a")
    player_a.focus()
    page.keyboard.type("ci")
    page.locator("#player_a-listbox [data-name=Cid]").wait_for()
    assert options(page, "player_a") == ["Cid"]
    assert player_a.get_attribute("aria-expanded") == "true"
    page.keyboard.press("ArrowDown")
    assert player_a.get_attribute("aria-activedescendant") == f"player_a-option-{cid.pk}"
    page.keyboard.press("Enter")  # chooses, does not submit
    assert player_a.input_value() == "Cid"
    assert hidden(page, "player_a") == str(cid.pk)
    assert player_a.get_attribute("aria-expanded") == "false"
    assert active(page) == "player_a"

    # Typing after a choice forgets it until another is chosen; Escape closes the list.
    page.keyboard.press("Backspace")
    assert hidden(page, "player_a") == ""
    page.locator("#player_a-listbox [data-name=Cid]").wait_for()
    page.keyboard.press("Escape")
    assert player_a.get_attribute("aria-expanded") == "false"
    page.keyboard.type("d")
    page.locator("#player_a-listbox [data-name=Cid]").wait_for()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    assert hidden(page, "player_a") == str(cid.pk)

    # Enter with the list closed moves to the next field: Player B's picker.
    page.keyboard.press("Enter")
    assert active(page) == "player_b"
    page.keyboard.type("de")
    page.locator("#player_b-listbox [data-name=Dee]").wait_for()
    assert options(page, "player_b") == ["Dean", "Dee"]  # names that begin with it, in name order
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.locator("#player_b").get_attribute("aria-activedescendant") == f"player_b-option-{dee.pk}"
    page.keyboard.press("Enter")
    assert hidden(page, "player_b") == str(dee.pk)

    # Tab to the winner; Space picks Player A; Enter there moves on, never saves.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "winner"
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.name") == "played_at"
    page.keyboard.press("Enter")
    assert not Match.objects.exists(), "Enter saved the form early"
    assert page.locator("#saved").count() == 0
    assert page.evaluate("window.__stillHere") is True

    # Only the button saves.
    page.get_by_role("button", name="Save result").focus()
    page.keyboard.press("Enter")
    page.locator("#saved").wait_for()
    assert "Cid (won)" in page.locator("#saved").inner_text()
    match = Match.objects.get()
    assert match.game == Game.objects.get(slug="slaps")
    assert [seat.player for seat in match.seats.order_by("position")] == [cid, dee]
    assert match.winner_seat.player == cid
    assert page.evaluate("window.__stillHere") is True


def test_the_picker_fits_a_phone(page, live_server):
    reference_data_ensure()
    PlayerFactory(name="Ann Lee")
    RefereeFactory(username="phone")
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/accounts/login/?next=/results/slaps/")
    page.get_by_label("Username").fill("phone")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url and url.endswith("/results/slaps/"))
    page.locator("#player_a").fill("ann")
    option = page.locator("#player_a-listbox [data-name='Ann Lee']")
    option.wait_for()
    field, box = page.locator("#player_a").bounding_box(), option.bounding_box()
    assert box["y"] >= field["y"] + field["height"] - 1  # the list drops below the field
    assert box["height"] >= 44  # a finger's tap target
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 360
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling
    option.click()
    assert page.locator("#player_a").input_value() == "Ann Lee"
