"""The oracle checked against the seeds' worked examples and hand calculations.

Every number here comes from a seed or from arithmetic written next to it;
none comes from the project's engines (the oracle cannot see them).
"""

import datetime as dt
from fractions import Fraction as F
from zoneinfo import ZoneInfo

import pytest

from tests.oracle import GameSpec, LeagueSpec, ResultSpec, exact, oracle_replay, rules
from tests.oracle.history import period_bounds

SLAPS = rules.parameters_with_defaults("elo", {})
PREF = rules.parameters_with_defaults("preferans", {})
BRIDGE = rules.parameters_with_defaults("bridge", {})
UTC = dt.UTC
T0 = dt.datetime(2026, 5, 4, 18, 0, tzinfo=UTC)


# --- seed 000: the four scenarios and the expected-score table ----------------------------------


@pytest.mark.parametrize(
    ("rating", "opponent", "won", "completed", "expected"),
    [
        (1100, 1000, True, 0, 1112),  # scenario 1, A: 1100 + 32(1 - 0.64)
        (1000, 1100, False, 0, 988),  # scenario 1, B: 1000 + 32(0 - 0.36)
        (1100, 1000, False, 0, 1080),  # scenario 2, A
        (1000, 1100, True, 0, 1020),  # scenario 2, B
        (1100, 1000, True, 33, 1106),  # scenario 3, K = 16
        (1000, 1100, True, 33, 1010),  # scenario 3, B wins with K = 16
        (1400, 1000, True, 0, 1403),  # scenario 4, A
        (1000, 1400, True, 0, 1029),  # scenario 4, B
    ],
)
def test_slaps_seed_scenarios(rating, opponent, won, completed, expected):
    assert rules.slaps_new_rating(
        rating=F(rating), opponent=F(opponent), won=won, completed_rated_matches=completed, parameters=SLAPS
    ) == F(expected)


@pytest.mark.parametrize(("difference", "percent"), [(0, 50), (100, 64), (200, 76), (300, 85), (400, 91)])
def test_slaps_expected_score_table(difference, percent):
    """Seed 000: +-100 -> about 64 %, ... +-400 -> about 91 % for the higher rated player."""
    expected = rules.slaps_expected(F(1000 + difference), F(1000))
    assert exact.round_half_away_from_zero(expected * 100) == percent
    # E_A + E_B = 1, to the 50 digits the oracle computes powers with.
    assert abs(rules.slaps_expected(F(1000), F(1000 + difference)) + expected - 1) < F(1, 10**40)


@pytest.mark.parametrize(("completed", "k"), [(0, 32), (31, 32), (32, 16), (100, 16)])
def test_slaps_k_switches_from_the_33rd_match(completed, k):
    """K is 32 until 32 rated matches are completed: the 33rd match (32 completed) uses 16."""
    assert rules.slaps_k(completed, SLAPS) == k


def test_slaps_parameters_may_override_k():
    p = rules.parameters_with_defaults("elo", {"k_provisional": 40, "provisional_matches": 10})
    assert rules.slaps_k(9, p) == 40
    assert rules.slaps_k(10, p) == 16


@pytest.mark.parametrize(
    ("value", "decimals", "rounded"),
    [
        (F(11115, 10), 0, 1112),
        (F(-1, 2), 0, -1),
        (F(18039350, 10000), 2, F(180394, 100)),
        (F(-15, 1000), 2, F(-2, 100)),
    ],
)
def test_rounding_is_half_away_from_zero(value, decimals, rounded):
    assert exact.round_half_away_from_zero(value, decimals) == rounded


def test_slaps_history_through_the_replay():
    """Two new players; A wins, then B wins (K = 32 for both, all at 1000 to start).

    match 1: E = 1/2, A = 1000 + 32(1 - 1/2) = 1016, B = 984.
    match 2: E_B = 1/(1 + 10^(32/400)) = 0.45398, B = 984 + 32(1 - 0.45398) = 1001.47 -> 1001;
             E_A = 0.54602, A = 1016 + 32(0 - 0.54602) = 998.53 -> 999.
    A friendly and a void in between change nothing.
    """
    game = GameSpec("elo", (LeagueSpec("a", "amateur", 1800), LeagueSpec("p", "pro", None, 1800)))
    body = {"players": [1, 2], "winner": 1}
    results = [
        ResultSpec(3, T0 + dt.timedelta(hours=2), "a", "rated", {"players": [1, 2], "winner": 2}),
        ResultSpec(1, T0, "a", "rated", body),
        ResultSpec(2, T0 + dt.timedelta(hours=1), "a", "friendly", body),
        ResultSpec(4, T0 + dt.timedelta(hours=1), "a", "void", body),
    ]
    outcome = oracle_replay(game, results, now=T0 + dt.timedelta(days=1))
    assert sorted(outcome.rows) == [(1, 0, 1), (1, 0, 2), (3, 0, 1), (3, 0, 2)]
    assert outcome.rows[(1, 0, 1)].rating_after == 1016
    assert outcome.rows[(1, 0, 2)].rating_after == 984
    assert outcome.rows[(3, 0, 1)].rating_after == 999
    assert outcome.rows[(3, 0, 2)].rating_after == 1001
    assert outcome.rows[(3, 0, 1)].peak_after == 1016
    assert outcome.rows[(3, 0, 2)].peak_after == 1001
    assert outcome.rows[(3, 0, 2)].rated_matches_after == 2
    assert outcome.standings[2].peak == 1001  # the start (1000) counts as a peak, then 1001


# --- seed 001 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponents", "rt"),
    [([1500], 1500), ([1200, 1800], F(2 * 1800 + 1200, 3)), ([1200, 1800, 1500], F(3 * 1800 + 2 * 1500 + 1200, 6))],
)
def test_preferans_table_rating_weights_high_to_low(opponents, rt):
    assert rules.preferans_table_rating([F(x) for x in opponents]) == rt


@pytest.mark.parametrize(
    ("rs", "opponents", "vs", "bot_max", "rn"),
    [
        # Rs = Rt = 1000: Kv = 60, Vf = 0, Kd = 2/(1 + log10 1) = 2, Rd = 2*sqrt(4) = 4.
        (1000, [1000], 4, None, F(100400, 100)),
        # Seed's "-5 whists against the 1800 bot": Kv = 60 + 800/22 = 96.3636, Vf = -800/96.3636 = -8.3019,
        # Kd = 2/(1 + log10 9) = 1.02341, Rd = +1.02341*sqrt(-5 + 8.3019) = +1.85966: the formula gains.
        (1000, [1800], -5, 2400, F(100186, 100)),
        # Vf capped at 4: Rs 3000, Rt 1000, (Rs - Rt)/Kv = 2000/393.33 = 5.08 -> 4; 4 whists -> Rd = 0.
        (3000, [1000], 4, None, F(3000)),
        # Smoothing at 5000: Rd = 2*sqrt(1) = 2, times 1/(1 + 1000/1000) = 1/2 -> +1.00.
        (5000, [5000], 1, None, F(5001)),
        # A loss at 5000 is not smoothed: -2*sqrt(1) = -2.
        (5000, [5000], -1, None, F(4998)),
        # Bot maximum 1600 (easy): 1599 at an all-1599 table gaining 2*sqrt(4) = 4 stops at 1600.
        (1599, [1599], 4, 1600, F(1600)),
        # Already above the maximum: a gain leaves the rating where it is.
        (1700, [1700], 4, 1600, F(1700)),
        # ... and a loss applies normally: -2*sqrt(4) = -4.
        (1700, [1700], -4, 1600, F(1696)),
    ],
)
def test_preferans_deal_by_hand(rs, opponents, vs, bot_max, rn):
    got = rules.preferans_deal_rating(
        rs=F(rs), opponents=[F(x) for x in opponents], vs=F(vs), bot_maximum=None if bot_max is None else F(bot_max),
        p=PREF,
    )  # fmt: skip
    assert got == rn


def test_preferans_kd_is_clamped():
    assert rules.preferans_kd(F(1000), F(1000), PREF) == 2
    assert rules.preferans_kd(F(10**12), F(1000), PREF) == F(3, 10)


def _pref_game(**pro):
    return GameSpec(
        "preferans",
        (LeagueSpec("a", "amateur", 1800), LeagueSpec("p", "pro", None, pro.get("floor", 1800))),
        start_rating="1795",
    )


def _bot(slug="normal", rating=1800, max_rating=2400):
    return {"bot": slug, "rating": rating, "max_rating": max_rating}


def test_preferans_mid_game_promotion_then_floor_from_the_next_deal():
    """Start 1795 against the normal bot (1800, max 2400), two seats.

    deal 0, +10 whists: Rt 1800, gap -5, Kv = 60 + 5/22 = 60.2273, Vf = -0.08302,
      Kd = 2/(1 + log10 1.05) = 1.95850, Rd = 1.95850*sqrt(10.08302) = +6.21898 -> 1801.22: promoted here.
    deal 1, -10000 whists: a fall of about 199 (Rd = -1.98952*sqrt(10000.02)) -> stopped by the pro floor: 1800.
    deal 2, -1 whists: before 1800, still floored: 1800 (the floor stops falls, nothing lifts).
    """
    results = [
        ResultSpec(
            1, T0, "a", "rated", {"seats": [{"player": 7}, _bot()], "deals": [[10, -10], [-10000, 10000], [-1, 1]]}
        )
    ]
    outcome = oracle_replay(_pref_game(), results, now=T0)
    first, second, third = (outcome.rows[(1, unit, 7)] for unit in range(3))
    assert (first.rating_after, first.league_after) == (F(180122, 100), "pro")
    assert (second.rating_before, second.rating_after, second.league_after) == (F(180122, 100), 1800, "pro")
    assert third.rating_after == 1800
    assert [(p.player, p.match, p.rating) for p in outcome.promotions] == [(7, 1, F(180122, 100))]
    assert first.peak_after == second.peak_after == F(180122, 100)
    assert third.rated_matches_after == 1


def test_preferans_raised_floor_never_lifts():
    """Pro floor raised to 1850 above the threshold 1800: promoted at 1801.22 (deal 0, as above),
    a loss on deal 1 is stopped at 1801.22 (max(proposed, min(1801.22, 1850))), and a 0-whist deal
    2 (Rs 1801.22 > Rt 1800, Vf = 1.22/60.2033 = 0.02026 > 0: Rd = -Kd*sqrt(0.02026) < 0) is stopped too:
    the player is never lifted to 1850."""
    deals = [[10, -10], [-5, 5], [0, 0]]
    results = [ResultSpec(1, T0, "a", "rated", {"seats": [{"player": 7}, _bot()], "deals": deals})]
    outcome = oracle_replay(_pref_game(floor=1850), results, now=T0)
    assert [outcome.rows[(1, unit, 7)].rating_after for unit in range(3)] == [F(180122, 100)] * 3


def test_preferans_bot_values_are_the_ones_in_the_body():
    """Two games against a bot whose maximum differs between them: each uses its own as-played maximum."""
    deal = [[40, -40]]
    low = {"seats": [{"player": 1}, _bot("easy", 1200, 1000.5)], "deals": deal}
    outcome = oracle_replay(_pref_game(), [ResultSpec(1, T0, "a", "rated", low)], now=T0)
    # 1795 is above the 1000.50 maximum: the gain is cancelled.
    assert outcome.rows[(1, 0, 1)].rating_after == F(1795)


# --- seed 003 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("difference", "imps"),
    [(0, 0), (10, 0), (20, 1), (40, 1), (50, 2), (420, 9), (430, 10), (-620, -12), (1500, 17), (3990, 23), (4000, 24),
     (7600, 24)],
)  # fmt: skip
def test_wbf_imp_scale(difference, imps):
    assert rules.wbf_imps(difference) == imps


def test_bridge_expected_scores_of_the_thesis():
    """Eq. 4.4/4.5: 200 points better -> 0.76, worse -> 0.24; the rule of 400 caps at about 0.91/0.09."""
    assert round(float(rules.bridge_expected(F(1500), F(1300), BRIDGE)), 2) == 0.76
    assert round(float(rules.bridge_expected(F(1300), F(1500), BRIDGE)), 2) == 0.24
    assert rules.bridge_expected(F(3000), F(1000), BRIDGE) == rules.bridge_expected(F(1400), F(1000), BRIDGE)
    assert round(float(rules.bridge_expected(F(3000), F(1000), BRIDGE)), 2) == 0.91


@pytest.mark.parametrize(("imps", "score"), [(2, 1), (F(3, 2), 1), (1, F(1, 2)), (-1, F(1, 2)), (F(-3, 2), 0)])
def test_bridge_winner_needs_more_than_one_imp(imps, score):
    assert rules.bridge_score(F(imps), BRIDGE) == score


@pytest.mark.parametrize(("imps", "k"), [(0, 24), (3, 24), (4, 36), (6, 36), (9, 42), (-12, 45)])
def test_bridge_k_by_margin(imps, k):
    """24 up to one goal (3 IMPs), 36 up to two, then 24(11 + goals)/8: 9 IMPs -> 24*14/8 = 42, 12 -> 45."""
    assert rules.bridge_margin_k(F(imps), BRIDGE) == k


def test_bridge_partnership_bonus():
    assert rules.bridge_partnership_bonus(0, BRIDGE) == 0
    # 50(1 - e^-1) = 31.6060
    assert round(float(rules.bridge_partnership_bonus(100, BRIDGE)), 4) == 31.6060
    assert rules.bridge_partnership_bonus(10**4, BRIDGE) < 50


def _bridge_game(**amateur):
    return GameSpec(
        "bridge",
        (LeagueSpec("a", "amateur", 1800, None, amateur.get("days", 0), amateur.get("anchor", dt.date(2026, 1, 5))),
         LeagueSpec("p", "pro", None, 1800)),
        time_zone=amateur.get("zone", "UTC"),
    )  # fmt: skip


def test_bridge_two_table_board_by_hand():
    """8 strangers at 1000; NS scores 420 (table 1) and -50 (table 2): 470 -> 10 IMPs for {NS1, EW2}.
    E = 1/2, S = 1, goals = 10/3, K = 24(11 + 10/3)/8 = 43: +21.50 for players 1, 2, 7, 8; -21.50 for 3-6.
    The partnerships then have 1 deal together each."""
    board = {"number": 1, "tables": [{"ns": [1, 2], "ew": [3, 4], "ns_score": 420},
                                     {"ns": [5, 6], "ew": [7, 8], "ns_score": -50}]}  # fmt: skip
    outcome = oracle_replay(_bridge_game(), [ResultSpec(1, T0, "a", "rated", {"boards": [board]})], now=T0)
    assert {key[2]: row.delta for key, row in outcome.rows.items()} == {
        1: F(43, 2), 2: F(43, 2), 7: F(43, 2), 8: F(43, 2), 3: F(-43, 2), 4: F(-43, 2), 5: F(-43, 2), 6: F(-43, 2)
    }  # fmt: skip


def test_bridge_single_table_and_partnership_grows_within_the_session():
    """One table in IMPs, all at 1000. Board 0: NS +3 IMPs: E = 1/2, K = 24, +12 for 1 and 2 -> 1012.
    Board 1: NS (1012, 1012) with 1 deal together: bonus 50(1 - e^-0.01) = 0.49750; EW (988, 988) also 1 deal:
    sides equal by symmetry apart from the ratings: rd = 988.4975 - 1012.4975 = -24, E_NS = 1/(1 + 10^(-24/400))
    = 0.53452; NS 0 IMPs (draw, K 24): 24(1/2 - 0.53452) = -0.82848 -> 1011.17; EW +0.82848 -> 988.83."""
    table = {"ns": [1, 2], "ew": [3, 4]}
    boards = [{"number": 1, "tables": [{**table, "ns_imps": 3}]}, {"number": 2, "tables": [{**table, "ns_imps": 0}]}]
    outcome = oracle_replay(_bridge_game(), [ResultSpec(1, T0, "a", "rated", {"boards": boards})], now=T0)
    assert outcome.rows[(1, 0, 1)].rating_after == 1012
    assert outcome.rows[(1, 1, 1)].rating_after == F(101117, 100)
    assert outcome.rows[(1, 1, 3)].rating_after == F(98883, 100)


@pytest.mark.parametrize(
    ("zone", "anchor", "local_moment", "local_start", "hours"),
    [
        # Issue 11, bug 3: 2026-03-30 00:30 CEST is in the period starting that midnight (DST began 03-29).
        ("Europe/Berlin", dt.date(2026, 3, 23), dt.datetime(2026, 3, 30, 0, 30), dt.datetime(2026, 3, 30), 168),
        ("Europe/Berlin", dt.date(2026, 3, 23), dt.datetime(2026, 3, 29, 23, 30), dt.datetime(2026, 3, 23), 167),
        ("Europe/Berlin", dt.date(2026, 10, 19), dt.datetime(2026, 10, 26, 0, 10), dt.datetime(2026, 10, 26), 168),
        ("Europe/Berlin", dt.date(2026, 10, 19), dt.datetime(2026, 10, 25, 23, 59), dt.datetime(2026, 10, 19), 169),
        ("America/New_York", dt.date(2026, 3, 2), dt.datetime(2026, 3, 9, 0, 30), dt.datetime(2026, 3, 9), 168),
        ("America/New_York", dt.date(2026, 3, 2), dt.datetime(2026, 3, 8, 23, 30), dt.datetime(2026, 3, 2), 167),
        ("America/New_York", dt.date(2026, 10, 26), dt.datetime(2026, 11, 2, 0, 5), dt.datetime(2026, 11, 2), 168),
        ("UTC", dt.date(2026, 1, 5), dt.datetime(2026, 3, 30, 0, 30), dt.datetime(2026, 3, 30), 168),
    ],
)
def test_period_bounds_follow_the_local_calendar(zone, anchor, local_moment, local_start, hours):
    tz = ZoneInfo(zone)
    moment = local_moment.replace(tzinfo=tz)
    start, end = period_bounds(LeagueSpec("a", "amateur", period_days=7, period_anchor=anchor), moment, zone)
    assert start == local_start.replace(tzinfo=tz)
    assert start <= moment < end
    assert end.astimezone(tz).time() == dt.time(0, 0)
    assert end.astimezone(UTC) - start.astimezone(UTC) == dt.timedelta(hours=hours)


def test_bridge_period_uses_the_ratings_at_its_start():
    """3-day periods. Session 1 (before the period): NS +3 IMPs -> players 1, 2 at 1012, 3, 4 at 988.
    Two sessions inside one later period, each NS +3 IMPs again: both are computed from the period-start
    ratings (so both give the same change, strangers turned 1-deal partners in session 2 of the period aside),
    and neither is rated before the period closes."""
    table = {"ns": [1, 2], "ew": [3, 4], "ns_imps": 3}
    body = {"boards": [{"number": 1, "tables": [table]}]}
    game = _bridge_game(days=3, anchor=dt.date(2026, 5, 1))
    early = ResultSpec(1, dt.datetime(2026, 4, 20, tzinfo=UTC), "p", "rated", body)  # pro: no period
    in_period = [ResultSpec(i, dt.datetime(2026, 5, 2, 10 + i, tzinfo=UTC), "a", "rated", body) for i in (2, 3)]
    waiting = oracle_replay(game, [early, *in_period], now=dt.datetime(2026, 5, 3, 12, tzinfo=UTC))
    assert waiting.pending == [2, 3]
    assert set(waiting.rows) == {(1, 0, p) for p in (1, 2, 3, 4)}
    closed = oracle_replay(game, [early, *in_period], now=dt.datetime(2026, 5, 4, tzinfo=UTC))
    # Session 2 from (1012, 988): the pairs have 1 deal together each -> equal bonuses, rd = -24,
    # E_NS = 0.53452, K 24 (3 IMPs), S = 1: +24(1 - 0.53452) = +11.17 (rounded from 1012 + 11.17152).
    assert closed.rows[(2, 0, 1)].delta == F(1117, 100)
    # Session 3 is computed from the same period-start ratings; only the bonus (2 deals each side) differs,
    # and equally on both sides, so the change is the same and adds to the current rating.
    assert closed.rows[(3, 0, 1)].delta == F(1117, 100)
    assert closed.rows[(3, 0, 1)].rating_before == F(102317, 100)
    assert closed.rows[(3, 0, 1)].rating_after == F(103434, 100)
