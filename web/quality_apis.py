"""Read APIs over rating quality: a game's rating drift (``ratings.drift``)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from leagues.models import Game
from ratings.drift import ACTIVE_DAYS, AUTO, DRIFT_WINDOWS, PERIODS, drift_kept, drift_windows, game_active_days
from ratings.figures import RETRY_AFTER_SECONDS
from web.found import object_or_404


class DriftPointSerializer(AnswerSerializer):
    start = serializers.DateField(help_text="The period's first day (weeks start on Monday).")
    mean_rating = serializers.FloatField(
        allow_null=True, help_text="Mean rating of the players active at the period's end; null when none were."
    )
    active_players = serializers.IntegerField(help_text="Players with a rated result in the window before the end.")


class GameDriftApi(APIView):
    """The mean rating of a game's active players at the end of each week or month of its history.

    Kept, never computed here: the answer is the series ``ratings.figures``' last run computed, with
    ``as_of``; while a game's first is being computed it is 202 with ``computing`` true and no points.
    """

    @extend_schema_serializer(component_name="RatingDrift")
    class OutputSerializer(AnswerSerializer):
        game = serializers.CharField(help_text="The game's slug.")
        period = serializers.ChoiceField(
            choices=[*PERIODS, AUTO],
            help_text="The periods the series is cut into (auto only while computing: the history decides).",
        )
        active_days = serializers.IntegerField(help_text="A player counts as active this many days after a result.")
        change = serializers.FloatField(allow_null=True, help_text="The last period's mean minus the first's.")
        points = DriftPointSerializer(many=True)
        as_of = serializers.DateTimeField(
            allow_null=True, help_text="When the series was computed (a background task); null while computing."
        )
        computing = serializers.BooleanField(
            help_text="True while the game's first series is being computed (answered 202, no points yet)."
        )

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
                {"type": "integer", "minimum": 1},
                description=(
                    "The activity window in days; by default the game's leagues' inactivity setting (the largest), "
                    f"or {ACTIVE_DAYS} where none sets one. Offered: that window and "
                    f"{', '.join(str(days) for days in DRIFT_WINDOWS)}; any other is 400."
                ),
            ),
        ],
        responses={200: OutputSerializer, 202: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug):
        game = object_or_404(Game, slug=slug)
        params = query_params_once(request)
        period = params.get("period") or AUTO
        if period not in (*PERIODS, AUTO):
            raise ValidationError({"period": [gettext("Must be 'week', 'month' or 'auto'.")]})
        raw_days = params.get("active_days") or None
        offered = drift_windows(game)
        if raw_days is not None and not (raw_days.isascii() and raw_days.isdigit() and int(raw_days) in offered):
            raise ValidationError(
                {"active_days": [gettext("One of %(days)s (days).") % {"days": ", ".join(map(str, offered))}]}
            )
        days = int(raw_days) if raw_days else game_active_days(game)
        drift, as_of = drift_kept(game=game, period=period, active_days=days)
        if drift is None:
            body = {"game": game.slug, "period": period, "active_days": days}
            body |= {"change": None, "points": [], "as_of": None, "computing": True}
            response = Response(self.OutputSerializer(body).data, status=202)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
        body = {"game": game.slug, **drift.as_dict(), "as_of": as_of, "computing": False}
        return Response(self.OutputSerializer(body).data)
