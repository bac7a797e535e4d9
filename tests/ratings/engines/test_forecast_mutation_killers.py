"""Cases that kill the mutants of the engines' forecast code and head-to-head expected scores.

``make mutation-engines`` (docs/mutation.md) runs ``tests/ratings/engines`` only. The forecasts
(``quality.py``: ``probability``, ``fit_scale``, ``forecasts_of``, ``scale_of``; each system's
``forecasts``) and the compare page's pure expected scores (``preferans.pair_expected_score``,
``bridge.pair_rating``, ``bridge.pairs_expected_score``, whose only tests were in
``tests/ratings/test_head_to_head.py``, outside this phase) came after the last run; these cases pin
what that run let through.

Every expected value is worked by hand in the docstring (seed 000's E, seed 003's E with the
partnership bonus of ``ratings/engines/bridge.py``'s docstring), is a closed form (three wins and a
loss at one gap: the maximum-likelihood chance is 3/4), or, where the maximum has no closed form,
comes from ``mle_scale`` below: plain bisection on the log-likelihood's slope, written here and
sharing nothing with ``fit_scale`` (no Newton step, no bracket test, ``math.fsum``).
"""

import math
import re

import pytest

from ratings.engines.base import EngineInputError, PlayerState
from ratings.engines.bridge import SYSTEM as BRIDGE
from ratings.engines.bridge import (
    BridgeBoard,
    BridgeParameters,
    BridgeSession,
    BridgeTable,
    pair_rating,
    pairs_expected_score,
)
from ratings.engines.elo import SYSTEM as ELO
from ratings.engines.elo import EloMatch, EloParameters
from ratings.engines.preferans import SYSTEM as PREFERANS
from ratings.engines.preferans import PreferansGame, PreferansParameters, pair_expected_score
from ratings.engines.quality import SCALE_MAX, SCALE_MIN, Forecast, fit_scale, forecasts_of, probability, scale_of

LN10 = math.log(10)


# -- the compare page's expected scores ----------------------------------------------------------------------


def test_preferans_pair_expected_score_reads_the_gap_on_the_scale():
    """p = 1 / (1 + 10^(-(Ra - Rb) / s)).

    1100 v 1000 on the default s = 400: 10^(-1/4) = 0.562341, p = 1 / 1.562341 = 0.640065; B's side
    is 1 - p = 0.359935. On s = 250: 10^(-0.4) = 0.398107, p = 1 / 1.398107 = 0.715253.
    """
    assert pair_expected_score(1100, 1000) == pytest.approx(0.640065, abs=1e-6)
    assert pair_expected_score(1000, 1100) == pytest.approx(0.359935, abs=1e-6)
    assert pair_expected_score(1100, 1000, 250.0) == pytest.approx(0.715253, abs=1e-6)
    assert pair_expected_score(1234, 1234, 250.0) == 0.5


def test_preferans_pair_expected_score_never_overflows_and_never_reaches_zero():
    """The exponent is held to +-300 (``10.0 ** 300`` is still a float): a billion points below on a
    scale of 50 gives 1 / (1 + 10^300) = 1e-300, not 0 and no OverflowError; a billion above, 1."""
    assert math.isclose(pair_expected_score(0, 1e9, 50.0), 1e-300, rel_tol=1e-9)
    assert pair_expected_score(1e9, 0, 50.0) == 1.0


def test_bridge_pair_rating_is_the_partners_mean_plus_the_partnership_bonus():
    """Seed 003's pair rating as the engine's docstring settles it: the mean of the two partners plus
    ``bonus_max * (1 - exp(-deals / bonus_scale))`` (50 and 100 by default).

    (1100, 1040) as strangers: 1070. After 100 deals: 1070 + 50 * (1 - e^-1) = 1070 + 31.6060 = 1101.6060.
    With ``bonus_max`` 80 and ``bonus_scale`` 50, after 100 deals: 1070 + 80 * (1 - e^-2) = 1070 + 69.1732.
    """
    assert pair_rating((1100.0, 1040.0), 0, BridgeParameters()) == 1070.0
    assert pair_rating((1040.0, 1100.0), 100, BridgeParameters()) == pytest.approx(1101.6060, abs=1e-4)
    assert pair_rating((1100.0, 1040.0), 100, BridgeParameters(bonus_max=80, bonus_scale=50)) == pytest.approx(
        1139.1732, abs=1e-4
    )


def test_bridge_pairs_expected_score_rates_each_pair_with_its_own_history():
    """Pair A (1100, 1040) after 100 deals together: 1101.6060 (above). Pair B (1000, 1020) after 300:
    1010 + 50 * (1 - e^-3) = 1010 + 47.5106 = 1057.5106. rd = 1057.5106 - 1101.6060 = -44.0954, within the
    rule of 400: E_A = 1 / (1 + 10^(-44.0954/400)) = 1 / (1 + 0.775821) = 0.563120; E_B = 0.436880.

    The rule of 400: pair (2000, 2000) v (1000, 1000), rd = -1000 capped to -400: E = 1 / (1 + 10^-1) =
    10/11 = 0.909091; with the cap lifted to 2000 and the scale at 500: 1 / (1 + 10^-2) = 100/101.
    """
    p = BridgeParameters()
    assert pairs_expected_score((1100.0, 1040.0), 100, (1000.0, 1020.0), 300, p) == pytest.approx(0.563120, abs=1e-6)
    assert pairs_expected_score((1000.0, 1020.0), 300, (1100.0, 1040.0), 100, p) == pytest.approx(0.436880, abs=1e-6)
    assert pairs_expected_score((2000.0, 2000.0), 0, (1000.0, 1000.0), 0, p) == pytest.approx(10 / 11)
    wide = BridgeParameters(rating_difference_cap=2000, scale=500)
    assert pairs_expected_score((2000.0, 2000.0), 0, (1000.0, 1000.0), 0, wide) == pytest.approx(100 / 101)


# -- each system's forecasts ---------------------------------------------------------------------------------


def test_elo_forecasts_refuse_a_match_without_its_winner_in_words():
    """The same words ``rate`` uses for the same mistake (``test_mutation_killers.py`` pins those)."""
    states = {"a": PlayerState(1000.0), "b": PlayerState(1000.0)}
    message = "^" + re.escape("an Elo match needs two distinct players and a winner among them") + "$"
    with pytest.raises(EngineInputError, match=message):
        ELO.forecasts(EloMatch(players=("a", "b"), winner="c"), states, EloParameters())
    with pytest.raises(EngineInputError, match=message):
        ELO.forecasts(EloMatch(players=("a", "a"), winner="a"), states, EloParameters())


def test_preferans_forecasts_compare_game_totals_in_cents():
    """Whists are cents (the cleaner keeps two decimals). Seats a 1100, b 1000, c 900, d 950; deals
    (0.10, 0.30, -0.40, 0.00) and (0.20, 0.00, -0.49, 0.29), each zero-sum: a 0.30, b 0.30, c -0.89, d 0.29.

      a-b  gap 100, 0.30 = 0.30: 1/2    a-c  gap 200: 1    a-d  gap 150, 0.30 > 0.29: 1
      b-c  gap 100: 1                    b-d  gap 50: 1     c-d  gap -50, -0.89 < 0.29: 0

    In floats 0.10 + 0.20 is 0.30000000000000004, above 0.3 + 0.0: summed as floats, a's tie with b
    read as a win. Totals rounded to whole units or tenths would tie a with d.
    """
    game = PreferansGame(seats=("a", "b", "c", "d"), deals=((0.10, 0.30, -0.40, 0.00), (0.20, 0.00, -0.49, 0.29)))
    states = {"a": PlayerState(1100.0), "b": PlayerState(1000.0), "c": PlayerState(900.0), "d": PlayerState(950.0)}
    assert PREFERANS.forecasts(game, states, PreferansParameters()) == [
        Forecast(100.0, 0.5),
        Forecast(200.0, 1.0),
        Forecast(150.0, 1.0),
        Forecast(100.0, 1.0),
        Forecast(50.0, 1.0),
        Forecast(-50.0, 0.0),
    ]


def test_forecasts_of_hands_the_parameters_to_the_system():
    """One table, NS (1600, 1600) v EW (1000, 1000), NS +3 IMPs: the gap 600 is forecast as it stands with
    the rule of 400 lifted to 10,000, and as 400 under the default cap."""
    table = BridgeTable(ns=("n1", "n2"), ew=("e1", "e2"), ns_imps=3)
    session = BridgeSession(boards=(BridgeBoard(tables=(table,)),), deals_together={})
    states = {
        "n1": PlayerState(1600.0),
        "n2": PlayerState(1600.0),
        "e1": PlayerState(1000.0),
        "e2": PlayerState(1000.0),
    }
    wide = BridgeParameters(rating_difference_cap=10_000)
    assert forecasts_of(BRIDGE, session, states, wide) == [Forecast(600.0, 1.0)]
    assert forecasts_of(BRIDGE, session, states, BridgeParameters()) == [Forecast(400.0, 1.0)]


def test_scale_of_asks_the_system_with_the_games_parameters():
    """Elo's and bridge's forecasts are read on their own scale parameter; Preferans' is fitted (None)."""
    assert scale_of(ELO, EloParameters(scale=600)) == 600
    assert scale_of(BRIDGE, BridgeParameters(scale=500)) == 500
    assert scale_of(PREFERANS, PreferansParameters()) is None


# -- the logistic and the fitted scale -----------------------------------------------------------------------


def test_probability_never_reaches_zero():
    """The exponent is held to 300: a billion points below on a scale of 50 reads 1 / (1 + 10^300) =
    1e-300, the smallest chance it gives (a log of it is finite)."""
    assert math.isclose(probability(-1e9, 50), 1e-300, rel_tol=1e-9)


def mle_scale(forecasts: list[Forecast]) -> float:
    """The maximum-likelihood scale, found here independently of ``fit_scale``.

    With b = ln 10 / scale the chance of a forecast is sigmoid(b * gap); the log-likelihood's slope in b
    is sum(gap * (outcome - sigmoid(b * gap))), falling as b grows. Its zero is halved down to for 200
    steps between the bracket's ends (scales 100,000 and 50); the caller checks it lies inside.
    """

    def sigmoid(x: float) -> float:
        return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))

    def slope(b: float) -> float:
        return math.fsum(gap * (outcome - sigmoid(b * gap)) for gap, outcome in forecasts)

    low, high = LN10 / SCALE_MAX, LN10 / SCALE_MIN
    assert slope(low) > 0 > slope(high)
    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    return LN10 / ((low + high) / 2)


@pytest.mark.parametrize(
    ("forecasts", "wins"),
    [
        ([Forecast(200, 1)] * 3 + [Forecast(200, 0)], 3),
        ([Forecast(-200, 0)] * 3 + [Forecast(-200, 1)], 3),
        ([Forecast(200, 1)] * 9 + [Forecast(200, 0)], 9),
        ([Forecast(-200, 0)] * 9 + [Forecast(-200, 1)], 9),
    ],
    ids=["3-1 seen from the stronger side", "the same from the weaker", "9-1 stronger", "9-1 weaker"],
)
def test_fit_scale_converges_to_the_closed_form(forecasts, wins):
    """n duels at one gap of 200, the stronger side winning ``wins`` of n: the likelihood is highest where
    p = wins/n, so 10^(200/s) = wins / (n - wins): s = 200 ln 10 / ln 3 = 419.1807 (3-1) and
    200 ln 10 / ln 9 = 209.5903 (9-1), from either side. Held to 1e-9: the fit must converge, not stop
    near the answer."""
    losses = len(forecasts) - wins
    assert fit_scale(forecasts) == pytest.approx(200 * LN10 / math.log(wins / losses), rel=1e-9)


def test_fit_scale_at_a_gap_of_one_point_won_is_the_smallest_scale():
    """The higher side always won (by 1 point, or by 1000): the likelihood grows as the scale shrinks, at
    every scale in range, so the fit is the smallest one."""
    assert fit_scale([Forecast(1, 1)]) == SCALE_MIN
    assert fit_scale([Forecast(1000, 1)]) == SCALE_MIN
    assert fit_scale([Forecast(1000, 1), Forecast(1, 1), Forecast(-1, 0)]) == SCALE_MIN


def test_fit_scale_of_gaps_too_wide_for_any_scale_is_the_largest():
    """``fit_scale``'s rule: "the slope is not positive even at the largest scale" gives SCALE_MAX. At a gap
    of 10,000,000 the logistic is 1 in floats at every scale in range (10^(10^7 / 10^5) = 10^100), so the
    slope is exactly 0 there: SCALE_MAX, not a fit of a likelihood that does not move."""
    assert fit_scale([Forecast(1e7, 1)]) == SCALE_MAX


@pytest.mark.parametrize(
    "forecasts",
    [
        [Forecast(-10, 1), Forecast(-10, 1), Forecast(-100, 0), Forecast(100, 1)],
        [Forecast(1000, 1), Forecast(-0.1, 1)] + [Forecast(0.1, 0.5)] * 100,
        [Forecast(40_000, 1), Forecast(40_000, 1), Forecast(-40_000, 0.5), Forecast(-40_000, 0)],
    ],
    ids=["two upsets by 10, two expected results by 100", "one upset among 100 near-even draws", "saturated"],
)
def test_fit_scale_finds_the_maximum_of_mixed_histories(forecasts):
    """Histories without a closed form, against ``mle_scale``:

    - two upsets at a gap of 10 and two expected results at 100 (82.04);
    - one expected win at 1000 and one upset at 0.1 among 100 draws at 0.1, where the draws' tiny gaps
      weigh nothing in the curvature (233.65);
    - gaps of 40,000: at most scales in range the logistic is 0 or 1 in floats and the curvature 0, so the
      fit must bisect there rather than take a Newton step (47,331.79).
    """
    expected = mle_scale(forecasts)
    assert SCALE_MIN < expected < SCALE_MAX
    assert fit_scale(forecasts) == pytest.approx(expected, rel=1e-9)
