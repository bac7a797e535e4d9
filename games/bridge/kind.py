"""Bridge's kind: everything about Bridge results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.bridge import views


class BridgeKind(BaseKind):
    slug = "bridge"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/bridge/_match_results.html",
        "seats_line": "games/bridge/_seats_line.html",
        "profile_opponents": "games/bridge/_profile_opponents.html",
        "profile_result": "games/bridge/_profile_result.html",
        "profile_change": "games/bridge/_profile_change.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)

    def entry_label(self, game):
        return f"Record {game.name.lower()}"
