"""The seeds' formulas, one rated unit at a time, written out slowly.

Each function takes the ratings *at the start of the unit* (Fractions) and
returns what the seed says the unit does to each player, before any league
rule (promotion, floor) and before the ledger's bookkeeping; ``history``
applies those. Parameter names are the ones the project documents for a
game's ``parameters`` JSON (docs/ratings.md "Parameters and choices"
and the engines' module docstrings); a missing name takes the seed's value.
"""

from __future__ import annotations

from fractions import Fraction

from . import exact

F = Fraction

# --- Slaps: ISF Elo (seed 000) ---------------------------------------------------------------

SEED_SCALE = F(400)
SLAPS_DEFAULTS = {"k_provisional": 32, "k_established": 16, "provisional_matches": 32, "scale": 400}


def slaps_expected(rating: Fraction, opponent: Fraction, scale: Fraction = SEED_SCALE) -> Fraction:
    """E_A = 1 / (1 + 10^((R_B - R_A)/400))."""
    return 1 / (1 + exact.power_of_ten((opponent - rating) / scale))


def slaps_k(completed_rated_matches: int, parameters: dict) -> Fraction:
    """32 while the player has completed fewer than 32 rated matches, 16 from the 33rd on."""
    if completed_rated_matches < parameters["provisional_matches"]:
        return F(parameters["k_provisional"])
    return F(parameters["k_established"])


def slaps_new_rating(
    *, rating: Fraction, opponent: Fraction, won: bool, completed_rated_matches: int, parameters: dict
) -> Fraction:
    """R' = R + K (S - E), rounded to a whole number, halves away from zero."""
    expected = slaps_expected(rating, opponent, F(parameters["scale"]))
    score = F(1) if won else F(0)
    k = slaps_k(completed_rated_matches, parameters)
    return exact.round_half_away_from_zero(rating + k * (score - expected), 0)


# --- Preferans: SmartPref per deal (seed 001) --------------------------------------------------

PREFERANS_DEFAULTS = {
    "kv_base": 60,
    "kv_above": 6,  # X
    "kv_below": 22,  # Y
    "expected_whists_cap": 4,
    "kd_base": 2,
    "kd_min": "0.3",
    "kd_max": 2,
    "kd_scale": 100,
    "smoothing_start": 4000,
    "smoothing_scale": 1000,
}


def preferans_table_rating(opponents: list[Fraction]) -> Fraction:
    """Rt: Rr1 alone; (Rr1*2 + Rr2)/3; (Rr1*3 + Rr2*2 + Rr3)/6, with Rr1 >= Rr2 >= Rr3."""
    ranked = sorted(opponents, reverse=True)
    if len(ranked) == 1:
        return ranked[0]
    if len(ranked) == 2:
        return (ranked[0] * 2 + ranked[1]) / 3
    if len(ranked) == 3:
        return (ranked[0] * 3 + ranked[1] * 2 + ranked[2]) / 6
    raise ValueError("a Preferans table has one to three opponents")


def preferans_kv(rs: Fraction, rt: Fraction, p: dict) -> Fraction:
    """Kv = 60 + (Rs - Rt)/X when Rs > Rt, else 60 + (Rt - Rs)/Y."""
    if rs > rt:
        return F(p["kv_base"]) + (rs - rt) / F(p["kv_above"])
    return F(p["kv_base"]) + (rt - rs) / F(p["kv_below"])


def preferans_vf(rs: Fraction, rt: Fraction, p: dict) -> Fraction:
    """Vf = min((Rs - Rt)/Kv, 4)."""
    return min((rs - rt) / preferans_kv(rs, rt, p), F(p["expected_whists_cap"]))


def preferans_kd(rs: Fraction, rt: Fraction, p: dict) -> Fraction:
    """Kd = clamp(baseKd / (1 + log10(1 + |Rs - Rt|/100)), minKd, maxKd)."""
    diff = abs(rs - rt)
    raw = F(p["kd_base"]) / (1 + exact.log10(1 + diff / F(p["kd_scale"])))
    return exact.clamp(raw, F(p["kd_min"]), F(p["kd_max"]))


def preferans_rd(rs: Fraction, rt: Fraction, vs: Fraction, p: dict) -> Fraction:
    """Rd = +Kd*sqrt(Vs - Vf) when Vs > Vf, -Kd*sqrt(Vf - Vs) when Vs < Vf (0 when equal)."""
    vf = preferans_vf(rs, rt, p)
    kd = preferans_kd(rs, rt, p)
    if vs > vf:
        return kd * exact.sqrt(vs - vf)
    if vs < vf:
        return -kd * exact.sqrt(vf - vs)
    return F(0)


def preferans_smoothing(rs: Fraction, rd: Fraction, p: dict) -> Fraction:
    """The project's smoothing above 4000: a gain earned at Rs > 4000 is multiplied by
    1 / (1 + (Rs - 4000)/1000); losses, and anything at or below 4000, are not smoothed."""
    if rd > 0 and rs > F(p["smoothing_start"]):
        return 1 / (1 + (rs - F(p["smoothing_start"])) / F(p["smoothing_scale"]))
    return F(1)


def preferans_deal_rating(
    *, rs: Fraction, opponents: list[Fraction], vs: Fraction, bot_maximum: Fraction | None, p: dict
) -> Fraction:
    """Rn = Rs + Rd (smoothed), never lifted above the table's highest bot maximum by a gain
    (a player already above it gains nothing), kept to two decimals (half away from zero)."""
    rt = preferans_table_rating(opponents)
    rd = preferans_rd(rs, rt, vs, p)
    rn = rs + rd * preferans_smoothing(rs, rd, p)
    if bot_maximum is not None and rd > 0:
        ceiling = max(bot_maximum, rs)
        rn = min(rn, ceiling)
    return exact.round_half_away_from_zero(rn, 2)


# --- Bridge: pairs Elo (seed 003 and the project's documented choices) --------------------------

BRIDGE_DEFAULTS = {
    "k_base": 24,
    "scale": 400,
    "rating_difference_cap": 400,
    "draw_margin_imps": 1,
    "imps_per_goal": 3,
    "bonus_max": 50,
    "bonus_scale": 100,
}

# The WBF IMP scale as printed on a convention card: (lowest, highest) score difference -> IMPs.
WBF_IMP_TABLE = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5), (220, 260, 6),
    (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11), (600, 740, 12),
    (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16), (1500, 1740, 17),
    (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21), (3000, 3490, 22),
    (3500, 3990, 23),
]  # fmt: skip


def wbf_imps(difference: int) -> int:
    """IMPs for a score difference (scores are multiples of 10); 4000 and more is 24. Sign kept."""
    size = abs(difference)
    value = 24
    for lowest, highest, imps in WBF_IMP_TABLE:
        if lowest <= size <= highest:
            value = imps
            break
    return value if difference >= 0 else -value


def bridge_partnership_bonus(deals_together: int, p: dict) -> Fraction:
    """50 * (1 - e^(-deals/100)): 0 for strangers, saturating at 50."""
    if deals_together <= 0:
        return F(0)
    return F(p["bonus_max"]) * (1 - exact.exp(-F(deals_together) / F(p["bonus_scale"])))


def bridge_expected(own: Fraction, opponents: Fraction, p: dict) -> Fraction:
    """E = 1/(1 + 10^(rd/400)), rd = opponents - own clamped to +-400 (the rule of 400)."""
    cap = F(p["rating_difference_cap"])
    rd = exact.clamp(opponents - own, -cap, cap)
    return 1 / (1 + exact.power_of_ten(rd / F(p["scale"])))


def bridge_score(imps_won: Fraction, p: dict) -> Fraction:
    """1 for winning by more than 1 IMP, 0 for losing by more than 1 IMP, 1/2 within."""
    margin = F(p["draw_margin_imps"])
    if imps_won > margin:
        return F(1)
    if imps_won < -margin:
        return F(0)
    return F(1, 2)


def bridge_margin_k(imps_won: Fraction, p: dict) -> Fraction:
    """World Football Elo with a goal = 3 IMPs: K up to one goal, 1.5 K up to two, K (11 + goals)/8 beyond."""
    goals = abs(imps_won) / F(p["imps_per_goal"])
    k = F(p["k_base"])
    if goals <= 1:
        return k
    if goals <= 2:
        return k * F(3, 2)
    return k * (11 + goals) / 8


def bridge_duels(tables: list[dict]) -> list[tuple[list[tuple], list[tuple], Fraction]]:
    """A board's duels: (side A pairs, side B pairs, IMPs won by A).

    One table (entered in IMPs): NS against EW. Two tables with table 1's NS
    IMPs and no scores: the team match {NS1, EW2} against {NS2, EW1}. Otherwise
    every two tables t < u: {NS(t), EW(u)} against {NS(u), EW(t)}, scored by
    the IMPs of NS(t) - NS(u).
    """
    if len(tables) == 1:
        table = tables[0]
        return [([table["ns"]], [table["ew"]], exact.to_fraction(table["ns_imps"]))]
    if len(tables) == 2 and tables[0].get("ns_imps") is not None and tables[1].get("ns_score") is None:
        first, second = tables
        return [([first["ns"], second["ew"]], [second["ns"], first["ew"]], exact.to_fraction(first["ns_imps"]))]
    duels = []
    for t in range(len(tables)):
        for u in range(t + 1, len(tables)):
            first, second = tables[t], tables[u]
            won = wbf_imps(first["ns_score"] - second["ns_score"])
            duels.append(([first["ns"], second["ew"]], [second["ns"], first["ew"]], F(won)))
    return duels


def bridge_board_changes(*, tables: list[dict], ratings: dict, deals_together: dict, p: dict) -> dict[object, Fraction]:
    """Each player's unrounded change on the board: the mean of K(S - E) over their duels.

    ``ratings`` are the players' ratings the board is computed from;
    ``deals_together`` maps frozenset(pair) to the deals the pair played
    together before this board.
    """

    def pair_rating(pair) -> Fraction:
        mean = (ratings[pair[0]] + ratings[pair[1]]) / 2
        return mean + bridge_partnership_bonus(deals_together.get(frozenset(pair), 0), p)

    def side_rating(pairs) -> Fraction:
        return sum((pair_rating(pair) for pair in pairs), F(0)) / len(pairs)

    gains: dict[object, list[Fraction]] = {}
    for side_a, side_b, imps_a in bridge_duels(tables):
        rating_a, rating_b = side_rating(side_a), side_rating(side_b)
        k = bridge_margin_k(imps_a, p)
        for side, own, other, won in ((side_a, rating_a, rating_b, imps_a), (side_b, rating_b, rating_a, -imps_a)):
            gain = k * (bridge_score(won, p) - bridge_expected(own, other, p))
            for pair in side:
                for player in pair:
                    gains.setdefault(player, []).append(gain)
    return {player: sum(values, F(0)) / len(values) for player, values in gains.items()}


def parameters_with_defaults(rating_system: str, overrides: dict | None) -> dict:
    defaults = {"elo": SLAPS_DEFAULTS, "preferans": PREFERANS_DEFAULTS, "bridge": BRIDGE_DEFAULTS}[rating_system]
    unknown = set(overrides or {}) - set(defaults)
    if unknown:
        raise ValueError(f"unknown parameters for {rating_system}: {sorted(unknown)}")
    merged = {**defaults, **(overrides or {})}
    return {
        name: value if name == "provisional_matches" else exact.to_fraction(value) for name, value in merged.items()
    }
