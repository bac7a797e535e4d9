"""A referee enters a bridge evening in a real browser, by pair numbers and travellers, mostly by keyboard.

Three-table Mitchell, six boards (the page's default evening): the twelve players picked once as NS
pairs 1-3 and EW pairs 1-3, then each board's traveller rows typed score after score, Enter moving
to the next score (the pair numbers the movement prefilled are passed over) and never saving. A
bad score is refused at its cell, which is marked and focused; the evening is saved; the stored
boards are the travellers and the ratings are the independent oracle's (tests/oracle), never the
engine's. The keystrokes and clicks are counted (docs/bridge-entry.md).
"""

import pytest

from games.bridge.models import BoardTable
from leagues.models import Game
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
FOCUSED = "() => document.activeElement && document.activeElement.id"

# NS scores per board, table by table (the rows in the movement's order); one is a mistake at first.
SCORES = {
    1: ["420", "-50", "450"],
    2: ["-100", "140", "110"],
    3: ["420", "170", "-100"],  # board 3: EW vulnerable, so NS's game is 420
    4: ["-200", "-200", "500"],
    5: ["90", "-110", "-110"],
    6: ["1430", "680", "-50"],
}
MISTAKE = (4, 2, "-205")  # board 4, row 2: not a multiple of 10

# The 3-table Mitchell by hand (EW pairs move up a table, boards down), each traveller's rows by table:
# NS pair t sits at table t all evening; board set 1 meets EW 1 at table 1 (round 1), EW 2 at table 3
# (round 2) and EW 3 at table 2 (round 3).
SEATS = {
    1: [(1, 1), (2, 3), (3, 2)],
    3: [(1, 3), (2, 2), (3, 1)],
    5: [(1, 2), (2, 1), (3, 3)],
}
SEATS |= {board + 1: rows for board, rows in SEATS.items()}  # two boards a round


class Counter:
    def __init__(self, page):
        self.page, self.keys, self.clicks = page, 0, 0

    def type(self, text):
        self.page.keyboard.type(text)
        self.keys += len(text)

    def press(self, key):
        self.page.keyboard.press(key)
        self.keys += 1

    def click(self, locator):
        locator.click()
        self.clicks += 1


def choose_player(count, name, player):
    """Pick a pair's player in the focused search picker: type the name, ↓ to its option, Enter
    chooses it (never saves), Enter again moves to the next picker."""
    count.type(player.name)
    count.page.locator(f"#{name}-listbox [data-id='{player.pk}']").wait_for()
    count.press("ArrowDown")
    assert count.page.locator(f"#{name}").get_attribute("aria-activedescendant") == f"{name}-option-{player.pk}"
    count.press("Enter")
    assert count.page.locator(f"input[name='{name}']").input_value() == str(player.pk)
    count.press("Enter")


def sign_in(page):
    page.goto("/accounts/login/?next=/results/bridge/")
    page.get_by_label("Username").fill("bridge-ref")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/results/bridge/")
    page.evaluate("() => { window.__stillHere = true; }")


def test_referee_enters_a_mitchell_evening_by_pair_numbers(page):
    reference_data_ensure()
    players = PlayerFactory.create_batch(12)
    RefereeFactory(username="bridge-ref")

    sign_in(page)
    count = Counter(page)

    # The evening is the page's default: Mitchell, 3 tables, 6 boards, NS scores.
    assert page.get_by_label("Movement").input_value() == "mitchell"
    assert page.get_by_label("Tables").input_value() == "3"
    assert page.get_by_label("Boards").input_value() == "6"

    # The pairs, once: NS 1-3 then EW 1-3, two players each, Enter from one picker to the next.
    pairs = {"ns1": players[0:2], "ns2": players[2:4], "ns3": players[4:6]}
    pairs |= {"ew1": players[6:8], "ew2": players[8:10], "ew3": players[10:12]}
    count.click(page.get_by_role("combobox", name="NS pair 1, player 1"))
    for key, pair in pairs.items():
        for n, player in enumerate(pair, start=1):
            assert page.evaluate(FOCUSED) == f"pair-{key}-{n}"
            choose_player(count, f"pair-{key}-{n}", player)

    # The travellers: the first score cell, then score, Enter, score ... over all six boards.
    # Enter left the pairs for the first score: the pair numbers the movement filled in are passed over.
    for board, row_scores in SCORES.items():
        for row, score in enumerate(row_scores, start=1):
            assert page.evaluate(FOCUSED) == f"b{board}-t{row}-score"
            count.type(MISTAKE[2] if (board, row) == MISTAKE[:2] else score)
            count.press("Enter")
    page.wait_for_function("() => document.querySelector('#preview-1').textContent.includes('Board 1: 1')")
    # 420, -50, 450: table 1 NS +10 (470) and -1 (30): +9; table 2: -10 -11 (500) = -21; table 3: +1 +11 = +12
    assert page.locator("#preview-1 summary").inner_text() == "Board 1: 1\u20131 +9, 2\u20133 \u221221, 3\u20132 +12"
    page.locator("#preview-1 summary").click()
    assert "Table 1 against table 2: NS at table 1 +10 IMPs (win)" in page.locator("#preview-1").inner_text()
    assert not Match.objects.exists()  # Enter never saved

    count.click(page.get_by_role("button", name="Save evening"))
    page.locator("#error-boards").wait_for()
    page.wait_for_function(SETTLED)
    assert "Board 4, table 2: the NS score is a whole multiple of 10" in page.locator("#error-boards").inner_text()
    assert page.evaluate(FOCUSED) == "b4-t2-score"  # the cell in error has the focus
    assert page.locator("#b4-t2-score").get_attribute("aria-invalid") == "true"
    assert not Match.objects.exists()
    count.press("Control+a")
    count.type(SCORES[4][1])
    count.click(page.get_by_role("button", name="Save evening"))
    page.locator("#saved").wait_for()
    assert "6 boards" in page.locator("#saved").inner_text()
    assert page.evaluate("() => window.__stillHere") is True

    match = Match.objects.get()
    assert match.status == "rated"
    ids = {key: sorted(player.pk for player in pair) for key, pair in pairs.items()}
    stored = {
        (t.board.number, t.table): ([t.ns_1_id, t.ns_2_id], [t.ew_1_id, t.ew_2_id], t.ns_score)
        for t in BoardTable.objects.filter(board__match=match).select_related("board")
    }
    expected = {
        (board, row): (ids[f"ns{ns}"], ids[f"ew{ew}"], int(SCORES[board][row - 1]))
        for board, seats in SEATS.items()
        for row, (ns, ew) in enumerate(seats, start=1)
    }
    assert stored == expected
    assert RatingChange.objects.filter(match=match).values("player").distinct().count() == 12
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="bridge")) > 0  # every row the oracle's

    # 12 players picked by name, 18 scores + Enter, the correction: what docs/bridge-entry.md counts.
    print(f"keystrokes {count.keys}, clicks {count.clicks}")
    names = sum(len(player.name) + 3 for player in players)  # the name, ↓, Enter to choose, Enter to move on
    typed = sum(len(score) for scores in SCORES.values() for score in scores)  # "-205" typed for "-200"
    assert count.keys == names + typed + 18 + 1 + len(SCORES[4][1])
    assert count.clicks == 3

    page.goto(match.get_absolute_url())
    assert page.locator("table.pair-ranking tbody tr").count() == 6


def test_the_setup_redraws_once_left_and_a_new_board_keeps_the_focus(page):
    reference_data_ensure()
    RefereeFactory(username="bridge-ref")
    sign_in(page)
    page.get_by_label("Movement").select_option("howell")
    page.get_by_label("Tables").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED) == "boards"
    page.keyboard.press("Control+a")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    assert page.locator("fieldset.traveller").count() == 6  # still in the evening's fields: no redraw yet
    page.get_by_role("combobox", name="NS pair 1, player 1").click()  # leaving them redraws: a 2-table Howell, 4 boards
    page.wait_for_function("() => document.querySelectorAll('fieldset.traveller').length === 4")
    page.wait_for_function(SETTLED)
    assert page.get_by_role("combobox", name="Pair 4, player 2").is_visible()  # a Howell numbers its pairs 1-4
    # Round 1 of the circle: pair 4 (fixed) NS against pair 1 at table 1, pair 2 against pair 3 at table 2.
    assert [page.locator(f"#b1-t{t}-{side}").input_value() for t in (1, 2) for side in ("ns", "ew")] == [
        "4", "1", "2", "3",
    ]  # fmt: skip
    page.get_by_role("button", name="Add board").click()
    page.wait_for_function("() => document.querySelectorAll('fieldset.traveller').length === 5")
    page.wait_for_function(SETTLED)
    assert page.evaluate(FOCUSED) == "b5-t1-score"
    page.keyboard.type("420")
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED) == "b5-t2-score"
    assert page.evaluate("() => window.__stillHere") is True
    assert not Match.objects.exists()


def pick(page, input_id: str, player) -> None:
    """Choose a pair's player in its picker: part of the name typed, the option clicked."""
    page.locator(f"#{input_id}").fill(player.name[:6])
    page.locator(f"#{input_id}-listbox [role=option][data-id='{player.pk}']").click()
    page.wait_for_function(SETTLED)


def one_board_evening(page, players):
    """The page's 3-table Mitchell set to one board, its six pairs chosen (NS 1-3, then EW 1-3)."""
    page.get_by_label("Boards").fill("1")
    page.get_by_role("button", name="Set up").click()
    page.wait_for_function("() => document.querySelectorAll('fieldset.traveller').length === 1")
    page.wait_for_function(SETTLED)
    keys = [f"ns{n}" for n in (1, 2, 3)] + [f"ew{n}" for n in (1, 2, 3)]
    for index, key in enumerate(keys):
        for n in (1, 2):
            pick(page, f"pair-{key}-{n}", players[2 * index + n - 1])


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [360, 1366])
def test_a_half_filled_traveller_is_listed_and_saved_only_with_a_choice(page, width):
    """Board 1 (none vul) at three tables (NS 1 v EW 1, NS 2 v EW 3, NS 3 v EW 2): 420 at table 1, a score
    the board cannot have at table 2 (flagged at its cell while typing, in the cleaner's words), then -50;
    table 3 left blank. Saving lists it and stores nothing; saved with a choice: adjusted at its row on a
    phone, "not played" for all on a desktop."""
    reference_data_ensure()
    players = PlayerFactory.create_batch(12)
    RefereeFactory(username="bridge-ref")
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page)
    one_board_evening(page, players)
    page.locator("#b1-t1-score").fill("420")
    page.locator("#b1-t2-score").fill("620")
    page.wait_for_function("() => document.getElementById('b1-t2-score').getAttribute('aria-invalid') === 'true'")
    assert page.locator("#preview-1").inner_text() == (
        "Board 1, table 2: +620 cannot be scored when neither side is vulnerable (4\u2665 or 4\u2660 making is 420)"
    )
    assert "preview-1" in page.locator("#b1-t2-score").get_attribute("aria-describedby")
    fits(page, width)
    page.locator("#b1-t2-score").fill("-50")
    page.wait_for_function("() => !document.getElementById('b1-t2-score').hasAttribute('aria-invalid')")
    assert page.locator("#preview-1 summary").inner_text() == "Board 1: 1\u20131 +10, 2\u20133 \u221210"

    page.get_by_role("button", name="Save evening").click()
    box = page.locator("#confirm-missing")
    box.wait_for()
    page.wait_for_function(SETTLED)
    assert "Nothing was saved: this table has no score." in box.inner_text()
    assert "Board 1, table 3 (NS 3 v EW 2) has no score" in box.inner_text()
    assert page.evaluate(FOCUSED) == "missing-all"
    row_choice = page.get_by_label("Board 1, table 3 (NS 3 v EW 2) has no score:")
    assert row_choice.is_visible()
    assert row_choice.get_attribute("aria-invalid") == "true"
    fits(page, width)
    chosen = row_choice.bounding_box()
    assert chosen["x"] + chosen["width"] <= width
    assert not Match.objects.exists()

    if width == 360:
        row_choice.select_option("A+/A-")
    else:
        page.locator("#missing-all").select_option("skip")
    page.get_by_role("button", name="Save with these choices").click()
    page.locator("#saved").wait_for()
    tables = {t.table: t for t in BoardTable.objects.filter(board__match=Match.objects.get())}
    assert [(t.ns_pair, t.ew_pair, t.ns_score) for t in tables.values()][:2] == [("1", "1", 420), ("2", "3", -50)]
    if width == 360:
        assert (tables[3].ns_pair, tables[3].ew_pair, tables[3].adjusted) == ("3", "2", {"ns": "A+", "ew": "A-"})
    else:
        assert sorted(tables) == [1, 2]
    assert Match.objects.get().facts == {"scoring": "matchpoints", "movement": "mitchell"}


def test_a_draft_keeps_the_scoring_the_contracts_and_a_missing_rows_choice(page):
    reference_data_ensure()
    players = PlayerFactory.create_batch(12)
    RefereeFactory(username="bridge-ref")
    sign_in(page)
    page.get_by_label("Scoring").select_option("butler")
    page.get_by_label("Enter").select_option("contract")
    one_board_evening(page, players)
    assert page.get_by_label("Scoring").input_value() == "butler"
    for row, cells in {1: ("4S", "N", "="), 2: ("3NT", "S", "+1")}.items():
        for name, value in zip(("contract", "by", "result"), cells, strict=True):
            page.locator(f"#b1-t{row}-{name}").fill(value)
    page.get_by_role("button", name="Save evening").click()
    page.locator("#confirm-missing").wait_for()
    page.get_by_label("Board 1, table 3 (NS 3 v EW 2) has no score:").select_option("skip")
    page.wait_for_function(
        "() => Object.values(localStorage).some((text) => text.includes('b1-t3-missing') && text.includes('skip'))"
    )
    page.once("dialog", lambda dialog: dialog.accept())
    page.reload()
    page.locator("#draft-offer").get_by_role("button", name="Restore").click()
    page.wait_for_function("() => (document.getElementById('b1-t2-result') || {}).value === '+1'")
    page.wait_for_function(SETTLED)
    assert page.get_by_label("Scoring").input_value() == "butler"
    assert page.get_by_label("Enter").input_value() == "contract"
    assert page.locator("#b1-t1-contract").input_value() == "4S"
    assert page.locator("#b1-t3-missing").input_value() == "skip"
    assert page.locator("input[name='pair-ew3-2']").input_value() == str(players[11].pk)
    page.get_by_role("button", name="Save evening").click()
    page.locator("#saved").wait_for()
    match = Match.objects.get()
    assert match.facts == {"scoring": "butler", "movement": "mitchell"}
    stored = BoardTable.objects.filter(board__match=match).order_by("table")
    assert [(t.contract, t.declarer, t.tricks, t.ns_score) for t in stored] == [
        ("4S", "N", 10, 420),
        ("3NT", "S", 10, 430),
    ]
