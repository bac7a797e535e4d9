"""System checks of stored rating rules: ``manage.py check --database default`` (and ``migrate``,
which runs the database checks) names every game whose stored engine parameters its engine
refuses: sets saved before the engines declared their ranges. Tagged ``database``, so only a check
that asks for the database runs it. A warning, not an error: an error would stop ``migrate``, and
the deployment that brings the ranges must still migrate; the game's rating task fails loudly
until an admin corrects the set.
"""

from django.core import checks
from django.core.exceptions import ValidationError
from django.db import DatabaseError


@checks.register(checks.Tags.database)
def rating_parameters_check(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    from leagues.models import Game
    from ratings.engines import REGISTRY
    from ratings.parameters import rating_parameters

    if not databases or "default" not in databases:
        return []
    try:
        games = list(Game.objects.filter(rating_system__in=list(REGISTRY)).order_by("slug"))
    except DatabaseError:
        return []  # not migrated yet: nothing stored to check
    errors = []
    for game in games:
        try:
            rating_parameters(game=game)
        except ValidationError as error:
            errors.append(
                checks.Warning(
                    " ".join(error.message_dict["parameters"]),
                    hint="Correct them on the game's admin page; the game is replayed under the new rules.",
                    obj=game,
                    id="ratings.W001",
                )
            )
    return errors
