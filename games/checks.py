"""System checks of the games: each registered kind keeps its contracts, each stored game has a kind.

The registered kinds (``games.kinds_check``, run by every ``manage.py`` command and at start-up): the
parts a kind names are relations of its own on ``Match`` (its part model's ``related_name``; Django's own
check, fields.E304, already refuses two games giving a part the same name), and every template it names
exists, its entry page's defining the partial ``entry-form`` that an HTMX post swaps
(``games.entry.entry_submit``). Errors: the game would break on its first page or result.

A game whose kind is not registered (a club's own game whose import path
left ``CARDRANK_EXTRA_GAME_KINDS``) cannot have its results entered, rated or
shown: every layer asks the kind. ``manage.py check --database default`` (and
``migrate``) names such games, rather than each page guarding against them.
A warning, like ``ratings.W001``: the deployment must still migrate.
"""

from django.core import checks
from django.db import DatabaseError
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

#: The partial of an entry page that an HTMX post swaps (``games.entry.entry_submit``).
ENTRY_PARTIAL = "entry-form"


@checks.register(checks.Tags.models, checks.Tags.templates)
def kinds_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from leagues.kinds import KINDS
    from matches.models import Match

    relations = {
        relation.get_accessor_name(): relation.related_model
        for relation in Match._meta.related_objects
        if relation.one_to_many
    }
    errors = []
    for kind in KINDS.values():
        for part in kind.parts:
            if part not in relations:
                errors.append(
                    checks.Error(
                        f"{kind!r} names the part {part!r}, which is no relation of matches.Match.",
                        hint="A part is a model with a ForeignKey to matches.Match whose related_name is the "
                        "part's name, in the game's own app (docs/architecture.md, Adding a game).",
                        obj=type(kind),
                        id="games.E001",
                    )
                )
        for place, name in kind.templates.items():
            wanted = f"{name}#{ENTRY_PARTIAL}" if place == "entry" else name
            try:
                get_template(wanted)
            except TemplateDoesNotExist:
                errors.append(
                    checks.Error(
                        f"{kind!r} names the template {wanted!r} for {place!r}, which does not exist.",
                        hint=f"An entry page's template defines the partial {ENTRY_PARTIAL!r} "
                        "({% partialdef entry-form %}), which an HTMX post swaps."
                        if place == "entry"
                        else "Name a template in the game's app's templates/ folder.",
                        obj=type(kind),
                        id="games.E002",
                    )
                )
    return errors


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
