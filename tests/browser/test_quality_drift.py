"""The quality page's drift chart in a real browser: drawn by the vendored Chart.js on a phone and a
desktop, fitting the width, with the same figures in a table that works without JavaScript."""

import datetime
import os

import pytest

from leagues.models import Game
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def history():
    """Ann beats Bob on 10 January and Cid on 10 February 2025, all rated (weeks: the history is short)."""
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    slaps_match(winner=ann, loser=bob, played_at=datetime.datetime(2025, 1, 10, 12, tzinfo=datetime.UTC))
    slaps_match(winner=ann, loser=cid, played_at=datetime.datetime(2025, 2, 10, 12, tzinfo=datetime.UTC))
    ratings_process_game(game_id=slaps.pk)
    return slaps


@pytest.mark.parametrize("width", [360, 1366])
def test_the_drift_chart_is_drawn_and_fits(browser, live_server, history, width):
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto("/quality/slaps/")
    page.wait_for_function("() => Chart.getChart(document.getElementById('drift-chart')) !== undefined")
    # 6 Jan to 10 Feb 2025: the weeks of 6 Jan ... 10 Feb, six points, as the table lists.
    assert page.evaluate("() => Chart.getChart(document.getElementById('drift-chart')).data.labels.length") == 6
    assert page.locator(".drift-table tbody tr").count() == 6
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    artifacts = os.environ.get("CARDRANK_TEST_ARTIFACTS")
    if artifacts:
        page.screenshot(path=os.path.join(artifacts, f"quality-drift-{width}.png"), full_page=True)
    assert errors == []
    context.close()


def test_without_javascript_the_table_holds_the_figures(browser, live_server, history):
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, viewport={"width": 360, "height": 800}
    )
    page = context.new_page()
    page.goto("/quality/slaps/")
    page.locator(".drift summary").click()
    # The week of 6 Jan: Ann 1016 and Bob 984 active, mean 1000 (seed 000: 1000 +/- 32 x 1/2).
    first = page.locator(".drift-table tbody tr").first
    assert first.inner_text().split() == ["2025-01-06", "2", "1000"]
    context.close()
