"""The fourth game's engine, as small as an engine can be: each seat moves by k x (its score - the table's mean).

Pure Python like the real engines (``ratings/engines``): plain data in, ``Change`` rows out, a floor that
only stops a fall, and promotion at the unit that reaches the threshold.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from ratings.engines.base import Change, Param, PlayerState, stop_at_floor


@dataclass(frozen=True, slots=True)
class RummyParameters:
    k: float = 0.5
    RANGES: ClassVar[tuple[Param, ...]] = (Param("k", 0, 10, minimum_excluded=True),)


class RummyHand(NamedTuple):
    players: tuple[int, ...]
    scores: tuple[float, ...]


class RummySystem:
    slug = "rummy-test"
    label = "Rummy points (test)"
    decimals = 2
    parameters_class = RummyParameters

    def rate(self, match: RummyHand, states: Mapping[Hashable, PlayerState], parameters: RummyParameters):
        mean = sum(match.scores) / len(match.scores)
        changes = []
        for player, score in zip(match.players, match.scores, strict=True):
            state = states[player]
            after = stop_at_floor(state.rating, state.rating + parameters.k * (score - mean), state.floor)
            promoted = state.promote_at is not None and after >= state.promote_at
            changes.append(Change(0, player, state.rating, after, {"score": score, "mean": mean}, promoted))
        return changes


SYSTEM = RummySystem()
