"""Calculator APIs: what a result would do to a rating, without storing anything."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ratings.services import rating_calculate_elo, rating_calculate_preferans


class EloCalculatorApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("rating", float, required=True),
            OpenApiParameter("opponent", float, required=True),
            OpenApiParameter("score", float, description="1 win (default), 0 loss"),
            OpenApiParameter(
                "rated_matches", int, description="Rated matches completed before this one (K drops after 32)."
            ),
        ],
        responses=inline_serializer(
            "EloCalculation",
            {
                "expected": serializers.FloatField(),
                "k": serializers.FloatField(),
                "delta": serializers.FloatField(),
                "new_rating": serializers.FloatField(),
            },
        ),
    )
    def get(self, request):
        return Response(rating_calculate_elo(data=request.query_params))


class PreferansCalculatorApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("rating", float, required=True, description="Your rating (Rs)."),
            OpenApiParameter("opponents", str, required=True, description="1-3 opponents' ratings, comma-separated."),
            OpenApiParameter("whists", float, required=True, description="Whists you scored in the deal (Vs)."),
            OpenApiParameter("grid", bool, description="Also return the seed's grid for these whists."),
        ],
        responses=inline_serializer(
            "PreferansCalculation",
            {
                "table_rating": serializers.FloatField(),
                "kv": serializers.FloatField(),
                "expected_whists": serializers.FloatField(),
                "kd": serializers.FloatField(),
                "smoothing": serializers.FloatField(),
                "delta": serializers.FloatField(),
                "new_rating": serializers.FloatField(),
            },
        ),
    )
    def get(self, request):
        grid = request.query_params.get("grid") in ("1", "true", "yes")
        return Response(rating_calculate_preferans(data=request.query_params, grid=grid))
