"""Shared vocabulary of the rating engines.

Engines are pure Python: no Django import, no database, no clock. They take
frozen dataclasses in and return frozen dataclasses out, so each seed's
formulas can be read in one place and tested against the seed's numbers.

Terms:
    rating state   what an engine needs to know of a player before a rated
                   unit: the rating, how many rated matches they completed,
                   and an optional floor (a pro league's lowest rating).
    rated unit     the smallest thing a rating change is computed for: a
                   Slaps match, a Preferans deal, a bridge board.
    change         one player's rating change for one rated unit, with the
                   formula's inputs in ``details`` so a page can explain it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import fields
from functools import partial
from typing import Any, NamedTuple, Protocol


class EngineInputError(ValueError):
    """The engine was handed something no valid match can produce.

    Services validate user input before calling an engine; reaching this is a
    programming error, not a user-facing one.
    """


# PlayerState and Change are created once per player per rated unit, millions of
# times in a replay: immutable named tuples cost a fraction of frozen dataclasses.
# Calling a named tuple class still runs its generated Python ``__new__`` (a
# third of an Elo update's time), so the hot paths build them with
# ``new_change`` and ``PlayerState.after``, which go straight to ``tuple.__new__``.
class PlayerState(NamedTuple):
    rating: float
    rated_matches: int = 0
    floor: float | None = None

    def after(self, rating: float) -> PlayerState:
        """This player's state after one more rated match, which left them at ``rating``."""
        return _tuple_new(PlayerState, (rating, self.rated_matches + 1, self.floor))


class Change(NamedTuple):
    unit: int
    player: Hashable
    rating_before: float
    rating_after: float
    details: Mapping[str, Any]

    @property
    def delta(self) -> float:
        return self.rating_after - self.rating_before


_tuple_new = tuple.__new__
new_change: Callable[[tuple[int, Hashable, float, float, Mapping[str, Any]]], Change] = partial(_tuple_new, Change)
"""``new_change((unit, player, before, after, details))`` is ``Change(unit, player, before, after, details)``
without a Python call: engines use it in their per-unit loops."""


class RatingSystem(Protocol):
    """What the registry holds for each rating system."""

    slug: str
    label: str
    start_rating: float
    decimals: int
    parameters_class: type

    def rate(self, match: Any, states: Mapping[Hashable, PlayerState], parameters: Any) -> list[Change]: ...

    def prediction(self, details: Mapping[str, Any], rating_before: float) -> tuple[float, float] | None:
        """(predicted score, actual score) of a stored change, for rating-quality reports."""
        ...


def round_half_away_from_zero(value: float, decimals: int = 0) -> float:
    """Round like people do on paper: 1111.5 -> 1112, -0.5 -> -1.

    Python's ``round`` rounds halves to even, which the ISF seed does not.
    """
    factor = 10**decimals
    scaled = abs(value) * factor
    # A tiny epsilon absorbs binary noise such as 1111.4999999999998.
    rounded = math.floor(scaled + 0.5 + 1e-9) / factor
    return math.copysign(rounded, value) if rounded else 0.0


def parameters_from_mapping(parameters_class: type, values: Mapping[str, Any] | None):
    """Build a parameters dataclass from a game's stored JSON, rejecting unknown keys.

    Missing keys take the dataclass defaults (the seed's values).
    """
    values = dict(values or {})
    known = {f.name: f for f in fields(parameters_class)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise EngineInputError(f"Unknown parameter(s): {', '.join(unknown)}.")
    cleaned = {}
    for name, value in values.items():
        default = getattr(parameters_class(), name)
        if isinstance(default, bool) or not isinstance(default, int | float):
            cleaned[name] = value
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise EngineInputError(f"Parameter {name} must be a finite number.")
        cleaned[name] = type(default)(value)
    return parameters_class(**cleaned)


def stored_expected_score(details: Mapping[str, Any], rating_before: float) -> tuple[float, float] | None:
    """(expected score, actual score) kept in a change's details, for rating-quality reports.

    The Elo-style engines (Slaps, bridge) store both; bridge's are the means
    over a player's duels on the board.
    """
    if "expected" not in details or "score" not in details:
        return None
    return float(details["expected"]), float(details["score"])
