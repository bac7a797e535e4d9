"""A game's engine parameters: its stored overrides on its engine's defaults, and their validation.

Reads, not writes: the rating services, the calculators, the pages and the
system check read a game's parameters through ``rating_parameters``; admin's
game form refuses a set the engine would reject (``rating_parameters_validate``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from leagues.models import Game
from ratings.engines import EngineInputError, get_rating_system, parameters_from_mapping


def rating_parameters(*, game: Game):
    """The game's engine parameters: its stored overrides on the engine's defaults.

    Admin refuses overrides outside the engine's ranges (``rating_parameters_validate``);
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


def rating_parameters_validate(*, game: Game) -> None:
    """Raise a ValidationError on ``parameters`` the game's engine would reject."""
    try:
        system = get_rating_system(game.rating_system)
    except EngineInputError:
        return  # The engine arrives with its game's issue; nothing to check yet.
    if not isinstance(game.parameters, dict):
        raise ValidationError({"parameters": ["Parameters must be a JSON object."]})
    try:
        parameters_from_mapping(system.parameters_class, game.parameters)
    except (EngineInputError, TypeError) as error:
        raise ValidationError({"parameters": [str(error)]}) from error
