"""Game kinds: everything game-specific above the engine, found through one registry.

A *kind* is one game's home (Tabbycat's result classes and draw generators
are the model): how a result body is cleaned and stored, what a match shows,
how the engine's input is loaded, its entry page and template partials, and
what the game can do (capability flags). ``KINDS`` is keyed like the engines'
``REGISTRY``, by ``Game.rating_system``; the kinds themselves live above
every app (``games/``) and are registered when Django starts
(``games.apps.GamesConfig.ready``, from ``settings.CARDRANK_GAME_KINDS``).

The registry lives here, at the base, so that every layer can ask a game for
its kind without importing the layer the kind is written in: matches asks it
to clean and store a result, ratings to load the engine's input, pages to
render its parts. No module outside ``games/`` and the engines branches on a
game or a rating system.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.translation import pgettext_lazy


class GameKind:
    """What every layer may ask of a game. The defaults suit a game of seats only (as Slaps is).

    Capability flags are class attributes; methods that need what a layer
    stores are written by the kind (``games.base.BaseKind`` gives the common
    parts). Errors a user can fix are ``ValidationError`` keyed by field;
    anything else is a bug.
    """

    #: The engine slug this kind serves (``Game.rating_system``, ``ratings.engines.REGISTRY``).
    slug: ClassVar[str] = ""
    #: What a result of this game is called on pages ("match", "game", "session").
    result_noun: ClassVar[str] = pgettext_lazy("a result of a game", "match")
    #: The league's rating period holds results back until it closes (the bridge thesis).
    rating_periods: ClassVar[bool] = False
    #: Seats may be held by bots (Preferans): only such games are offered when an admin adds a bot.
    bots: ClassVar[bool] = False
    #: What a match stores beside its seats, by relation name: "deals", "boards".
    parts: ClassVar[tuple[str, ...]] = ()
    #: Template partials by place (see ``games.base.BaseKind.templates``).
    templates: ClassVar[dict[str, str]] = {}
    #: The rating engine a game brings with it (``ratings.engines.RatingSystem``), registered under
    #: ``slug`` at start-up unless the engines' registry has one: for a game added without editing Cardrank.
    engine: ClassVar[Any] = None

    def system_label(self) -> str:
        """The rating system's name, as admin offers it for a game (``games.base.BaseKind``: its engine's)."""
        return self.slug

    def parameters_problem(self, parameters: dict) -> str | None:
        """Why these rating parameters would not do for the game's engine, or None when they would
        (``Game.parameters_validate``; ``games.base.BaseKind`` asks the engine)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.slug!r}>"


KINDS: dict[str, Any] = {}


def kind_register(kind: GameKind) -> GameKind:
    """Add a kind to the registry (at start-up; a test may add its own)."""
    if not kind.slug:
        raise ValueError(f"{kind!r} has no slug.")
    KINDS[kind.slug] = kind
    return kind


def kind_unregister(slug: str) -> None:
    KINDS.pop(slug, None)


def systems_with_bots() -> list[str]:
    """The rating systems whose games seat bots (``GameKind.bots``)."""
    return [slug for slug, kind in KINDS.items() if kind.bots]


def kind_of(game) -> Any:
    """The kind of a game (a ``Game``, or its rating system's slug); ``None`` for a system without one."""
    system = game if isinstance(game, str) else game.rating_system
    return KINDS.get(system)
