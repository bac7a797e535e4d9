"""In a real Chromium, on a phone (360 px) and a desktop (1366 px): a player finds themselves from the home
page in one search, by keyboard, and a bridge session's page fits the phone, and so does a board's traveller."""

from datetime import UTC, datetime

import pytest

from leagues.models import Player
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, bridge_session_body, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
PAGE_WIDTH = "() => document.documentElement.scrollWidth"
WIDTHS = [360, 1366]


def watch(page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


@pytest.mark.parametrize("width", WIDTHS)
def test_a_player_finds_themselves_from_the_home_page_by_keyboard(page, width):
    reference_data_ensure()
    for name in ["Annika Berg", "Anna Lindqvist", "Hanna Lind", "Bob Mann"]:
        PlayerFactory(name=name)
    me = Player.objects.get(name="Anna Lindqvist")
    problems = watch(page)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/")
    box = page.get_by_role("combobox", name="Find a player")
    box.focus()
    page.keyboard.type("lind", delay=20)  # part of the name: begins "Lind..." for no one, inside two names
    options = page.locator("#header-search-options [role=option]")
    options.first.wait_for()
    page.wait_for_function(SETTLED)
    assert box.get_attribute("aria-expanded") == "true"
    assert options.all_inner_texts() == ["Anna Lindqvist not rated yet", "Hanna Lind not rated yet"]
    assert page.locator("[data-header-search-status]").inner_text() == "2 players found"
    assert page.evaluate(PAGE_WIDTH) <= width  # the open list fits the phone
    page.keyboard.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == f"header-search-option-{me.pk}"
    assert options.first.get_attribute("aria-selected") == "true"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/players/{me.pk}/")
    assert page.locator("h1").inner_text().startswith("Anna Lindqvist")
    assert problems == []


def test_escape_closes_the_list_and_enter_without_a_choice_lists_the_players(page):
    reference_data_ensure()
    for name in ["Anna Lindqvist", "Hanna Lind"]:
        PlayerFactory(name=name)
    page.goto("/matches/")
    box = page.get_by_role("combobox", name="Find a player")
    box.focus()
    page.keyboard.type("lind", delay=20)
    page.locator("#header-search-options [role=option]").first.wait_for()
    page.keyboard.press("Escape")
    assert box.get_attribute("aria-expanded") == "false"
    assert page.locator("#header-search-options").is_hidden()
    assert box.input_value() == "lind"  # Escape closes the list, keeps the text
    page.keyboard.press("Enter")
    page.wait_for_url("**/players/?q=lind")
    assert page.locator(".found-list a").all_inner_texts() == ["Anna Lindqvist", "Hanna Lind"]


def test_without_javascript_the_form_goes_to_the_results_page(browser, live_server):
    reference_data_ensure()
    me = PlayerFactory(name="Anna Lindqvist")
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, viewport={"width": 360, "height": 800}
    )
    page = context.new_page()
    page.goto("/")
    page.get_by_label("Find a player").fill("anna")
    page.get_by_label("Find a player").press("Enter")
    page.wait_for_url("**/players/?q=anna")
    page.get_by_role("link", name="Anna Lindqvist").click()
    page.wait_for_url(f"**/players/{me.pk}/")
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_bridge_session_fits_the_screen_and_opens_a_boards_traveller(page, width):
    reference_data_ensure()
    players = [
        PlayerFactory(name=name) for name in ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus Longname-Lindqvist", "Hal"]
    ]
    body = bridge_session_body(
        [p.pk for p in players],
        datetime(2026, 11, 1, 19, tzinfo=UTC),
        [(420, -50), (100, 100), (-600, 620)],
        league="bridge-amateur",
    )
    answer = api_for(RefereeFactory()).post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    problems = watch(page)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"/matches/{answer.json()['id']}/")
    assert page.locator("h1").inner_text() == "Bridge Amateur, Sunday 1 November 2026"
    assert page.locator("table.pair-ranking tbody tr").count() == 4
    assert page.locator(".board-links a").count() == 3
    assert page.evaluate(PAGE_WIDTH) <= width  # the page never scrolls sideways: the tables scroll in their box
    page.locator(".board-links a").nth(2).click()
    page.wait_for_url(f"**/matches/{answer.json()['id']}/boards/3/")
    assert page.locator("h1").inner_text() == "Board 3"
    assert page.locator("table.traveller tbody tr").count() == 2
    assert page.evaluate(PAGE_WIDTH) <= width
    assert problems == []
