"""Bridge's kind: everything about Bridge results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind


class BridgeKind(BaseKind):
    slug = "bridge"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------
