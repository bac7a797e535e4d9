"""Shared vocabulary of the rating engines.

Engines are pure Python: no Django import, no database, no clock. They take
frozen dataclasses in and return frozen dataclasses out, so each seed's
formulas can be read in one place and tested against the seed's numbers.

Terms:
    rating state   what an engine needs to know of a player before a rated
                   unit: the rating, how many rated matches they completed,
                   an optional floor (their league's lowest rating) and, for
                   an amateur, the promotion threshold and the floor of the
                   league they are promoted to.
    rated unit     the smallest thing a rating change is computed for: a
                   Slaps match, a Preferans deal, a bridge board.
    change         one player's rating change for one rated unit, with the
                   formula's inputs in ``details`` so a page can explain it,
                   and whether that unit promoted the player.
    floor          stops a fall, never lifts: a unit that would leave a
                   player below the floor leaves them at
                   ``max(after, min(before, floor))`` (``stop_at_floor``). A
                   player already below it (an admin raised the floor) cannot
                   fall further, and still gains normally.
    promotion      the unit whose result reaches ``promote_at`` (``>=``)
                   promotes the player; from the next unit on, even inside
                   the same Preferans game or bridge session, their floor is
                   ``promoted_floor``. Engines apply it per unit because a
                   floor changes the rating the next unit starts from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, fields
from functools import partial
from typing import Any, NamedTuple, Protocol


class EngineInputError(ValueError):
    """The engine was handed something no valid match can produce.

    Services validate user input before calling an engine; reaching this is a
    programming error, not a user-facing one. The one exception is a game's stored
    parameters (``parameters_from_mapping``), which an admin types: those refusals
    carry a ``code`` and the ``params`` they were about, so that the layer above can
    word them in the reader's language (``ratings.parameters.parameters_problem``);
    the message stays the engine's English.
    """

    def __init__(self, message: str, *, code: str = "", **params: Any):
        super().__init__(message)
        self.code = code
        self.params = params


# A replay creates a Change per player per rated unit and a PlayerState per player
# per match, millions of times: immutable named tuples cost a fraction of frozen
# dataclasses. Calling a named tuple class still runs its generated Python ``__new__`` (a
# large share of an Elo update's time: docs/performance.md), so the engines' per-unit loops build changes with
# ``new_change``, which goes straight to ``tuple.__new__`` (as ``PlayerState.after`` does).
class PlayerState(NamedTuple):
    rating: float
    rated_matches: int = 0
    floor: float | None = None
    # An amateur's promotion: reaching ``promote_at`` promotes them, and from the next unit
    # on ``promoted_floor`` (the pro league's floor, or None) is their floor.
    promote_at: float | None = None
    promoted_floor: float | None = None

    def after(self, rating: float) -> PlayerState:
        """This player's state after one more rated match, which left them at ``rating``.

        A rating at or above ``promote_at`` promotes them: the promoted floor becomes theirs.
        """
        promote_at = self.promote_at
        if promote_at is not None and rating >= promote_at:
            return tuple_new(PlayerState, (rating, self.rated_matches + 1, self.promoted_floor, None, None))
        return tuple_new(PlayerState, (rating, self.rated_matches + 1, self.floor, promote_at, self.promoted_floor))


class Change(NamedTuple):
    unit: int
    player: Hashable
    rating_before: float
    rating_after: float
    details: Mapping[str, Any]
    # True on the unit that took the player to their promotion threshold (see the module docstring).
    promoted: bool = False

    @property
    def delta(self) -> float:
        return self.rating_after - self.rating_before


tuple_new = tuple.__new__
new_change: Callable[[tuple[int, Hashable, float, float, Mapping[str, Any], bool]], Change] = partial(tuple_new, Change)
"""``new_change((unit, player, before, after, details, promoted))`` is ``Change(unit, player, before, after,
details, promoted)`` without a Python call: engines use it in their per-unit loops (all six fields, always)."""


def stop_at_floor(before: float, after: float, floor: float | None) -> float:
    """The rating a unit leaves under a floor: ``max(after, min(before, floor))``.

    A floor only stops a fall. A fall that would cross it ends on it; a player
    already below it stays where they are instead of falling further; a gain,
    or any change of a player without a floor, is untouched. The engines'
    per-unit loops write this test inline (``after < floor and after < before``).
    """
    if floor is None or after >= before or after >= floor:
        return after
    return floor if before > floor else before


class RatingSystem(Protocol):
    """What the registry holds for each rating system."""

    slug: str
    label: str  # the name pages and admin show (``Game.get_rating_system_display``)
    decimals: int
    parameters_class: type

    def rate(self, match: Any, states: Mapping[Hashable, PlayerState], parameters: Any) -> list[Change]: ...

    def forecasts(self, match: Any, states: Mapping[Hashable, PlayerState], parameters: Any) -> list:
        """What the system predicted of one match's duels from the states before it (``quality.Forecast``s).

        Optional: ``quality.forecasts_of`` gives none for a system without it, and reports leave it out.
        """
        ...

    def forecast_scale(self, parameters: Any) -> float | None:
        """The scale the system's own expected score uses (``quality.probability``), or None: fit it on the data."""
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


@dataclass(frozen=True, slots=True)
class Param:
    """The values an engine accepts for one of its parameters: a finite number within a range.

    Each engine's parameters class lists one per numeric field in its
    ``RANGES`` (a class attribute), and ``parameters_from_mapping`` holds a
    game's stored overrides to them, so admin, the rating task and the
    calculators refuse the same values. The bounds are where the formulas
    stop making sense (a divisor of 0, a K that swings a rating by hundreds
    in one match, an exponent that overflows a float), not a club's taste:
    the seeds' values sit well inside them.

    ``minimum_excluded`` makes the lower bound strict (a divisor, a K);
    ``integer`` asks for a whole number (a count of matches).
    """

    name: str
    minimum: float
    maximum: float
    minimum_excluded: bool = False
    integer: bool = False

    def describe(self) -> str:
        """The range in words: "a number from 100 to 2000", "a number above 0 and at most 200"."""
        kind = "a whole number" if self.integer else "a number"
        if self.minimum_excluded:
            return f"{kind} above {self.minimum:g} and at most {self.maximum:g}"
        return f"{kind} from {self.minimum:g} to {self.maximum:g}"

    def clean(self, value: Any) -> int | float:
        """``value`` as the engine takes it (int or float), or EngineInputError naming the parameter and its range."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise EngineInputError(
                f"Parameter {self.name} must be {self.describe()}; got {value!r}.",
                code="parameter_range",
                param=self,
                value=value,
            )
        below = value <= self.minimum if self.minimum_excluded else value < self.minimum
        if below or value > self.maximum or (self.integer and value != int(value)):
            raise EngineInputError(
                f"Parameter {self.name} must be {self.describe()}; got {value:g}.",
                code="parameter_range",
                param=self,
                value=value,
            )
        return int(value) if self.integer else float(value)


def parameter_ranges(parameters_class: type) -> dict[str, Param]:
    """The declared range of each parameter of an engine's parameters class, by name (empty if none are declared)."""
    return {param.name: param for param in getattr(parameters_class, "RANGES", ())}


def tunable_ranges(parameters_class: type) -> dict[str, Param]:
    """``parameter_ranges`` less the parameters that define a forecast's outcome (the class's ``OUTCOME``):
    what a tuning may move, since log-losses of forecasts scored against different outcomes do not compare."""
    outcome = set(getattr(parameters_class, "OUTCOME", ()))
    return {name: param for name, param in parameter_ranges(parameters_class).items() if name not in outcome}


def parameters_from_mapping(parameters_class: type, values: Mapping[str, Any] | None):
    """Build a parameters dataclass from a game's stored JSON, rejecting unknown keys and values out of range.

    Missing keys take the dataclass defaults (the seed's values). A value is
    held to its declared range (``Param``); a class may also name pairs of
    parameters in ``ORDERED`` (``(low, high)``: low must not exceed high),
    checked on the result, defaults included. Numeric fields without a
    declared range need only be finite; other fields are kept as given.
    """
    values = dict(values or {})
    known = {f.name: f for f in fields(parameters_class)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise EngineInputError(f"Unknown parameter(s): {', '.join(unknown)}.", code="unknown_parameters", names=unknown)
    ranges = parameter_ranges(parameters_class)
    cleaned = {}
    for name, value in values.items():
        if name in ranges:
            cleaned[name] = ranges[name].clean(value)
            continue
        default = getattr(parameters_class(), name)
        if isinstance(default, bool) or not isinstance(default, int | float):
            cleaned[name] = value
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise EngineInputError(f"Parameter {name} must be a finite number.", code="not_finite", name=name)
        cleaned[name] = type(default)(value)
    parameters = parameters_class(**cleaned)
    for low, high in getattr(parameters_class, "ORDERED", ()):
        low_value, high_value = getattr(parameters, low), getattr(parameters, high)
        if low_value > high_value:
            raise EngineInputError(
                f"Parameter {low} ({low_value:g}) must not exceed {high} ({high_value:g}).",
                code="parameters_order",
                low=low,
                low_value=low_value,
                high=high,
                high_value=high_value,
            )
    return parameters
