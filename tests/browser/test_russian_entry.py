# ruff: noqa: RUF001 (Russian names and words are what the page shows)
"""A Russian-speaking referee enters a Preferans game in a real browser, with decimal commas (issue 28).

The browser asks for Russian (its locale), so the page is in Russian from the first request; whists are
typed as a Russian keyboard types them ("2,5"), the table sums them live, and the stored game holds the
same numbers a point would have given. The expected words are written here by hand from the catalogue
a Russian reader reads, not asked of it.
"""

import re
from decimal import Decimal

import pytest

from matches.models import Match
from tests.browser.test_preferans_flow import SETTLED, choose_seat
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def russian_page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, locale="ru-RU", viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def test_a_referee_enters_whists_with_decimal_commas_in_russian(russian_page):
    page = russian_page
    reference_data_ensure()
    PlayerFactory(name="Аня")
    PlayerFactory(name="Борис")
    PlayerFactory(name="Вера")
    RefereeFactory(username="pref-ru")

    page.goto("/accounts/login/?next=/results/preferans/")
    assert page.evaluate("document.documentElement.lang") == "ru"
    page.get_by_label("Имя пользователя").fill("pref-ru")
    page.get_by_label("Пароль", exact=True).fill("correct horse battery")
    page.locator("main").get_by_role("button", name="Войти").click()
    page.wait_for_url("**/results/preferans/")

    choose_seat(page, 1, "Аня")
    choose_seat(page, 2, "Борис")
    choose_seat(page, 3, "Вера")
    page.locator('input[name="deal-1-1"]').fill("2,5")
    page.locator('input[name="deal-1-2"]').fill("-1,5")
    page.locator('input[name="deal-1-3"]').fill("-1")
    page.locator("#deal-sum-1.zero-sum-ok").wait_for()
    page.locator('input[name="deal-2-1"]').fill("-0,25")
    page.locator('input[name="deal-2-2"]').fill("0,5")
    page.locator('input[name="deal-2-3"]').fill("-0,25")
    page.locator("#deal-sum-2.zero-sum-ok").wait_for()
    page.wait_for_function(SETTLED)
    # The first seat's total, in the Russian way: 2,5 - 0,25 = 2,25.
    assert page.locator("#total-1").inner_text() == "2,25"

    page.get_by_role("button", name="Сохранить партию").click()
    page.locator("#saved").wait_for()
    saved = page.locator("#saved").inner_text()
    # «партия №1 из 2 раздач» (из takes the genitive plural), whists with decimal commas.
    assert "из 2 раздач" in saved
    assert "Аня 2,25" in saved
    assert "Вера -1,25" in saved

    match = Match.objects.get(game__slug="preferans")
    whists = {seat.player.name: seat.result for seat in match.seats.select_related("player")}
    assert whists == {"Аня": Decimal("2.25"), "Борис": Decimal("-1"), "Вера": Decimal("-1.25")}
    assert [list(deal.whists) for deal in match.deals.order_by("number")] == [
        [2.5, -1.5, -1],
        [-0.25, 0.5, -0.25],
    ]


def test_the_rating_chart_speaks_russian(russian_page):
    """The profile chart's axis, dates and point words come from the Russian scripts' catalogue and formats."""
    import datetime

    from ratings.services import ratings_process_game
    from tests.factories import slaps_match

    page = russian_page
    reference_data_ensure()
    anna, boris = PlayerFactory(name="Аня"), PlayerFactory(name="Борис")
    for day in (1, 2, 3):
        match = slaps_match(
            winner=anna, loser=boris, played_at=datetime.datetime(2026, 11, day, 18, 0, tzinfo=datetime.UTC)
        )
    ratings_process_game(game_id=match.game_id)
    page.goto(f"/players/{anna.pk}/")
    page.locator("canvas.rating-chart").first.wait_for()
    drawn = page.evaluate(
        """() => {
            const chart = Chart.getChart(document.querySelector("canvas.rating-chart"));
            return {
                y: chart.options.scales.y.title.text,
                x: chart.options.scales.x.title.text,
                ticks: chart.scales.x.ticks.map((tick) => tick.label),
                title: chart.options.plugins.tooltip.callbacks.title([{ dataIndex: 2 }]),
            };
        }"""
    )
    assert drawn["y"] == "Рейтинг"
    assert drawn["x"] == "Дата"
    # Days as Russian writes them (d.m.Y), never the ISO day.
    assert drawn["ticks"]
    assert all(re.fullmatch(r"\d\d\.\d\d\.2026", tick) for tick in drawn["ticks"])
    # The second match's point: "after 2 rated matches", in the form 2 takes.
    assert drawn["title"] == "02.11.2026 18:00, после: 2 матча в рейтинге"
