"""Pairs Elo for bridge (seed 003): IMP scale, draw margin, rule of 400,
partnership bonus, the duel split and margin-scaled K."""

import math

import pytest

from ratings.engines import EngineInputError, PlayerState, get_rating_system
from ratings.engines.bridge import (
    BridgeBoard,
    BridgeParameters,
    BridgeSession,
    BridgeTable,
    actual_score,
    board_duels,
    expected_score,
    imps,
    margin_k,
    partnership_bonus,
)

P = BridgeParameters()


@pytest.mark.parametrize(
    ("difference", "expected"),
    [(0, 0), (10, 0), (20, 1), (40, 1), (50, 2), (80, 2), (90, 3), (120, 3), (130, 4), (160, 4), (170, 5),
     (210, 5), (220, 6), (260, 6), (270, 7), (310, 7), (320, 8), (360, 8), (370, 9), (420, 9), (430, 10),
     (490, 10), (500, 11), (590, 11), (600, 12), (740, 12), (750, 13), (890, 13), (900, 14), (1090, 14),
     (1100, 15), (1290, 15), (1300, 16), (1490, 16), (1500, 17), (1740, 17), (1750, 18), (1990, 18),
     (2000, 19), (2240, 19), (2250, 20), (2490, 20), (2500, 21), (2990, 21), (3000, 22), (3490, 22),
     (3500, 23), (3990, 23), (4000, 24), (7600, 24)],
)  # fmt: skip
def test_wbf_imp_scale(difference, expected):
    assert imps(difference) == expected
    assert imps(-difference) == -expected


@pytest.mark.parametrize(("imps_won", "score"), [(2, 1.0), (1.01, 1.0), (1, 0.5), (0, 0.5), (-1, 0.5), (-2, 0.0)])
def test_a_side_wins_only_by_more_than_one_imp(imps_won, score):
    assert actual_score(imps_won, P) == score


def test_expected_score_and_the_rule_of_400():
    assert expected_score(1200, 1000, P) == pytest.approx(0.76, abs=0.005)  # thesis eq. 4.4
    assert expected_score(1000, 1200, P) == pytest.approx(0.24, abs=0.005)  # eq. 4.5
    assert expected_score(2000, 1000, P) == expected_score(1400, 1000, P) == pytest.approx(0.909, abs=0.001)
    assert expected_score(1000, 3000, P) == pytest.approx(0.091, abs=0.001)


def test_partnership_bonus_grows_and_saturates():
    assert partnership_bonus(0, P) == 0
    values = [partnership_bonus(n, P) for n in (10, 50, 100, 300, 1000, 10000)]
    assert values == sorted(values)
    assert partnership_bonus(100, P) == pytest.approx(50 * (1 - math.exp(-1)))
    assert partnership_bonus(10000, P) == pytest.approx(50, abs=1e-6)


def test_regular_partners_are_expected_to_beat_slightly_stronger_strangers():
    """Seed 003: two regular partners can beat better opponents playing together for the first time."""
    system = get_rating_system("bridge")
    table = BridgeTable(ns=("r1", "r2"), ew=("s1", "s2"), ns_imps=0)
    states = {"r1": PlayerState(1000), "r2": PlayerState(1000), "s1": PlayerState(1030), "s2": PlayerState(1030)}
    regular = BridgeSession(boards=(BridgeBoard((table,)),), deals_together={frozenset({"r1", "r2"}): 500})
    strangers = BridgeSession(boards=(BridgeBoard((table,)),), deals_together={})
    with_history = {c.player: c for c in system.rate(regular, states, P)}
    without = {c.player: c for c in system.rate(strangers, states, P)}
    assert with_history["r1"].details["expected"] > 0.5 > without["r1"].details["expected"]


@pytest.mark.parametrize(
    ("imps_won", "k"),
    [(0, 24), (3, 24), (-3, 24), (4, 36), (6, 36), (9, 24 * (11 + 3) / 8), (24, 24 * (11 + 8) / 8)],
)
def test_k_grows_with_the_margin(imps_won, k):
    assert margin_k(imps_won, P) == pytest.approx(k)


def test_one_table_in_imps_is_one_duel():
    system = get_rating_system("bridge")
    board = BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=5),))
    states = {p: PlayerState(1000) for p in "abcd"}
    changes = {c.player: c for c in system.rate(BridgeSession(boards=(board,), deals_together={}), states, P)}
    # Equal sides, NS win by 5 IMPs: K = 1.5 * 24 = 36, S - E = 0.5.
    assert changes["a"].rating_after == 1018.0
    assert changes["c"].rating_after == 982.0
    assert changes["a"].details == {"duels": 1, "expected": 0.5, "score": 1.0, "imps": 5.0, "floor_applied": False}


def test_two_tables_split_into_one_duel_between_the_cross_sides():
    board = BridgeBoard(
        (
            BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=420),
            BridgeTable(ns=("e", "f"), ew=("g", "h"), ns_score=-50),
        )
    )
    [duel] = board_duels(board)
    assert duel.side_a == (("a", "b"), ("g", "h"))
    assert duel.side_b == (("e", "f"), ("c", "d"))
    assert duel.imps_a == 10  # 470 -> 10 IMPs


def test_three_tables_make_three_duels_and_players_take_the_mean():
    system = get_rating_system("bridge")
    tables = tuple(
        BridgeTable(ns=(f"n{t}1", f"n{t}2"), ew=(f"e{t}1", f"e{t}2"), ns_score=score)
        for t, score in enumerate([620, 170, -100])
    )
    assert len(board_duels(BridgeBoard(tables))) == 3
    states = {player: PlayerState(1000) for table in tables for player in (*table.ns, *table.ew)}
    changes = {
        c.player: c for c in system.rate(BridgeSession(boards=(BridgeBoard(tables),), deals_together={}), states, P)
    }
    assert all(change.details["duels"] == 2 for change in changes.values())
    # Table 0 NS beat the other NS pairs by 450 (10 IMPs) and 720 (12 IMPs): K 24*(11+10/3)/8 and 24*(11+12/3)/8.
    k1, k2 = 24 * (11 + 10 / 3) / 8, 24 * (11 + 12 / 3) / 8
    assert changes["n01"].rating_after == pytest.approx(round(1000 + (k1 * 0.5 + k2 * 0.5) / 2, 2))
    # Zero-sum overall at equal ratings.
    assert sum(c.rating_after - 1000 for c in changes.values()) == pytest.approx(0, abs=0.05)


def test_a_weak_pair_at_another_table_hurts_less_than_a_direct_loss():
    system = get_rating_system("bridge")
    ratings = {"s1": 1600, "s2": 1600, "o1": 1400, "o2": 1400, "x1": 1400, "x2": 1400, "w1": 1000, "w2": 1000}
    states = {player: PlayerState(rating) for player, rating in ratings.items()}
    # Strong pair S sits NS at table 1 against O; at table 2 X (NS) plays the weak pair W (EW).
    two_tables = BridgeBoard(
        (
            BridgeTable(ns=("s1", "s2"), ew=("o1", "o2"), ns_score=-100),
            BridgeTable(ns=("x1", "x2"), ew=("w1", "w2"), ns_score=300),
        )
    )
    other_tables = {c.player: c for c in system.rate(BridgeSession((two_tables,), {}), states, P)}
    # The same 10-IMP loss, as a direct loss to O at one table.
    direct = BridgeBoard((BridgeTable(ns=("s1", "s2"), ew=("o1", "o2"), ns_imps=-10),))
    head_on = {c.player: c for c in system.rate(BridgeSession((direct,), {}), states, P)}
    loss_via_other_table = 1600 - other_tables["s1"].rating_after
    direct_loss = 1600 - head_on["s1"].rating_after
    assert 0 < loss_via_other_table < direct_loss


def test_boards_are_rated_in_order_and_partnership_counts_grow():
    system = get_rating_system("bridge")
    board = BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=3),))
    states = {p: PlayerState(1000) for p in "abcd"}
    changes = system.rate(BridgeSession(boards=(board, board), deals_together={}), states, P)
    first, second = changes[0], next(c for c in changes if c.unit == 1 and c.player == "a")
    assert second.rating_before == first.rating_after
    # On board 2 both pairs have one deal together: bonuses equal, but a's side is now rated higher.
    assert second.details["expected"] > 0.5


@pytest.mark.parametrize(
    "board",
    [
        BridgeBoard((BridgeTable(ns=("a", "b"), ew=("a", "d"), ns_imps=1),)),
        BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=100),)),
        BridgeBoard(
            (
                BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=100),
                BridgeTable(ns=("e", "f"), ew=("g", "h"), ns_imps=2),
            )
        ),
    ],
    ids=["player at two seats", "one table without IMPs", "several tables without scores"],
)
def test_impossible_boards(board):
    states = {p: PlayerState(1000) for p in "abcdefgh"}
    with pytest.raises(EngineInputError):
        get_rating_system("bridge").rate(BridgeSession((board,), {}), states, P)


def test_a_two_table_team_match_may_be_entered_in_imps():
    board = BridgeBoard(
        (BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=10), BridgeTable(ns=("e", "f"), ew=("g", "h")))
    )
    [duel] = board_duels(board)
    assert duel.side_a == (("a", "b"), ("g", "h"))
    assert duel.imps_a == 10
    scored = BridgeBoard(
        (
            BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=420),
            BridgeTable(ns=("e", "f"), ew=("g", "h"), ns_score=-50),
        )
    )
    assert board_duels(scored) == [duel]
