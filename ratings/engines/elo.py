"""ISF Elo for Slaps (seed 000).

    expected score   E_A = 1 / (1 + 10^((R_B - R_A) / 400))
    new rating       R'_A = R_A + K * (S_A - E_A), rounded to a whole number,
                     halves away from zero
    K                32 until the player has completed 32 rated matches,
                     16 from their 33rd rated match on; each player uses
                     their own K
    S                1 for a win, 0 for a loss

A floor, when given, only stops a fall: a match that would take a player
from above it to below it leaves them on it, one that would take a player who
is already below it (an admin raised it) lower leaves them where they were,
and it never raises anyone (``base.stop_at_floor``). The match that takes an
amateur to their promotion threshold promotes them (``Change.promoted``); the
pro floor applies from their next match on.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from .base import (
    Change,
    EngineInputError,
    Param,
    PlayerState,
    new_change,
    round_half_away_from_zero,
    stop_at_floor,
    tuple_new,
)
from .quality import Forecast


@dataclass(frozen=True, slots=True)
class EloParameters:
    k_provisional: float = 32.0
    k_established: float = 16.0
    # K drops once a player has *completed* this many rated matches.
    provisional_matches: int = 32
    scale: float = 400.0

    # What a game may set (``base.Param``). K is the most a match can move a rating: above 0 (0 rates
    # nothing) and at most 200 (the seed's 32 and 16; chess federations use 10 to 40). The scale is
    # the rating difference at which the stronger side is expected to score 10 to 1: 400 in the seed;
    # below 100 the expected score of an everyday gap overflows a float, above 2000 ratings hardly
    # predict anything.
    #: The K a tuning candidate is named by first (its Apply button: "Apply K 24 / 16").
    K_NAMES: ClassVar[tuple[str, ...]] = ("k_provisional", "k_established")
    RANGES: ClassVar[tuple[Param, ...]] = (
        Param("k_provisional", 0, 200, minimum_excluded=True),
        Param("k_established", 0, 200, minimum_excluded=True),
        Param("provisional_matches", 0, 10_000, integer=True),
        Param("scale", 100, 2000),
    )


class EloMatch(NamedTuple):
    """A rated 1-v-1 match: two distinct players and the winner among them.

    A named tuple, not a dataclass: one is built per match of a replay.
    """

    players: tuple[Hashable, Hashable]
    winner: Hashable


@dataclass(frozen=True, slots=True)
class EloUpdate:
    expected: float
    k: float
    score: float
    rating_after: float
    floor_applied: bool

    def delta_from(self, rating: float) -> float:
        return self.rating_after - rating


# 10 ** 300 is still a float; beyond it the expected score is 0 or 1 to within 1e-300 anyway.
EXPONENT_LIMIT = 300.0


def expected_score(rating: float, opponent_rating: float, scale: float = 400.0) -> float:
    """E = 1 / (1 + 10^((Rb - Ra) / scale)), for any two ratings the calculator takes (no overflow)."""
    exponent = (opponent_rating - rating) / scale
    exponent = min(max(exponent, -EXPONENT_LIMIT), EXPONENT_LIMIT)
    return 1.0 / (1.0 + 10.0**exponent)


def k_factor(rated_matches: int, parameters: EloParameters) -> float:
    if rated_matches < parameters.provisional_matches:
        return parameters.k_provisional
    return parameters.k_established


def elo_update(
    *,
    rating: float,
    opponent_rating: float,
    score: float,
    rated_matches: int,
    parameters: EloParameters = EloParameters(),
    floor: float | None = None,
) -> EloUpdate:
    if score not in (0, 0.5, 1):
        raise EngineInputError("score must be 0, 0.5 or 1")
    expected = expected_score(rating, opponent_rating, parameters.scale)
    k = k_factor(rated_matches, parameters)
    after = round_half_away_from_zero(rating + k * (score - expected))
    floored = stop_at_floor(rating, after, floor)
    floor_applied = floored != after
    after = float(floored)
    return EloUpdate(expected=expected, k=k, score=score, rating_after=after, floor_applied=floor_applied)


class EloSystem:
    slug = "elo"
    label = "ISF Elo (1 v 1)"
    decimals = 0
    parameters_class = EloParameters

    def rate(self, match: EloMatch, states: Mapping[Hashable, PlayerState], parameters: EloParameters) -> list[Change]:
        """Both players' changes: ``elo_update``'s formula for each side, written out without
        a loop or helper calls, because replays run it millions of times (each call adds a
        visible share, docs/performance.md; ``tests/ratings/engines/test_elo.py`` holds it to ``elo_update``).
        """
        (first, second), winner = match
        if first == second or (winner != first and winner != second):
            raise EngineInputError("an Elo match needs two distinct players and a winner among them")
        state_a, state_b = states[first], states[second]
        rating_a, rating_b = state_a.rating, state_b.rating
        expected_a = 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / parameters.scale))
        expected_b = 1.0 - expected_a
        score_a = 1.0 if winner == first else 0.0
        score_b = 1.0 - score_a
        provisional, k_provisional, k_established = (
            parameters.provisional_matches, parameters.k_provisional, parameters.k_established)  # fmt: skip
        k_a = k_provisional if state_a.rated_matches < provisional else k_established
        k_b = k_provisional if state_b.rated_matches < provisional else k_established
        # Rounded halves away from zero, as round_half_away_from_zero does.
        after_a = rating_a + k_a * (score_a - expected_a)
        after_a = _copysign(_floor(abs(after_a) + 0.5 + 1e-9), after_a)
        after_b = rating_b + k_b * (score_b - expected_b)
        after_b = _copysign(_floor(abs(after_b) + 0.5 + 1e-9), after_b)
        # A floor stops a fall and never lifts (base.stop_at_floor, inlined).
        floor_a, floor_b = state_a.floor, state_b.floor
        floored_a = floor_a is not None and after_a < floor_a and after_a < rating_a
        floored_b = floor_b is not None and after_b < floor_b and after_b < rating_b
        if floored_a:
            after_a = float(floor_a) if rating_a > floor_a else rating_a
        if floored_b:
            after_b = float(floor_b) if rating_b > floor_b else rating_b
        # The match that reaches the threshold promotes; the pro floor applies from the next match.
        promote_a, promote_b = state_a.promote_at, state_b.promote_at
        promoted_a = promote_a is not None and after_a >= promote_a
        promoted_b = promote_b is not None and after_b >= promote_b
        return [
            new_change((0, first, rating_a, after_a, {"opponent_rating": rating_b, "expected": round(expected_a, 4),
                                                      "k": k_a, "score": score_a, "floor_applied": floored_a},
                        promoted_a)),
            new_change((0, second, rating_b, after_b, {"opponent_rating": rating_a, "expected": round(expected_b, 4),
                                                       "k": k_b, "score": score_b, "floor_applied": floored_b},
                        promoted_b)),
        ]  # fmt: skip

    def forecasts(
        self, match: EloMatch, states: Mapping[Hashable, PlayerState], parameters: EloParameters
    ) -> list[Forecast]:
        """One forecast per match, from the first player's side: their rating minus the opponent's, 1 if they won.

        ``probability(gap, parameters.scale)`` is exactly the expected score ``rate`` uses.
        """
        (first, second), winner = match
        if first == second or (winner != first and winner != second):
            raise EngineInputError("an Elo match needs two distinct players and a winner among them")
        # Built with tuple.__new__, as changes are (base.new_change): one per match of every replay a tuning runs.
        return [tuple_new(Forecast, (states[first].rating - states[second].rating, 1.0 if winner == first else 0.0))]

    def forecast_scale(self, parameters: EloParameters) -> float:
        return parameters.scale


_copysign, _floor = math.copysign, math.floor


SYSTEM = EloSystem()
