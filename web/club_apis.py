"""APIs over the base records: games, leagues and player creation.

Answers go through each API's ``OutputSerializer``, so the published schema is
what is returned. What reads ratings (leaderboards, a player's ratings and
ledger) is ``web.league_apis``'s.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import (
    ANY_REQUEST_ERRORS,
    BODY_ERRORS,
    JSON_ONLY,
    WRITE_ERRORS,
    AnswerSerializer,
    IsReferee,
    RatingNumberField,
    WriteThrottle,
    error_responses,
    query_params_once,
)
from leagues.models import Game, League
from leagues.services import player_create


class GameListApi(generics.ListAPIView):
    """Every game: its slug, name and rating system."""

    @extend_schema_serializer(component_name="Game")  # component names as first published
    class OutputSerializer(serializers.ModelSerializer):
        class Meta:
            model = Game
            fields = ["slug", "name", "rating_system"]

    queryset = Game.objects.order_by("name")
    serializer_class = OutputSerializer
    pagination_class = None
    filter_backends = []

    @extend_schema(responses={200: OutputSerializer(many=True), **error_responses(*ANY_REQUEST_ERRORS)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class LeagueListApi(generics.ListAPIView):
    """Every league (of one game, or one tier): its rules of promotion and floor."""

    @extend_schema_serializer(component_name="League")
    class OutputSerializer(serializers.ModelSerializer):
        game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
        promotion_threshold = serializers.FloatField(allow_null=True)
        rating_floor = serializers.FloatField(allow_null=True)

        class Meta:
            model = League
            fields = ["slug", "name", "game", "tier", "promotion_threshold", "rating_floor", "inactive_after_days"]

    queryset = League.objects.select_related("game").order_by("game__name", "tier")
    serializer_class = OutputSerializer
    pagination_class = None
    filterset_fields = {"game__slug": ["exact"], "tier": ["exact"]}

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, description="A game's slug, e.g. slaps; empty or absent: every game."),
            # django-filter reads an empty value as "not given": say so, rather than refuse what forms send.
            OpenApiParameter(
                "tier", str, enum=["amateur", "pro", ""], description="amateur or pro; empty or absent: both."
            ),
        ],
        responses={200: OutputSerializer(many=True), **error_responses(400, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        game = query_params_once(self.request).get("game")
        if game:
            if not Game.objects.filter(slug=game).exists():
                raise ValidationError({"game": [gettext("Unknown game %(slug)r.") % {"slug": game[:50]}]})
            queryset = queryset.filter(game__slug=game)
        return queryset


class PlayerRatingSerializer(AnswerSerializer):
    game = serializers.CharField(help_text="The game's slug.")
    league = serializers.CharField(help_text="The league's slug.")
    rating = RatingNumberField()
    peak_rating = RatingNumberField()
    rated_matches = serializers.IntegerField()
    rank = serializers.IntegerField(
        help_text="Rank in the league, on the leaderboard the player appears on: among the active players when "
        "active, among everyone when inactive."
    )
    active = serializers.BooleanField(
        help_text="Whether the player has a rated result within the league's inactivity setting (always true in "
        "a league without one)."
    )
    inactive_since = serializers.DateField(
        allow_null=True,
        help_text="The first day the player counted as inactive in the league (site's time zone); null when active.",
    )


class PlayerDetailSerializer(AnswerSerializer):
    """A player and one rating per game they have played (``web.league_apis.player_detail_data``)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    ratings = PlayerRatingSerializer(many=True)


class PlayerCreateApi(APIView):
    """Add a player (referees)."""

    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsReferee]
    parser_classes = JSON_ONLY

    @extend_schema_serializer(component_name="PlayerCreate")
    class InputSerializer(serializers.Serializer):
        # Documents the body; ``player_create`` checks it (the pages share it).
        name = serializers.CharField(help_text="The player's name.")

    OutputSerializer = PlayerDetailSerializer

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer, **error_responses(*BODY_ERRORS, *WRITE_ERRORS)},
    )
    def post(self, request):
        data = request.data if isinstance(request.data, dict) else {}
        player = player_create(name=data.get("name"))
        # A player just created has played nothing: no ratings to read (``PlayerDetailApi`` reads them).
        answer = {"id": player.pk, "name": player.name, "ratings": []}
        return Response(self.OutputSerializer(answer).data, status=status.HTTP_201_CREATED)
