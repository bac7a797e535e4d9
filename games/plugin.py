"""A game is a Django app: its folder under ``games/`` (or a club's own package) and one line in settings.

A game's ``apps.py`` names its kind; when Django starts, the app registers the
kind (and the engine the kind brings, unless the engines' registry has one
under its slug). Everything else of the game is found the way Django finds an
app's: its models and migrations (the rows a result keeps beside its seats),
its templates and static files in the app's own ``templates/`` and
``static/``. The shared code asks the registry (``leagues.kinds``), never a
list of games.

    # games/durak/apps.py
    from games import plugin

    class DurakConfig(plugin.GameConfig):
        name = "games.durak"
        label = "durak"
        kind = "games.durak.kind.DurakKind"
"""

from __future__ import annotations

from django.apps import AppConfig
from django.utils.module_loading import import_string


def kind_install(path: str):
    """Register the kind at ``path`` (an import path) and the engine it brings; answer the kind."""
    from leagues.kinds import kind_register
    from ratings.engines import REGISTRY

    kind = kind_register(import_string(path)())
    if kind.engine is not None:
        REGISTRY.setdefault(kind.slug, kind.engine)
    return kind


class GameConfig(AppConfig):
    """A game's app: ``kind`` is the import path of its kind class, registered when Django is ready."""

    #: The import path of the game's kind (a ``games.base.BaseKind`` subclass).
    kind: str = ""

    def ready(self):
        if not self.kind:
            raise ValueError(f"The game app {self.name!r} names no kind (GameConfig.kind).")
        kind_install(self.kind)
