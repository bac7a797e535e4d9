"""Preferans's kind: everything about Preferans results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind


class PreferansKind(BaseKind):
    slug = "preferans"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    # --- API -------------------------------------------------------------------------------

    # --- pages -----------------------------------------------------------------------------
