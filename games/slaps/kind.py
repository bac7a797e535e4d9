"""Slaps's kind: everything about Slaps results above its engine (see games.base)."""

from __future__ import annotations

from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.base import BaseKind
from games.slaps import api, calculator, views
from games.slaps.csv import SLAPS_COLUMNS, slaps_body_players, slaps_csv_cells, slaps_csv_read
from games.slaps.loading import slaps_engine_input
from games.slaps.parameters import ELO_PARAMETER_TEXTS
from games.slaps.results import slaps_clean, slaps_stored_body
from ratings.engines import elo
from ratings.parameters import rating_parameters


class SlapsKind(BaseKind):
    slug = "elo"

    def system_label(self):
        # The engine's label, in the reader's language (the engines speak English only).
        return _("ISF Elo (1 v 1)")

    def parameter_texts(self):
        return ELO_PARAMETER_TEXTS

    # --- results (matches) -----------------------------------------------------------------

    def clean(self, data, errors, game):
        return slaps_clean(data, errors)

    def stored_body(self, match):
        return slaps_stored_body(match)

    # --- rating input (ratings) ------------------------------------------------------------

    calculator_url_name = "calculator-elo"  # games/slaps/calculator.py
    calculator_label = gettext_lazy("Slaps (Elo)")

    result_noun = pgettext_lazy("a result of the game", "match")

    def engine_input(self, seats):
        return slaps_engine_input(seats)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS
    body_example_name = "Slaps"
    body_example = api.BODY_EXAMPLE

    # --- pages -----------------------------------------------------------------------------

    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/slaps/_match_results.html",
        "seats_line": "games/slaps/_seats_line.html",
        "seats_names": "games/slaps/_seats_names.html",
        "profile_result": "games/slaps/_profile_result.html",
        "profile_change": "games/slaps/_profile_change.html",
        "confirm_result": "games/slaps/_confirm_result.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)

    # --- import/export ---------------------------------------------------------------------

    csv_columns = SLAPS_COLUMNS

    def csv_read(self, data, *, game, zone):
        return slaps_csv_read(data, game=game, zone=zone)

    def csv_cells(self, bodies):
        return slaps_csv_cells(bodies)

    def body_players(self, body, swap):
        return slaps_body_players(body, swap)

    # --- admin and corrections ---------------------------------------------------------------

    def admin_players(self, match):
        seats = list(match.seats.all())
        return " {} ".format(_("vs")).join(
            _("%(name)s (won)") % {"name": seat.occupant.name} if seat.result > 0 else seat.occupant.name
            for seat in seats
        )

    def entry_initial(self, match):
        return views.slaps_entry_initial(match)

    # --- its own routes (config.urls) -----------------------------------------------------------

    def page_urls(self):
        return [
            # The entry page's player quick-create: before the shared route, which takes any slug.
            path("results/players/", views.player_quick_create, name="player-quick-create"),
            path("calculator/elo/", calculator.slaps_calculator_page, name="calculator-elo"),
        ]

    def api_urls(self):
        return [path("calculator/elo/", calculator.SlapsCalculatorApi.as_view(), name="api-calculator-elo")]

    # --- head-to-head and compare (ratings.compare) -----------------------------------------------

    shows_draws = False

    def compare_expected(self, *, game, a, b, ratings):
        # Seed 000's expected score, on the game's own scale.
        return elo.expected_score(ratings[a[0]], ratings[b[0]], rating_parameters(game=game).scale)

    compare_expected_note = gettext_lazy(
        "Seed 000's expected score of A against B, the chance of a win: E = 1 / (1 + 10^((Rb - Ra) / 400))."
    )
