"""Bridge's kind: everything about Bridge results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.bridge import api
from games.bridge.loading import bridge_inputs


class BridgeKind(BaseKind):
    slug = "bridge"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    def replay_state(self) -> dict[frozenset, int]:
        """The deals each pair has played together so far (games.bridge.loading)."""
        return {}

    def load(self, chunk, context):
        return bridge_inputs(chunk, context)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS

    # --- pages -----------------------------------------------------------------------------
