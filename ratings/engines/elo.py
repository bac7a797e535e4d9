"""ISF Elo for Slaps (seed 000).

    expected score   E_A = 1 / (1 + 10^((R_B - R_A) / 400))
    new rating       R'_A = R_A + K * (S_A - E_A), rounded to a whole number,
                     halves away from zero
    K                32 until the player has completed 32 rated matches,
                     16 from their 33rd rated match on; each player uses
                     their own K
    S                1 for a win, 0 for a loss

A pro league's floor, when given, is the lowest rating the update may leave.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from .base import Change, EngineInputError, PlayerState, round_half_away_from_zero, stored_expected_score


@dataclass(frozen=True, slots=True)
class EloParameters:
    k_provisional: float = 32.0
    k_established: float = 16.0
    # K drops once a player has *completed* this many rated matches.
    provisional_matches: int = 32
    scale: float = 400.0


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


def expected_score(rating: float, opponent_rating: float, scale: float = 400.0) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent_rating - rating) / scale))


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
    floor_applied = floor is not None and after < floor
    if floor_applied:
        after = float(floor)
    return EloUpdate(expected=expected, k=k, score=score, rating_after=after, floor_applied=floor_applied)


class EloSystem:
    slug = "elo"
    prediction = staticmethod(stored_expected_score)
    label = "ISF Elo (1 v 1)"
    start_rating = 1000.0
    decimals = 0
    parameters_class = EloParameters

    def rate(self, match: EloMatch, states: Mapping[Hashable, PlayerState], parameters: EloParameters) -> list[Change]:
        """Both players' changes: ``elo_update``'s formula, inlined because replays run it millions of times."""
        first, second = match.players
        winner = match.winner
        if first == second or (winner != first and winner != second):
            raise EngineInputError("an Elo match needs two distinct players and a winner among them")
        state_a, state_b = states[first], states[second]
        rating_a, rating_b = state_a.rating, state_b.rating
        expected_a = 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / parameters.scale))
        provisional = parameters.provisional_matches
        changes = []
        for player, state, rating, opponent, expected in (
            (first, state_a, rating_a, rating_b, expected_a),
            (second, state_b, rating_b, rating_a, 1.0 - expected_a),
        ):
            k = parameters.k_provisional if state.rated_matches < provisional else parameters.k_established
            score = 1.0 if winner == player else 0.0
            after = rating + k * (score - expected)
            after = math.copysign(math.floor(abs(after) + 0.5 + 1e-9), after)
            floor = state.floor
            floor_applied = floor is not None and after < floor
            if floor_applied:
                after = float(floor)
            details = {
                "opponent_rating": opponent,
                "expected": round(expected, 4),
                "k": k,
                "score": score,
                "floor_applied": floor_applied,
            }
            changes.append(Change(0, player, rating, after, details))
        return changes


SYSTEM = EloSystem()
