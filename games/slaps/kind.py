"""Slaps's kind: everything about Slaps results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.slaps import views


class SlapsKind(BaseKind):
    slug = "elo"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/slaps/_match_results.html",
        "seats_line": "games/slaps/_seats_line.html",
        "seats_names": "games/slaps/_seats_names.html",
        "profile_result": "games/slaps/_profile_result.html",
        "profile_change": "games/slaps/_profile_change.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)
