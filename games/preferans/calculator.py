"""Preferans's calculator: what one deal would do to a rating (seed 001), and the seed's grid.

``preferans_calculate`` is the read the page and the API answer from: it
checks the numbers typed and runs the engine's deal update with the
parameters of the first Preferans game (the engine's defaults when there is
none). It stores nothing. Rt, Kv, Vf, Kd and Rd are seed 001's names: table
rating, whist coefficient, expected whists (capped at +4), difference
coefficient and the deal's rating change. ``preferans_explanation`` states
the rules with the game's parameters (Kv's base and divisors, Vf's cap, Kd's
base, scale and bounds, the smoothing's start and scale), never the seed's
numbers as constants.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.vary import vary_on_headers
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from games.entry import calculator_errors, entry_decimal, entry_decimal_list, shown_figure
from leagues.models import Game
from ratings.calculators import (
    CALCULATOR_RATING_LIMIT,
    EXPLANATION_FIELD_HELP,
    GAME_FIELD_HELP,
    RATING_PARAMETER,
    calculator_about,
    calculator_answer_fields,
    calculator_figure,
    calculator_figures,
    calculator_game,
    calculator_links,
    calculator_number,
    calculator_parameters,
    calculator_parameters_serializer,
    calculator_query,
)
from ratings.engines.preferans import PreferansParameters, deal_update

RATING_SYSTEM = "preferans"
GRID_RATINGS = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 4500)
GRID_TABLES = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000)
#: The page's fields by the names its errors are keyed by: what an error is said against.
FIELD_LABELS = {
    "rating": gettext_lazy("Your rating (Rs)"),
    "opponents": gettext_lazy("Opponents' ratings (1–3, comma-separated)"),  # noqa: RUF001 (the label's dash)
    "whists": gettext_lazy("Your whists in the deal (Vs)"),
}


def _opponents(data, errors: dict) -> list[float] | None:
    raw = data.get("opponents")
    if raw in (None, ""):
        errors.setdefault("opponents", []).append(_("This field is required: one to three ratings, comma-separated."))
        return None
    parts = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    parts = [part for part in (str(p).strip() for p in parts) if part]
    if not 1 <= len(parts) <= 3:
        errors.setdefault("opponents", []).append(_("Give one to three opponents' ratings."))
        return None
    values = []
    for part in parts:
        value = calculator_number({"opponents": part}, "opponents", errors)
        if value is None:
            return None
        values.append(value)
    return values


def preferans_explanation(parameters: PreferansParameters) -> str:
    """Seed 001's rules in words, with the game's parameters: the API answer's ``explanation``."""
    p = calculator_figures(parameters)
    return _(
        "Rt, the table rating, from the opponents sorted high to low: Rr1; (2*Rr1 + Rr2)/3; "
        "(3*Rr1 + 2*Rr2 + Rr3)/6. Kv = %(kv_base)s + (Rs - Rt)/%(kv_above)s above the table, else "
        "%(kv_base)s + (Rt - Rs)/%(kv_below)s. Vf = min((Rs - Rt)/Kv, %(cap)s). "
        "Kd = clamp(%(kd_base)s / (1 + log10(1 + |Rs - Rt|/%(kd_scale)s)), %(kd_min)s, %(kd_max)s). "
        "Rd = +Kd*sqrt(Vs - Vf) when Vs > Vf, -Kd*sqrt(Vf - Vs) when Vs < Vf; Rn = Rs + Rd, to two decimals. "
        "A gain earned above %(start)s is multiplied by 1 / (1 + (Rs - %(start)s)/%(scale)s)."
    ) % {
        "kv_base": p["kv_base"],
        "kv_above": p["kv_above"],
        "kv_below": p["kv_below"],
        "cap": p["expected_whists_cap"],
        "kd_base": p["kd_base"],
        "kd_scale": p["kd_scale"],
        "kd_min": p["kd_min"],
        "kd_max": p["kd_max"],
        "start": p["smoothing_start"],
        "scale": p["smoothing_scale"],
    }


def preferans_calculate(*, data, game: Game | None = None, grid: bool = False) -> dict:
    """What one Preferans deal would do to a rating (seed 001's calculator), and optionally its grid.

    The grid shows, for the whists entered, the delta for each of your ratings
    (rows) against a table whose opponents all have one average rating (columns).
    """
    errors: dict[str, list[str]] = {}
    rating = calculator_number(data, "rating", errors)
    opponents = _opponents(data, errors)
    whists = calculator_number(data, "whists", errors, minimum=-10_000, maximum=10_000)
    if errors:
        raise ValidationError(errors)
    game = game or calculator_game(rating_system=RATING_SYSTEM)
    parameters = calculator_parameters(game=game, rating_system=RATING_SYSTEM)
    update = deal_update(rating=rating, opponents=opponents, whists=whists, parameters=parameters)
    result = {
        "table_rating": round(update.table_rating, 2),
        "kv": round(update.kv, 4),
        "expected_whists": round(update.expected_whists, 4),
        "kd": round(update.kd, 4),
        "smoothing": round(update.smoothing, 4),
        "delta": round(update.rating_after - rating, 2),
        "new_rating": update.rating_after,
        **calculator_answer_fields(game=game, parameters=parameters, explanation=preferans_explanation(parameters)),
    }
    if grid:
        result["grid"] = {
            "tables": list(GRID_TABLES),
            "rows": [
                {
                    "rating": row,
                    "deltas": [
                        round(
                            deal_update(
                                rating=row, opponents=[table] * len(opponents), whists=whists, parameters=parameters
                            ).rating_after
                            - row,
                            2,
                        )
                        for table in GRID_TABLES
                    ],
                }
                for row in GRID_RATINGS
            ],
        }
    return result


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def preferans_calculator_page(request):
    values = {
        "rating": request.GET.get("rating", "1500"),
        "opponents": request.GET.get("opponents", "1600,1400"),
        "whists": request.GET.get("whists", "4"),
    }
    # A person may type a decimal comma ("1500,5") and cut the opponents by semicolons ("1600,5; 1400"):
    # read as the API reads "1500.5" and ["1600.5", "1400"]. The fields show what was typed.
    data = {
        "rating": entry_decimal(values["rating"]),
        "opponents": entry_decimal_list(values["opponents"]) or "",
        "whists": entry_decimal(values["whists"]),
    }
    game = calculator_game(rating_system=RATING_SYSTEM)  # whose parameters apply: read once, for both uses
    result, errors = None, {}
    try:
        result = preferans_calculate(data=data, game=game, grid=True)
    except ValidationError as error:
        errors = calculator_errors(error.message_dict, FIELD_LABELS)
    try:
        parameters = calculator_parameters(game=game, rating_system=RATING_SYSTEM)
    except ValidationError:
        parameters = None  # unusable: the page states no rule, only the error the calculation raised about them
    context = {
        "values": values,
        "result": result,
        "errors": errors,
        "about": calculator_about(game),
        # The rules' figures in the language's format (0,225 in Russian).
        "p": {name: shown_figure(figure) for name, figure in calculator_figures(parameters).items()}
        if parameters
        else None,
        # Where the smoothing halves a gain: its start plus its scale (the template cannot add floats).
        "smoothing_half": shown_figure(calculator_figure(parameters.smoothing_start + parameters.smoothing_scale))
        if parameters
        else "",
        "calculators": calculator_links(),
    }
    template = "games/preferans/calculator.html#result" if request.htmx else "games/preferans/calculator.html"
    return render(request, template, context)


class PreferansGridRowSerializer(AnswerSerializer):
    rating = serializers.FloatField(help_text="Your rating (a row of the grid).")
    deltas = serializers.ListField(
        child=serializers.FloatField(), help_text="The deal's rating change against each table rating, in order."
    )


class PreferansGridSerializer(AnswerSerializer):
    tables = serializers.ListField(child=serializers.FloatField(), help_text="The table ratings (the columns).")
    rows = PreferansGridRowSerializer(many=True)


class PreferansCalculatorApi(APIView):
    """What one Preferans deal would do to a rating (seed 001), and optionally the seed's grid."""

    @extend_schema_serializer(component_name="PreferansCalculation")
    class OutputSerializer(AnswerSerializer):
        table_rating = serializers.FloatField(help_text="Rt, from the opponents sorted high to low.")
        kv = serializers.FloatField(help_text="Kv, the whist coefficient.")
        expected_whists = serializers.FloatField(
            help_text=gettext_lazy("Vf, the expected whists (at most the game's expected_whists_cap).")
        )
        kd = serializers.FloatField(help_text=gettext_lazy("Kd, clamped to the game's [kd_min, kd_max]."))
        smoothing = serializers.FloatField(
            help_text=gettext_lazy("The factor on a gain earned above the game's smoothing_start (1 below).")
        )
        delta = serializers.FloatField(help_text="Rd, the rating change.")
        new_rating = serializers.FloatField()
        game = serializers.CharField(allow_null=True, help_text=GAME_FIELD_HELP)
        parameters = calculator_parameters_serializer(PreferansParameters, name="PreferansParametersSerializer")(
            help_text=gettext_lazy("The parameters the calculation used: the game's, as an admin set them.")
        )
        explanation = serializers.CharField(help_text=EXPLANATION_FIELD_HELP)
        grid = PreferansGridSerializer(required=False, help_text="Only with grid=true.")

    @extend_schema(
        parameters=[
            OpenApiParameter("rating", RATING_PARAMETER, required=True, description="Your rating (Rs)."),
            OpenApiParameter(
                "opponents",
                str,
                required=True,
                description=f"1-3 opponents' ratings, comma-separated, each 0 to {CALCULATOR_RATING_LIMIT}.",
            ),
            OpenApiParameter(
                "whists",
                {"type": "number", "minimum": -10_000, "maximum": 10_000},
                required=True,
                description="Whists you scored in the deal (Vs).",
            ),
            OpenApiParameter("grid", bool, description="Also return the seed's grid for these whists."),
        ],
        responses={200: OutputSerializer, **error_responses(400, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request):
        params = calculator_query(query_params_once(request))
        grid = params.get("grid") in ("1", "true", "yes")
        return Response(self.OutputSerializer(preferans_calculate(data=params, grid=grid)).data)
