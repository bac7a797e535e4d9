"""Read APIs for games, leagues, leaderboards and players; player creation."""

from django.core.exceptions import ValidationError
from django.core.paginator import InvalidPage
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from config.api import IsReferee, WriteThrottle
from leagues.models import Game, League, Player
from leagues.services import player_create
from ratings import selectors
from ratings.caching import cached, rating_version_of_state
from ratings.selectors import Sort, rating_decimals, rating_number


class GameSerializer(serializers.ModelSerializer):
    class Meta:
        model = Game
        fields = ["slug", "name", "rating_system"]


class GameListApi(generics.ListAPIView):
    queryset = Game.objects.order_by("name")
    serializer_class = GameSerializer
    pagination_class = None
    filter_backends = []


class LeagueSerializer(serializers.ModelSerializer):
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    promotion_threshold = serializers.FloatField(allow_null=True)
    rating_floor = serializers.FloatField(allow_null=True)

    class Meta:
        model = League
        fields = ["slug", "name", "game", "tier", "promotion_threshold", "rating_floor"]


class LeagueListApi(generics.ListAPIView):
    queryset = League.objects.select_related("game").order_by("game__name", "tier")
    serializer_class = LeagueSerializer
    pagination_class = None
    filterset_fields = {"game__slug": ["exact"], "tier": ["exact"]}

    @extend_schema(parameters=[OpenApiParameter("game", str, description="A game's slug, e.g. slaps.")])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        game = self.request.query_params.get("game")
        if game:
            if not Game.objects.filter(slug=game).exists():
                raise ValidationError({"game": [f"Unknown game {game[:50]!r}."]})
            queryset = queryset.filter(game__slug=game)
        return queryset


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = PlayerRefSerializer()
    rating = serializers.FloatField()
    peak_rating = serializers.FloatField()
    rated_matches = serializers.IntegerField()
    provisional = serializers.BooleanField()


class LeaderboardPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class LeaderboardApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("sort", str, enum=list(Sort.CHOICES), description="current (default) or peak"),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int),
            OpenApiParameter("search", str, description="Part of a player's name."),
        ],
        responses=LeaderboardRowSerializer(many=True),
    )
    def get(self, request, slug):
        # The league and its game's ratings version in one query.
        league = get_object_or_404(League.objects.select_related("game", "game__rating_state"), slug=slug)
        version = rating_version_of_state(getattr(league.game, "rating_state", None))
        sort = request.query_params.get("sort") or Sort.CURRENT
        if sort not in Sort.CHOICES:
            raise ValidationError({"sort": ["Must be 'current' or 'peak'."]})
        search = selectors.leaderboard_search(request.query_params.get("search"))
        paginator = LeaderboardPagination()
        page_size = paginator.get_page_size(request)
        try:
            number = selectors.leaderboard_page_number(
                league=league,
                sort=sort,
                search=search,
                page=request.query_params.get(paginator.page_query_param),
                page_size=page_size,
                clamp=False,
                version=version,
            )
        except InvalidPage as error:
            raise NotFound(paginator.invalid_page_message.format(page_number="", message=str(error))) from error

        def compute() -> dict:
            page = selectors.leaderboard_page(
                league=league, sort=sort, search=search, page=number, page_size=page_size, version=version
            )
            decimals = rating_decimals(league.game)
            provisional_after = selectors.provisional_matches(league.game)
            rows = [
                {
                    "rank": row.rank,
                    "player": {"id": row.player_id, "name": row.name},
                    "rating": rating_number(row.rating, decimals=decimals),
                    "peak_rating": rating_number(row.peak_rating, decimals=decimals),
                    "rated_matches": row.rated_matches,
                    "provisional": row.rated_matches < provisional_after,
                }
                for row in page.rows
            ]
            return {"count": page.count, "has_next": page.has_next, "has_previous": page.has_previous, "results": rows}

        # The whole page's data, under the ratings version; only the links depend on the request's URL.
        payload = cached(("leaderboard-api", league.pk, sort, search, number, page_size, version), compute)
        return Response(
            {
                "count": payload["count"],
                "next": self._page_link(request, paginator, number + 1) if payload["has_next"] else None,
                "previous": self._page_link(request, paginator, number - 1) if payload["has_previous"] else None,
                "results": payload["results"],
            }
        )

    @staticmethod
    def _page_link(request, paginator: PageNumberPagination, number: int) -> str:
        """DRF's page links: page 1 is the URL without a page parameter."""
        url = request.build_absolute_uri()
        if number == 1:
            return remove_query_param(url, paginator.page_query_param)
        return replace_query_param(url, paginator.page_query_param, number)


class PlayerRatingSerializer(serializers.Serializer):
    game = serializers.CharField()
    league = serializers.CharField()
    rating = serializers.FloatField()
    peak_rating = serializers.FloatField()
    rated_matches = serializers.IntegerField()
    rank = serializers.IntegerField()


class PlayerDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ratings = PlayerRatingSerializer(many=True)


def player_detail_data(player: Player) -> dict:
    ratings = []
    for rating in selectors.player_ratings(player=player):
        decimals = rating_decimals(rating.game)
        ratings.append(
            {
                "game": rating.game.slug,
                "league": rating.league.slug,
                "rating": rating_number(rating.rating, decimals=decimals),
                "peak_rating": rating_number(rating.peak_rating, decimals=decimals),
                "rated_matches": rating.rated_matches,
                "rank": rating.rank,
            }
        )
    return {"id": player.pk, "name": player.name, "ratings": ratings}


class PlayerCreateApi(APIView):
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsReferee]

    @extend_schema(
        request=inline_serializer("PlayerCreate", {"name": serializers.CharField()}),
        responses={201: PlayerDetailSerializer},
    )
    def post(self, request):
        data = request.data if isinstance(request.data, dict) else {}
        player = player_create(name=data.get("name"))
        return Response(player_detail_data(player), status=status.HTTP_201_CREATED)


class PlayerDetailApi(APIView):
    @extend_schema(responses=PlayerDetailSerializer)
    def get(self, request, pk):
        player = get_object_or_404(Player, pk=pk)
        return Response(player_detail_data(player))


class HistoryRowSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    game = serializers.CharField()
    unit = serializers.IntegerField()
    played_at = serializers.DateTimeField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
    delta = serializers.FloatField()
    details = serializers.DictField()


class PlayerHistoryApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("game", str, description="A game's slug; all games when absent.")],
        responses=HistoryRowSerializer(many=True),
    )
    def get(self, request, pk):
        player = get_object_or_404(Player, pk=pk)
        game = None
        slug = request.query_params.get("game")
        if slug:
            game = Game.objects.filter(slug=slug).first()
            if game is None:
                raise ValidationError({"game": [f"Unknown game {slug[:50]!r}."]})
        rows = []
        decimals_by_game: dict[int, int] = {}
        for change in selectors.player_history(player=player, game=game):
            decimals = decimals_by_game.setdefault(change.game_id, rating_decimals(change.game))
            rows.append(
                {
                    "match": change.match_id,
                    "game": change.game.slug,
                    "unit": change.unit,
                    "played_at": change.played_at,
                    "rating_before": rating_number(change.rating_before, decimals=decimals),
                    "rating_after": rating_number(change.rating_after, decimals=decimals),
                    "delta": rating_number(change.delta, decimals=decimals),
                    "details": change.details,
                }
            )
        return Response(rows)
