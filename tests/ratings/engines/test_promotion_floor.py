"""Promotion and floor inside the engines (PRODUCT.md, "Rules settled after the first release").

Vocabulary: a *floor* only stops a fall, ``max(after, min(before, floor))``;
a player is *promoted* at the unit that takes them to ``promote_at`` and has
``promoted_floor`` from the next unit on. Every expected number below is
worked by hand in the test's docstring (Preferans: seed 001's letters; Elo:
seed 000; bridge: seed 003 and the choices in docs/ratings.md), never asked of the
engine.
"""

import pytest

from ratings.engines import PlayerState, get_rating_system
from ratings.engines.base import stop_at_floor
from ratings.engines.bridge import BridgeBoard, BridgeParameters, BridgeSession, BridgeTable
from ratings.engines.elo import EloMatch, EloParameters, elo_update
from ratings.engines.preferans import PreferansGame, PreferansParameters, deal_update


@pytest.mark.parametrize(
    ("before", "after", "floor", "result"),
    [
        (1805, 1790, 1800, 1800),  # a fall across the floor ends on it
        (1800, 1790, 1800, 1800),  # at the floor: cannot fall
        (1790, 1785, 1800, 1790),  # below the floor (raised by an admin): cannot fall further ...
        (1790, 1795, 1800, 1795),  # ... and is not lifted by a gain that stays below it
        (1810, 1805, 1800, 1805),  # a fall that stays above it is untouched
        (1000, 900, None, 900),  # no floor
    ],
)
def test_a_floor_only_stops_a_fall(before, after, floor, result):
    assert stop_at_floor(before, after, floor) == result


# --- Slaps ---------------------------------------------------------------------------------


def test_slaps_promotion_is_reported_at_the_match_that_reaches_the_threshold():
    """Both at 1795 with 40 rated matches (K 16), E = 1/(1+10^0) = 0.5.

    Winner: 1795 + 16 * (1 - 0.5) = 1803 >= 1800: promoted at this match.
    Loser:  1795 + 16 * (0 - 0.5) = 1787; an amateur, so the pro floor 1800
    waiting for them (``promoted_floor``) does not hold them.
    """
    states = {
        "a": PlayerState(1795.0, 40, None, 1800.0, 1800.0),
        "b": PlayerState(1795.0, 40, None, 1800.0, 1800.0),
    }
    changes = {c.player: c for c in get_rating_system("elo").rate(EloMatch(("a", "b"), "a"), states, EloParameters())}
    assert (changes["a"].rating_after, changes["a"].promoted) == (1803.0, True)
    assert (changes["b"].rating_after, changes["b"].promoted) == (1787.0, False)
    assert changes["b"].details["floor_applied"] is False


def test_slaps_pro_below_a_raised_floor_is_not_lifted():
    """A pro at 1790 under a floor raised to 1800; opponent 1790, K 16, E = 0.5.

    Loss: 1790 - 8 = 1782 < 1800, and 1790 is below the floor already:
    max(1782, min(1790, 1800)) = 1790 (stays). Win: 1790 + 8 = 1798, a gain
    below the floor: 1798 (not lifted to 1800).
    """
    rate = get_rating_system("elo").rate
    states = {"a": PlayerState(1790.0, 40, 1800.0), "b": PlayerState(1790.0, 40)}
    lost = {c.player: c for c in rate(EloMatch(("a", "b"), "b"), states, EloParameters())}
    won = {c.player: c for c in rate(EloMatch(("a", "b"), "a"), states, EloParameters())}
    assert (lost["a"].rating_after, lost["a"].details["floor_applied"]) == (1790.0, True)
    assert (won["a"].rating_after, won["a"].details["floor_applied"]) == (1798.0, False)
    update = elo_update(rating=1790, opponent_rating=1790, score=0, rated_matches=40, floor=1800)
    assert (update.rating_after, update.floor_applied) == (1790.0, True)


# --- Preferans -----------------------------------------------------------------------------


def test_preferans_mid_game_promotion_then_the_pro_floor_from_the_next_deal():
    """The issue's repro, on a two-seat table (Rt = the one opponent's rating).

    A (amateur, promote at 1800, then floor 1800) and B both 1795.
    Deal 1 [+16, -16]: Rt = 1795, gap 0, Kv = 60, Vf = 0, Kd = 2 / (1 + log10 1) = 2;
        A: 1795 + 2 * sqrt(16) = 1803.00 >= 1800: promoted at deal 1.
        B: 1795 - 2 * sqrt(16) = 1787.00.
    Deal 2 [-100, +100]: A: Rs 1803, Rt 1787, gap 16 > 0: Kv = 60 + 16/6 = 62.666667,
        Vf = 16 / 62.666667 = 0.255319, Kd = 2 / (1 + log10 1.16) = 1.878890,
        Rd = -1.878890 * sqrt(100.255319) = -18.812876 -> 1784.19: pro now, the fall
        stops at the floor: 1800.00. (Before the fix: 1784.19, then lifted to 1800 by the
        next small loss.)
        B: Rs 1787, gap -16: Kv = 60 + 16/22 = 60.727273, Vf = -0.263473,
        Rd = +1.878890 * sqrt(100.263473) = 18.813641 -> 1805.81.
    Deal 3 [-1, +1]: A: Rs 1800, Rt 1805.81, gap -5.81: Kv = 60.264091, Vf = -0.096409,
        Kd = 1.952121, Rd = -1.952121 * sqrt(0.903591) = -1.855635 -> 1798.14: stays 1800.00.
        B: gap 5.81: Kv = 60.968333, Vf = 0.095295, Rd = 1.952121 * sqrt(0.904705)
        = 1.856779 -> 1807.67.
    """
    states = {"A": PlayerState(1795.0, 10, None, 1800.0, 1800.0), "B": PlayerState(1795.0, 10)}
    game = PreferansGame(seats=("A", "B"), deals=((16, -16), (-100, 100), (-1, 1)))
    changes = get_rating_system("preferans").rate(game, states, PreferansParameters())
    rows = [
        (c.unit, c.player, c.rating_before, c.rating_after, c.promoted, c.details["floor_applied"]) for c in changes
    ]
    assert rows == [
        (0, "A", 1795.0, 1803.0, True, False),
        (0, "B", 1795.0, 1787.0, False, False),
        (1, "A", 1803.0, 1800.0, False, True),
        (1, "B", 1787.0, 1805.81, False, False),
        (2, "A", 1800.0, 1800.0, False, True),
        (2, "B", 1805.81, 1807.67, False, False),
    ]


def test_preferans_pro_below_a_raised_floor_stays_and_can_gain():
    """A pro at 1790 under a floor of 1800, against B at 1790.

    Deal 1 [-4, +4]: gap 0, Kv 60, Vf 0, Kd 2: A 1790 - 2*2 = 1786 -> stays 1790 (below the
        floor already, cannot fall further); B 1790 + 4 = 1794.00.
    Deal 2 [+9, -9]: A: Rt 1794, gap -4: Kv = 60 + 4/22 = 60.181818, Vf = -0.066465,
        Kd = 2 / (1 + log10 1.04) = 1.966504, Rd = 1.966504 * sqrt(9.066465) = 5.921256
        -> 1795.92 (a gain; not lifted to 1800).
    """
    states = {"A": PlayerState(1790.0, 10, 1800.0), "B": PlayerState(1790.0, 10)}
    game = PreferansGame(seats=("A", "B"), deals=((-4, 4), (9, -9)))
    changes = [c for c in get_rating_system("preferans").rate(game, states, PreferansParameters()) if c.player == "A"]
    assert [(c.rating_before, c.rating_after, c.details["floor_applied"]) for c in changes] == [
        (1790.0, 1790.0, True),
        (1790.0, 1795.92, False),
    ]
    assert deal_update(rating=1790, opponents=[1790], whists=-4, floor=1800).rating_after == 1790.0


# --- bridge --------------------------------------------------------------------------------


def test_bridge_mid_session_promotion_then_the_pro_floor_from_the_next_board():
    """One table, (a, b) NS against (c, d) EW, everyone 1000 and strangers; promote at
    1020, then floor 1015.

    Board 1, NS +10 IMPs: goals = 10/3 = 3.333 > 2, K = 24 * (11 + 3.333)/8 = 43;
        E = 0.5 (equal sides), S = 1: a, b = 1000 + 43 * 0.5 = 1021.50 >= 1020: promoted.
        c, d = 1000 - 21.5 = 978.50.
    Board 2, NS -10 IMPs: both pairs have 1 deal together, bonus 50 * (1 - e^(-1/100))
        = 0.497508 on both sides (cancels). NS side 1021.997508, EW 978.997508,
        E_NS = 1 / (1 + 10^(-43/400)) = 0.561568, S = 0, K = 43:
        a, b = 1021.5 - 43 * 0.561568 = 997.35 < 1015: pro now, stops at 1015.00.
        c, d = 978.5 + 43 * (1 - 0.438432) = 1002.65 (not promoted: below 1020).
    """
    states = {p: PlayerState(1000.0, 0, None, 1020.0, 1015.0) for p in "abcd"}
    boards = tuple(BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=imps),)) for imps in (10, -10))
    changes = get_rating_system("bridge").rate(BridgeSession(boards, {}), states, BridgeParameters())
    rows = {(c.unit, c.player): (c.rating_after, c.promoted, c.details["floor_applied"]) for c in changes}
    assert rows == {
        (0, "a"): (1021.5, True, False),
        (0, "b"): (1021.5, True, False),
        (0, "c"): (978.5, False, False),
        (0, "d"): (978.5, False, False),
        (1, "a"): (1015.0, False, True),
        (1, "b"): (1015.0, False, True),
        (1, "c"): (1002.65, False, False),
        (1, "d"): (1002.65, False, False),
    }


def test_bridge_partnership_count_grows_inside_a_session():
    """Board 1: (a, b) against (c, d), 0 IMPs: S = E = 0.5, nobody moves, and (a, b) now
    has 1 deal together. Board 2: (a, b) against (c, e), strangers, NS +2 IMPs (S = 1,
    K = 24: 2/3 of a goal). NS pair 1000 + 50 * (1 - e^(-1/100)) = 1000.497508, EW 1000:
    E_NS = 1 / (1 + 10^(-0.497508/400)) = 0.500716, a = 1000 + 24 * 0.499284 = 1011.98
    (1012.00 if the session's own boards did not count), c = 1000 - 11.98 = 988.02.
    """
    states = {p: PlayerState(1000.0) for p in "abcde"}
    boards = (
        BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=0),)),
        BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "e"), ns_imps=2),)),
    )
    changes = get_rating_system("bridge").rate(BridgeSession(boards, {}), states, BridgeParameters())
    after = {(c.unit, c.player): c.rating_after for c in changes}
    assert after[(0, "a")] == 1000.0
    assert (after[(1, "a")], after[(1, "c")], after[(1, "e")]) == (1011.98, 988.02, 988.02)


def test_player_state_after_a_promoting_match_takes_the_promoted_floor():
    state = PlayerState(1795.0, 7, None, 1800.0, 1750.0)
    assert state.after(1799.0) == PlayerState(1799.0, 8, None, 1800.0, 1750.0)
    assert state.after(1800.0) == PlayerState(1800.0, 8, 1750.0, None, None)


# --- Boundaries found by the mutation run (docs/mutation.md) ------------------------------


def test_slaps_second_player_below_a_raised_floor_is_not_lifted():
    """The same as for the first seat, for the second: B, a pro at 1790 under a floor of
    1800, loses to A (1790, K 16, E = 0.5): 1790 - 8 = 1782 -> stays 1790, not 1800."""
    states = {"a": PlayerState(1790.0, 40), "b": PlayerState(1790.0, 40, 1800.0)}
    changes = {c.player: c for c in get_rating_system("elo").rate(EloMatch(("a", "b"), "a"), states, EloParameters())}
    assert (changes["b"].rating_after, changes["b"].details["floor_applied"]) == (1790.0, True)
    assert changes["a"].rating_after == 1798.0


@pytest.mark.parametrize("below_floor", ["a", "b"])
def test_slaps_a_match_that_moves_nobody_below_the_floor_does_not_apply_it(below_floor):
    """A pro at 1790 under a floor of 1800 beats a newcomer at 1000 (K 16 for the pro,
    40 matches): E = 1 / (1 + 10^((1000 - 1790)/400)) = 1 / (1 + 10^-1.975) = 0.989518,
    1790 + 16 * 0.010482 = 1790.17 -> 1790: the rating does not move, so the floor
    stopped nothing (``floor_applied`` false), whichever seat the pro holds."""
    weak = "b" if below_floor == "a" else "a"
    states = {below_floor: PlayerState(1790.0, 40, 1800.0), weak: PlayerState(1000.0, 0)}
    match = EloMatch(("a", "b"), below_floor)
    changes = {c.player: c for c in get_rating_system("elo").rate(match, states, EloParameters())}
    assert (changes[below_floor].rating_after, changes[below_floor].details["floor_applied"]) == (1790.0, False)


@pytest.mark.parametrize("winner", ["a", "b"])
def test_slaps_reaching_the_threshold_exactly_promotes(winner):
    """Both 1000 with no rated match (K 32), E = 0.5: the winner has 1000 + 32 * 0.5 = 1016,
    exactly the threshold 1016 (``>=``): promoted; the loser (984) is not."""
    states = {p: PlayerState(1000.0, 0, None, 1016.0, 1016.0) for p in "ab"}
    changes = {
        c.player: c for c in get_rating_system("elo").rate(EloMatch(("a", "b"), winner), states, EloParameters())
    }
    loser = "b" if winner == "a" else "a"
    assert (changes[winner].rating_after, changes[winner].promoted) == (1016.0, True)
    assert (changes[loser].rating_after, changes[loser].promoted) == (984.0, False)


def test_preferans_reaching_the_threshold_exactly_promotes():
    """A and B at 1000, deal [+16, -16]: gap 0, Kv 60, Vf 0, Kd 2: A = 1000 + 2 * sqrt(16)
    = 1008.00, exactly the threshold: promoted. Deal 2 [-16, +16]: A (Rs 1008, Rt 992,
    gap 16: Kv 62.666667, Vf 0.255319, Kd 1.878890) falls by 1.878890 * sqrt(16.255319)
    = 7.575222 to 1000.42: pro now, the floor 1005 stops it at 1005.00."""
    states = {"A": PlayerState(1000.0, 0, None, 1008.0, 1005.0), "B": PlayerState(1000.0, 0)}
    game = PreferansGame(seats=("A", "B"), deals=((16, -16), (-16, 16)))
    changes = [c for c in get_rating_system("preferans").rate(game, states, PreferansParameters()) if c.player == "A"]
    assert [(c.rating_after, c.promoted, c.details["floor_applied"]) for c in changes] == [
        (1008.0, True, False),
        (1005.0, False, True),
    ]


def test_preferans_the_threshold_is_not_the_floor_promoted_to():
    """Promote at 1008, then floor 1005; B has no promotion waiting. Deal 1 [+9, -9]:
    A = 1000 + 2 * sqrt(9) = 1006.00: above the future floor, below the threshold: not
    promoted. Deal 2 [-9, +9]: A (Rs 1006, Rt 994, gap 12: Kv = 62, Vf = 0.193548,
    Kd = 2 / (1 + log10 1.12) = 1.905316) falls by 1.905316 * sqrt(9.193548) = 5.777076
    to 1000.22: an amateur, no floor."""
    states = {"A": PlayerState(1000.0, 0, None, 1008.0, 1005.0), "B": PlayerState(1000.0, 0)}
    game = PreferansGame(seats=("A", "B"), deals=((9, -9), (-9, 9)))
    changes = [c for c in get_rating_system("preferans").rate(game, states, PreferansParameters()) if c.player == "A"]
    assert [(c.rating_after, c.promoted, c.details["floor_applied"]) for c in changes] == [
        (1006.0, False, False),
        (1000.22, False, False),
    ]


def test_preferans_a_deal_that_moves_nobody_below_the_floor_does_not_apply_it():
    """A pro at 1790 under a floor of 1800 against B at 1790, deal [0, 0]: gap 0, Vf 0,
    Vs = Vf: Rd = 0, A stays 1790 and the floor stopped nothing."""
    states = {"A": PlayerState(1790.0, 10, 1800.0), "B": PlayerState(1790.0, 10)}
    game = PreferansGame(seats=("A", "B"), deals=((0, 0),))
    change = get_rating_system("preferans").rate(game, states, PreferansParameters())[0]
    assert (change.rating_after, change.details["floor_applied"]) == (1790.0, False)


@pytest.mark.parametrize(
    ("promote_at", "rows"),
    [
        # Board 1 takes a and b to 1021.50 (see the mid-session test above): exactly the
        # threshold promotes, and board 2's fall (to 997.35) stops at the floor 1015.
        (1021.5, [(1021.5, True, False), (1015.0, False, True)]),
        # A threshold of 1030 is not reached: above the floor 1015 is not promoted, and
        # board 2's fall to 997.35 is an amateur's, not floored.
        (1030.0, [(1021.5, False, False), (997.35, False, False)]),
    ],
)
def test_bridge_promotion_at_the_threshold_not_at_the_floor(promote_at, rows):
    states = {p: PlayerState(1000.0, 0, None, promote_at, 1015.0) for p in "abcd"}
    boards = tuple(BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=imps),)) for imps in (10, -10))
    changes = get_rating_system("bridge").rate(BridgeSession(boards, {}), states, BridgeParameters())
    assert [(c.rating_after, c.promoted, c.details["floor_applied"]) for c in changes if c.player == "a"] == rows
