"""SmartPref's per-deal Preferans rating (seed 001).

Vocabulary (the seed's letters, kept because players read them on the
calculator page):

    Rs   the player's current rating, before the deal
    Rt   the table rating, from the opponents' current ratings sorted high
         to low (Rr1 >= Rr2 >= Rr3):
             one opponent      Rt = Rr1
             two opponents     Rt = (2*Rr1 + Rr2) / 3
             three opponents   Rt = (3*Rr1 + 2*Rr2 + Rr3) / 6
    Kv   expected-whist factor: 60 + (Rs - Rt)/X if Rs > Rt, else
         60 + (Rt - Rs)/Y, with X = 6 and Y = 22
    Vf   expected whists: min((Rs - Rt) / Kv, 4)
    Vs   whists the player scored in the deal (each deal is zero-sum)
    Kd   dynamic deal coefficient: clamp(2.0 / (1 + log10(1 + |Rs - Rt|/100)),
         0.3, 2.0)
    Rd   the deal's rating delta: +Kd*sqrt(Vs - Vf) when Vs > Vf,
         -Kd*sqrt(Vf - Vs) when Vs < Vf, 0 when equal
    Rn   the new rating, Rs + Rd, kept to two decimals

Where the seed's prose and formula disagree (its "-5 whists against the 1800
bot" sentence), the formula wins.

Choices the seed leaves open, all parameters of ``PreferansParameters``:

* Smoothing above 4000 ("after rating 4000, smoothing is applied"): a gain
  Rd > 0 earned at Rs > 4000 is multiplied by
  ``1 / (1 + (Rs - 4000) / smoothing_scale)``: 1 at 4000 (continuous), 1/2 at
  5000 with the default scale of 1000, shrinking as the rating grows. Losses
  are not smoothed.
* Bots: a bot seat has a fixed rating (used as an opponent's rating) and a
  maximum rating. A deal never lifts a player above the highest bot maximum
  at the table; a player already above it gains nothing there; losses apply
  normally. Bots are never rated.
* Within one deal every seat's delta is computed from the ratings at the
  deal's start; the next deal starts from the ratings this one left.
* Bots as played: a bot seat carries the rating and maximum the bot had when
  the result was stored (the service keeps them on the seat), so editing a
  bot changes future games only.
* A floor only stops a fall, deal by deal: a deal that would take a player
  below it leaves them at ``max(after, min(before, floor))``; it never lifts
  anyone (``base.stop_at_floor``).
* Promotion happens at the deal that takes an amateur to the threshold
  (``PlayerState.promote_at``); from the next deal of the same game on the
  player is pro and ``PlayerState.promoted_floor`` is their floor.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from .base import Change, EngineInputError, Param, PlayerState, new_change
from .quality import Forecast, pairwise_forecasts


@dataclass(frozen=True, slots=True)
class PreferansParameters:
    kv_base: float = 60.0
    kv_above: float = 6.0  # X: Kv divisor when the player is rated above the table
    kv_below: float = 22.0  # Y: Kv divisor when the player is rated at or below the table
    expected_whists_cap: float = 4.0
    kd_base: float = 2.0
    kd_min: float = 0.3
    kd_max: float = 2.0
    kd_scale: float = 100.0
    smoothing_start: float = 4000.0
    smoothing_scale: float = 1000.0

    # What a game may set (``base.Param``), around the seed's values. Kv's base and divisors keep Kv
    # at least kv_base > 0, so Vf = (Rs - Rt) / Kv is always defined; the cap on Vf and Kd's bounds keep
    # one deal's change within a few dozen points (Kd times the square root of at most 20,000 whists);
    # the scales divide, so they start at 1.
    RANGES: ClassVar[tuple[Param, ...]] = (
        Param("kv_base", 1, 1000),
        Param("kv_above", 1, 1000),
        Param("kv_below", 1, 1000),
        Param("expected_whists_cap", 0, 100),
        Param("kd_base", 0, 20, minimum_excluded=True),
        Param("kd_min", 0, 20),
        Param("kd_max", 0, 20, minimum_excluded=True),
        Param("kd_scale", 1, 100_000),
        Param("smoothing_start", 0, 100_000),
        Param("smoothing_scale", 1, 100_000),
    )
    ORDERED: ClassVar[tuple[tuple[str, str], ...]] = (("kd_min", "kd_max"),)


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A bot at the table: a fixed rating and the cap it puts on players' gains."""

    slug: str
    rating: float
    max_rating: float


@dataclass(frozen=True, slots=True)
class PreferansGame:
    """Seats in order (a player key or a BotSeat) and deals: whists per seat, in seat order."""

    seats: tuple[Hashable | BotSeat, ...]
    deals: tuple[tuple[float, ...], ...]


class DealUpdate(NamedTuple):
    table_rating: float
    kv: float
    expected_whists: float
    kd: float
    raw_delta: float
    smoothing: float
    rating_after: float
    bot_cap_applied: bool
    floor_applied: bool


def table_rating(opponents: Sequence[float]) -> float:
    """Rt: the opponents' ratings weighted high to low (3-2-1, 2-1 or 1)."""
    count = len(opponents)
    if count == 3:
        first, second, third = sorted(opponents, reverse=True)
        return (3 * first + 2 * second + third) / 6
    if count == 2:
        first, second = sorted(opponents, reverse=True)
        return (2 * first + second) / 3
    if count == 1:
        return opponents[0]
    raise EngineInputError("a Preferans table has one to three opponents")


def deal_coefficient(rating: float, table: float, p: PreferansParameters) -> float:
    """Kd: smaller as the gap between the player and the table grows."""
    diff = abs(rating - table)
    return min(max(p.kd_base / (1.0 + math.log10(1.0 + diff / p.kd_scale)), p.kd_min), p.kd_max)


def smoothing_factor(rating: float, p: PreferansParameters) -> float:
    if rating <= p.smoothing_start:
        return 1.0
    return 1.0 / (1.0 + (rating - p.smoothing_start) / p.smoothing_scale)


def deal_update(
    *,
    rating: float,
    opponents: Sequence[float],
    whists: float,
    parameters: PreferansParameters = PreferansParameters(),
    bot_cap: float | None = None,
    floor: float | None = None,
) -> DealUpdate:
    """One player's rating change for one deal (the formulas of the module docstring, in order)."""
    if not math.isfinite(rating) or not math.isfinite(whists) or not all(math.isfinite(x) for x in opponents):
        raise EngineInputError("ratings and whists must be finite numbers")
    return DealUpdate(*_deal_update(rating, opponents, whists, parameters, bot_cap, floor))


def _deal_update(
    rating: float,
    opponents: Sequence[float],
    whists: float,
    p: PreferansParameters,
    bot_cap: float | None,
    floor: float | None,
) -> tuple[float, float, float, float, float, float, float, bool, bool]:
    """``deal_update`` on numbers already checked to be finite, as a plain tuple in ``DealUpdate``'s order.

    Written flat, called positionally and returning a bare tuple because a
    replay runs it millions of times (the engine benchmark holds it to its
    inline baseline); ``deal_coefficient`` and ``smoothing_factor`` above
    state Kd and the smoothing on their own, and tests check they agree with
    this.
    """
    table = table_rating(opponents)
    gap = rating - table
    kv = p.kv_base + gap / p.kv_above if gap > 0 else p.kv_base - gap / p.kv_below
    vf = gap / kv
    if vf > p.expected_whists_cap:
        vf = p.expected_whists_cap
    kd = p.kd_base / (1.0 + math.log10(1.0 + abs(gap) / p.kd_scale))
    kd = p.kd_min if kd < p.kd_min else p.kd_max if kd > p.kd_max else kd
    if whists > vf:
        raw = kd * math.sqrt(whists - vf)
    elif whists < vf:
        raw = -kd * math.sqrt(vf - whists)
    else:
        raw = 0.0
    smoothing = 1.0
    if raw > 0 and rating > p.smoothing_start:
        smoothing = 1.0 / (1.0 + (rating - p.smoothing_start) / p.smoothing_scale)
    after = rating + raw * smoothing
    capped = False
    if bot_cap is not None and raw > 0 and after > max(bot_cap, rating):
        after, capped = max(bot_cap, rating), True
    after = math.copysign(math.floor(abs(after) * 100 + 0.5 + 1e-9) / 100, after)
    # A floor stops a fall and never lifts (base.stop_at_floor, inlined).
    floor_applied = floor is not None and after < floor and after < rating
    if floor_applied:
        after = float(floor) if rating > floor else rating
    return table, kv, vf, kd, raw, smoothing, after, capped, floor_applied


class PreferansSystem:
    slug = "preferans"
    label = "SmartPref per-deal rating"
    decimals = 2
    parameters_class = PreferansParameters

    def rate(
        self, match: PreferansGame, states: Mapping[Hashable, PlayerState], parameters: PreferansParameters
    ) -> list[Change]:
        seats = match.seats
        if not 2 <= len(seats) <= 4:
            raise EngineInputError("a Preferans table has 2 to 4 seats")
        players = [seat for seat in seats if not isinstance(seat, BotSeat)]
        if len(set(players)) != len(players):
            raise EngineInputError("a player cannot hold two seats")
        bots = [seat for seat in seats if isinstance(seat, BotSeat)]
        bot_cap = max((bot.max_rating for bot in bots), default=None)
        current = {player: float(states[player].rating) for player in players}
        numbers = [*current.values(), *(bot.rating for bot in bots)]
        for deal_number, whists in enumerate(match.deals, start=1):
            if len(whists) != len(seats):
                raise EngineInputError(f"deal {deal_number} has {len(whists)} scores for {len(seats)} seats")
            numbers.extend(whists)
        if not all(math.isfinite(number) for number in numbers):
            raise EngineInputError("ratings and whists must be finite numbers")
        floors = {player: states[player].floor for player in players}
        # Players still to be promoted in this game: seat -> (threshold, the floor they get then).
        promoting = {
            player: (state.promote_at, state.promoted_floor)
            for player in players
            if (state := states[player]).promote_at is not None
        }
        rated = [(index, seat) for index, seat in enumerate(seats) if not isinstance(seat, BotSeat)]
        changes: list[Change] = []
        for unit, whists in enumerate(match.deals):
            ratings = [seat.rating if isinstance(seat, BotSeat) else current[seat] for seat in seats]
            for index, seat in rated:
                # Every seat's delta is computed from the ratings at the deal's start.
                whist = float(whists[index])
                table, kv, vf, kd, _raw, smoothing, after, capped, floor_applied = _deal_update(
                    ratings[index], ratings[:index] + ratings[index + 1 :], whist, parameters, bot_cap, floors[seat]
                )
                current[seat] = after
                promoted = False
                if promoting and seat in promoting and after >= promoting[seat][0]:
                    # Promoted at this deal: pro, with the pro floor, from the next deal on.
                    floors[seat] = promoting.pop(seat)[1]
                    promoted = True
                details = {
                    "whists": whist,
                    "table_rating": round(table, 4),
                    "kv": round(kv, 4),
                    "expected_whists": round(vf, 4),
                    "kd": round(kd, 4),
                    # Exactly 1.0 unless a gain above smoothing_start is smoothed; round(x, 4) is a
                    # visible share of the engine's instructions (docs/performance.md), so it is skipped then.
                    "smoothing": smoothing if smoothing == 1.0 else round(smoothing, 4),
                    "bot_cap": bot_cap if capped else None,
                    "floor_applied": floor_applied,
                }
                changes.append(new_change((unit, seat, ratings[index], after, details, promoted)))
        return changes

    def forecasts(
        self, match: PreferansGame, states: Mapping[Hashable, PlayerState], parameters: PreferansParameters
    ) -> list[Forecast]:
        """One forecast per pair of seats at the table, over the whole game, from the ratings before it.

        A Preferans rating claims that the higher-rated player tends to end a
        game with more whists than the lower-rated one (the seed expects
        ``Vf`` more whists per deal from a player rated above the table), so
        each pair (i before j in seat order) is a duel: the gap is
        Rs(i) - Rs(j) before the game's first deal, the outcome 1 when i's
        whists summed over the game's deals exceed j's (in cents), 1/2 when
        equal, 0 otherwise. How many rating points make 10 to 1 is not in the seed:
        ``forecast_scale`` is None and the scale is fitted on the data.

        Bots: a pair of a player and a bot is a duel too, with the rating the
        bot had as played (the formula measures players against it as against
        anyone); a pair of two bots is not, since no rating there is
        learned. A game without deals forecasts nothing.
        """
        seats = match.seats
        if not match.deals:
            return []
        totals = [0.0] * len(seats)
        for whists in match.deals:
            if len(whists) != len(seats):
                raise EngineInputError(f"a deal has {len(whists)} scores for {len(seats)} seats")
            for index, whist in enumerate(whists):
                totals[index] += float(whist)
        # Whists are cents (the cleaner keeps two decimals) but their float sum is not: 0.10 + 0.20 is
        # 0.30000000000000004, above 0.30, which would read a tie as a win. Totals are compared in cents.
        totals = [round(total, 2) for total in totals]
        ratings = [seat.rating if isinstance(seat, BotSeat) else float(states[seat].rating) for seat in seats]
        forecasts = pairwise_forecasts(ratings, totals)
        bot = [isinstance(seat, BotSeat) for seat in seats]
        pairs = [(i, j) for i in range(len(seats)) for j in range(i + 1, len(seats))]
        return [forecast for forecast, (i, j) in zip(forecasts, pairs, strict=True) if not (bot[i] and bot[j])]

    def forecast_scale(self, parameters: PreferansParameters) -> None:
        """None: the seed's formula predicts whists, not chances, so the scale is fitted (``quality.fit_scale``)."""
        return None


SYSTEM = PreferansSystem()


def pair_expected_score(rating_a: float, rating_b: float, scale: float = 400.0) -> float:
    """The chance that A ends a game at the table with more whists than B (the compare page's "expected
    score"): p = 1 / (1 + 10^(-(Ra - Rb) / s)), with ``s`` the game's fitted pair scale
    (``ratings.quality.pair_scale``). SmartPref's formula predicts whists against the table, not who of two
    players finishes ahead; this logistic reading of the gap is what the pair measure scores."""
    exponent = min(max((rating_b - rating_a) / scale, -300.0), 300.0)
    return 1.0 / (1.0 + 10.0**exponent)
