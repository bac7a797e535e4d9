"""The rating lists' pages (issue 27) in a real Chromium at a phone's width and a desktop's: the archive and
a list fit the window (a wide table scrolls in its own box, never the page), the search box filters the
list as one types, and a header's sort link reorders it."""

import datetime
from datetime import UTC

import pytest

from leagues.models import Game
from ratings.lists import rating_list_publish
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"
WIDTHS = [360, 1366]
# Each row's player, without the marks beside the name.
NAMES = """() => [...document.querySelectorAll('#list-table tbody tr td:nth-child(2)')]
    .map((cell) => cell.innerText.split(/\\s/)[0])"""


@pytest.fixture
def listed():
    """A Slaps list of 30 November: Ann 1016, Cid 1016, a player with a long name 1015 (beating Bob at 984), Dan
    984, Bob 969."""
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    people = {
        name: PlayerFactory(name=name)
        for name in ("Ann", "Bob", "Cid", "Dan", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff")
    }
    played = datetime.datetime(2026, 11, 10, 19, tzinfo=UTC)
    slaps_match(winner=people["Ann"], loser=people["Bob"], played_at=played)
    slaps_match(winner=people["Cid"], loser=people["Dan"], played_at=played + datetime.timedelta(days=1))
    long_name = people["Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"]
    slaps_match(winner=long_name, loser=people["Bob"], played_at=played + datetime.timedelta(days=2))
    ratings_process_game(game_id=slaps.pk)
    rating_list_publish(game=slaps, day=datetime.date(2026, 11, 30), now=datetime.datetime(2026, 12, 1, 6, tzinfo=UTC))
    return people


@pytest.mark.parametrize("width", WIDTHS)
def test_the_archive_and_a_list_fit_the_window_and_search_and_sort_work(page, listed, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/games/slaps/lists/")
    assert page.evaluate(FITS), "the archive scrolls sideways"
    page.get_by_role("link", name="2026-11-30").click()
    page.wait_for_url("**/games/slaps/lists/2026-11-30/")
    page.wait_for_function(SETTLED)
    assert page.evaluate(FITS), "the list scrolls sideways"
    assert page.evaluate(NAMES) == ["Ann", "Cid", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff", "Dan", "Bob"]

    page.get_by_label("Search players").fill("an")  # as one types: the table alone is swapped
    page.wait_for_function("() => document.querySelectorAll('#list-table tbody tr').length === 3")
    page.wait_for_function(SETTLED)
    assert page.evaluate(NAMES) == ["Ann", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff", "Dan"]
    assert "q=an" in page.url
    assert page.evaluate(FITS)

    page.locator("#list-table thead").get_by_role("link", name="Player").click()  # by name, the search kept
    page.wait_for_function("() => document.querySelector('#list-table').dataset.sort === 'name'")
    page.wait_for_function(SETTLED)
    assert page.evaluate(NAMES) == ["Ann", "Dan", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"]
    assert "sort=name" in page.url
    assert page.locator("#list-sort").input_value() == "name"  # the next search keeps the sort
    page.get_by_label("Search players").fill("")
    page.wait_for_function("() => document.querySelectorAll('#list-table tbody tr').length === 5")
    page.wait_for_function(SETTLED)
    assert page.evaluate(NAMES) == ["Ann", "Bob", "Cid", "Dan", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"]
    assert page.evaluate(FITS)
