"""A demo player's profile in a real browser, on a phone and on a desktop: the page fits its width, the
charts are tabs a keyboard switches, and the history page pages and filters (issue 15)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Count

from leagues.models import Player
from tests.factories import reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_DEMO = ["--players", "12", "--matches", "40", "--preferans-games", "8", "--bridge-weeks", "1"]


@pytest.fixture
def all_three(settings):
    """The demo (made small), and a player of all three games in it."""
    settings.DEBUG = True  # demo_data is a local command
    reference_data_ensure()
    call_command("demo_data", *SMALL_DEMO, stdout=StringIO())
    settings.DEBUG = False
    player = Player.objects.annotate(games=Count("ratings__game", distinct=True)).filter(games=3).order_by("pk")
    assert player.exists(), "the demo has a player of all three games"
    return player.first()


def watch(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [360, 1366])
def test_the_profile_fits_switches_charts_by_keyboard_and_opens_the_history(browser, live_server, all_three, width):
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = watch(page)
    page.goto(f"/players/{all_three.pk}/")
    assert fits(page), "the profile scrolls sideways"

    tabs = page.get_by_role("tab")
    assert [tabs.nth(n).inner_text() for n in range(3)] == ["Bridge", "Preferans", "Slaps"]
    bridge, preferans, slaps = (page.locator(f"#chart-panel-{slug}") for slug in ("bridge", "preferans", "slaps"))
    assert bridge.is_visible()
    assert not preferans.is_visible()
    page.wait_for_function("() => Chart.getChart(document.getElementById('rating-chart-bridge')) !== undefined")

    # The keyboard: Tab reaches the selected tab, the arrows and End move between games.
    tabs.nth(0).focus()
    page.keyboard.press("ArrowRight")
    assert tabs.nth(1).get_attribute("aria-selected") == "true"
    assert page.evaluate("() => document.activeElement.id") == "chart-tab-preferans"
    assert preferans.is_visible()
    assert not bridge.is_visible()
    page.wait_for_function("() => Chart.getChart(document.getElementById('rating-chart-preferans')) !== undefined")
    page.keyboard.press("End")
    assert slaps.is_visible()
    assert tabs.nth(2).get_attribute("tabindex") == "0"
    assert tabs.nth(0).get_attribute("tabindex") == "-1"
    page.keyboard.press("ArrowRight")  # from the last, round to the first
    assert bridge.is_visible()

    # The table alternative opens in place.
    page.get_by_text("Bridge rating day by day, as a table").click()
    assert bridge.locator("details table").is_visible()
    assert fits(page)

    # The history: every match, then only Preferans by the filter (an HTMX swap, the address follows).
    page.get_by_role("link", name="Every match, by game").click()
    page.wait_for_url(f"**/players/{all_three.pk}/history/")
    assert fits(page), "the history scrolls sideways"
    assert page.locator("table.player-matches tbody tr").count() > 0
    page.get_by_label("Game").select_option("preferans")
    page.get_by_role("button", name="Show", exact=True).click()
    page.wait_for_url("**/history/?game=preferans**")
    games = page.locator("table.player-matches td[data-label=Game]").all_inner_texts()
    assert games
    assert {game.split()[0] for game in games} == {"Preferans"}
    assert fits(page)
    assert errors == []
    context.close()
