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

from django.http import HttpResponse

from leagues.kinds import GameKind


class BaseKind(GameKind):
    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    #: Template partials by place, each under ``templates/games/``; the shared pages include the one
    #: their kind names (``{% include match.game.kind.templates.seats_line %}``), never branching on a
    #: game. These defaults show a game of seats only, each seat with its result (a score) and rating
    #: change; a kind names its own for the places its game shows differently. "entry", the entry
    #: page, has no default: a kind with one adds it and ``entry_view``.
    templates = {
        "match_results": "games/_match_results.html",  # match page: the seats' results and changes, the parts
        "seats_line": "games/_seats_line.html",  # a row of a match list: the seats, linked, with results
        "seats_names": "games/_seats_names.html",  # the confirmations list: the seats' names
        "profile_opponents": "games/_profile_opponents.html",  # profile: whom the player met
        "profile_result": "games/_profile_result.html",  # profile: the player's result
        "profile_change": "games/_profile_change.html",  # profile: why the rating changed
    }

    @property
    def has_entry_page(self) -> bool:
        return "entry" in self.templates

    def entry_view(self, request, game) -> HttpResponse:
        """Answer the game's entry page (``results/<game>/``), once the referee is checked.

        Only asked of a kind with an entry page (``has_entry_page``).
        """
        raise NotImplementedError(f"{self!r} has no entry page.")

    def entry_label(self, game) -> str:
        """The menu's link to the game's entry page."""
        return f"Enter {game.name}"

    def match_page_context(self, match) -> dict:
        """What the game's match partial needs beyond the match and its seats (``matches.views.match_page``)."""
        return {}
