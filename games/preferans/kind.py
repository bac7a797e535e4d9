"""Preferans's kind: everything about Preferans results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.preferans.results import (
    preferans_clean,
    preferans_deals_store,
    preferans_input_body,
    preferans_stored_body,
)


class PreferansKind(BaseKind):
    slug = "preferans"

    # --- results (matches) -----------------------------------------------------------------

    parts = ("deals",)

    def clean(self, data, errors, game):
        return preferans_clean(data, errors, game)

    def input_body(self, cleaned):
        return preferans_input_body(cleaned)

    def stored_body(self, match):
        return preferans_stored_body(match)

    def store_parts(self, match, cleaned):
        preferans_deals_store(match, cleaned)

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------
