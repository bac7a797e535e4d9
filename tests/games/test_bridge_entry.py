"""The bridge evening's entry page: pairs once, travellers by pair number, the body it builds, hostile input.

Expected bodies and IMPs are written by hand here (WBF scale: 220-260 = 6, 430-490 = 10 ...), never
taken from the page or the engine.
"""

import re
from types import SimpleNamespace

import pytest
from django.test import Client

from games.bridge.results import bridge_stored_body
from games.bridge.standings import session_standings
from games.bridge.views import BridgeForm, evening_body
from matches.models import BoardTable, Match
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
