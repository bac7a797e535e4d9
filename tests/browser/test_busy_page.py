"""The "Busy for a moment" page (``config.lanes``, issue 25) in a real browser, on a phone and on a desktop:
while every turn of the heavy reads is taken, a player's profile waits its second and answers with the page,
which fits its width, says nothing changed and links home; once the turn is free the profile is served."""

import pytest

from tests.factories import PlayerFactory, reference_data_ensure
from tests.test_lanes import lane_held_elsewhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [360, 1366])
def test_a_busy_heavy_read_shows_the_busy_page_then_the_profile(browser, live_server, settings, width):
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 1
    settings.CARDRANK_HEAVY_READS_WAIT_SECONDS = 1
    reference_data_ensure()
    ann = PlayerFactory(name="Ann Busy")
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with lane_held_elsewhere():
        answer = page.goto(f"/players/{ann.pk}/")
        assert answer.status == 503
        assert answer.headers["retry-after"] == "5"
        assert page.get_by_role("heading", name="Busy for a moment").is_visible()
        assert page.get_by_text("Nothing was changed").is_visible()
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.get_by_role("link", name="Back to games and leagues").click()
    page.wait_for_url(f"{live_server.url}/")
    answer = page.goto(f"/players/{ann.pk}/")
    assert answer.status == 200
    assert page.get_by_role("heading", name="Ann Busy").first.is_visible()
    assert not errors
    context.close()
