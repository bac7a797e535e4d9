"""Bridge's kind: everything about Bridge results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.bridge.results import bridge_boards_store, bridge_clean, bridge_input_body, bridge_stored_body


class BridgeKind(BaseKind):
    slug = "bridge"

    # --- results (matches) -----------------------------------------------------------------

    parts = ("boards",)
    rating_periods = True

    def clean(self, data, errors, game):
        return bridge_clean(data, errors)

    def input_body(self, cleaned):
        return bridge_input_body(cleaned)

    def stored_body(self, match):
        return bridge_stored_body(match)

    def store_parts(self, match, cleaned):
        bridge_boards_store(match, cleaned)

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------
