"""A game's engine parameters: its stored overrides on its engine's defaults, read for the engines.

Reads, not writes: the rating services, the calculators, the pages and the
system check read a game's parameters through ``rating_parameters``; admin's
game form and ``Game.full_clean`` refuse a set the engine would reject (``Game.parameters_validate``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from leagues.models import Game
from ratings.engines import EngineInputError, get_rating_system, parameters_from_mapping


def rating_parameters(*, game: Game):
    """The game's engine parameters: its stored overrides on the engine's defaults.

    Admin refuses overrides outside the engine's ranges (``Game.parameters_validate``);
    a set stored before the ranges existed, or written around admin, raises a
    ValidationError naming the game and the parameter, so the rating task
    fails loudly and writes nothing, and a calculator answers 400, rather
    than either dividing by zero or rating with numbers no formula meant.
    """
    system = get_rating_system(game.rating_system)
    try:
        return parameters_from_mapping(system.parameters_class, game.parameters)
    except (EngineInputError, TypeError) as error:
        raise ValidationError(
            {
                "parameters": [
                    f"The rating parameters stored for {game.name} ({game.slug}) cannot be used: {error} "
                    "An admin must correct them on the game's admin page; its results are not rated until then."
                ]
            }
        ) from error
