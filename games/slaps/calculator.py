"""Slaps's calculator: what one match would do to a rating (seed 000), as a page and as an API.

``slaps_calculate`` is the read both answer from: it checks the numbers
typed and runs the Elo engine's update with the parameters of the first
Slaps game (the engine's defaults when there is none). It stores nothing.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from leagues.models import Game
from ratings.calculators import (
    RATING_PARAMETER,
    calculator_game,
    calculator_links,
    calculator_number,
    calculator_parameters,
    calculator_query,
)
from ratings.engines.elo import elo_update

RATING_SYSTEM = "elo"


def slaps_calculate(*, data, game: Game | None = None) -> dict:
    """What one Slaps match would do to a rating: expected score, K, the change and the new rating."""
    errors: dict[str, list[str]] = {}
    rating = calculator_number(data, "rating", errors)
    opponent = calculator_number(data, "opponent", errors)
    score = calculator_number(data, "score", errors, default=1.0, maximum=1)
    rated_matches = calculator_number(data, "rated_matches", errors, default=0.0, maximum=10**9)
    if score is not None and score not in (0.0, 0.5, 1.0):
        errors.setdefault("score", []).append("Score is 1 (win), 0 (loss) or 0.5 (draw).")
    if rated_matches is not None and rated_matches != int(rated_matches):
        errors.setdefault("rated_matches", []).append("Enter a whole number.")
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
    }


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def slaps_calculator_page(request):
    values = {
        "rating": request.GET.get("rating", "1100"),
        "opponent": request.GET.get("opponent", "1000"),
        "score": request.GET.get("score", "1"),
        "rated_matches": request.GET.get("rated_matches", "0"),
    }
    result, errors = None, {}
    try:
        result = slaps_calculate(data=values)
    except ValidationError as error:
        errors = error.message_dict
    context = {"values": values, "result": result, "errors": errors, "calculators": calculator_links()}
    template = "games/slaps/calculator.html#result" if request.htmx else "games/slaps/calculator.html"
    return render(request, template, context)


class SlapsCalculatorApi(APIView):
    """What one Slaps match would do to a rating (seed 000)."""

    # Component names as first published: clients generated from the schema keep their types.
    @extend_schema_serializer(component_name="EloCalculation")
    class OutputSerializer(AnswerSerializer):
        expected = serializers.FloatField(help_text="Expected score, 1/(1+10^((Rb-Ra)/400)).")
        k = serializers.FloatField(help_text="K: 32 until 32 rated matches are completed, then 16.")
        delta = serializers.FloatField(help_text="The rating change.")
        new_rating = serializers.IntegerField(help_text="The new rating, rounded half away from zero.")

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
                description="Rated matches completed before this one (K drops after 32).",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request):
        return Response(self.OutputSerializer(slaps_calculate(data=calculator_query(query_params_once(request)))).data)
