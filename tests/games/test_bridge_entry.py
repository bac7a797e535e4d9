"""The bridge evening's entry page: pairs once, travellers by pair number, the body it builds, hostile input.

Expected bodies and IMPs are written by hand here (WBF scale: 220-260 = 6, 430-490 = 10 ...), never
taken from the page or the engine.
"""

import re
from types import SimpleNamespace

import pytest
from django.test import Client

from games.bridge.models import BoardTable
from games.bridge.results import bridge_stored_body
from games.bridge.standings import session_standings
from games.bridge.views import BridgeForm, evening_body
from matches.models import Match
from tests.factories import PlayerFactory
from tests.matches.rows import rows_changed, rows_snapshot

pytestmark = pytest.mark.django_db
GAME = SimpleNamespace(slug="bridge")


def three_tables(ids, rows, *, boards=1, entry="score", **extra):
    """A three-table Mitchell: NS pairs 1-3 and EW pairs 1-3 from twelve player ids, and traveller rows
    {(board, row): {field: text}}, typed as given (the movement's prefill is not applied)."""
    form = {
        "movement": "mitchell", "tables": "3", "boards": str(boards), "entry": entry, "setup": f"mitchell-3-{boards}",
        "played_at": "2026-11-01T19:00", "rated": "true", "league": "bridge-amateur",
    }  # fmt: skip
    for n in range(3):
        form |= {f"pair-ns{n + 1}-1": str(ids[4 * n]), f"pair-ns{n + 1}-2": str(ids[4 * n + 1])}
        form |= {f"pair-ew{n + 1}-1": str(ids[4 * n + 2]), f"pair-ew{n + 1}-2": str(ids[4 * n + 3])}
    for (board, row), cells in rows.items():
        form |= {f"b{board}-t{row}-{name}": value for name, value in cells.items()}
    return form | extra


def scores(board, *triples):
    return {(board, t): {"ns": ns, "ew": ew, "score": score} for t, (ns, ew, score) in enumerate(triples, start=1)}


def test_the_form_becomes_the_apis_body_by_pair_number(twelve):
    rows = scores(1, ("1", "1", "420"), ("2", "3", "-50"), ("3", "2", "")) | scores(
        2, ("2", "1", "100"), ("3", "3", "-100")
    )
    reading = evening_body(BridgeForm.from_post(three_tables(twelve, rows, boards=2)), GAME)
    a, b, c, d, e, f, _g, _h, i, j, k, m = (str(pk) for pk in twelve)
    assert reading.cells == {}
    assert reading.body == {
        "game": "bridge",
        "played_at": "2026-11-01T19:00",
        "rated": "true",
        "league": "bridge-amateur",
        "scoring": "matchpoints",  # a pairs evening of three tables: matchpoints unless chosen otherwise
        "movement": "mitchell",
        "boards": [
            {
                "number": 1,
                "tables": [
                    {"ns": [a, b], "ew": [c, d], "ns_score": "420", "ns_pair": "1", "ew_pair": "1"},
                    {"ns": [e, f], "ew": [k, m], "ns_score": "-50", "ns_pair": "2", "ew_pair": "3"},
                ],  # the third row (NS 3 v EW 2) has no score: missing, asked about, not in the body
            },
            {
                "number": 2,
                "tables": [
                    {"ns": [e, f], "ew": [c, d], "ns_score": "100", "ns_pair": "2", "ew_pair": "1"},
                    {"ns": [i, j], "ew": [k, m], "ns_score": "-100", "ns_pair": "3", "ew_pair": "3"},
                ],
            },
        ],
    }
    assert [(row.board, row.row, row.message) for row in reading.missing] == [
        (1, 3, "Board 1, table 3 (NS 3 v EW 2) has no score")
    ]  # board 2's third row has no pair numbers (nobody sat there): nothing is missing


def test_contracts_are_kept_and_the_cleaner_scores_them(referee, twelve, django_capture_on_commit_callbacks):
    rows = {
        (1, 1): {"ns": "1", "ew": "1", "contract": "4S", "by": "N", "result": "="},  # board 1 none vul: 420
        (1, 2): {"ns": "2", "ew": "2", "contract": "4♠", "by": "e", "result": "-1"},  # EW down 1 NV: NS +50
        (1, 3): {"ns": "3", "ew": "3", "contract": "3nt", "by": "S", "result": "10"},  # 3NT+1 NV: 430
        (2, 1): {"ns": "1", "ew": "2", "contract": "1NTx", "by": "W", "result": "-2"},  # board 2 NS vul: EW NV, +300
        (2, 2): {"ns": "2", "ew": "3", "contract": "-100"},  # a score typed in the contract cell
        (2, 3): {"ns": "3", "ew": "1", "contract": "Pass"},  # passed out
    }
    form = three_tables(twelve, rows, boards=2, entry="contract")
    reading = evening_body(BridgeForm.from_post(form), GAME)
    assert reading.cells == {}
    kept = [
        [{k: v for k, v in t.items() if k not in ("ns", "ew")} for t in b["tables"]] for b in reading.body["boards"]
    ]
    assert kept == [
        [
            {"contract": "4S", "declarer": "N", "tricks": 10, "ns_pair": "1", "ew_pair": "1"},
            {"contract": "4S", "declarer": "E", "tricks": 9, "ns_pair": "2", "ew_pair": "2"},
            {"contract": "3NT", "declarer": "S", "tricks": 10, "ns_pair": "3", "ew_pair": "3"},
        ],
        [
            {"contract": "1NTX", "declarer": "W", "tricks": 5, "ns_pair": "1", "ew_pair": "2"},
            {"ns_score": "-100", "ns_pair": "2", "ew_pair": "3"},
            {"contract": "Pass", "ns_pair": "3", "ew_pair": "1"},
        ],
    ]
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, form)
    stored = {
        (t.board.number, t.table): (t.contract, t.declarer, t.tricks, t.ns_score, t.ns_pair, t.ew_pair)
        for t in BoardTable.objects.select_related("board")
    }
    assert stored == {
        (1, 1): ("4S", "N", 10, 420, "1", "1"),
        (1, 2): ("4S", "E", 9, 50, "2", "2"),
        (1, 3): ("3NT", "S", 10, 430, "3", "3"),
        (2, 1): ("1NTX", "W", 5, 300, "1", "2"),
        (2, 2): ("", "", None, -100, "2", "3"),
        (2, 3): ("Pass", "", None, 0, "3", "1"),
    }
    assert Match.objects.get().facts == {"scoring": "matchpoints", "movement": "mitchell"}


def test_a_mitchell_prefills_the_travellers_and_a_free_movement_does_not(referee):
    page = Client()
    page.force_login(referee)
    html = page.get("/results/bridge/").content.decode()  # 3-table Mitchell, 6 boards by default
    # Board 3 is in set 2: round 1 at table 2 (NS 2 v EW 2), round 2 at table 1 (NS 1 v EW 3), round 3 at
    # table 3 (NS 3 v EW 1); the traveller's rows go by table, so row t is table t, where NS pair t sits.
    assert re.search(r'name="b3-t1-ns" id="b3-t1-ns" value="1"', html)
    assert re.search(r'name="b3-t1-ew" id="b3-t1-ew" value="3"', html)
    assert re.search(r'name="b3-t2-ns" id="b3-t2-ns" value="2"', html)
    assert re.search(r'name="b3-t2-ew" id="b3-t2-ew" value="2"', html)
    assert re.search(r'name="b3-t3-ew" id="b3-t3-ew" value="1"', html)
    assert 'id="b6-t3-score"' in html
    assert 'id="b7-t1-score"' not in html
    assert 'Board 5 <span class="muted">dealer N, NS vul</span>' in html
    free = page.post("/results/bridge/", {"action": "refresh", "movement": "free", "tables": "2", "boards": "24"})
    html = free.content.decode()
    assert 'name="b24-t2-ns" id="b24-t2-ns" value=""' in html
    assert 'id="pair-4-2"' in html  # pairs 1-4
    assert 'id="pair-5-1"' not in html


@pytest.fixture
def twelve(reference_data):
    return [player.pk for player in PlayerFactory.create_batch(12)]


def post(referee, form):
    page = Client()
    page.force_login(referee)
    return page.post("/results/bridge/", form, HTTP_HX_REQUEST="true").content.decode()


GOOD = scores(1, ("1", "1", "420"), ("2", "2", "-50"), ("3", "3", "170"))

HOSTILE = {
    "pair number out of range": (
        {"b1-t1-ns": "9"},
        "b1-t1-ns",
        "Board 1, table 1: NS pair \u201c9\u201d is not a pair of the evening (1\u20133).",
    ),
    "pair number not a number": ({"b1-t2-ew": "<script>"}, "b1-t2-ew", "EW pair \u201c&lt;script&gt;\u201d is not"),
    "negative pair number": ({"b1-t2-ew": "-1"}, "b1-t2-ew", "is not a pair of the evening"),
    "the same pair twice at a board": (
        {"b1-t3-ns": "1"},
        "b1-t3-ns",
        "Board 1, table 3: NS pair 1 already plays board 1 at table 1.",
    ),
    "a player in two pairs": (
        {"pair-ew2-1": "__a__"},
        "pair-ew2-1",
        "EW pair 2, player 1: this player is already in NS pair 1.",
    ),
    "a pair with one player": ({"pair-ew3-2": ""}, "pair-ew3-2", "EW pair 3 needs two players."),
    "a player who does not exist": ({"pair-ew3-2": "999999"}, "pair-ew3-2", "EW pair 3, player 2: no player has"),
    "a score that is not a bridge score": (
        {"b1-t2-score": "425"},
        "b1-t2-score",
        "Board 1, table 2: the NS score is a whole multiple of 10",
    ),
}


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_cells_store_nothing_and_are_marked_and_focused(referee, twelve, case):
    change, cell, message = case
    change = {key: str(twelve[0]) if value == "__a__" else value for key, value in change.items()}
    before = rows_snapshot()
    html = post(referee, three_tables(twelve, GOOD) | change)
    assert rows_changed(before, rows_snapshot()) == {}
    assert 'id="error-boards"' in html
    assert message in html
    marked = re.search(rf'<input[^>]*id="{cell}"[^>]*>', html)
    assert marked, html[:2000]
    assert 'aria-invalid="true"' in marked.group(0)
    assert " autofocus" in marked.group(0) or cell.startswith("pair-")


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ({"contract": "9Z", "by": "N", "result": "="}, "\u201c9Z\u201d is not a contract"),
        ({"contract": "4SXXX", "by": "N", "result": "="}, "is not a contract"),
        ({"contract": "4S", "by": "Q", "result": "="}, "the declarer is N, E, S or W"),
        ({"contract": "7NT", "by": "N", "result": "+1"}, "\u201c+1\u201d is not a result of 7NT"),
        ({"contract": "4H", "by": "N", "result": "x" * 500}, "is not a result of 4H"),
    ],
)
def test_garbage_contracts_are_refused_at_their_cell(referee, twelve, cells, message):
    rows = {(1, 1): {"ns": "1", "ew": "1", **cells}, (1, 2): {"ns": "2", "ew": "2", "contract": "Pass"}}
    html = post(referee, three_tables(twelve, rows, entry="contract"))
    assert message in html
    assert re.search(r'<input[^>]*id="b1-t1-(contract|by|result)"[^>]*aria-invalid="true"', html)
    assert not Match.objects.exists()


def test_ten_thousand_boards_are_refused_not_drawn(referee, twelve):
    before = rows_snapshot()
    html = post(referee, three_tables(twelve, GOOD, boards=10_000))
    assert "from 1 to 36" in html
    assert html.count('class="traveller"') == 36  # the most one page draws; nothing saved
    assert rows_changed(before, rows_snapshot()) == {}
    crowded = post(referee, three_tables(twelve, GOOD, boards=36) | {"tables": "15", "entry": "contract"})
    assert "at most 12 boards here; entering NS scores takes fewer cells." in crowded  # 15 x 5 cells a board
    assert not Match.objects.exists()


def test_fewer_boards_than_declared_asks_first(referee, twelve, django_capture_on_commit_callbacks):
    form = three_tables(twelve, GOOD, boards=3)
    asked = post(referee, form)
    assert "You declared 3 boards and filled 1 (boards 2, 3 empty): save anyway?" in asked
    assert not Match.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        saved = post(referee, form | {"action": "save_short"})
    assert 'id="saved"' in saved
    assert Match.objects.get().boards.count() == 1


def test_adding_a_board_keeps_the_focus_in_its_first_cell(referee, twelve):
    html = post(referee, three_tables(twelve, GOOD, boards=2) | {"action": "add_board"})
    first = re.search(r'<input[^>]*id="b3-t1-score"[^>]*>', html).group(0)
    assert " autofocus" in first
    assert 'name="boards" id="boards" value="3"' in html
    # Board 3 joins the movement's last set: at table 1 (row 1) NS 1 v EW 2, in round 3.
    assert 'id="b3-t1-ns" value="1"' in html
    assert 'id="b3-t1-ew" value="2"' in html


def test_the_stored_evening_ranks_its_pairs_by_number_in_its_scoring(
    referee, twelve, django_capture_on_commit_callbacks
):
    """What the session page ranks (``session_standings`` over the stored body): pairs by their numbers,
    in the scoring chosen. Board 1, none vul: NS 420, -50 and 170 at tables 1-3."""
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, three_tables(twelve, GOOD))
    ranked = session_standings(bridge_stored_body(Match.objects.get()))
    # Matchpoints, top 2 x (3 - 1) = 4: NS 420 beats both (4 MP = 100 %), 170 beats -50 (2 = 50 %), -50 none;
    # EW the other way: EW 2 (v -50) 100 %, EW 3 50 %, EW 1 0 %.
    assert [(row["direction"], row["pair"], str(row["score"]), row["rank"]) for row in ranked] == [
        ("NS", "1", "100.00", 1),
        ("NS", "3", "50.00", 2),
        ("NS", "2", "0.00", 3),
        ("EW", "2", "100.00", 1),
        ("EW", "3", "50.00", 2),
        ("EW", "1", "0.00", 3),
    ]
    cross = three_tables(twelve, GOOD) | {"scoring": "cross_imps", "played_at": "2026-11-08T19:00"}
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, cross)
    ranked = session_standings(bridge_stored_body(Match.objects.latest("played_at")))
    # Cross-IMPs: 420 v -50: 470 = 10 IMPs; 420 v 170: 250 = 6; -50 v 170: 220 = 6 (WBF 220-260).
    # NS 1 +16, NS 3 0, NS 2 -16; EW the opposite of their table's NS.
    assert [(row["direction"], row["pair"], str(row["score"])) for row in ranked] == [
        ("NS", "1", "16.00"),
        ("NS", "3", "0.00"),
        ("NS", "2", "-16.00"),
        ("EW", "2", "16.00"),
        ("EW", "3", "0.00"),
        ("EW", "1", "-16.00"),
    ]


def test_a_team_match_in_imps_gives_table_one_the_imps_and_table_two_its_pairs(twelve):
    a, b, c, d, e, f, g, h = (str(pk) for pk in twelve[:8])
    form = {
        "movement": "mitchell", "tables": "2", "boards": "1", "scoring": "imps", "setup": "mitchell-2-1",
        "played_at": "2026-11-01T19:00", "rated": "true",
        "pair-ns1-1": a, "pair-ns1-2": b, "pair-ew1-1": c, "pair-ew1-2": d,
        "pair-ns2-1": e, "pair-ns2-2": f, "pair-ew2-1": g, "pair-ew2-2": h,
        "b1-t1-ns": "1", "b1-t1-ew": "1", "b1-t1-score": "7.5", "b1-t2-ns": "2", "b1-t2-ew": "2",
    }  # fmt: skip
    reading = evening_body(BridgeForm.from_post(form), GAME)
    assert reading.cells == {}
    assert reading.body["scoring"] == "imps"
    assert reading.body["boards"] == [
        {
            "number": 1,
            "tables": [
                {"ns": [a, b], "ew": [c, d], "ns_imps": "7.5", "ns_pair": "1", "ew_pair": "1"},
                {"ns": [e, f], "ew": [g, h], "ns_pair": "2", "ew_pair": "2"},
            ],
        }
    ]
    one = BridgeForm.from_post({**form, "tables": "1", "setup": "mitchell-1-1"})
    assert one.scoring == "imps"
    assert evening_body(one, GAME).body["boards"] == [
        {"number": 1, "tables": [{"ns": [a, b], "ew": [c, d], "ns_imps": "7.5", "ns_pair": "1", "ew_pair": "1"}]}
    ]


def test_the_preview_reads_contracts_with_the_boards_vulnerability(referee, twelve):
    rows = {
        (7, 1): {"ns": "1", "ew": "1", "contract": "4S", "by": "N", "result": "="},  # board 7 all vul: 620
        (7, 2): {"ns": "2", "ew": "2", "contract": "4S", "by": "S", "result": "-1"},  # vul down 1: -100
        (7, 3): {"ns": "3", "ew": "3", "contract": "5Cx", "by": "E", "result": "-2"},  # EW vul, x down 2: +500
    }
    form = three_tables(twelve, rows, boards=7, entry="contract") | {"action": "check", "board": "7"}
    html = post(referee, form)
    # 620 v -100: 720 = 12 IMPs; 620 v 500: 120 = 3; -100 v 500: 600 = 12.
    # Table 1: +12 +3 = +15; table 2: -12 -12 = -24; table 3: -3 +12 = +9.
    assert "Board 7: 1\u20131 +15, 2\u20132 \u221224, 3\u20133 +9" in html
    assert "Table 1 against table 2: NS at table 1 +12 IMPs (win)" in html
    bad = post(referee, form | {"b7-t2-result": "+9"})
    assert "\u201c+9\u201d is not a result of 4S" in bad


def test_without_javascript_a_pairs_player_is_read_from_the_name_typed_in_its_picker(
    referee, twelve, django_capture_on_commit_callbacks
):
    """The search picker posts its hidden id; with JavaScript off only the typed text arrives
    (``pair-…_text``), and the page reads it as the Slaps page does: an exact name, else a number."""
    named = PlayerFactory(name="Ingrid Typed")
    form = three_tables(twelve, GOOD) | {"pair-ew3-2": "", "pair-ew3-2_text": "ingrid typed"}
    with django_capture_on_commit_callbacks(execute=True):
        html = post(referee, form)
    assert 'id="saved"' in html
    assert named.pk in Match.objects.get().seats.values_list("player_id", flat=True)


def test_a_typed_name_that_names_nobody_is_marked_at_its_picker_and_stores_nothing(referee, twelve):
    before = rows_snapshot()
    html = post(referee, three_tables(twelve, GOOD) | {"pair-ew3-2": "", "pair-ew3-2_text": "Nobody Here"})
    assert rows_changed(before, rows_snapshot()) == {}
    assert "EW pair 3, player 2: No player is named \u201cNobody Here\u201d." in html
    marked = re.search(r'<input[^>]*id="pair-ew3-2"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in marked
    assert 'value="Nobody Here"' in marked  # what was typed comes back to be corrected


# --- Rows a movement expects but that have no score ----------------------------------------------------------

#: Board 1 (none vul) at a 3-table Mitchell: tables 1 and 2 scored, table 3 (NS 3 v EW 3) left blank.
HALF = scores(1, ("1", "1", "420"), ("2", "2", "-50"), ("3", "3", ""))


def test_a_half_filled_movement_is_refused_with_the_list_and_stores_nothing(referee, twelve):
    before = rows_snapshot()
    html = post(referee, three_tables(twelve, HALF))
    assert rows_changed(before, rows_snapshot()) == {}
    box = html[html.index('id="confirm-missing"') :]
    assert "Nothing was saved: this table has no score." in box
    assert "Board 1, table 3 (NS 3 v EW 3) has no score" in box
    assert re.search(r'<select name="missing-all" id="missing-all" autofocus>', html)
    # At its row: the choice under board 1's traveller, the score cell described by it.
    board = html[html.index('id="board-1"') : html.index("</fieldset>", html.index('id="board-1"'))]
    assert re.search(r'<select name="b1-t3-missing" id="b1-t3-missing" aria-invalid="true">', board)
    assert 'aria-describedby="missing-b1-t3"' in re.search(r'<input[^>]*id="b1-t3-score"[^>]*>', board).group(0)
    # A choice for another row, or a choice the page does not offer, is no choice.
    again = post(referee, three_tables(twelve, HALF) | {"b1-t2-missing": "skip", "b1-t3-missing": "A+"})
    assert "Nothing was saved: this table has no score." in again
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_missing_row_saved_as_not_played_is_left_out(referee, twelve, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        html = post(referee, three_tables(twelve, HALF) | {"b1-t3-missing": "skip"})
    assert 'id="saved"' in html
    tables = BoardTable.objects.filter(board__match=Match.objects.get()).order_by("table")
    assert [(t.ns_pair, t.ew_pair, t.ns_score, t.adjusted) for t in tables] == [
        ("1", "1", 420, None),
        ("2", "2", -50, None),
    ]


@pytest.mark.parametrize(
    ("choice", "adjusted", "standings"),
    [
        # Top 2 x (3 - 1) = 4 (three tables scored, one adjusted). Two played scores are scaled to three by
        # Neuberg, (MP + 1) x 3 / 2 - 1: 420 (2 MP) 3.5, -50 (0 MP) 0.5; A+ is 60 % of the top, A- 40 %.
        (
            {"b1-t3-missing": "A+/A-"},
            {"ns": "A+", "ew": "A-"},
            [
                *[("NS", "1", "87.50"), ("NS", "3", "60.00"), ("NS", "2", "12.50")],
                *[("EW", "2", "87.50"), ("EW", "3", "40.00"), ("EW", "1", "12.50")],
            ],
        ),
        (
            {"missing-all": "A=/A="},  # for all of them
            {"ns": "A=", "ew": "A="},
            [
                *[("NS", "1", "87.50"), ("NS", "3", "50.00"), ("NS", "2", "12.50")],
                *[("EW", "2", "87.50"), ("EW", "3", "50.00"), ("EW", "1", "12.50")],
            ],
        ),
    ],
    ids=["per row", "for all"],
)
def test_a_missing_row_saved_as_adjusted_counts_in_the_standings(
    referee, twelve, django_capture_on_commit_callbacks, choice, adjusted, standings
):
    with django_capture_on_commit_callbacks(execute=True):
        html = post(referee, three_tables(twelve, HALF) | choice)
    assert 'id="saved"' in html
    match = Match.objects.get()
    third = BoardTable.objects.get(board__match=match, table=3)
    assert (third.ns_pair, third.ew_pair, third.ns_score, third.adjusted) == ("3", "3", None, adjusted)
    ranked = session_standings(bridge_stored_body(match))
    assert [(row["direction"], row["pair"], str(row["score"])) for row in ranked] == standings


@pytest.mark.parametrize(
    ("typed", "adjusted"),
    [
        ("A+", {"ns": "A+", "ew": "A-"}),
        ("a-", {"ns": "A-", "ew": "A+"}),
        ("A=", {"ns": "A=", "ew": "A="}),
        ("A\u2212/A\u2212", {"ns": "A-", "ew": "A-"}),  # both at fault, typed with a real minus
        ("A+/A=", {"ns": "A+", "ew": "A="}),
        ("A60/40", {"ns": 60.0, "ew": 40.0}),
        ("55/45", {"ns": 55.0, "ew": 45.0}),
    ],
)
def test_an_adjusted_score_typed_in_its_cell_is_stored_as_adjusted(
    referee, twelve, django_capture_on_commit_callbacks, typed, adjusted
):
    rows = scores(1, ("1", "1", "420"), ("2", "2", "-50"), ("3", "3", typed))
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, three_tables(twelve, rows))
    third = BoardTable.objects.get(table=3)
    assert (third.ns_score, third.adjusted) == (None, adjusted)


@pytest.mark.parametrize("typed", ["A7", "A+-+", "A70/", "A120/0", "A/B"])
def test_an_adjusted_score_that_does_not_read_is_refused_at_its_cell(referee, twelve, typed):
    rows = scores(1, ("1", "1", "420"), ("2", "2", "-50"), ("3", "3", typed))
    html = post(referee, three_tables(twelve, rows))
    assert "Board 1, table 3: an adjusted score is A+, A= or A\u2212 (NS\u2019s; EW get the other)" in html
    cell = re.search(r'<input[^>]*id="b1-t3-score"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in cell
    assert " autofocus" in cell
    assert 'id="error-b1-t3-score"' in html  # the message under the board, read with its cell
    assert not Match.objects.exists()


def test_a_sit_out_pairs_rows_are_not_asked_about(referee, twelve, django_capture_on_commit_callbacks):
    """EW pair 3 has no players (they did not come): its row stays blank, nothing is missing."""
    form = three_tables(twelve, HALF) | {"pair-ew3-1": "", "pair-ew3-2": ""}
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, form)
    assert BoardTable.objects.count() == 2


def test_missing_rows_and_empty_boards_are_asked_together(referee, twelve, django_capture_on_commit_callbacks):
    form = three_tables(twelve, HALF, boards=2)
    asked = post(referee, form)
    assert "Board 1, table 3 (NS 3 v EW 3) has no score" in asked
    assert "You declared 2 boards and filled 1 (board 2 empty): save anyway?" in asked
    button = re.search(
        r'<button type="submit" name="action" value="(\w+)"[^>]*>([^<]*)</button>',
        asked[asked.index('id="confirm-missing"') :],
    )
    assert button.groups() == ("save_short", "Save 1 board with these choices")
    assert not Match.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        saved = post(referee, form | {"action": "save_short", "missing-all": "skip"})
    assert 'id="saved"' in saved
    assert BoardTable.objects.count() == 2


def test_a_score_the_cleaner_refuses_comes_before_the_questions(referee, twelve):
    """An impossible score and a missing row: the score is marked at its cell, the row listed; nothing saved."""
    rows = scores(1, ("1", "1", "620"), ("2", "2", "-50"), ("3", "3", ""))  # board 1, none vul: 620 cannot be
    html = post(referee, three_tables(twelve, rows))
    assert "Board 1, table 1: +620 cannot be scored when neither side is vulnerable" in html
    cell = re.search(r'<input[^>]*id="b1-t1-score"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in cell
    assert " autofocus" in cell
    assert "Board 1, table 3 (NS 3 v EW 3) has no score" in html
    assert not Match.objects.exists()


# --- Scores that can happen, in the preview ------------------------------------------------------------------


def test_the_preview_flags_a_score_the_board_cannot_have_at_its_cell_in_the_cleaners_words(referee, twelve):
    # Board 3: EW vulnerable. 620 is NS's vulnerable game: NS are not vulnerable here, where 4H or 4S making
    # scores 420. 425 is no score at all.
    rows = scores(3, ("1", "3", "420"), ("2", "2", "620"), ("3", "1", "-50"))
    form = three_tables(twelve, rows, boards=3)
    preview = post(referee, form | {"action": "check", "board": "3"})
    said = "Board 3, table 2: +620 cannot be scored when EW are vulnerable (4\u2665 or 4\u2660 making is 420)"
    assert said in preview
    assert 'data-cell="b3-t2-score"' in preview
    # The cleaner says the same on saving (the evening saved short, boards 1 and 2 left empty).
    saved = post(referee, form | {"action": "save_short"})
    assert said in saved
    assert not Match.objects.exists()
    # A redraw marks it too, described by the preview: before any save.
    redrawn = post(referee, form | {"action": "add_board"})
    cell = re.search(r'<input[^>]*id="b3-t2-score"[^>]*>', redrawn).group(0)
    assert 'aria-invalid="true"' in cell
    assert 'aria-describedby="preview-3"' in cell
    assert "data-preview-flag" in cell
    # In the contract mode, a score typed in the contract cell is checked the same way.
    contract = scores(3, ("1", "3", ""), ("2", "2", ""))
    contract = {key: {"ns": cells["ns"], "ew": cells["ew"], "contract": "620"} for key, cells in contract.items()}
    flagged = post(
        referee, three_tables(twelve, contract, boards=3, entry="contract") | {"action": "check", "board": "3"}
    )
    assert "Board 3, table 1: +620 cannot be scored when EW are vulnerable" in flagged
    assert 'data-cell="b3-t1-contract"' in flagged
    fine = post(referee, form | {"b3-t2-score": "-100", "action": "check", "board": "3"})
    assert "data-cell" not in fine


# --- The setup: scoring and movement ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tables", "posted", "scoring"),
    [
        ("3", "", "matchpoints"),
        ("3", "butler", "butler"),
        ("3", "cross_imps", "cross_imps"),
        ("3", "imps", "matchpoints"),  # a team match is one or two tables
        ("2", "scores", "cross_imps"),  # the page's old word for NS scores at both tables
        ("2", "matchpoints", "matchpoints"),
        ("2", "imps", "imps"),
        ("1", "butler", "imps"),  # one table: only IMPs compare
    ],
)
def test_the_scoring_is_one_the_tables_can_have(tables, posted, scoring):
    assert BridgeForm.from_post({"tables": tables, "scoring": posted}).scoring == scoring


def test_the_scoring_select_offers_what_the_tables_can_have(referee):
    page = Client()
    page.force_login(referee)
    html = page.get("/results/bridge/").content.decode()
    select = html[html.index('<select name="scoring"') : html.index("</select>", html.index('<select name="scoring"'))]
    assert re.findall(r'<option value="(\w+)"( selected)?', select) == [
        ("matchpoints", " selected"),
        ("cross_imps", ""),
        ("butler", ""),
    ]


def test_a_free_movement_sends_howell_with_the_pair_numbers_as_typed(twelve):
    form = {
        "movement": "free", "tables": "2", "boards": "1", "setup": "free-2-1", "scoring": "butler",
        "played_at": "2026-11-01T19:00",
        "pair-1-1": str(twelve[0]), "pair-1-2": str(twelve[1]), "pair-2-1": str(twelve[2]), "pair-2-2": str(twelve[3]),
        "pair-3-1": str(twelve[4]), "pair-3-2": str(twelve[5]), "pair-4-1": str(twelve[6]), "pair-4-2": str(twelve[7]),
        "b1-t1-ns": "4", "b1-t1-ew": "1", "b1-t1-score": "420", "b1-t2-ns": "03", "b1-t2-ew": "2", "b1-t2-score": "-50",
    }  # fmt: skip
    reading = evening_body(BridgeForm.from_post(form), GAME)
    assert (reading.body["movement"], reading.body["scoring"]) == ("howell", "butler")
    assert [(t["ns_pair"], t["ew_pair"]) for t in reading.body["boards"][0]["tables"]] == [("4", "1"), ("3", "2")]


# --- Corrections keep what the page sent ----------------------------------------------------------------------


def test_a_session_entered_here_comes_back_for_correction_with_its_pairs_contracts_and_scoring(
    referee, twelve, django_capture_on_commit_callbacks
):
    from tests.factories import AdminFactory
    from tests.test_admin_matches import the_entry_form

    rows = {
        (1, 1): {"ns": "1", "ew": "1", "contract": "4S", "by": "N", "result": "="},  # 420
        (1, 2): {"ns": "2", "ew": "2", "contract": "3NT", "by": "S", "result": "+1"},  # 430
        (1, 3): {"ns": "3", "ew": "3", "contract": "A60/40"},  # adjusted
        (2, 1): {"ns": "1", "ew": "2", "contract": "Pass"},
        (2, 2): {"ns": "2", "ew": "3", "contract": "2H", "by": "E", "result": "-1"},  # board 2: EW NV, +50
        (2, 3): {"ns": "3", "ew": "1", "contract": "-100"},  # a score in the contract cell
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert 'id="saved"' in post(referee, three_tables(twelve, rows, boards=2, entry="contract", scoring="butler"))
    match = Match.objects.get()
    admin = Client()
    admin.force_login(AdminFactory())
    url = f"/results/bridge/?correct={match.pk}"
    form = the_entry_form(admin.get(url).content.decode())
    assert (form["movement"], form["tables"], form["entry"], form["scoring"]) == ("mitchell", "3", "contract", "butler")
    assert {f"pair-{key}-{n}": form[f"pair-{key}-{n}"] for key in ("ns1", "ew3") for n in (1, 2)} == {
        "pair-ns1-1": str(twelve[0]),
        "pair-ns1-2": str(twelve[1]),
        "pair-ew3-1": str(twelve[10]),
        "pair-ew3-2": str(twelve[11]),
    }
    typed = {(b, t): [form[f"b{b}-t{t}-{name}"] for name in ("ns", "ew", "contract", "by", "result")] for b, t in rows}
    assert typed == {
        (1, 1): ["1", "1", "4S", "N", "="],
        (1, 2): ["2", "2", "3NT", "S", "+1"],
        (1, 3): ["3", "3", "A60/40", "", ""],
        (2, 1): ["1", "2", "Pass", "", ""],
        (2, 2): ["2", "3", "2H", "E", "-1"],
        (2, 3): ["3", "1", "-100", "", ""],
    }
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        unchanged = admin.post(url, form, follow=True)
    assert "No change: the result is as stored; nothing was replayed." in unchanged.content.decode()
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(url, form | {"b1-t2-result": "="})  # 3NT making: 400
    assert BoardTable.objects.get(board__match=match, board__number=1, table=2).ns_score == 400


def test_a_session_without_pair_numbers_is_corrected_without_adding_them(
    referee, twelve, django_capture_on_commit_callbacks
):
    """Stored by the API with no scoring, movement or pair numbers: the page numbers its partnerships to show
    them, and saving unchanged adds none of it; a changed score is stored, still without them."""
    from matches.services import match_submit
    from tests.factories import AdminFactory
    from tests.test_admin_matches import the_entry_form

    a, b, c, d, e, f, g, h, i, j, k, m = twelve
    tables = [([a, b], [c, d]), ([e, f], [g, h]), ([i, j], [k, m])]
    body = {
        "game": "bridge",
        "played_at": "2026-11-01T19:00:00+00:00",
        "boards": [
            {
                "number": 1,
                "tables": [
                    {"ns": ns, "ew": ew, "ns_score": s} for (ns, ew), s in zip(tables, (420, -50, 170), strict=True)
                ],
            }
        ],
    }
    with django_capture_on_commit_callbacks(execute=True):
        match = match_submit(referee=referee, data=body)
    admin = Client()
    admin.force_login(AdminFactory())
    url = f"/results/bridge/?correct={match.pk}"
    form = the_entry_form(admin.get(url).content.decode())
    assert (form["movement"], form["scoring"], form["b1-t3-ns"], form["b1-t3-ew"]) == ("free", "cross_imps", "5", "6")
    before = rows_snapshot()
    response = admin.post(url, form, follow=True)
    assert "No change: the result is as stored; nothing was replayed." in response.content.decode()
    assert rows_changed(before, rows_snapshot()) == {}
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(url, form | {"b1-t3-score": "140"})
    match.refresh_from_db()
    assert match.facts in ({}, None)
    assert [(t.ns_pair, t.ns_score) for t in BoardTable.objects.filter(board__match=match).order_by("table")] == [
        ("", 420),
        ("", -50),
        ("", 140),
    ]
