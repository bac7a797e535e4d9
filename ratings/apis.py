"""Calculator APIs: what a result would do to a rating, without storing anything.

Each answer is its API's ``OutputSerializer`` over what the service computed,
so the published schema is what is returned. Rt, Kv, Vf, Kd and Rd are seed
001's names: table rating, whist coefficient, expected whists (capped at +4),
difference coefficient and the deal's rating change.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from ratings.calculators import CALCULATOR_RATING_LIMIT, rating_calculate_elo, rating_calculate_preferans

# What the calculators accept (ratings.calculators checks it); the schema says so, so clients can too.
RATING_PARAMETER = {"type": "number", "minimum": 0, "maximum": CALCULATOR_RATING_LIMIT}


class EloCalculatorApi(APIView):
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
        return Response(self.OutputSerializer(rating_calculate_elo(data=query_params_once(request))).data)


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
        expected_whists = serializers.FloatField(help_text="Vf, the expected whists (at most +4).")
        kd = serializers.FloatField(help_text="Kd, clamped to [0.3, 2.0].")
        smoothing = serializers.FloatField(help_text="The factor on a gain earned above 4000 (1 below).")
        delta = serializers.FloatField(help_text="Rd, the rating change.")
        new_rating = serializers.FloatField()
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
        params = query_params_once(request)
        grid = params.get("grid") in ("1", "true", "yes")
        return Response(self.OutputSerializer(rating_calculate_preferans(data=params, grid=grid)).data)
