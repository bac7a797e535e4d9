"""Slaps's kind: everything about Slaps results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind


class SlapsKind(BaseKind):
    slug = "elo"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------
