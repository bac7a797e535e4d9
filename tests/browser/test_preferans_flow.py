"""A referee records a 3-seat Preferans game with a bot in a real browser: a bad row
shows the zero-sum error live, is fixed, the game is saved, and the profile shows
the per-deal changes."""

import pytest

from leagues.models import Game
from ratings.models import RatingChange
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"


def choose_seat(page, slot: int, label: str) -> None:
    """Fill a seat (a player through its picker, or a bot) and wait until htmx has swapped in the refreshed form."""
    if "bot" in label:
        page.select_option(f"#seat-{slot}-bot", label=label)
    else:
        page.locator(f"#seat-{slot}-player").fill(label)
        page.locator(f'#seat-{slot}-player-listbox [role=option][data-name="{label}"]').click()
    # The seat's column is headed by the name chosen (a bot's without its ratings).
    page.locator(f"thead th[data-seat-heading='{slot}']").filter(has_text=label.split(" (")[0]).wait_for()
    page.wait_for_function(SETTLED)


def test_referee_records_a_preferans_game_with_a_bot(page, live_server):
    reference_data_ensure()
    ann = PlayerFactory(name="Ann")
    PlayerFactory(name="Bob")
    RefereeFactory(username="pref-ref")

    page.goto("/accounts/login/?next=/results/preferans/")
    page.get_by_label("Username").fill("pref-ref")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/results/preferans/")

    choose_seat(page, 1, "Ann")
    choose_seat(page, 2, "Bob")
    choose_seat(page, 3, "Normal bot (1800, max 2400)")
    page.evaluate("window.__stillHere = true")

    # A bad first row: 4 - 2 - 1 = 1.
    page.get_by_label("Deal 1, Ann").fill("4")
    page.get_by_label("Deal 1, Bob").fill("-2")
    page.get_by_label("Deal 1, Normal bot").fill("-1")
    page.locator("#deal-sum-1.zero-sum-bad").wait_for()
    assert "Not zero-sum: deal 1" in page.locator("#deal-check").inner_text()
    # Fix it; the check turns green without a reload.
    page.get_by_label("Deal 1, Normal bot").fill("-2")
    page.locator("#deal-sum-1.zero-sum-ok").wait_for()
    assert "Every filled deal is zero-sum" in page.locator("#deal-check").inner_text()
    assert page.locator("#total-1").inner_text() == "4"

    page.get_by_label("Deal 2, Ann").fill("-6")
    page.get_by_label("Deal 2, Bob").fill("3")
    page.get_by_label("Deal 2, Normal bot").fill("3")
    page.locator("#deal-sum-2.zero-sum-ok").wait_for()
    page.get_by_role("button", name="Add deal").click()
    page.get_by_label("Deal 5, Ann").wait_for()
    page.wait_for_function(SETTLED)
    # The new row has the focus (static/js/entry.js), and Enter moves along it without saving.
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'deal-5-1'")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.name") == "deal-5-2"
    assert page.get_by_label("Deal 2, Ann").input_value() == "-6"
    assert page.evaluate("window.__stillHere") is True

    page.get_by_role("button", name="Save game").click()
    page.locator("#saved").wait_for()
    assert "2 deals" in page.locator("#saved").inner_text()
    assert RatingChange.objects.filter(player=ann).count() == 2
    # The ratings the profile shows next: every stored row is the oracle's (tests/oracle).
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="preferans")) == 4  # 2 deals x Ann, Bob

    page.goto(f"/players/{ann.pk}/")
    page.get_by_text("2 deals, total").click()
    table = page.locator("details.per-deal table")
    table.wait_for()
    text = table.inner_text()
    first = RatingChange.objects.get(player=ann, unit=0)
    assert f"{first.details['kd']:.3f}" in text
    assert "bot table" in page.locator("table.recent").inner_text()
    assert page.locator("#rating-chart-preferans").is_visible()
    # Chart.js drew the history: x is the time, ascending, the start and one point for the game.
    drawn = page.evaluate(
        """() => {
            const chart = Chart.getChart(document.getElementById("rating-chart-preferans"));
            return chart ? chart.data.datasets.map((set) => set.data.map((point) => point.x)) : null;
        }"""
    )
    assert drawn is not None, "the chart was not drawn"
    assert len(drawn[0]) >= 2
    assert drawn[0] == sorted(drawn[0])
