"""Contract scoring, vulnerability and movements of the bridge entry page, against hand values.

Expected scores are the Laws' (Law 77) worked by hand in the comments; the
whole table (7 levels x 5 strains x 3 doublings x 2 vulnerabilities x 14
trick counts) was also compared once with endplay 0.5.12's ``Contract.score``
and agreed in all 2,940 cases (docs/bridge-entry.md).
"""

from collections import Counter
from itertools import combinations

import pytest

from games.bridge.movements import board_set_of, howell, mitchell, traveller_prefill
from games.bridge.scoring import (
    Contract,
    board_dealer,
    board_vulnerability,
    contract_parse,
    contract_score,
    traveller_score,
    tricks_parse,
)


@pytest.mark.parametrize(
    ("contract", "declarer", "result", "board", "expected"),
    [
        ("4S", "N", "=", 1, 420),  # NV: 4x30 = 120 + 300 game
        ("3NT", "S", "+1", 2, 630),  # NS vul: 40+30+30 = 100 + 500 game + 30 overtrick
        ("1NTx", "E", "-2", 3, 500),  # EW vul doubled down 2: 200 + 300, NS +500
        ("7NTxx", "N", "=", 4, 2980),  # all vul: 220x4 = 880 + 500 + 1500 grand + 100 insult
        ("2Cx", "W", "=", 1, -180),  # NV: 40x2 = 80 part score + 50 + 50 insult, EW's
        ("6H", "N", "-1", 2, -100),  # NS vul, undoubled down 1
        ("Pass", "", "", 7, 0),  # passed out
        ("4♠", "N", "10", 1, 420),  # tricks taken instead of "="
        ("3nt", "w", "9", 1, -400),  # NV: 100 + 300
        ("4HXX", "S", "=", 1, 880),  # NV: 120x4 = 480 + 300 game + 100 insult
        ("1Sx", "N", "+1", 1, 260),  # NV: 60 + 50 + 50 insult + 100 doubled overtrick
        ("3Dx", "E", "-4", 1, 800),  # NV doubled down 4: 100 + 200 + 200 + 300
        ("5Cxx", "N", "-3", 4, -1600),  # vul redoubled down 3: (200 + 300 + 300) x 2
        ("6NT", "E", "=", 1, -990),  # NV: 190 + 300 + 500 small slam
        ("7C", "S", "=", 2, 2140),  # NS vul: 140 + 500 + 1500
        ("2H", "N", "+2", 1, 170),  # NV: 60 + 50 + 60
    ],
)
def test_traveller_scores_are_the_hand_calculated_ones(contract, declarer, result, board, expected):
    assert traveller_score(contract=contract, declarer=declarer, result=result, board=board) == (expected, "")


def test_vulnerability_and_dealer_follow_the_sixteen_board_cycle():
    # Law 2, by hand: 1 none/N, 2 NS/E, 3 EW/S, 4 all/W, 5 NS/N, ... 16 EW/W, then 17 = 1.
    table = [
        "none",
        "ns",
        "ew",
        "both",
        "ns",
        "ew",
        "both",
        "none",
        "ew",
        "both",
        "none",
        "ns",
        "both",
        "none",
        "ns",
        "ew",
    ]
    for board in range(1, 33):
        assert board_vulnerability(board) == table[(board - 1) % 16]
        assert board_dealer(board) == "NESW"[(board - 1) % 4]


@pytest.mark.parametrize(
    "text", ["", "8S", "0NT", "4", "S4", "4Z", "4SXXX", "4 S X X X", "NT", "<script>", "4S; drop", "\uff11S", "4♠♠"]
)
def test_garbage_contracts_are_refused(text):
    assert contract_parse(text) is None


@pytest.mark.parametrize(
    ("text", "contract"),
    [("4S", Contract(4, "S")), ("4♠", Contract(4, "S")), ("3NTx", Contract(3, "N", 1)), ("4HXX", Contract(4, "H", 2))],
)
def test_common_notations_read(text, contract):
    assert contract_parse(text) == contract


@pytest.mark.parametrize("result", ["+0", "-0", "+2", "14", "-14", "x", "", "=1", "1.5"])
def test_impossible_results_are_refused(result):
    # 6NT needs 12 tricks: +2 would be 14
    assert tricks_parse(result, Contract(6, "N")) is None


def test_a_traveller_with_a_bad_declarer_or_result_says_which():
    assert traveller_score(contract="4S", declarer="X", result="=", board=1)[0] is None
    assert "declarer" in traveller_score(contract="4S", declarer="", result="=", board=1)[1]
    assert "not a result of 4S" in traveller_score(contract="4S", declarer="N", result="+4", board=1)[1]


def test_downtricks_undoubled_and_doubled_by_hand():
    nv, v = False, True
    doubled = Contract(4, "S", 1)
    # NV doubled: 100, 300, 500, 800, 1100; vul doubled: 200, 500, 800, 1100
    assert [contract_score(doubled, 10 - n, vulnerable=nv) for n in range(1, 6)] == [-100, -300, -500, -800, -1100]
    assert [contract_score(doubled, 10 - n, vulnerable=v) for n in range(1, 5)] == [-200, -500, -800, -1100]
    assert contract_score(Contract(4, "S"), 7, vulnerable=v) == -300


def _check_movement(seatings, pairs_of, boards_played_times):
    meetings = Counter()
    played = Counter()
    per_round_tables = Counter()
    for seating in seatings:
        meetings[frozenset((pairs_of("ns", seating.ns), pairs_of("ew", seating.ew)))] += 1
        for pair in (pairs_of("ns", seating.ns), pairs_of("ew", seating.ew)):
            played[(pair, seating.board_set)] += 1
        per_round_tables[(seating.round, seating.table)] += 1
    assert max(meetings.values()) == 1, "a pair meets another twice"
    assert max(played.values()) == 1, "a pair plays a board set twice"
    assert max(per_round_tables.values()) == 1
    sets = Counter(seating.board_set for seating in seatings)
    assert set(sets.values()) == {boards_played_times}
    return meetings


@pytest.mark.parametrize("tables", range(2, 16))
def test_mitchell_no_pair_meets_a_board_or_pair_twice(tables):
    seatings = mitchell(tables)
    rounds = tables if tables % 2 else tables - 1
    assert len(seatings) == rounds * tables
    meetings = _check_movement(seatings, lambda side, number: (side, number), rounds)
    assert len(meetings) == rounds * tables
    # every round seats every NS and every EW pair once
    for r in range(1, rounds + 1):
        this = [s for s in seatings if s.round == r]
        assert sorted(s.ns for s in this) == sorted(s.ew for s in this) == list(range(1, tables + 1))


@pytest.mark.parametrize("tables", range(2, 16))
def test_howell_every_pair_meets_every_other_once(tables):
    seatings = howell(tables)
    pairs = 2 * tables
    assert len(seatings) == (pairs - 1) * tables
    meetings = _check_movement(seatings, lambda side, number: number, tables)
    assert set(meetings) == {frozenset(pair) for pair in combinations(range(1, pairs + 1), 2)}
    for r in range(1, pairs):
        this = [s for s in seatings if s.round == r]
        assert sorted([s.ns for s in this] + [s.ew for s in this]) == list(range(1, pairs + 1))


def test_howell_tables_play_different_sets_where_the_search_finds_them():
    for tables in (4, 6, 7, 8):
        for r in range(1, 2 * tables):
            sets = [s.board_set for s in howell(tables) if s.round == r]
            assert len(set(sets)) == tables


def test_three_table_mitchell_travellers_by_hand():
    # Round 1: T1 1-1 set 1, T2 2-2 set 2, T3 3-3 set 3; EW move up, boards down.
    # Round 2: T1 1-3 set 2, T2 2-1 set 3, T3 3-2 set 1; round 3: T1 1-2 set 3, T2 2-3 set 1, T3 3-1 set 2.
    # A traveller's rows go by table: set 1 is at T1 1-1, T2 2-3, T3 3-2 (NS pair t sits at table t).
    rows = traveller_prefill("mitchell", 3, 6)
    assert rows[1] == rows[2] == [(1, 1), (2, 3), (3, 2)]
    assert rows[3] == rows[4] == [(1, 3), (2, 2), (3, 1)]
    assert rows[5] == rows[6] == [(1, 2), (2, 1), (3, 3)]
    assert traveller_prefill("free", 3, 6) == {}


def test_an_even_table_mitchells_skipped_table_is_an_empty_row_at_its_place():
    # 4 tables, 3 rounds. Round 1: set 1 at T1 v EW 1. Round 2 (EW up one, boards down one): set 1 at
    # T4 v EW 3. Round 3, after the skip (EW up two, boards down one): set 1 at T3 v EW 4. T2 never.
    assert traveller_prefill("mitchell", 4, 8)[1] == [(1, 1), None, (3, 4), (4, 3)]


def test_boards_spread_over_sets_in_order():
    assert [board_set_of(b, 24, 5) for b in range(1, 25)] == [1] * 5 + [2] * 5 + [3] * 5 + [4] * 5 + [5] * 4
    assert [board_set_of(b, 6, 3) for b in range(1, 7)] == [1, 1, 2, 2, 3, 3]
