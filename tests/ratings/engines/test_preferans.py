"""SmartPref Preferans rating (seed 001): hand-computed cases for every branch.

Each case lists the seed's intermediate values (Rt, Kv, Vf, Kd) worked out by
hand from the formulas, then the new rating to two decimals.
"""

import math

import pytest

from ratings.engines import EngineInputError, PlayerState, get_rating_system
from ratings.engines.preferans import (
    BotSeat,
    PreferansGame,
    PreferansParameters,
    deal_coefficient,
    deal_update,
    smoothing_factor,
    table_rating,
)

P = PreferansParameters()

# rating, opponents, whists, Rt, Kv, Vf, Kd, new rating
CASES = [
    pytest.param(1000, [1000], 4, 1000, 60, 0, 2.0, 1004.00, id="equal table, win 4: +Kd*sqrt(4)"),
    pytest.param(1000, [1000], -9, 1000, 60, 0, 2.0, 994.00, id="equal table, lose 9: -Kd*sqrt(9)"),
    pytest.param(1000, [1000], 0, 1000, 60, 0, 2.0, 1000.00, id="Vs = Vf: no change"),
    # Rs > Rt: Kv = 60 + 500/6 = 143.333; Vf = 500/143.333 = 3.4884; Kd = 2/(1+log10 6) = 1.12476
    pytest.param(1500, [1000], 10, 1000, 143.3333, 3.4884, 1.1248, 1502.87, id="above the table, beats Vf"),
    pytest.param(1500, [1000], 2, 1000, 143.3333, 3.4884, 1.1248, 1498.63, id="above the table, short of Vf"),
    # Rs < Rt: Kv = 60 + 800/22 = 96.364; Vf = -800/96.364 = -8.3019; Kd = 2/(1+log10 9) = 1.02341
    pytest.param(1000, [1800], -5, 1800, 96.3636, -8.3019, 1.0234, 1001.86, id="1000 vs the 1800 bot, -5 whists gains"),
    pytest.param(1000, [1800], -9, 1800, 96.3636, -8.3019, 1.0234, 999.14, id="1000 vs the 1800 bot, -9 whists loses"),
    # Vf capped: (3000-1000)/(60+2000/6) = 5.0847 -> 4; Kd = 2/(1+log10 21) = 0.86125
    pytest.param(3000, [1000], 4, 1000, 393.3333, 4.0, 0.8613, 3000.00, id="Vf capped at +4: four whists cost nothing"),
    pytest.param(3000, [1000], 8, 1000, 393.3333, 4.0, 0.8613, 3001.72, id="Vf capped at +4: eight whists gain"),
    # Three players: Rt = (2*1500 + 1100)/3 = 1366.667; Kv = 60 + 166.667/22 = 67.576; Vf = -2.4664; Kd = 1.40256
    pytest.param(1200, [1100, 1500], 3, 1366.6667, 67.5758, -2.4664, 1.4026, 1203.28, id="3-player table"),
    # Four players: Rt = (3*1500 + 2*1400 + 1300)/6 = 1433.333; Kv = 154.444; Vf = 3.6691; Kd = 1.09654
    pytest.param(2000, [1300, 1500, 1400], 6, 1433.3333, 154.4444, 3.6691, 1.0965, 2001.67, id="4-player table"),
]


@pytest.mark.parametrize(("rating", "opponents", "whists", "rt", "kv", "vf", "kd", "new"), CASES)
def test_deal_update(rating, opponents, whists, rt, kv, vf, kd, new):
    update = deal_update(rating=rating, opponents=opponents, whists=whists)
    assert update.table_rating == pytest.approx(rt, abs=1e-4)
    assert update.kv == pytest.approx(kv, abs=1e-4)
    assert update.expected_whists == pytest.approx(vf, abs=1e-4)
    assert update.kd == pytest.approx(kd, abs=1e-4)
    assert update.rating_after == pytest.approx(new, abs=1e-9)


def test_the_formula_wins_over_the_seeds_prose():
    """The seed says a 1000 player should not gain at -5 whists against the 1800 bot;
    its formula puts the break-even at Vf = -8.30 whists, and the formula is the spec."""
    at_minus_5 = deal_update(rating=1000, opponents=[1800], whists=-5)
    assert at_minus_5.rating_after > 1000
    break_even = deal_update(rating=1000, opponents=[1800], whists=at_minus_5.expected_whists)
    assert break_even.rating_after == 1000


@pytest.mark.parametrize(
    ("opponents", "expected"),
    [([1700], 1700), ([1200, 1500], 1400), ([1000, 1600, 1300], (3 * 1600 + 2 * 1300 + 1000) / 6)],
)
def test_table_rating_weights_high_to_low(opponents, expected):
    assert table_rating(opponents) == pytest.approx(expected)


@pytest.mark.parametrize("opponents", [[], [1, 2, 3, 4]])
def test_table_rating_needs_one_to_three_opponents(opponents):
    with pytest.raises(EngineInputError):
        table_rating(opponents)


def test_kd_clamps():
    assert deal_coefficient(1000, 1000, P) == 2.0  # upper clamp reached at diff 0
    assert deal_coefficient(1000, 1100, P) == pytest.approx(2 / (1 + math.log10(2)))
    assert deal_coefficient(1000, 1000 + 1e9, P) == 0.3  # 2/(1+log10(1e7+1)) = 0.25 -> 0.3
    generous = PreferansParameters(kd_base=5.0)
    assert deal_coefficient(1000, 1000, generous) == 2.0  # 5.0 -> clamped to 2.0


def test_bot_cap_stops_gains_at_the_highest_bot_maximum():
    # 2390 vs the normal bot (1800, max 2400), a huge win: capped at 2400.
    capped = deal_update(rating=2390, opponents=[1800], whists=100, bot_cap=2400)
    assert capped.rating_after == 2400
    assert capped.bot_cap_applied
    # Already above the cap: no gain, and never pulled down to it.
    above = deal_update(rating=2410, opponents=[1800], whists=100, bot_cap=2400)
    assert above.rating_after == 2410
    # Losses apply normally.
    loss = deal_update(rating=2410, opponents=[1800], whists=-30, bot_cap=2400)
    assert loss.rating_after < 2410
    assert not loss.bot_cap_applied
    # A gain that stays under the cap is untouched.
    small = deal_update(rating=2000, opponents=[1800], whists=5, bot_cap=2400)
    assert small.rating_after == deal_update(rating=2000, opponents=[1800], whists=5).rating_after


def test_smoothing_is_continuous_at_4000_and_shrinks_gains():
    assert smoothing_factor(4000, P) == 1.0
    assert smoothing_factor(4000.001, P) == pytest.approx(1.0, abs=1e-5)
    assert smoothing_factor(5000, P) == 0.5
    assert smoothing_factor(6000, P) < smoothing_factor(5000, P)
    # Equal 5000 table, +9 whists: raw +6, halved.
    assert deal_update(rating=5000, opponents=[5000], whists=9).rating_after == 5003.00
    # Losses are not smoothed.
    assert deal_update(rating=5000, opponents=[5000], whists=-9).rating_after == 4994.00
    # Below 4000 nothing changes.
    assert deal_update(rating=3000, opponents=[3000], whists=9).rating_after == 3006.00
    # Gains just below and just above 4000 differ only by the tiny factor.
    below = deal_update(rating=3999.99, opponents=[3999.99], whists=9).rating_after - 3999.99
    above = deal_update(rating=4000.01, opponents=[4000.01], whists=9).rating_after - 4000.01
    assert above == pytest.approx(below, abs=0.02)


def test_floor():
    update = deal_update(rating=1801, opponents=[1800], whists=-20, floor=1800)
    assert update.rating_after == 1800
    assert update.floor_applied


def test_a_game_rates_every_deal_from_the_ratings_the_previous_left():
    system = get_rating_system("preferans")
    bot = BotSeat(slug="normal", rating=1800, max_rating=2400)
    game = PreferansGame(seats=("ann", "bob", bot), deals=((4, -2, -2), (-6, 3, 3)))
    states = {"ann": PlayerState(rating=1000), "bob": PlayerState(rating=1000)}
    changes = system.rate(game, states, P)
    assert [(c.unit, c.player) for c in changes] == [(0, "ann"), (0, "bob"), (1, "ann"), (1, "bob")]
    # Deal 1: both face Rt = (2*1800 + 1000)/3 = 1533.33.
    ann1 = deal_update(rating=1000, opponents=[1000, 1800], whists=4)
    bob1 = deal_update(rating=1000, opponents=[1000, 1800], whists=-2)
    assert changes[0].rating_after == ann1.rating_after
    assert changes[1].rating_after == bob1.rating_after
    assert changes[0].details["table_rating"] == pytest.approx(1533.3333, abs=1e-4)
    # Deal 2 starts from deal 1's results.
    ann2 = deal_update(rating=ann1.rating_after, opponents=[bob1.rating_after, 1800], whists=-6)
    assert changes[2].rating_before == ann1.rating_after
    assert changes[2].rating_after == ann2.rating_after
    assert all(change.player != bot for change in changes), "bots are never rated"


@pytest.mark.parametrize(
    "game",
    [
        PreferansGame(seats=("ann",), deals=((0,),)),
        PreferansGame(seats=("a", "b", "c", "d", "e"), deals=((0, 0, 0, 0, 0),)),
        PreferansGame(seats=("ann", "ann"), deals=((1, -1),)),
        PreferansGame(seats=("ann", "bob"), deals=((1, -1, 0),)),
    ],
)
def test_impossible_games_are_rejected(game):
    states = {key: PlayerState(rating=1000) for key in ("ann", "bob", "a", "b", "c", "d", "e")}
    with pytest.raises(EngineInputError):
        get_rating_system("preferans").rate(game, states, P)


def test_non_finite_input_is_rejected():
    with pytest.raises(EngineInputError):
        deal_update(rating=1000, opponents=[float("nan")], whists=1)
    with pytest.raises(EngineInputError):
        deal_update(rating=1000, opponents=[1000], whists=float("inf"))


@pytest.mark.parametrize(
    ("rating", "table", "whists"), [(1000, 1000, 3), (1500, 900, -2), (900, 2500, 1), (4600, 4200, 8), (3000, 1e9, 5)]
)
def test_the_flat_deal_update_agrees_with_the_helpers(rating, table, whists):
    update = deal_update(rating=rating, opponents=[table], whists=whists)
    assert update.kd == deal_coefficient(rating, table, P)
    assert update.smoothing == (smoothing_factor(rating, P) if update.raw_delta > 0 else 1.0)


@pytest.mark.parametrize("opponents", [[1200.0], [1500.0, 900.0], [900.0, 2500.0, 1400.0], [1000.0, 1000.0, 1000.0]])
def test_the_flat_table_rating_agrees_with_table_rating(opponents):
    assert deal_update(rating=1000, opponents=opponents, whists=2).table_rating == table_rating(opponents)
