"""Rating engines: pure functions over plain data, and their registry.

``get_rating_system(slug)`` returns the engine a game's ``rating_system``
names. Services are the only callers; nothing here touches Django.
"""

from .base import (
    Change,
    EngineInputError,
    Param,
    PlayerState,
    RatingSystem,
    parameter_ranges,
    parameters_from_mapping,
    tunable_ranges,
)
from .bridge import SYSTEM as BRIDGE
from .elo import SYSTEM as ELO
from .preferans import SYSTEM as PREFERANS

REGISTRY: dict[str, RatingSystem] = {system.slug: system for system in (ELO, PREFERANS, BRIDGE)}


def get_rating_system(slug: str) -> RatingSystem:
    try:
        return REGISTRY[slug]
    except KeyError:
        raise EngineInputError(f"Unknown rating system {slug!r}.") from None


__all__ = [
    "REGISTRY",
    "Change",
    "EngineInputError",
    "Param",
    "PlayerState",
    "RatingSystem",
    "get_rating_system",
    "parameter_ranges",
    "parameters_from_mapping",
    "tunable_ranges",
]
