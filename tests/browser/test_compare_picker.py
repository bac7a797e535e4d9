"""In a real Chromium on a phone (360 px): the compare page's pickers find two players by name, by keyboard,
fill the sides' id fields, and the comparison opens, fitting the phone."""

import pytest

from leagues.models import Player
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"


def test_two_players_are_chosen_by_name_and_compared(page):
    reference_data_ensure()
    for name in ["Anna Lindqvist", "Hanna Lind", "Bob Mann"]:
        PlayerFactory(name=name)
    anna, bob = Player.objects.get(name="Anna Lindqvist"), Player.objects.get(name="Bob Mann")
    slaps_match(winner=anna, loser=bob, rated=False)  # a friendly: they have not met in a rated match
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto("/compare/?game=slaps")
    for side, text, player in (("a", "lindq", anna), ("b", "mann", bob)):
        box = page.get_by_role("combobox", name=f"Find side {side.upper()} by name")
        box.focus()
        page.keyboard.type(text, delay=20)
        options = page.locator(f"#compare-{side}-options [role=option]")
        options.first.wait_for()
        page.wait_for_function(SETTLED)
        assert box.get_attribute("aria-expanded") == "true"
        page.keyboard.press("ArrowDown")
        assert box.get_attribute("aria-activedescendant") == f"compare-{side}-option-0"
        page.keyboard.press("Enter")
        assert page.locator(f"#compare-{side}").input_value() == str(player.pk)
        assert box.get_attribute("aria-expanded") == "false"
    assert page.url.endswith("/compare/?game=slaps")  # choosing never left the page
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url(f"**/compare/?game=slaps&a={anna.pk}&b={bob.pk}")
    assert page.locator("h1").inner_text() == "Anna Lindqvist and Bob Mann"
    assert page.locator(".expected").inner_text() == "50%"  # both at the start rating: E = 1 / (1 + 10^0)
    assert "have not met in a rated" in page.locator("main").inner_text()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    assert problems == []
