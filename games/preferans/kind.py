"""Preferans's kind: everything about Preferans results above its engine (see games.base)."""

from __future__ import annotations

from django.db.models import Prefetch
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from games.base import BaseKind
from games.preferans import api, calculator, views
from games.preferans.csv import PREFERANS_COLUMNS, preferans_body_players, preferans_csv_cells, preferans_csv_read
from games.preferans.loading import preferans_inputs
from games.preferans.models import Deal
from games.preferans.parameters import PREFERANS_PARAMETER_TEXTS
from games.preferans.profile import preferans_change_notes
from games.preferans.results import (
    preferans_clean,
    preferans_deal_rows,
    preferans_stored_body,
)
from ratings.engines import preferans as preferans_engine
from ratings.quality import pair_scale


class PreferansKind(BaseKind):
    slug = "preferans"

    # --- results (matches) -----------------------------------------------------------------

    parts = ("deals",)
    bots = True

    def system_label(self):
        # The engine's label, in the reader's language (the engines speak English only).
        return _("SmartPref per-deal rating")

    def parameter_texts(self):
        return PREFERANS_PARAMETER_TEXTS

    def clean(self, data, errors, game):
        return preferans_clean(data, errors, game)

    def stored_body(self, match):
        return preferans_stored_body(match)

    def part_rows(self, match, cleaned):
        return {"deals": preferans_deal_rows(match, cleaned)}

    # --- rating input (ratings) ------------------------------------------------------------

    calculator_url_name = "calculator-preferans"  # games/preferans/calculator.py
    calculator_label = gettext_lazy("Preferans")

    def load(self, chunk, context):
        return preferans_inputs(chunk, context)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS
    body_example_name = "Preferans"
    body_example = api.BODY_EXAMPLE

    # --- pages -----------------------------------------------------------------------------

    result_noun = pgettext_lazy("a result of the game", "game")
    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/preferans/_match_results.html",
        "profile_result": "games/preferans/_profile_result.html",
        "profile_change": "games/preferans/_profile_change.html",
        "confirm_result": "games/preferans/_confirm_result.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)

    def entry_label(self, game):
        return _("Record %(game)s") % {"game": game.name}

    def match_page_context(self, match):
        return {"deal_rows": views.deal_rows(match)}

    # --- import/export ---------------------------------------------------------------------

    csv_columns = PREFERANS_COLUMNS

    def csv_read(self, data, *, game, zone):
        return preferans_csv_read(data, game=game, zone=zone)

    def csv_cells(self, bodies):
        return preferans_csv_cells(bodies)

    def body_players(self, body, swap):
        return preferans_body_players(body, swap)

    # --- the player's profile (web.pages) --------------------------------------------------

    def profile_rating_units(self):
        return (pgettext_lazy("one rated", "deal"), pgettext_lazy("many rated", "deals"))

    def rated_units(self, count):
        return ngettext("%(count)s rated deal", "%(count)s rated deals", count) % {"count": count}

    def profile_change_notes(self, matches, player):
        return preferans_change_notes(matches)

    # --- admin and corrections ---------------------------------------------------------------

    def entry_initial(self, match):
        return views.preferans_entry_initial(match)

    # --- reading its parts (matches.selectors) -------------------------------------------------

    def part_prefetches(self):
        return {"deals": Prefetch("deals", queryset=Deal.objects.order_by("number"))}

    # --- its own routes (config.urls) -----------------------------------------------------------

    def page_urls(self):
        return [path("calculator/preferans/", calculator.preferans_calculator_page, name="calculator-preferans")]

    def api_urls(self):
        return [
            path(
                "calculator/preferans/",
                calculator.PreferansCalculatorApi.as_view(),
                name="api-calculator-preferans",
            )
        ]

    # --- head-to-head and compare (ratings.compare) -----------------------------------------------

    meeting_nouns = (pgettext_lazy("one meeting", "game"), pgettext_lazy("many meetings", "games"))
    points_label = gettext_lazy("whists")

    def compare_expected(self, *, game, a, b, ratings):
        # The chance that A ends a game with more whists than B, on the game's fitted pair scale: kept by the
        # figures' task (ratings.figures), None while a game's first is being computed.
        scale = pair_scale(game)
        return None if scale is None else preferans_engine.pair_expected_score(ratings[a[0]], ratings[b[0]], scale)

    compare_expected_note = gettext_lazy(
        "The chance that A ends a game at one table with more whists than B: 1 / (1 + 10^(-(Ra - Rb) / s)), "
        "s the game's pair scale."
    )
