"""Read APIs over the ratings: a league's leaderboard, a player's ratings and ledger.

They read ratings (and their cache versions) and the results. Answers go
through each API's ``OutputSerializer``, so the published schema is what is
returned. A *leaderboard row* is a player's standing in a league: rank (ties
broken by name, among the players shown: the league's active ones by
default, everyone with ``include_inactive=true``), rating, peak and rated
matches; *provisional* until the game's number of rated matches (Slaps: 32);
*active* or *inactive since* a day (``ratings.selectors.Activity``). A *history row* is one ledger
row: one rated unit (a Slaps match, a Preferans deal, a bridge board).
"""

from datetime import UTC

from django.core.exceptions import ValidationError
from django.core.paginator import InvalidPage
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from config.api import (
    ANY_REQUEST_ERRORS,
    NO_FORMAT_PARAMETER,
    AnswerSerializer,
    DownloadApi,
    RatingNumberField,
    download_responses,
    error_responses,
    query_params_once,
)
from config.csvout import download, with_bom
from config.permissions import user_sees_club_data
from leagues.models import Game, League, Player
from ratings import selectors
from ratings.caching import cached, rating_version_of_state
from ratings.exports import history_csv_pieces, leaderboard_csv_pieces
from ratings.selectors import Sort, rating_decimals, rating_number
from web.club_apis import PlayerDetailSerializer
from web.found import object_or_404


class PlayerRefSerializer(AnswerSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class LeaderboardRowSerializer(AnswerSerializer):
    rank = serializers.IntegerField(
        help_text="The player's rank among the players shown (the league's active players, or everyone with "
        "include_inactive=true), even in search results."
    )
    player = PlayerRefSerializer()
    rating = RatingNumberField()
    peak_rating = RatingNumberField()
    rated_matches = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Fewer rated matches than the game's provisional count.")
    active = serializers.BooleanField(
        help_text="Whether the player has a rated result within the league's inactivity setting (always true "
        "in a league without one)."
    )
    inactive_since = serializers.DateField(
        allow_null=True,
        help_text="The first day the player counted as inactive (the day of their last rated result plus the "
        "league's days plus one, in the site's time zone); null when active.",
    )


INCLUDE_INACTIVE = OpenApiParameter(
    "include_inactive",
    str,
    enum=["true", "false"],
    description="true: every player, inactive ones marked (active false) and ranked among everyone; false "
    "(default): only the league's active players, ranked among themselves.",
)


def include_inactive_param(params) -> bool:
    """The ``include_inactive`` query parameter: "true" or "false" (default), anything else refused."""
    value = params.get("include_inactive")
    if value in (None, "", "false"):
        return False
    if value == "true":
        return True
    raise ValidationError({"include_inactive": [gettext("Must be 'true' or 'false'.")]})


class LeaderboardPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class LeaderboardApi(APIView):
    """A league's standings, one page at a time."""

    @extend_schema_serializer(component_name="LeaderboardPage")
    class OutputSerializer(AnswerSerializer):
        count = serializers.IntegerField(
            help_text="Players shown: the league's active players, or everyone with include_inactive=true (or those "
            "of them matching the search)."
        )
        next = serializers.URLField(allow_null=True, help_text="The next page's URL, or null.")
        previous = serializers.URLField(allow_null=True, help_text="The previous page's URL, or null.")
        results = LeaderboardRowSerializer(many=True)

    @extend_schema(
        operation_id="leagues_leaderboard_list",  # as first published, though the answer is one page object
        parameters=[
            OpenApiParameter("sort", str, enum=list(Sort.CHOICES), description="current (default) or peak"),
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="From 1; past the last: 404."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1},
                description=f"Rows per page, {LeaderboardPagination.page_size} by default; at most "
                f"{LeaderboardPagination.max_page_size} are given.",
            ),
            OpenApiParameter("search", str, description="Part of a player's name."),
            INCLUDE_INACTIVE,
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug):
        # The league and its game's ratings version in one query.
        league = object_or_404(League.objects.select_related("game", "game__rating_state"), slug=slug)
        version = rating_version_of_state(getattr(league.game, "rating_state", None))
        params = query_params_once(request)
        sort = params.get("sort") or Sort.CURRENT
        if sort not in Sort.CHOICES:
            raise ValidationError({"sort": [gettext("Must be 'current' or 'peak'.")]})
        search = selectors.leaderboard_search(params.get("search"))
        everyone = include_inactive_param(params)
        activity = selectors.league_activity(league=league, everyone=everyone)
        paginator = LeaderboardPagination()
        raw_size = params.get(paginator.page_size_query_param) or ""
        if raw_size and not (raw_size.isascii() and raw_size.isdigit() and int(raw_size) >= 1):
            # DRF would silently serve the default size for "abc" or 0; a client asking that made a mistake.
            raise ValidationError(
                {
                    "page_size": [
                        gettext("A whole number from 1 (at most %(most)d rows).") % {"most": paginator.max_page_size}
                    ]
                }
            )
        page_size = paginator.get_page_size(request)
        try:
            number = selectors.leaderboard_page_number(
                league=league,
                sort=sort,
                search=search,
                page=params.get(paginator.page_query_param),
                page_size=page_size,
                clamp=False,
                version=version,
                activity=activity,
            )
        except InvalidPage as error:
            raise NotFound(paginator.invalid_page_message.format(page_number="", message=str(error))) from error

        def compute() -> dict:
            page = selectors.leaderboard_page(
                league=league,
                sort=sort,
                search=search,
                page=number,
                page_size=page_size,
                version=version,
                activity=activity,
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
                    "active": row.active,
                    "inactive_since": row.inactive_since,
                }
                for row in page.rows
            ]
            # Serialized once here, under the cache: a warm page costs no serializer work.
            rows = LeaderboardRowSerializer(rows, many=True).data
            return {"count": page.count, "has_next": page.has_next, "has_previous": page.has_previous, "results": rows}

        # The whole page's data, under the ratings version; only the links depend on the request's URL.
        # Searches and unusual page sizes are computed each time: bounded cache keys (leaderboard_cacheable).
        payload = cached(
            ("leaderboard-api", league.pk, sort, search, number, page_size, activity.key, version),
            compute,
            keep=selectors.leaderboard_cacheable(search=search, page_size=page_size),
        )
        page = {
            "count": payload["count"],
            "next": self._page_link(request, paginator, number + 1) if payload["has_next"] else None,
            "previous": self._page_link(request, paginator, number - 1) if payload["has_previous"] else None,
            # Already the row serializer's output (cached): not serialized a second time.
            "results": payload["results"],
        }
        return Response(page)

    @staticmethod
    def _page_link(request, paginator: PageNumberPagination, number: int) -> str:
        return page_link(request, number, paginator.page_query_param)


def page_link(request, number: int, name: str = "page") -> str:
    """DRF's page links: the request's URL with page ``number``; page 1 is the URL without a page parameter."""
    url = request.build_absolute_uri()
    if number == 1:
        return remove_query_param(url, name)
    return replace_query_param(url, name, number)


def player_detail_data(player: Player) -> dict:
    """A player and one rating per game they have played, for ``PlayerDetailSerializer``."""
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
                "active": rating.active,
                "inactive_since": rating.inactive_since,
            }
        )
    return {"id": player.pk, "name": player.name, "ratings": ratings}


class PlayerDetailApi(APIView):
    """A player and their rating in every game they have played."""

    OutputSerializer = PlayerDetailSerializer

    @extend_schema(responses={200: OutputSerializer, **error_responses(404, *ANY_REQUEST_ERRORS)})
    def get(self, request, pk):
        player = object_or_404(Player, pk=pk)
        return Response(self.OutputSerializer(player_detail_data(player)).data)


@extend_schema_serializer(component_name="HistoryRow")
class HistoryRowSerializer(AnswerSerializer):
    match = serializers.IntegerField()
    game = serializers.CharField(help_text="The game's slug.")
    unit = serializers.IntegerField(help_text="The rated unit inside the match, from 0 (a deal, a board).")
    played_at = serializers.DateTimeField(default_timezone=UTC)
    rating_before = RatingNumberField()
    rating_after = RatingNumberField()
    delta = RatingNumberField()
    details = serializers.DictField(help_text="The formula's inputs, by rating system (expected score, K, ...).")


def whole_number_param(params, name: str, default: int) -> int:
    """A positive whole-number query parameter (``page``, ``page_size``); absent or empty: ``default``.

    Anything else (0, text, a sign, more than 18 digits) is a 400 naming it: DRF would silently serve its
    default for "abc", and a client sending that made a mistake.
    """
    raw = params.get(name) or ""
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 18 and int(raw) >= 1):
        raise ValidationError({name: [gettext("A whole number from 1.")]})
    return int(raw)


class PlayerHistoryApi(APIView):
    """A player's ledger, oldest first, one page at a time: one row per rated unit.

    Paged like the leaderboard (``page``, ``page_size``; ``count``, ``next``, ``previous``): the whole
    ledger of a player with 80,000 deals was one 24 MB answer, seconds of a worker and its memory.
    """

    @extend_schema_serializer(component_name="HistoryPage")
    class OutputSerializer(AnswerSerializer):
        count = serializers.IntegerField(help_text="The player's ledger rows (of the game, when one is given).")
        next = serializers.URLField(allow_null=True, help_text="The next page's URL, or null.")
        previous = serializers.URLField(allow_null=True, help_text="The previous page's URL, or null.")
        results = HistoryRowSerializer(many=True)

    @extend_schema(
        operation_id="players_history_list",  # as first published, though the answer is now one page object
        parameters=[
            OpenApiParameter("game", str, description="A game's slug; all games when absent."),
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="From 1; past the last: 404."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1},
                description=f"Rows per page, {selectors.HISTORY_API_PAGE_SIZE} by default; at most "
                f"{selectors.HISTORY_API_PAGE_MAX} are given.",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, pk):
        player = object_or_404(Player, pk=pk)
        params = query_params_once(request)
        game = None
        slug = params.get("game")
        if slug:
            game = Game.objects.filter(slug=slug[:100]).first()
            if game is None:
                raise ValidationError({"game": [gettext("Unknown game %(slug)r.") % {"slug": slug[:50]}]})
        size = whole_number_param(params, "page_size", selectors.HISTORY_API_PAGE_SIZE)
        number = whole_number_param(params, "page", 1)
        try:
            page = selectors.player_history_page(player=player, game=game, number=number, page_size=size)
        except InvalidPage as error:
            raise NotFound(gettext("Invalid page: %(reason)s") % {"reason": error}) from error
        rows = []
        decimals_by_game: dict[int, int] = {}
        for change in page.object_list:
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
        answer = {
            "count": page.paginator.count,
            "next": page_link(request, number + 1) if page.has_next() else None,
            "previous": page_link(request, number - 1) if page.has_previous() else None,
            "results": rows,
        }
        return Response(self.OutputSerializer(answer).data)


def _history_game(request) -> Game | None:
    slug = query_params_once(request).get("game")
    if not slug:
        return None
    game = Game.objects.filter(slug=slug[:100]).first()
    if game is None:
        raise ValidationError({"game": [gettext("Unknown game %(slug)r.") % {"slug": slug[:50]}]})
    return game


class LeaderboardCsvApi(DownloadApi):
    """A league's whole table as CSV, as its page shows it; federation numbers for the club's staff only."""

    @extend_schema(
        operation_id="leagues_leaderboard_csv",
        parameters=[
            OpenApiParameter("sort", str, enum=list(Sort.CHOICES), description="current (default) or peak"),
            INCLUDE_INACTIVE,
            NO_FORMAT_PARAMETER,
        ],
        responses=download_responses(
            "text/csv",
            "rank,player_id,player,federation_id,rating,peak_rating,rated_matches,provisional,active,"
            "inactive_since: the league's players as its leaderboard shows them (active ones, or everyone with "
            "include_inactive=true), best first (UTF-8 with a byte order mark). federation_id is empty unless "
            "the client is the club's staff.",
            400,
            404,
            *ANY_REQUEST_ERRORS,
        ),
    )
    def get(self, request, slug):
        league = object_or_404(League.objects.select_related("game"), slug=self.slug_of(slug))
        params = query_params_once(request)
        sort = params.get("sort") or Sort.CURRENT
        if sort not in Sort.CHOICES:
            raise ValidationError({"sort": [gettext("Must be 'current' or 'peak'.")]})
        activity = selectors.league_activity(league=league, everyone=include_inactive_param(params))
        pieces = leaderboard_csv_pieces(
            league=league, sort=sort, with_ids=user_sees_club_data(request.user), activity=activity
        )
        return download(with_bom(pieces), filename=f"{league.slug}-leaderboard.csv")


class PlayerHistoryCsvApi(DownloadApi):
    """A player's rating history as CSV: one row per rating change, oldest first."""

    @extend_schema(
        operation_id="players_history_csv",
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The player's id."),
            OpenApiParameter("game", str, description="A game's slug; all games when absent."),
            NO_FORMAT_PARAMETER,
        ],
        responses=download_responses(
            "text/csv",
            "played_at,game,league,match,unit,opponents,rating_before,rating_after,delta: one row per rating "
            "change, oldest first (UTF-8 with a byte order mark).",
            400,
            404,
            *ANY_REQUEST_ERRORS,
        ),
    )
    def get(self, request, pk):
        player = object_or_404(Player, pk=self.id_of(pk))
        game = _history_game(request)
        suffix = f"-{game.slug}" if game else ""
        return download(
            with_bom(history_csv_pieces(player=player, game=game)), filename=f"player-{player.pk}-history{suffix}.csv"
        )
