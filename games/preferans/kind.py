"""Preferans's kind: everything about Preferans results above its engine (see games.base)."""

from __future__ import annotations

from games.base import BaseKind
from games.preferans import api
from games.preferans.loading import preferans_inputs


class PreferansKind(BaseKind):
    slug = "preferans"

    # --- results (matches) -----------------------------------------------------------------

    # --- rating input (ratings) ------------------------------------------------------------

    calculator_url_name = "calculator-preferans"  # games/preferans/calculator.py
    calculator_label = "Preferans"

    def load(self, chunk, context):
        return preferans_inputs(chunk, context)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS

    # --- pages -----------------------------------------------------------------------------
