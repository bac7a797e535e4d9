"""A referee records a two-table bridge session in a real browser: pairs, scores,
the live IMP preview, an inline error, then the saved session on the profile."""

import pytest

from matches.models import Match
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"


def test_referee_records_a_bridge_session(page):
    reference_data_ensure()
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
    players = {name: PlayerFactory(name=name) for name in names}
    RefereeFactory(username="bridge-ref")

    page.goto("/accounts/login/?next=/results/bridge/")
    page.get_by_label("Username").fill("bridge-ref")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/results/bridge/")
    page.evaluate("window.__stillHere = true")

    seats = [
        ("Table 1 NS", ["Ann", "Bob"]),
        ("Table 1 EW", ["Cid", "Dee"]),
        ("Table 2 NS", ["Eve", "Fay"]),
        ("Table 2 EW", ["Gus", "Ann"]),  # a mistake: Ann twice
    ]
    for label, pair in seats:
        for index, name in enumerate(pair, start=1):
            page.get_by_label(f"{label} player {index}").select_option(label=name)
    page.get_by_label("Board row 1, table 1 NS score").fill("420")
    page.get_by_label("Board row 1, table 2 NS score").fill("-50")
    preview = page.locator("#preview-1")
    page.wait_for_function("() => document.querySelector('#preview-1').textContent.includes('+10')")
    assert "T1\u2013T2: +10" in preview.inner_text()
    assert "(win)" in preview.inner_text()

    page.get_by_role("button", name="Save session").click()
    error = page.locator("#error-boards")
    error.wait_for()
    assert "sit at two seats" in error.inner_text()
    page.wait_for_function(SETTLED)
    assert not Match.objects.exists()

    page.get_by_label("Table 2 EW player 2").select_option(label="Hal")
    page.get_by_role("button", name="Save session").click()
    page.locator("#saved").wait_for()
    assert "1 board" in page.locator("#saved").inner_text()
    assert page.evaluate("window.__stillHere") is True
    assert Match.objects.get().status == "rated"

    page.goto(f"/players/{players['Ann'].pk}/")
    assert "Bob" in page.locator("table.partnerships").inner_text()
    page.get_by_text("1 board, total").click()
    assert "10" in page.locator("details.per-board table").inner_text()
