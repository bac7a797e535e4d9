"""Slaps's kind: everything about Slaps results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.slaps import api
from games.slaps.loading import slaps_engine_input


class SlapsKind(BaseKind):
    slug = "elo"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    calculator_url_name = "calculator-elo"  # games/slaps/calculator.py
    calculator_label = "Slaps (Elo)"

    def engine_input(self, seats):
        return slaps_engine_input(seats)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS

    # --- pages -----------------------------------------------------------------------------
