"""A system check of stored games: each game's rating system must have a registered kind.

A game whose kind is not registered (a club's own game whose import path
left ``CARDRANK_EXTRA_GAME_KINDS``) cannot have its results entered, rated or
shown: every layer asks the kind. ``manage.py check --database default`` (and
``migrate``) names such games, rather than each page guarding against them.
A warning, like ``ratings.W001``: the deployment must still migrate.
"""

from django.core import checks
from django.db import DatabaseError


@checks.register(checks.Tags.database)
def game_kinds_check(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    from leagues.kinds import KINDS
    from leagues.models import Game

    if not databases or "default" not in databases:
        return []
    try:
        games = list(Game.objects.exclude(rating_system__in=list(KINDS)).order_by("slug"))
    except DatabaseError:
        return []  # not migrated yet: nothing stored to check
    return [
        checks.Warning(
            f"{game.name} ({game.slug}) is rated by {game.rating_system!r}, which no registered game kind serves: "
            "its results cannot be entered, rated or shown.",
            hint="Name the kind's class in CARDRANK_EXTRA_GAME_KINDS (docs/architecture.md, Adding a game).",
            obj=game,
            id="games.W001",
        )
        for game in games
    ]
