"""In a real Chromium at 360 px (a phone) and 1366 px (a desktop): a matchpoint Mitchell's session page, a
board's traveller with its hand record, and a pair's scorecard never scroll sideways (their tables scroll in
their own box), and show what a club player looks for; the compass keeps N above, W left of E, S below.

The evening (hand-worked): three tables, NS pairs 1-3 against EW pairs 1-3, two boards. Board 1 (none
vulnerable) 450, 420, 420: NS MP 4, 1, 1 of a top of 4. Board 2 (NS vulnerable) 690, 1440, 660: NS MP 2, 4,
0. NS 1 6 of 8, 75%; NS 2 5, 62.5%; NS 3 1, 12.5%.
"""

from datetime import UTC, datetime

import pytest

from games.bridge.models import Board
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGE_WIDTH = "() => document.documentElement.scrollWidth"
WIDTHS = [360, 1366]
NAMES = [
    "Annika Berg-Lindqvist", "Bob Mann", "Cy Dale", "Di Eve", "Ed Fox", "Flo Gray",
    "Gus Longname-Lindqvist", "Hal Ives", "Ida Jones", "Jo King", "Kim Lee", "Lu Moore",
]  # fmt: skip
# (contract, declarer, tricks, lead, NS score) per table, per board.
PLAY = {
    1: [("4S", "N", 11, "HK", 450), ("4S", "N", 10, "DA", 420), ("4S", "S", 10, "C10", 420)],
    2: [("3NT", "S", 12, "S4", 690), ("6NT", "N", 12, "HQ", 1440), ("3NT", "N", 11, "D2", 660)],
}
DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 65432.8765.8.876 .432.765432.5432"


def watch(page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


def evening() -> int:
    reference_data_ensure()
    ids = [PlayerFactory(name=name).pk for name in NAMES]
    boards = []
    for number, plays in PLAY.items():
        tables = []
        for n, (contract, declarer, tricks, lead, score) in enumerate(plays):
            tables.append(
                {
                    "ns": ids[4 * n : 4 * n + 2], "ew": ids[4 * n + 2 : 4 * n + 4],
                    "ns_pair": str(n + 1), "ew_pair": str(n + 1), "ns_score": score,
                    "contract": contract, "declarer": declarer, "tricks": tricks, "lead": lead,
                }
            )  # fmt: skip
        boards.append({"number": number, "tables": tables})
    boards[0]["deal"] = DEAL
    body = {
        "game": "bridge", "played_at": datetime(2026, 11, 3, 19, tzinfo=UTC).isoformat(), "league": "bridge-amateur",
        "scoring": "matchpoints", "movement": "mitchell", "event": "Tuesday Pairs", "boards": boards,
    }  # fmt: skip
    answer = api_for(RefereeFactory()).post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    match_id = answer.json()["id"]
    # What the analysis task fills in: North-South take every trick, par 7NT.
    tables = {seat: dict.fromkeys(("C", "D", "H", "S", "NT"), 13 if seat in "NS" else 0) for seat in "NESW"}
    Board.objects.filter(match_id=match_id, number=1).update(
        double_dummy=tables, par={"score": 1520, "contracts": ["7NT NS"]}
    )
    return match_id


@pytest.mark.parametrize("width", WIDTHS)
def test_the_session_page_a_traveller_and_a_scorecard_fit_the_screen(page, width):
    match_id = evening()
    problems = watch(page)
    page.set_viewport_size({"width": width, "height": 800})

    page.goto(f"/matches/{match_id}/")
    assert page.get_by_text("Tuesday Pairs").is_visible()
    assert page.locator(".session-facts").inner_text().startswith("6 pairs · 2 boards · scored by matchpoints")
    north_south = page.locator("table.pair-ranking").first
    assert north_south.locator("td.pair-place").all_inner_texts() == ["1", "2", "3"]
    assert [cell.split()[0] for cell in north_south.locator("td.pair-number").all_inner_texts()] == ["1", "2", "3"]
    assert north_south.locator("td.pair-score").all_inner_texts() == ["75%", "62.5%", "12.5%"]
    assert page.evaluate(PAGE_WIDTH) <= width

    page.locator(".board-links a").first.click()
    page.wait_for_url(f"**/matches/{match_id}/boards/1/")
    assert page.locator("table.traveller tbody tr").count() == 3
    assert page.locator("table.traveller tbody tr").first.locator("td.points").all_inner_texts() == ["4", "0"]
    assert page.locator("table.dd-table tbody tr").count() == 4
    assert "Par: NS +1520" in page.locator(".par").inner_text()
    assert page.evaluate(PAGE_WIDTH) <= width
    north, west, east, south = (page.locator(f".hand-{seat}").bounding_box() for seat in "nwes")
    assert north["y"] + north["height"] <= west["y"]  # N above W and E
    assert west["x"] + west["width"] <= east["x"]  # W left of E, on one row
    assert abs(west["y"] - east["y"]) < 2
    assert max(west["y"] + west["height"], east["y"] + east["height"]) <= south["y"]  # S below
    for hand in (north, west, east, south):
        assert hand["x"] >= 0
        assert hand["x"] + hand["width"] <= width

    page.goto(f"/matches/{match_id}/pairs/NS2/")
    assert page.locator("h1").inner_text() == "Pair NS 2"
    assert page.locator(".scorecard-score").inner_text().startswith("62.5%")
    lines = page.locator("table.scorecard tbody tr")
    assert lines.count() == 2
    assert lines.nth(1).locator("td").last.inner_text() == "5"  # 1 + 4 MP
    assert page.evaluate(PAGE_WIDTH) <= width
    lines.first.locator("a.hand-link").click()  # the hand record a click away
    page.wait_for_url(f"**/matches/{match_id}/boards/1/#hand-record")
    assert page.locator("#hand-record .compass").is_visible()
    assert problems == []
