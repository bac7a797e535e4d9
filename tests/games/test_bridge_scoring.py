"""Contract scoring, vulnerability and movements of the bridge entry page, against hand values.

Expected scores are the Laws' (Law 77) worked by hand in the comments; the
whole table (7 levels x 5 strains x 3 doublings x 2 vulnerabilities x 14
trick counts) was also compared once with endplay 0.5.12's ``Contract.score``
and agreed in all 2,940 cases (docs/bridge-entry.md). The scores a board can have are checked against the
test's own reading of the Law's table (``_law_77``) and by hand, and every contract row of the real result files
in ../shared/data/bridge-results must score as its file prints it.
"""

import re
from collections import Counter
from itertools import combinations

import pytest
from defusedxml.ElementTree import parse as xml_parse

from games.bridge.movements import board_set_of, howell, mitchell, traveller_prefill
from games.bridge.scoring import (
    Contract,
    board_dealer,
    board_vulnerability,
    board_vulnerability_name,
    contract_parse,
    contract_score,
    ns_score,
    ns_score_problem,
    possible_ns_scores,
    traveller_score,
    tricks_parse,
    vulnerability_parse,
)
from tests.shared_data import shared_data


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


# --- The Law 77 table, by hand ----------------------------------------------------------------------------------
#
# Law 77, as used below. Trick points per odd trick bid: clubs, diamonds 20; hearts, spades 30; no trumps 40 for
# the first and 30 for each other; doubled x2, redoubled x4. 100 trick points or more is a game: bonus 300 not
# vulnerable, 500 vulnerable; less is a part-score: 50. Small slam 500 / 750, grand slam 1000 / 1500. Making a
# doubled contract 50, a redoubled one 100. Overtricks: undoubled their trick value; doubled 100 / 200 each,
# redoubled 200 / 400. Undertricks not vulnerable: 50 each undoubled; doubled 100 for the first, 200 for the
# second and third, 300 from the fourth on; vulnerable: 100 each undoubled; doubled 200 then 300 each;
# redoubled twice the doubled.

NV, V = False, True


@pytest.mark.parametrize(
    ("contract", "vulnerable", "tricks", "expected"),
    [
        # part-scores (the same at both vulnerabilities)
        ("1C", NV, 7, 70),  # 20 + 50
        ("1C", V, 7, 70),  # 20 + 50
        ("2D", V, 9, 110),  # 40 + 20 overtrick + 50
        ("1N", NV, 7, 90),  # 40 + 50
        ("1N", NV, 8, 120),  # 40 + 30 + 50
        ("1N", V, 9, 150),  # 40 + 2 x 30 + 50
        ("2S", NV, 8, 110),  # 60 + 50
        ("3H", NV, 10, 170),  # 90 + 30 + 50
        ("2N", V, 8, 120),  # 40 + 30 + 50
        ("4C", NV, 10, 130),  # 80 + 50: four clubs is not a game
        # games
        ("3N", NV, 9, 400),  # 40 + 30 + 30 = 100 + 300
        ("3N", V, 9, 600),  # 100 + 500
        ("3N", V, 11, 660),  # 100 + 500 + 2 x 30
        ("4H", NV, 10, 420),  # 120 + 300
        ("4H", V, 10, 620),  # 120 + 500
        ("4S", V, 11, 650),  # 120 + 500 + 30
        ("5D", NV, 11, 400),  # 100 + 300
        ("5C", V, 12, 620),  # 100 + 500 + 20
        # slams
        ("6S", NV, 12, 980),  # 180 + 300 + 500
        ("6S", V, 12, 1430),  # 180 + 500 + 750
        ("6N", V, 12, 1440),  # 190 + 500 + 750
        ("6C", NV, 13, 940),  # 120 + 20 + 300 + 500
        ("7N", NV, 13, 1520),  # 220 + 300 + 1000
        ("7N", V, 13, 2220),  # 220 + 500 + 1500
        ("7C", V, 13, 2140),  # 140 + 500 + 1500
        # doubled, making
        ("1CX", NV, 7, 140),  # 20 x 2 = 40 part-score + 50 + 50 for the double
        ("1CX", V, 8, 340),  # 40 + 50 + 50 + 200 doubled overtrick vulnerable
        ("2HX", NV, 8, 470),  # a doubled part-score made into game: 60 x 2 = 120 + 300 + 50
        ("2HX", V, 8, 670),  # 120 + 500 + 50
        ("3DX", NV, 9, 470),  # 60 x 2 = 120 + 300 + 50
        ("1NX", NV, 7, 180),  # 40 x 2 = 80 part-score + 50 + 50
        ("1NX", NV, 8, 280),  # 180 + 100
        ("1NX", V, 8, 380),  # 80 + 50 + 50 + 200
        ("2NX", NV, 8, 490),  # 70 x 2 = 140 + 300 + 50
        ("4SX", NV, 10, 590),  # 240 + 300 + 50
        ("4SX", V, 10, 790),  # 240 + 500 + 50
        ("3NX", NV, 10, 650),  # 200 + 300 + 50 + 100
        ("6HX", V, 12, 1660),  # 360 + 500 + 750 + 50
        ("7NX", V, 13, 2490),  # 440 + 500 + 1500 + 50
        # redoubled, making
        ("1CXX", NV, 7, 230),  # 20 x 4 = 80, a part-score: 80 + 50 + 100
        ("1CXX", V, 8, 630),  # 80 + 50 + 100 + 400 redoubled overtrick vulnerable
        ("1NXX", NV, 7, 560),  # 40 x 4 = 160, a game: 160 + 300 + 100
        ("1NXX", V, 8, 1160),  # a redoubled overtrick: 160 + 500 + 100 + 400
        ("1NXX", NV, 8, 760),  # 160 + 300 + 100 + 200
        ("2DXX", NV, 8, 560),  # 40 x 4 = 160 + 300 + 100
        ("4SXX", NV, 10, 880),  # 480 + 300 + 100
        ("6SXX", V, 13, 2470),  # 720 + 500 + 750 + 100 + 400
        ("7NXX", V, 13, 2980),  # 880 + 500 + 1500 + 100
        # undoubled, down
        ("4S", NV, 9, -50),
        ("4S", NV, 7, -150),  # 3 x 50
        ("4S", V, 9, -100),
        ("4S", V, 6, -400),  # 4 x 100
        ("7N", V, 0, -1300),  # 13 x 100
        ("7N", NV, 0, -650),  # 13 x 50
        # doubled, down
        ("3NX", NV, 8, -100),
        ("3NX", NV, 7, -300),  # 100 + 200
        ("3NX", NV, 6, -500),  # 100 + 200 + 200
        ("3NX", NV, 5, -800),  # 100 + 200 + 200 + 300
        ("7NX", NV, 0, -3500),  # 100 + 200 + 200 + 10 x 300
        ("3NX", V, 8, -200),
        ("3NX", V, 7, -500),  # 200 + 300
        ("3NX", V, 6, -800),  # 200 + 300 + 300
        ("7NX", V, 0, -3800),  # 200 + 12 x 300
        # redoubled, down
        ("2HXX", NV, 7, -200),  # 2 x 100
        ("2HXX", NV, 5, -1000),  # 2 x (100 + 200 + 200)
        ("2HXX", NV, 4, -1600),  # 2 x 800
        ("2HXX", V, 7, -400),  # 2 x 200
        ("2HXX", V, 6, -1000),  # 2 x 500
        ("7NXX", NV, 0, -7000),  # 2 x 3500
        ("7NXX", V, 0, -7600),  # 2 x 3800
    ],
)
def test_law_77_scores_by_hand(contract, vulnerable, tricks, expected):
    assert contract_score(contract_parse(contract), tricks, vulnerable=vulnerable) == expected


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("None", "None"),
        ("NS", "NS"),
        ("EW", "EW"),
        ("All", "All"),
        ("Love", "None"),
        ("-", "None"),
        ("Both", "All"),
        (" both ", "All"),
        ("ns", "NS"),
        ("all", "All"),
        ("", None),
        ("N", None),
        ("NSEW", None),
        ("vul", None),
    ],
)
def test_vulnerability_read_in_the_apis_and_pbns_words(text, name):
    assert vulnerability_parse(text) == name


def test_board_vulnerability_names_follow_the_cycle():
    # Law 2: boards 1-16 are None, NS, EW, All, NS, EW, All, None, EW, All, None, NS, All, None, NS, EW; 17 = 1
    cycle = ["None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
    assert [board_vulnerability_name(board) for board in range(1, 33)] == cycle * 2


def test_the_given_vulnerability_overrides_the_board_numbers():
    four_spades = Contract(4, "S")
    # board 1 is None: 420; told NS are vulnerable, 4S by North is 620 and by East (not vulnerable) -420
    assert ns_score(four_spades, "N", 10, board=1) == 420
    assert ns_score(four_spades, "N", 10, board=1, vulnerability="NS") == 620
    assert ns_score(four_spades, "E", 10, board=1, vulnerability="NS") == -420
    assert ns_score(four_spades, "W", 10, vulnerability="Both") == -620
    # 3NTX one down by South on an "EW" board: NS not vulnerable, NS -100
    assert ns_score(Contract(3, "N", 1), "S", 8, vulnerability="EW") == -100
    assert traveller_score(contract="4S", declarer="N", result="=", board=1, vulnerability="All") == (620, "")
    with pytest.raises(ValueError, match="not a vulnerability"):
        ns_score(four_spades, "N", 10, vulnerability="red")


# --- Which scores a board can have --------------------------------------------------------------------------------


def _law_77(level: int, strain: str, doubled: int, vulnerable: bool, tricks: int) -> int:
    """Declarer's score from the Law's table itself, trick by trick: the test's own reading, not the module's."""
    needed = level + 6
    if tricks < needed:
        # the penalty for each undertrick in turn (1st, 2nd, 3rd, 4th and on), undoubled / doubled
        rates = {
            (False, 0): (50, 50, 50, 50),
            (False, 1): (100, 200, 200, 300),
            (True, 0): (100, 100, 100, 100),
            (True, 1): (200, 300, 300, 300),
        }[(vulnerable, min(doubled, 1))]
        penalty = sum(rates[min(n, 3)] for n in range(needed - tricks))
        return -penalty * (2 if doubled == 2 else 1)
    per_trick = {"C": 20, "D": 20, "H": 30, "S": 30, "N": 30}[strain]
    factor = (1, 2, 4)[doubled]
    points = sum(per_trick + (10 if strain == "N" and n == 0 else 0) for n in range(level)) * factor
    score = points + ((500 if vulnerable else 300) if points >= 100 else 50)
    score += {6: 750 if vulnerable else 500, 7: 1500 if vulnerable else 1000}.get(level, 0)
    score += (0, 50, 100)[doubled]
    each_over = (per_trick, 200 if vulnerable else 100, 400 if vulnerable else 200)[doubled]
    return score + (tricks - needed) * each_over


def _law_77_set(ns_vulnerable: bool, ew_vulnerable: bool) -> set[int]:
    scores = {0}
    for level in range(1, 8):
        for strain in "CDHSN":
            for doubled in (0, 1, 2):
                for tricks in range(14):
                    scores.add(_law_77(level, strain, doubled, ns_vulnerable, tricks))
                    scores.add(-_law_77(level, strain, doubled, ew_vulnerable, tricks))
    return scores


@pytest.mark.parametrize(
    ("vulnerability", "ns_vulnerable", "ew_vulnerable", "size"),
    [("None", NV, NV, 283), ("NS", V, NV, 315), ("EW", NV, V, 315), ("All", V, V, 343)],
)
def test_possible_scores_are_the_laws_table_for_either_side(vulnerability, ns_vulnerable, ew_vulnerable, size):
    # The sizes are the test's own table's (_law_77_set), which imports nothing from the module.
    expected = _law_77_set(ns_vulnerable, ew_vulnerable)
    assert len(expected) == size
    assert possible_ns_scores(vulnerability) == expected
    assert possible_ns_scores(vulnerability) is possible_ns_scores(vulnerability)  # worked out once, kept


def test_possible_scores_spot_checked_by_hand():
    none, ns, ew, both = (possible_ns_scores(v) for v in ("None", "NS", "EW", "All"))
    # NS score 620 is 4H/4S making vulnerable (120 + 500). Not vulnerable NS cannot make it: undoubled games
    # are 400-520 and slams 920 on; doubled ones are 2 x points + 350 (+ 100 an overtrick): 620 - 350 = 270,
    # 170, 70, no multiple of 20; redoubled 4 x points + 400 + 200 each: 220 or 20, no multiple of 80; and EW
    # going down gives multiples of 50. So 620 only when NS are vulnerable.
    assert [620 in scores for scores in (none, ns, ew, both)] == [False, True, False, True]
    assert [-620 in scores for scores in (none, ns, ew, both)] == [False, False, True, True]
    # Below 200 NS get: EW one down not vulnerable 50, 100 (two down, or one down doubled), 150; and NS making
    # a part-score: 1C 70, 1S 80, 1NT 90, 2C 90, ... every multiple of 10 from 70 to 190 (2C+5 190, 1NTX 180).
    low = {50, *range(70, 200, 10)}
    assert {score for score in none if 0 < score < 200} == low
    assert {score for score in ns if 0 < score < 200} == low
    # EW vulnerable go one down for 100, so 50 is gone
    assert {score for score in ew if 0 < score < 200} == low - {50}
    assert {score for score in both if 0 < score < 200} == low - {50}
    for scores in (none, ns, ew, both):
        assert {10, 20, 30, 40, 60, 4200, 425} & scores == set()
        assert 0 in scores  # passed out
    # the extremes: EW in 7NTXX taking no trick, 2 x (100 + 200 + 200 + 10 x 300) = 7000 not vulnerable,
    # 2 x (200 + 12 x 300) = 7600 vulnerable; NS's best making is 7NTXX vulnerable, 2980
    assert [max(scores) for scores in (none, ns, ew, both)] == [7000, 7000, 7600, 7600]
    assert [2980 in scores for scores in (none, ns, ew, both)] == [False, True, False, True]
    # either side's view of the same table: what NS can score at "NS" EW can score at "EW"
    assert ns == {-score for score in ew}
    assert none == {-score for score in none}
    assert both == {-score for score in both}


@pytest.mark.parametrize(
    ("score", "vulnerability", "message"),
    [
        # the three: a typo for 420, the wrong vulnerability, and a number no board gives
        (4200, "None", "+4200 is not a bridge score: did you mean +420?"),
        (420, "NS", "+420 cannot be scored when NS are vulnerable (4\u2665 or 4\u2660 making is 620)"),
        (10, "None", "+10 is not a bridge score: the smallest plus score is +50"),
        # EW vulnerable go one down for 100: the smallest NS plus score is 1C making, 70
        (10, "EW", "+10 is not a bridge score: the smallest plus score is +70"),
        (-10, "All", "-10 is not a bridge score: the smallest minus score is -70"),
        (425, "None", "+425 is not a bridge score: every score is a multiple of 10"),
        (
            4200,
            "NS",
            "+4200 is not a bridge score; "
            "+420 cannot be scored when NS are vulnerable (4\u2665 or 4\u2660 making is 620)",
        ),
        (-420, "EW", "-420 cannot be scored when EW are vulnerable (4\u2665 or 4\u2660 making by EW is -620)"),
        (620, "None", "+620 cannot be scored when neither side is vulnerable (4\u2665 or 4\u2660 making is 420)"),
        # 2HX making is 470 not vulnerable (above); vulnerable 670
        (470, "All", "+470 cannot be scored when both sides are vulnerable (2\u2665X or 2\u2660X making is 670)"),
        # EW not vulnerable one down is 50; vulnerable it is 100
        (50, "EW", "+50 cannot be scored when EW are vulnerable (1 down by EW is 100)"),
        # EW one down not vulnerable is 50 and NS's smallest part-score 1C making, 70: nothing between
        (60, "None", "+60 is not a bridge score: did you mean +50 or +70?"),
        (6200, "NS", "+6200 is not a bridge score: did you mean +620?"),  # 4H/4S making, NS vulnerable
    ],
)
def test_impossible_scores_say_why_in_a_referees_words(score, vulnerability, message):
    assert ns_score_problem(score, vulnerability) == message


@pytest.mark.parametrize(
    ("score", "vulnerability"),
    [(0, "None"), (420, "None"), (620, "NS"), (-620, "EW"), (50, "NS"), (1160, "NS"), (-7600, "All"), (470, "EW")],
)
def test_possible_scores_have_no_problem(score, vulnerability):
    assert ns_score_problem(score, vulnerability) is None


# --- Every played row of the real result files --------------------------------------------------------------------
#
# A small reading of our own, by column name (SOURCES.md beside the files): PBN ScoreTable rows under their game's
# [Board] and [Vulnerable] tags, Result the tricks declarer took, the score in Score_NS or else Score_EW; USEBIO
# TRAVELLER_LINEs under BOARD/BOARD_NUMBER, SCORE NS's, vulnerability by the board number's cycle. Adjusted rows
# and byes ("A+", "Bye", A5050) carry no contract and are left out; passed-out boards are in, scored 0.


def _pbn_rows(path):
    """(board, vulnerability, {column: value}) for every ScoreTable row with a contract."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    board = vulnerable = columns = None
    for line in text.splitlines():
        if tag := re.fullmatch(r'\s*\[(\w+) "(.*)"\]\s*', line):
            name, value = tag.groups()
            columns = [column.split("\\")[0] for column in value.split(";")] if name == "ScoreTable" else None
            if name == "Board":
                board, vulnerable = int(value), None
            elif name == "Vulnerable":
                vulnerable = value
            continue
        if not line.strip():
            columns = None
        if columns is None or line.startswith("%"):
            continue
        row = dict(zip(columns, (token.strip('"') for token in re.findall(r'"[^"]*"|\S+', line)), strict=True))
        if row["Contract"] != "-":
            yield board, vulnerable, row


def _pbn_played(path):
    for board, vulnerable, row in _pbn_rows(path):
        assert vulnerable, f"board {board} has no [Vulnerable] tag"
        printed = int(row["Score_NS"]) if row["Score_NS"] != "-" else -int(row["Score_EW"])
        tricks = 0 if row["Result"] == "-" else int(row["Result"])
        where = f"board {board} table {row.get('Section', '')}{row['Table']}"
        yield where, board, vulnerable, row["Contract"], row["Declarer"], tricks, printed


def _usebio_played(path):
    for board in xml_parse(path).getroot().iter("BOARD"):  # the HANDSET's BOARDs hold no TRAVELLER_LINE
        number = board.findtext("BOARD_NUMBER")
        for line in board.findall("TRAVELLER_LINE"):
            if not (line.findtext("CONTRACT") or "").strip():
                continue  # an artificial score, A5050
            where = f"board {number} {line.findtext('NS_PAIR_NUMBER')} v {line.findtext('EW_PAIR_NUMBER')}"
            tricks = int(line.findtext("TRICKS") or 0)  # empty on a PASS line
            yield (
                where,
                int(number),
                None,
                line.findtext("CONTRACT"),
                line.findtext("PLAYED_BY"),
                tricks,
                int(line.findtext("SCORE")),
            )


# Rows with a contract, counted by hand: every traveller row less the adjusted and bye rows (SOURCES.md, and grep).
REAL_ROWS = [
    ("magiccontest-ffb_open2-dn1-finale-2022_seance1.pbn", 660 - 4),  # 4 adjusted
    ("ruter-sbl-finland_sm-parikilpailu-2014_session1.pbn", 1188 - 2),  # 2 A+ A+, 4 passed out kept
    ("ruter-svenskbridge_silver1-2011_impcross-3sections.pbn", 1680 - 1),  # 1 A+ A+, 7 passed out kept
    ("magiccontest-h6-turku_2013-08-20_butler-bye.pbn", 112 - 28),  # 28 byes
    ("ruter-norge_km-par-2022-05-08_utf8.pbn", 252 - 2),  # 2 split A+ A-, 2 passed out kept
    ("usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml", 567 - 2),  # A6060 and A5050
    ("usebio-compscore3_moonee-valley_2026-02-02_cross-imp-howell.xml", 108),
    ("usebio-scorebridge_forest-of-dean_2025-07-30_mp-howell.xml", 94),
]


@pytest.mark.shared_data("bridge-results")
@pytest.mark.parametrize(("name", "rows"), REAL_ROWS)
def test_every_real_contract_row_scores_as_printed(name, rows):
    path = shared_data("bridge-results", name)
    played = list(_pbn_played(path) if name.endswith(".pbn") else _usebio_played(path))
    assert len(played) == rows
    wrong = []
    for where, board, tagged, contract_text, declarer, tricks, printed in played:
        vulnerability = board_vulnerability_name(board) if tagged is None else vulnerability_parse(tagged)
        contract = contract_parse(contract_text)
        got = (
            ns_score(contract, declarer, tricks, vulnerability=vulnerability),
            ns_score(contract, declarer, tricks, board=board),  # these files deal by the 16-board cycle
            traveller_score(
                contract=contract_text, declarer=declarer, result=str(tricks), board=board, vulnerability=tagged
            ),
            printed in possible_ns_scores(vulnerability),
            ns_score_problem(printed, vulnerability),
        )
        if got != (printed, printed, (printed, ""), True, None):
            wrong.append(f"{where} ({vulnerability}): {contract_text} by {declarer}, {tricks} tricks, {printed}: {got}")
    assert wrong == []
