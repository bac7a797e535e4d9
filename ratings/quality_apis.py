"""Read APIs over rating quality: a game's rating drift (``ratings.drift``)."""

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from leagues.models import Game
from ratings.drift import ACTIVE_DAYS, AUTO, PERIODS, rating_drift_cached

MAX_ACTIVE_DAYS = 3650


class DriftPointSerializer(AnswerSerializer):
    start = serializers.DateField(help_text="The period's first day (weeks start on Monday).")
    mean_rating = serializers.FloatField(
        allow_null=True, help_text="Mean rating of the players active at the period's end; null when none were."
    )
    active_players = serializers.IntegerField(help_text="Players with a rated result in the window before the end.")


class GameDriftApi(APIView):
    """The mean rating of a game's active players at the end of each week or month of its history."""

    @extend_schema_serializer(component_name="RatingDrift")
    class OutputSerializer(AnswerSerializer):
        game = serializers.CharField(help_text="The game's slug.")
        period = serializers.ChoiceField(choices=PERIODS, help_text="The periods the series is cut into.")
        active_days = serializers.IntegerField(help_text="A player counts as active this many days after a result.")
        change = serializers.FloatField(allow_null=True, help_text="The last period's mean minus the first's.")
        points = DriftPointSerializer(many=True)

    @extend_schema(
        operation_id="games_drift",
        parameters=[
            OpenApiParameter(
                "period",
                str,
                enum=[*PERIODS, AUTO],
                description="week, month, or auto (the default: weeks for under six months of history).",
            ),
            OpenApiParameter(
                "active_days",
                {"type": "integer", "minimum": 1, "maximum": MAX_ACTIVE_DAYS},
                description=(
                    "The activity window in days; by default the game's leagues' inactivity setting (the largest), "
                    f"or {ACTIVE_DAYS} where none sets one."
                ),
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug):
        game = get_object_or_404(Game, slug=slug)
        params = query_params_once(request)
        period = params.get("period") or AUTO
        if period not in (*PERIODS, AUTO):
            raise ValidationError({"period": ["Must be 'week', 'month' or 'auto'."]})
        raw_days = params.get("active_days") or None
        if raw_days is not None and not (
            raw_days.isascii() and raw_days.isdigit() and 1 <= int(raw_days) <= MAX_ACTIVE_DAYS
        ):
            raise ValidationError({"active_days": [f"A whole number of days from 1 to {MAX_ACTIVE_DAYS}."]})
        drift = rating_drift_cached(game=game, period=period, active_days=int(raw_days) if raw_days else None)
        return Response(self.OutputSerializer({"game": game.slug, **drift.as_dict()}).data)
