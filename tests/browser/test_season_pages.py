"""The honours board and a season's table (issue 27) in a real Chromium at a phone's width and a desktop's:
they fit the window (a wide table scrolls in its own box, never the page), the board links each season's
table, and the table's search finds a player."""

import datetime
from datetime import UTC

import pytest

from games.seasons import season_close
from leagues.models import Game, League, Season
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"
WIDTHS = [360, 1366]
NAMES = """() => [...document.querySelectorAll('.season-table tbody tr td:nth-child(2)')]
    .map((cell) => cell.innerText.split(/\\s/)[0])"""


@pytest.fixture
def season():
    """The Slaps amateur league's autumn of 2026, closed: Ann beat Bob and the long-named player, who beat
    Bob; Ann is promoted to the pro league."""
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    league = League.objects.get(slug="slaps-amateur")
    league.season_up, league.season_up_count = League.objects.get(slug="slaps-pro"), 1
    league.save()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    long_name = PlayerFactory(name="Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff")
    played = datetime.datetime(2026, 10, 10, 19, tzinfo=UTC)
    for day, (winner, loser) in enumerate([(ann, bob), (ann, long_name), (long_name, bob)]):
        match = slaps_match(winner=winner, loser=loser, played_at=played + datetime.timedelta(days=day))
        match.league = league
        match.save(update_fields=["league"])
    ratings_process_game(game_id=slaps.pk)
    autumn = Season.objects.create(
        league=league, name="Autumn 2026", first_day=datetime.date(2026, 9, 1), last_day=datetime.date(2026, 10, 31)
    )
    season_close(season_id=autumn.pk)
    return autumn


@pytest.mark.parametrize("width", WIDTHS)
def test_the_honours_board_and_a_table_fit_and_search(page, season, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/leagues/slaps-amateur/")
    page.get_by_role("link", name="Seasons and honours").click()
    page.wait_for_url("**/leagues/slaps-amateur/seasons/")
    assert page.evaluate(FITS), "the honours board scrolls sideways"
    podium = page.locator(".podium li")
    assert podium.first.inner_text().startswith("Champion")
    assert "Ann" in podium.first.inner_text()
    assert "Ann" in page.locator(".moves-up").inner_text()

    page.get_by_role("link", name="Autumn 2026").click()
    page.wait_for_url(f"**/leagues/slaps-amateur/seasons/{season.pk}/")
    assert page.evaluate(FITS), "the season's table scrolls sideways"
    assert page.evaluate(NAMES) == ["Ann", "Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff", "Bob"]
    assert page.locator("tr.moved-up").count() == 1

    page.get_by_label("Search players").fill("max")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**q=max**")
    assert page.evaluate(NAMES) == ["Maximiliana-Wolfeschlegelsteinhausen-Bergerdorff"]
    assert page.evaluate(FITS)
