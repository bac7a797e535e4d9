"""Durak's engine: a pairwise Elo. Each deal, the loser lost to every other player at the table.

For one game: each player's change is K / (n - 1) x the sum, over the deals
and over each pair of (loser, other player) in a deal, of (score - expected),
scoring 1 for the other player and 0 for the loser, expected
1 / (1 + 10^((opponent - own) / 400)) from the ratings before the game.
Pure Python like the real engines.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from ratings.engines.base import Change, Param, PlayerState, stop_at_floor


@dataclass(frozen=True, slots=True)
class DurakParameters:
    k: float = 16.0
    RANGES: ClassVar[tuple[Param, ...]] = (Param("k", 0, 100, minimum_excluded=True),)


class DurakGame(NamedTuple):
    players: tuple[int, ...]
    losers: tuple[int, ...]  # each deal's loser, an index into players


def expected(own: float, other: float) -> float:
    return 1 / (1 + 10 ** ((other - own) / 400))


class DurakSystem:
    slug = "durak-test"
    label = "Durak pairwise Elo (test)"
    decimals = 2
    parameters_class = DurakParameters

    def rate(self, match: DurakGame, states: Mapping[Hashable, PlayerState], parameters: DurakParameters):
        before = [states[player].rating for player in match.players]
        sums = [0.0] * len(match.players)
        for loser in match.losers:
            for other in range(len(match.players)):
                if other == loser:
                    continue
                won = 1 - expected(before[other], before[loser])
                sums[other] += won
                sums[loser] -= won
        scale = parameters.k / (len(match.players) - 1)
        changes = []
        for seat, (player, rating, total) in enumerate(zip(match.players, before, sums, strict=True)):
            state = states[player]
            after = stop_at_floor(rating, rating + scale * total, state.floor)
            promoted = state.promote_at is not None and after >= state.promote_at
            changes.append(Change(0, player, rating, after, {"deals_lost": match.losers.count(seat)}, promoted))
        return changes


SYSTEM = DurakSystem()
