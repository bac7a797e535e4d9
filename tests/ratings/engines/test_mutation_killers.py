"""Cases that kill the engine mutants the seed-scenario tests let survive.

``make mutation`` (docs/mutation.md) changes one operator or constant of an
engine at a time and runs the engine tests; a change no test notices is a
*surviving mutant*: a bug the suite would let through. Each case below pins a
boundary or a branch that the seeds' worked examples never reach, with the
expected value worked out by hand from the seeds (``/work/shared/seeds``) and
the choices written in the engines' docstrings — never taken from the engine.

Vocabulary (as in the engines): Rs, Rt, Kv, Vf, Kd, Rd are seed 001's letters
(``ratings/engines/preferans.py``); a *duel* and a *pair* are seed 003's
(``ratings/engines/bridge.py``). "Lands exactly on the floor" means the
formula's own result equals the floor, so the floor stopped nothing and
``floor_applied`` stays false; every floor case starts at or above the floor,
where the settled rule ("a floor only stops a fall", PRODUCT.md) and the first
release's rule agree.

The first three sections are the survivors named in issue 11: the Preferans
bot cap over the *highest* bot maximum, the partnership count growing board by
board inside a bridge session, and the Preferans floor inside ``rate()``.
"""

import math
import re
from dataclasses import dataclass

import pytest

from ratings.engines import EngineInputError, PlayerState, get_rating_system, parameters_from_mapping
from ratings.engines.base import round_half_away_from_zero
from ratings.engines.bridge import BridgeBoard, BridgeParameters, BridgeSession, BridgeTable, imps, partnership_bonus
from ratings.engines.elo import EloMatch, EloParameters, elo_update, expected_score
from ratings.engines.preferans import (
    BotSeat,
    PreferansGame,
    PreferansParameters,
    deal_update,
    table_rating,
)
from ratings.engines.quality import quality_report

ELO = get_rating_system("elo")
PREFERANS = get_rating_system("preferans")
BRIDGE = get_rating_system("bridge")


def exactly(message: str) -> str:
    """A ``pytest.raises(match=...)`` pattern for this message and nothing around it."""
    return f"^{re.escape(message)}$"


# --- 1. Preferans: the bot cap is the highest maximum among the bots at the table ---------------------------------

NORMAL_BOT = BotSeat(slug="normal", rating=1800, max_rating=2000)
HARD_BOT = BotSeat(slug="hard", rating=1800, max_rating=2400)


@pytest.mark.parametrize(
    ("rating", "expected_after", "bot_cap_detail"),
    [
        pytest.param(2100, 2102.26, None, id="above the lower maximum, below the higher: gains in full"),
        pytest.param(2399, 2400.00, 2400.0, id="a gain past the higher maximum stops at it"),
    ],
)
def test_two_bots_cap_gains_at_the_higher_maximum(rating, expected_after, bot_cap_detail):
    """Ann plays the normal bot (1800, max 2000) and the hard bot (1800, max 2400) and scores 6 whists.

    PRODUCT.md: a rating is never raised above the *highest* bot maximum at the
    table, so the cap is 2400; the normal bot's 2000 does not hold Ann back.

    Both opponents are 1800: Rt = (2*1800 + 1800)/3 = 1800.

    Rs = 2100: gap 300; Kv = 60 + 300/6 = 110; Vf = 300/110 = 2.727273;
    Kd = 2/(1 + log10(1 + 300/100)) = 2/1.602060 = 1.248393;
    Rd = 1.248393 * sqrt(6 - 2.727273) = 1.248393 * 1.809068 = 2.258427;
    Rn = 2102.258 -> 2102.26, under 2400: not capped. (A cap of 2000 would
    leave her at 2100.00: she is already above it.)

    Rs = 2399: gap 599; Kv = 60 + 599/6 = 159.8333; Vf = 599/159.8333 = 3.747654;
    Kd = 2/(1 + log10 6.99) = 2/1.844477 = 1.084318;
    Rd = 1.084318 * sqrt(6 - 3.747654) = 1.084318 * 1.500782 = 1.627325;
    Rn = 2400.627 > 2400 -> 2400.00, with the cap in the details. (A cap of
    2000 would leave her at 2399.00.)
    """
    game = PreferansGame(seats=("ann", NORMAL_BOT, HARD_BOT), deals=((6, -3, -3),))
    [change] = PREFERANS.rate(game, {"ann": PlayerState(rating)}, PreferansParameters())
    assert change.rating_after == expected_after
    assert change.details["bot_cap"] == bot_cap_detail


# --- 2. Bridge: a pair's deals together grow board by board inside a session ---------------------------------------


def _session_of_one_pair_against_strangers(start_deals: int) -> BridgeSession:
    """Pair a-b sits NS for four boards and wins each by 2 IMPs; each board's EW pair is a new pair of strangers."""
    boards = tuple(BridgeBoard((BridgeTable(ns=("a", "b"), ew=(f"c{n}", f"d{n}"), ns_imps=2),)) for n in range(4))
    history = {frozenset({"a", "b"}): start_deals} if start_deals else {}
    # frozen (a rating period): every board starts from the same ratings, so only the bonus moves.
    return BridgeSession(boards=boards, deals_together=history, frozen=True)


@pytest.mark.parametrize(
    ("start_deals", "expected", "ratings_after"),
    [
        pytest.param(0, [0.5, 0.5007, 0.5014, 0.5021], [1012.00, 1011.98, 1011.97, 1011.95], id="new partnership"),
        pytest.param(
            100, [0.5454, 0.5456, 0.5459, 0.5461], [1010.91, 1010.91, 1010.90, 1010.89], id="regular partnership"
        ),
    ],
)
def test_the_partnership_bonus_grows_board_by_board_in_a_session(start_deals, expected, ratings_after):
    """Seed 003 / bridge.py: pair rating = mean of the partners + 50 * (1 - exp(-deals/100)).

    Everyone is rated 1000; each EW pair plays its first board together (bonus 0).
    A 2-IMP win: S = 1, K = 24 (2/3 of a goal). On board n the pair a-b has
    played start + n deals together:

        deals  bonus = 50(1 - e^(-deals/100))   E = 1/(1 + 10^(-bonus/400))   1000 + 24(1 - E)
        0      0                                0.5                           1012.00
        1      0.497508                         0.500716 -> 0.5007            1011.983 -> 1011.98
        2      0.990066                         0.501425 -> 0.5014            1011.966 -> 1011.97
        3      1.477723                         0.502127 -> 0.5021            1011.949 -> 1011.95
        100    31.606028                        0.545360 -> 0.5454            1010.911 -> 1010.91
        101    31.789051                        0.545621 -> 0.5456            1010.905 -> 1010.91
        102    31.970253                        0.545879 -> 0.5459            1010.899 -> 1010.90
        103    32.149631                        0.546135 -> 0.5461            1010.893 -> 1010.89

    If the count stopped growing inside the session every board would repeat board 0.
    """
    states = {player: PlayerState(1000) for player in ("a", "b", *(f"{x}{n}" for x in "cd" for n in range(4)))}
    changes = BRIDGE.rate(_session_of_one_pair_against_strangers(start_deals), states, BridgeParameters())
    of_a = [c for c in changes if c.player == "a"]
    assert [c.unit for c in of_a] == [0, 1, 2, 3]
    assert [c.details["expected"] for c in of_a] == expected
    assert [c.rating_after for c in of_a] == ratings_after


# --- 3. Preferans: the pro floor inside rate() ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "floor", "expected_after", "floor_applied"),
    [
        pytest.param(1800, 1800, 1800.00, True, id="at the floor, a loss is stopped"),
        pytest.param(1802.5, 1800, 1800.00, True, id="above the floor, a loss that would cross it stops at it"),
        pytest.param(1806, 1800, 1800.00, False, id="a loss landing exactly on the floor: nothing stopped"),
        pytest.param(1810, 1800, 1804.00, False, id="a loss that stays above the floor"),
        pytest.param(1800, None, 1794.00, False, id="no floor (amateur)"),
    ],
)
def test_the_floor_stops_a_preferans_loss_inside_rate(rating, floor, expected_after, floor_applied):
    """Ann (with the floor) and Bob share a rating; Ann scores -9 whists, Bob +9.

    Rt = Bob's rating = Rs: gap 0, so Kv = 60, Vf = 0/60 = 0 and
    Kd = 2/(1 + log10 1) = 2. Ann: Rd = -2 * sqrt(0 - (-9)) = -6; Bob: +2 * sqrt(9) = +6.
    1800 - 6 = 1794 < 1800 -> 1800; 1802.5 - 6 = 1796.5 -> 1800; 1806 - 6 = 1800
    (the formula's own result); 1810 - 6 = 1804.
    """
    game = PreferansGame(seats=("ann", "bob"), deals=((-9, 9),))
    states = {"ann": PlayerState(rating, 40, floor), "bob": PlayerState(rating, 40)}
    ann, bob = PREFERANS.rate(game, states, PreferansParameters())
    assert (ann.player, ann.rating_after, ann.details["floor_applied"]) == ("ann", expected_after, floor_applied)
    assert (bob.player, bob.rating_after) == ("bob", rating + 6)


# --- Elo (seed 000) -------------------------------------------------------------------------------------------------


def test_expected_score_uses_400_by_default():
    """A 200-point favourite: E = 1/(1 + 10^(-200/400)) = 1/(1 + 1/sqrt 10) = 0.7597469 (thesis eq. 4.4)."""
    assert expected_score(1200, 1000) == pytest.approx(0.7597469266, abs=1e-9)


def test_elo_update_uses_the_parameters_scale():
    """Scale 800: E = 1/(1 + 10^(-100/800)) = 1/(1 + 0.749894) = 0.571463;
    1100 + 32 * (1 - 0.571463) = 1113.71 -> 1114 (at 400 it would be 1112)."""
    slow = EloParameters(scale=800)
    assert elo_update(rating=1100, opponent_rating=1000, score=1, rated_matches=0, parameters=slow).rating_after == 1114


def test_a_draw_is_a_valid_elo_score():
    """S = 1/2 between equals: 1000 + 32 * (0.5 - 0.5) = 1000."""
    assert elo_update(rating=1000, opponent_rating=1000, score=0.5, rated_matches=0).rating_after == 1000


@pytest.mark.parametrize(("call", "message"), [
    (lambda: elo_update(rating=1000, opponent_rating=1000, score=1.5, rated_matches=0), "score must be 0, 0.5 or 1"),
    (lambda: ELO.rate(EloMatch(("a", "a"), "a"), {"a": PlayerState(1000)}, EloParameters()),
     "an Elo match needs two distinct players and a winner among them"),
    (lambda: get_rating_system("chess960"), "Unknown rating system 'chess960'."),
])  # fmt: skip
def test_elo_errors_say_what_is_wrong(call, message):
    with pytest.raises(EngineInputError, match=exactly(message)):
        call()


def test_elo_rate_k_drops_once_32_matches_are_completed():
    """Both players have completed 32 rated matches, so both use K = 16 (seed 000: from the 33rd on).

    E(1100 vs 1000) = 0.640065. Winner 1100 + 16 * 0.359935 = 1105.76 -> 1106;
    loser 1000 - 16 * 0.359935 = 994.24 -> 994.
    """
    states = {"a": PlayerState(1100, 32), "b": PlayerState(1000, 32)}
    changes = {c.player: c for c in ELO.rate(EloMatch(("a", "b"), "a"), states, EloParameters())}
    assert (changes["a"].rating_after, changes["a"].details["k"]) == (1106, 16)
    assert (changes["b"].rating_after, changes["b"].details["k"]) == (994, 16)
    assert [c.unit for c in changes.values()] == [0, 0], "a Slaps match is one rated unit"


def test_elo_rate_rounds_an_exact_half_away_from_zero():
    """K = 33 between equals: 1000 + 33 * 0.5 = 1016.5 -> 1017 and 1000 - 16.5 = 983.5 -> 984 (halves away from 0)."""
    states = {"a": PlayerState(1000), "b": PlayerState(1000)}
    changes = {c.player: c for c in ELO.rate(EloMatch(("a", "b"), "a"), states, EloParameters(k_provisional=33))}
    assert changes["a"].rating_after == 1017
    assert changes["b"].rating_after == 984


def test_elo_landing_exactly_on_the_floor_is_not_a_floor_stop():
    """1100 loses to 1000 with K 32: 1100 - 32 * 0.640065 = 1079.52 -> 1080; 1000 loses to 1100:
    1000 - 32 * 0.359935 = 988.48 -> 988. With floors 1080 and 988 both land on them: nothing was stopped."""
    assert not elo_update(rating=1100, opponent_rating=1000, score=0, rated_matches=0, floor=1080).floor_applied
    for winner, loser, rating_loser, floor in (("b", "a", 1080, 1080), ("a", "b", 988, 988)):
        states = {"a": PlayerState(1100, 0, 1080 if loser == "a" else None),
                  "b": PlayerState(1000, 0, 988 if loser == "b" else None)}  # fmt: skip
        changes = {c.player: c for c in ELO.rate(EloMatch(("a", "b"), winner), states, EloParameters())}
        assert changes[loser].rating_after == rating_loser == floor
        assert changes[loser].details["floor_applied"] is False


def test_an_update_reports_its_delta():
    """1100 beats 1000: 1112 (seed 000 scenario 1), so the delta from 1100 is +12 (the Elo calculator shows it)."""
    assert elo_update(rating=1100, opponent_rating=1000, score=1, rated_matches=0).delta_from(1100) == 12


# --- Rounding and parameters (base) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "decimals", "rounded"),
    [(2.675, 2, 2.68), (1011.98282, 2, 1011.98), (-2.675, 2, -2.68), (1004.005, 2, 1004.01), (0.25, 1, 0.3)],
)
def test_rounding_to_decimals_is_half_away_from_zero(value, decimals, rounded):
    """Two-decimal ratings (Preferans, bridge) round like paper: 2.675 -> 2.68 even though the
    binary 2.675 is 2.67499999...; 0.25 -> 0.3 (not Python's banker's 0.2)."""
    assert round_half_away_from_zero(value, decimals) == rounded


def test_rounding_never_returns_a_negative_zero():
    """-0.4 rounds to 0, and the 0 carries no sign (a "-0" would print on a page)."""
    assert math.copysign(1.0, round_half_away_from_zero(-0.4)) == 1.0


def test_parameters_from_mapping_fills_defaults_and_coerces_numbers():
    assert parameters_from_mapping(EloParameters, None) == EloParameters()
    parameters = parameters_from_mapping(EloParameters, {"k_provisional": 40, "provisional_matches": 30.0})
    assert parameters == EloParameters(k_provisional=40.0, provisional_matches=30)
    assert type(parameters.k_provisional) is float
    assert type(parameters.provisional_matches) is int


@dataclass(frozen=True, slots=True)
class _Switches:
    """A parameters class with the non-numeric fields an admin-defined game may add."""

    enabled: bool = False
    label: str = "plain"
    weight: float = 1.0


def test_parameters_from_mapping_keeps_non_numeric_values_as_given():
    """Only numeric fields are checked and coerced; a flag or a label is kept as stored, and every key is read."""
    parameters = parameters_from_mapping(_Switches, {"enabled": True, "label": "club", "weight": 2})
    assert parameters == _Switches(enabled=True, label="club", weight=2.0)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"zeta": 1, "bogus": 2}, "Unknown parameter(s): bogus, zeta."),
        ({"k_provisional": True}, "Parameter k_provisional must be a number above 0 and at most 200; got True."),
        ({"k_provisional": "32"}, "Parameter k_provisional must be a number above 0 and at most 200; got '32'."),
        ({"scale": float("inf")}, "Parameter scale must be a number from 100 to 2000; got inf."),
        ({"scale": float("nan")}, "Parameter scale must be a number from 100 to 2000; got nan."),
    ],
)
def test_parameters_from_mapping_rejects_what_no_game_can_use(values, message):
    with pytest.raises(EngineInputError, match=exactly(message)):
        parameters_from_mapping(EloParameters, values)


@pytest.mark.parametrize("value", [True, "2", float("inf"), float("nan")])
def test_a_numeric_parameter_without_a_declared_range_must_still_be_finite(value):
    with pytest.raises(EngineInputError, match=exactly("Parameter weight must be a finite number.")):
        parameters_from_mapping(_Switches, {"weight": value})


def test_a_parameters_refusal_names_its_kind_and_what_it_was_about():
    """The layer above words these in the reader's language (ratings.parameters.parameters_problem)."""
    with pytest.raises(EngineInputError) as unknown:
        parameters_from_mapping(EloParameters, {"zeta": 1, "bogus": 2})
    assert (unknown.value.code, unknown.value.params) == ("unknown_parameters", {"names": ["bogus", "zeta"]})
    with pytest.raises(EngineInputError) as out_of_range:
        parameters_from_mapping(EloParameters, {"scale": 50})
    assert out_of_range.value.code == "parameter_range"
    assert out_of_range.value.params["value"] == 50
    assert (out_of_range.value.params["param"].name, out_of_range.value.params["param"].minimum) == ("scale", 100)
    with pytest.raises(EngineInputError) as not_finite:
        parameters_from_mapping(_Switches, {"weight": "2"})
    assert (not_finite.value.code, not_finite.value.params) == ("not_finite", {"name": "weight"})


# --- Preferans (seed 001) -------------------------------------------------------------------------------------------


def test_a_deal_just_above_the_table_uses_the_above_divisor():
    """Rs = 1001, Rt = 1000: gap 1 > 0, so Kv = 60 + 1/6 = 60.1667 (not 60 - 1/22 = 59.9545)."""
    assert deal_update(rating=1001, opponents=[1000], whists=0).kv == pytest.approx(60.1667, abs=1e-4)


def test_kd_above_its_maximum_is_clamped_in_the_deal():
    """kd_base 5 between equals: 5/(1 + log10 1) = 5 -> clamped to 2.0; +4 whists: Rd = 2 * sqrt 4 = 4."""
    update = deal_update(rating=1000, opponents=[1000], whists=4, parameters=PreferansParameters(kd_base=5.0))
    assert (update.kd, update.rating_after) == (2.0, 1004.0)


@pytest.mark.parametrize(
    ("rating", "whists", "expected_after", "smoothing"),
    [
        pytest.param(5000, 0.25, 5000.50, 0.5, id="a gain of 1: Rd = 2*sqrt(0.25) = 1, halved at 5000"),
        pytest.param(5000, 0, 5000.00, 1.0, id="no gain, nothing to smooth"),
    ],
)
def test_smoothing_applies_to_every_gain_above_4000(rating, whists, expected_after, smoothing):
    """Equal table: Kd 2, Vf 0. Smoothing at 5000: 1/(1 + 1000/1000) = 0.5, on gains only (preferans.py)."""
    update = deal_update(rating=rating, opponents=[rating], whists=whists)
    assert (update.rating_after, update.smoothing) == (expected_after, smoothing)


@pytest.mark.parametrize(
    ("rating", "whists", "expected_after", "capped"),
    [
        pytest.param(2399.5, 0.16, 2400.00, True, id="a gain under 1 point still stops at the cap"),
        pytest.param(2398, 1, 2400.00, False, id="a gain landing exactly on the cap: nothing cut"),
        pytest.param(2000, 1, 2002.00, False, id="a gain well under the cap"),
    ],
)
def test_the_bot_cap_in_one_deal(rating, whists, expected_after, capped):
    """Equal table (Kd 2, Vf 0): Rd = 2*sqrt(0.16) = 0.8, 2*sqrt(1) = 2. Cap 2400:
    2399.5 + 0.8 = 2400.3 -> 2400; 2398 + 2 = 2400 exactly; 2000 + 2 = 2002."""
    update = deal_update(rating=rating, opponents=[rating], whists=whists, bot_cap=2400)
    assert update.rating_after == expected_after
    assert update.bot_cap_applied is capped


def test_a_deal_landing_exactly_on_the_floor_is_not_a_floor_stop():
    """1806 at an equal table, -9 whists: Rd = -2 * 3 = -6 -> 1800, the floor itself."""
    update = deal_update(rating=1806, opponents=[1806], whists=-9, floor=1800)
    assert (update.rating_after, update.floor_applied) == (1800.0, False)


def test_a_deal_rounds_an_exact_half_cent_away_from_zero():
    """Rs 1000.005, equal table, +4 whists: Rd = 4, Rn = 1004.005 -> 1004.01 (two decimals, half away from 0)."""
    assert deal_update(rating=1000.005, opponents=[1000.005], whists=4).rating_after == 1004.01


def test_a_deals_details_round_each_figure_to_four_decimals():
    """Ann 1200 at a table of Bob 1100 and Cat 1500, +3 whists (tests/ratings/engines/test_preferans.py's
    3-player case): Rt = (2*1500 + 1100)/3 = 1366.66667; gap -166.66667; Kv = 60 + 166.66667/22 = 67.57576;
    Vf = -166.66667/67.57576 = -2.46637; Kd = 2/(1 + log10 2.6666667) = 1.40256;
    Rd = 1.40256 * sqrt(3 + 2.46637) = 3.27921; Rn = 1203.28."""
    game = PreferansGame(seats=("ann", "bob", "cat"), deals=((3, -2, -1),))
    states = {"ann": PlayerState(1200), "bob": PlayerState(1100), "cat": PlayerState(1500)}
    ann = PREFERANS.rate(game, states, PreferansParameters())[0]
    assert ann.rating_after == 1203.28
    assert ann.details == {
        "whists": 3.0,
        "table_rating": 1366.6667,
        "kv": 67.5758,
        "expected_whists": -2.4664,
        "kd": 1.4026,
        "smoothing": 1.0,
        "bot_cap": None,
        "floor_applied": False,
    }


def test_a_smoothed_gain_shows_its_factor_to_four_decimals():
    """4300 against an equal 4300: Kd 2, Vf 0; +4 whists: Rd = 4, smoothed by 1/(1 + 300/1000) = 0.769231:
    Rn = 4300 + 3.076923 = 4303.08. Bob's loss of 4 is not smoothed: 4296.00."""
    game = PreferansGame(seats=("ann", "bob"), deals=((4, -4),))
    ann, bob = PREFERANS.rate(game, {"ann": PlayerState(4300), "bob": PlayerState(4300)}, PreferansParameters())
    assert (ann.rating_after, ann.details["smoothing"]) == (4303.08, 0.7692)
    assert (bob.rating_after, bob.details["smoothing"]) == (4296.00, 1.0)


@pytest.mark.parametrize(
    ("seats", "deals", "message"),
    [
        (("ann",), ((0,),), "a Preferans table has 2 to 4 seats"),
        (("a", "b", "c", "d", "e"), ((0, 0, 0, 0, 0),), "a Preferans table has 2 to 4 seats"),
        (("ann", "ann"), ((1, -1),), "a player cannot hold two seats"),
        (("ann", "bob"), ((1, -1), (1, -1, 0)), "deal 2 has 3 scores for 2 seats"),
        (("ann", "bob"), ((float("nan"), 0),), "ratings and whists must be finite numbers"),
    ],
)
def test_preferans_errors_say_what_is_wrong(seats, deals, message):
    states = {key: PlayerState(1000) for key in ("ann", "bob", "a", "b", "c", "d", "e")}
    with pytest.raises(EngineInputError, match=exactly(message)):
        PREFERANS.rate(PreferansGame(seats=seats, deals=deals), states, PreferansParameters())


def test_four_seats_are_a_valid_table():
    """Four equal players, Ann +4: Rt = 1000, Kd 2, Vf 0, Rd = 2 * sqrt 4 = 4."""
    game = PreferansGame(seats=("ann", "bob", "cat", "dan"), deals=((4, -4, 0, 0),))
    states = {key: PlayerState(1000) for key in ("ann", "bob", "cat", "dan")}
    assert [c.rating_after for c in PREFERANS.rate(game, states, PreferansParameters())] == [1004, 996, 1000, 1000]


def test_single_helpers_name_their_errors():
    with pytest.raises(EngineInputError, match=exactly("a Preferans table has one to three opponents")):
        table_rating([])
    with pytest.raises(EngineInputError, match=exactly("ratings and whists must be finite numbers")):
        deal_update(rating=1000, opponents=[1000], whists=float("inf"))


# --- Bridge (seed 003) ----------------------------------------------------------------------------------------------


def test_a_four_table_board_means_each_players_duels():
    """Four tables; everyone is 1000 except EW at table 3 (1200 and 1000: pair rating 1100); no history.
    NS scores 620, 170, -100, 600. N01 (NS, table 0) plays three duels on side A = {NS(0), EW(u)}:

        u  side A vs side B       E                               NS(0)-NS(u)  IMPs  S    K                  K(S-E)
        1  1000 vs 1000           0.5                             450          10    1    24(11+10/3)/8 = 43  21.5
        2  1000 vs 1000           0.5                             720          12    1    24(11+4)/8 = 45     22.5
        3  (1000+1100)/2 vs 1000  1/(1+10^(-50/400)) = 0.571463   20           1     1/2  24                 -1.715115

    mean K(S-E) = 42.284885/3 = 14.094962 -> 1014.09; details: expected (0.5+0.5+0.571463)/3 = 0.5238,
    score 2.5/3 = 0.8333, IMPs 23/3 = 7.67.
    """
    players = [(f"n{t}1", f"n{t}2", f"e{t}1", f"e{t}2") for t in range(4)]
    tables = tuple(
        BridgeTable(ns=(n1, n2), ew=(e1, e2), ns_score=score)
        for (n1, n2, e1, e2), score in zip(players, [620, 170, -100, 600], strict=True)
    )
    states = {player: PlayerState(1000) for group in players for player in group}
    states["e31"] = PlayerState(1200)
    changes = {c.player: c for c in BRIDGE.rate(BridgeSession((BridgeBoard(tables),), {}), states, BridgeParameters())}
    assert changes["n01"].rating_after == 1014.09
    assert changes["n01"].details == {
        "duels": 3, "expected": 0.5238, "score": 0.8333, "imps": 7.67, "floor_applied": False}  # fmt: skip


@pytest.mark.parametrize(
    ("floor_a", "floor_b", "after_a", "after_b", "applied_a", "applied_b"),
    [
        pytest.param(990, None, 990.00, 982.00, True, False, id="a's floor stops the loss"),
        pytest.param(None, 982, 982.00, 982.00, False, False, id="b lands exactly on the floor"),
    ],
)
def test_the_floor_stops_a_bridge_loss_inside_rate(floor_a, floor_b, after_a, after_b, applied_a, applied_b):
    """One table in IMPs, equals at 1000: NS lose by 5 IMPs: S = 0, E = 0.5, K = 1.5 * 24 = 36 (5/3 goals):
    NS 1000 - 18 = 982. With a floor at 990 a stops there; at 982 b lands on it."""
    board = BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_imps=-5),))
    states = {"a": PlayerState(1000, 0, floor_a), "b": PlayerState(1000, 0, floor_b),
              "c": PlayerState(1000), "d": PlayerState(1000)}  # fmt: skip
    changes = {c.player: c for c in BRIDGE.rate(BridgeSession((board,), {}), states, BridgeParameters())}
    assert (changes["a"].rating_after, changes["a"].details["floor_applied"]) == (after_a, applied_a)
    assert (changes["b"].rating_after, changes["b"].details["floor_applied"]) == (after_b, applied_b)
    assert changes["c"].rating_after == 1018.00


@pytest.mark.parametrize(
    ("deals", "parameters", "bonus"),
    [
        (0, BridgeParameters(), 0.0),
        (-1, BridgeParameters(), 0.0),
        (1, BridgeParameters(), 0.497508),  # 50 * (1 - e^-0.01)
        (100, BridgeParameters(bonus_max=1.0), 0.632121),  # 1 * (1 - e^-1)
        (100, BridgeParameters(bonus_max=0.0), 0.0),
    ],
)
def test_partnership_bonus_table(deals, parameters, bonus):
    assert partnership_bonus(deals, parameters) == pytest.approx(bonus, abs=1e-6)


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=100),)),
         "a board played at one table needs the NS IMPs"),
        (BridgeBoard((BridgeTable(ns=("a", "b"), ew=("c", "d"), ns_score=100),
                      BridgeTable(ns=("e", "f"), ew=("g", "h"), ns_imps=2))),
         "a board played at several tables needs every table's NS score"),
        (BridgeBoard((BridgeTable(ns=("a", "b"), ew=("a", "d"), ns_imps=1),)),
         "a player sits at two seats of one board"),
    ],
)  # fmt: skip
def test_bridge_errors_say_what_is_wrong(board, message):
    states = {p: PlayerState(1000) for p in "abcdefgh"}
    with pytest.raises(EngineInputError, match=exactly(message)):
        BRIDGE.rate(BridgeSession((board,), {}), states, BridgeParameters())


def test_imps_of_no_difference():
    assert (imps(0), imps(19), imps(-19)) == (0, 0, 0)


# --- Quality (seed 003's measures) ----------------------------------------------------------------------------------


def test_quality_ignores_impossible_pairs_and_bins_by_tenths():
    """Valid pairs: (0.0, 0.0) counts (a certain prediction, right); (0.55, 1) falls in the 0.5-0.6 bin.
    Out-of-range predictions or outcomes (1.5, -0.1, an outcome of 1.5) are not counted."""
    report = quality_report([(0.0, 0.0), (0.55, 1.0), (1.5, 1.0), (-0.1, 0.0), (0.5, 1.5)])
    assert report.count == 2
    assert [b.count for b in report.bins] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0]


def test_quality_report_as_dict():
    """(0.8, 1) and (0.6, 0): RMSE sqrt((0.04 + 0.36)/2) = sqrt 0.2; baseline sqrt((0.25 + 0.25)/2) = 0.5;
    log-loss (-ln 0.8 - ln 0.4)/2."""
    data = quality_report([(0.8, 1.0), (0.6, 0.0)]).as_dict()
    assert data["units"] == 2
    assert data["rmse"] == pytest.approx(math.sqrt(0.2))
    assert data["baseline_rmse"] == pytest.approx(0.5)
    assert data["log_loss"] == pytest.approx((-math.log(0.8) - math.log(0.4)) / 2)
    assert len(data["calibration"]) == 10
    assert data["calibration"][0] == {"from": 0.0, "to": 0.1, "units": 0, "predicted": None, "observed": None}
    assert data["calibration"][6] == {"from": 0.6, "to": 0.7, "units": 1, "predicted": 0.6, "observed": 0.0}
    assert data["calibration"][8] == {"from": 0.8, "to": 0.9, "units": 1, "predicted": 0.8, "observed": 1.0}
