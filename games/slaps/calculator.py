"""Slaps's calculator: what one match would do to a rating (seed 000), as a page and as an API.

``slaps_calculate`` is the read both answer from: it checks the numbers
typed and runs the Elo engine's update with the parameters of the first
Slaps game (the engine's defaults when there is none). It stores nothing.
``slaps_explanation`` states the rule with those parameters (K, when it
drops, the scale): the page and the answer say what the game uses now, not
what seed 000 wrote.
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
from games.entry import calculator_errors, entry_decimal, shown_figure
from leagues.models import Game
from ratings.calculators import (
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
from ratings.engines.elo import EloParameters, elo_update

RATING_SYSTEM = "elo"
#: The page's fields by the names its errors are keyed by: what an error is said against.
FIELD_LABELS = {
    "rating": gettext_lazy("Your rating"),
    "opponent": gettext_lazy("Opponent's rating"),
    "score": gettext_lazy("Result"),
    "rated_matches": gettext_lazy("Rated matches completed"),
}


def slaps_k_rule(parameters: EloParameters) -> str:
    """When K is what: "K is 48 until a player has completed 32 rated matches, then 16" with the game's numbers."""
    figures = calculator_figures(parameters)
    if parameters.provisional_matches == 0 or parameters.k_provisional == parameters.k_established:
        k = figures["k_established"] if parameters.provisional_matches == 0 else figures["k_provisional"]
        return _("K is %(k)s for every match.") % {"k": k}
    return _(
        "K is %(k_provisional)s until a player has completed %(matches)s rated matches, then %(k_established)s."
    ) % {
        "k_provisional": figures["k_provisional"],
        "matches": figures["provisional_matches"],
        "k_established": figures["k_established"],
    }


def slaps_explanation(parameters: EloParameters) -> str:
    """Seed 000's rule in words, with the game's parameters: the API answer's ``explanation``."""
    return " ".join(
        [
            _(
                "Expected score E = 1 / (1 + 10^((opponent - rating)/%(scale)s)); new rating = rating + K * "
                "(score - E), rounded to a whole number (halves away from zero)."
            )
            % {"scale": calculator_figure(parameters.scale)},
            slaps_k_rule(parameters),
        ]
    )


def slaps_calculate(*, data, game: Game | None = None) -> dict:
    """What one Slaps match would do to a rating: expected score, K, the change and the new rating, with the
    game used, its parameters and the rule in words (``slaps_explanation``)."""
    errors: dict[str, list[str]] = {}
    rating = calculator_number(data, "rating", errors)
    opponent = calculator_number(data, "opponent", errors)
    score = calculator_number(data, "score", errors, default=1.0, maximum=1)
    rated_matches = calculator_number(data, "rated_matches", errors, default=0.0, maximum=10**9)
    if score is not None and score not in (0.0, 0.5, 1.0):
        errors.setdefault("score", []).append(_("Score is 1 (win), 0 (loss) or 0.5 (draw)."))
    if rated_matches is not None and rated_matches != int(rated_matches):
        errors.setdefault("rated_matches", []).append(_("Enter a whole number."))
    if errors:
        raise ValidationError(errors)
    game = game or calculator_game(rating_system=RATING_SYSTEM)
    parameters = calculator_parameters(game=game, rating_system=RATING_SYSTEM)
    update = elo_update(
        rating=rating, opponent_rating=opponent, score=score, rated_matches=int(rated_matches), parameters=parameters
    )
    return {
        "expected": round(update.expected, 4),
        "k": update.k,
        "delta": int(update.delta_from(rating)) if rating == int(rating) else update.delta_from(rating),
        "new_rating": int(update.rating_after),
        **calculator_answer_fields(game=game, parameters=parameters, explanation=slaps_explanation(parameters)),
    }


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def slaps_calculator_page(request):
    values = {
        "rating": request.GET.get("rating", "1100"),
        "opponent": request.GET.get("opponent", "1000"),
        "score": request.GET.get("score", "1"),
        "rated_matches": request.GET.get("rated_matches", "0"),
    }
    # A rating may be typed with a decimal comma ("1100,5"): read as "1100.5". The fields show what was typed.
    data = {name: entry_decimal(value) for name, value in values.items()}
    game = calculator_game(rating_system=RATING_SYSTEM)  # whose parameters apply: read once, for both uses
    result, errors = None, {}
    try:
        result = slaps_calculate(data=data, game=game)
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
        # The rule's figures in the language's format (0,5 in Russian).
        "p": {name: shown_figure(figure) for name, figure in calculator_figures(parameters).items()}
        if parameters
        else None,
        "k_rule": slaps_k_rule(parameters) if parameters else "",
        "calculators": calculator_links(),
    }
    template = "games/slaps/calculator.html#result" if request.htmx else "games/slaps/calculator.html"
    return render(request, template, context)


class SlapsCalculatorApi(APIView):
    """What one Slaps match would do to a rating (seed 000)."""

    # Component names as first published: clients generated from the schema keep their types.
    @extend_schema_serializer(component_name="EloCalculation")
    class OutputSerializer(AnswerSerializer):
        expected = serializers.FloatField(help_text="Expected score, 1/(1+10^((Rb-Ra)/400)).")
        k = serializers.FloatField(
            help_text=gettext_lazy(
                "K: the game's k_provisional until the player has completed its provisional_matches rated "
                "matches, then its k_established (their values: parameters; in words: explanation)."
            )
        )
        delta = serializers.FloatField(help_text="The rating change.")
        new_rating = serializers.IntegerField(help_text="The new rating, rounded half away from zero.")
        game = serializers.CharField(allow_null=True, help_text=GAME_FIELD_HELP)
        parameters = calculator_parameters_serializer(EloParameters, name="EloParametersSerializer")(
            help_text=gettext_lazy("The parameters the calculation used: the game's, as an admin set them.")
        )
        explanation = serializers.CharField(help_text=EXPLANATION_FIELD_HELP)

    @extend_schema(
        parameters=[
            OpenApiParameter("rating", RATING_PARAMETER, required=True),
            OpenApiParameter("opponent", RATING_PARAMETER, required=True),
            OpenApiParameter(
                "score", {"type": "number", "enum": [0, 0.5, 1]}, description="1 win (default), 0.5 draw, 0 loss"
            ),
            OpenApiParameter(
                "rated_matches",
                {"type": "integer", "minimum": 0, "maximum": 10**9},
                description=gettext_lazy(
                    "Rated matches completed before this one (K drops after the game's provisional_matches)."
                ),
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request):
        return Response(self.OutputSerializer(slaps_calculate(data=calculator_query(query_params_once(request)))).data)
