"""The base of every game kind: what each layer asks of a game, and the parts most games share.

``leagues.kinds.GameKind`` declares the capability flags at the base of the
dependency graph; this class adds the methods, which may use everything
below (matches, ratings, the engines). A kind overrides what its game does
differently; the defaults are those of a game of seats only.

Sections, one per layer that calls them:

- results (``matches``): clean a body, store its parts, read it back as a body;
- rating input (``ratings``): load the engine's input for a chunk of matches;
- API (``matches.apis``): the game's fields of a match answer and of a body;
- pages: the entry page and the template partials a match shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leagues.kinds import GameKind
from leagues.models import Game
from matches.inputs import Errors, GameInput, MatchInput
from matches.models import Match


class BaseKind(GameKind):
    # --- results (matches) -----------------------------------------------------------------

    def clean(self, data: Mapping[str, Any], errors: Errors, game: Game) -> GameInput:
        """The game's part of a result body: its seats and parts, or errors recorded by field.

        Every game has its own fields, so every kind writes this (``matches.inputs``
        has the readers they share: ids, players, cents).
        """
        raise NotImplementedError(f"{self!r} cannot clean a result body.")

    def input_body(self, cleaned: MatchInput) -> dict[str, Any]:
        """The game's fields of a validated result as a body (``matches.bodies.match_input_as_body``)."""
        return {}

    def stored_body(self, match: Match) -> dict[str, Any]:
        """The game's fields of a stored match as a body (``matches.selectors.match_as_body``); the same
        fields as ``input_body`` gives for the result that stored it."""
        return {}

    def store_parts(self, match: Match, cleaned: MatchInput) -> None:
        """Store the parts beside the seats (``parts``), holding them on ``match`` as ``match_detail``
        loads them (``matches.parts.hold``). A game of seats only stores nothing."""

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    pass
