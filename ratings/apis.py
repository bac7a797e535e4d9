"""Calculator APIs: what a result would do to a rating, without storing anything."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ratings.services import rating_calculate_elo


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
