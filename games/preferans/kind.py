"""Preferans's kind: everything about Preferans results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.preferans import views


class PreferansKind(BaseKind):
    slug = "preferans"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------

    result_noun = "game"
    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/preferans/_match_results.html",
        "profile_result": "games/preferans/_profile_result.html",
        "profile_change": "games/preferans/_profile_change.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)

    def entry_label(self, game):
        return f"Record {game.name}"

    def match_page_context(self, match):
        return {"deal_rows": views.deal_rows(match)}
