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

from leagues.kinds import GameKind


class BaseKind(GameKind):
    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    pass
