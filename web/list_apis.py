"""The official rating lists' API (``ratings.lists``) and a player's rating on a day.

- ``GET /api/games/SLUG/lists/``: the game's lists, newest first: ``[{"date", "players", "url"}]`` (the
  current version of each day; one a period, so the answer stays small).
- ``GET /api/games/SLUG/lists/YYYY-MM-DD/``: one list, a page of its rows at a time (``page``,
  ``page_size``; ``count``, ``next``, ``previous``), ``version`` for an older version of a republished day.
- ``GET /api/players/ID/rating/?game=SLUG&on=YYYY-MM-DD``: the rating the player had at the end of that
  day (their last ledger row before it): ``{"rating", "peak", "units", "as_of"}``; 404 when none yet.

Published lists never change, so their answers are read straight from their rows (the rank index: a
deep page costs what the first does).
"""

from __future__ import annotations

import datetime

from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, RatingNumberField, error_responses, query_params_once
from leagues.models import Game, Player
from ratings.list_selectors import player_rating_on, rating_list_of, rating_lists_of
from ratings.models import RatingListRow
from ratings.selectors import activity_today, rating_decimals, rating_number
from web.found import object_or_404
from web.league_apis import PlayerRefSerializer, page_link, whole_number_param

#: Rows of a list a page, by default and at most.
LIST_PAGE_SIZE = 100
LIST_PAGE_MAX = 1_000


def _day(text: str, name: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValidationError({name: [gettext("A day as YYYY-MM-DD.")]}) from None


def _game(slug: str) -> Game:
    return object_or_404(Game, slug=slug[:100])


class ListSummarySerializer(AnswerSerializer):
    date = serializers.DateField(help_text="The closing day: the list holds the ratings at the end of it.")
    players = serializers.IntegerField(help_text="Players on the list.")
    url = serializers.URLField(help_text="The list in this API.")


class GameListsApi(APIView):
    """A game's published rating lists, newest first."""

    @extend_schema(
        operation_id="games_lists_list",
        responses={200: ListSummarySerializer(many=True), **error_responses(404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug):
        game = _game(slug)
        answer = [
            {
                "date": rating_list.day,
                "players": rating_list.players,
                "url": request.build_absolute_uri(
                    reverse("api-game-rating-list", args=[game.slug, rating_list.day.isoformat()])
                ),
            }
            for rating_list in rating_lists_of(game=game).only("day", "players")
        ]
        return Response(ListSummarySerializer(answer, many=True).data)


class ListRowSerializer(AnswerSerializer):
    rank = serializers.IntegerField()
    player = PlayerRefSerializer(help_text="The player, by the name the list was published with.")
    rating = RatingNumberField()
    peak = RatingNumberField()
    units = serializers.IntegerField(help_text="Rated units (matches, deals, boards) by the closing time.")
    change = RatingNumberField(
        allow_null=True, help_text="The change since the previous list; null when new on this one."
    )
    new = serializers.BooleanField(help_text="Not on the previous list.")
    provisional = serializers.BooleanField(help_text="Fewer rated units than the game's provisional count.")
    inactive = serializers.BooleanField(help_text="Inactive in their league on the closing day.")


class RatingListApi(APIView):
    """One published rating list, a page of its rows at a time, best first."""

    @extend_schema_serializer(component_name="RatingListPage")
    class OutputSerializer(AnswerSerializer):
        game = serializers.CharField(help_text="The game's slug.")
        date = serializers.DateField(help_text="The closing day.")
        version = serializers.IntegerField(help_text="1, or more when an admin republished the day.")
        published_at = serializers.DateTimeField()
        count = serializers.IntegerField(help_text="Players on the list.")
        next = serializers.URLField(allow_null=True, help_text="The next page's URL, or null.")
        previous = serializers.URLField(allow_null=True, help_text="The previous page's URL, or null.")
        rows = ListRowSerializer(many=True)

    @extend_schema(
        operation_id="games_lists_retrieve",
        parameters=[
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="From 1; past the last: 404."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1},
                description=f"Rows per page, {LIST_PAGE_SIZE} by default; at most {LIST_PAGE_MAX} are given.",
            ),
            OpenApiParameter(
                "version", {"type": "integer", "minimum": 1}, description="An older version (default: the current)."
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug, date):
        game = _game(slug)
        try:
            closing = datetime.date.fromisoformat(date)
        except ValueError:
            raise NotFound(gettext("No list of that day: a day is YYYY-MM-DD.")) from None
        params = query_params_once(request)
        version = whole_number_param(params, "version", 0) or None
        rating_list = rating_list_of(game=game, day=closing, version=version)
        if rating_list is None:
            raise NotFound(gettext("No list of %(game)s was published for that day.") % {"game": game.name})
        size = min(whole_number_param(params, "page_size", LIST_PAGE_SIZE), LIST_PAGE_MAX)
        number = whole_number_param(params, "page", 1)
        pages = max(1, -(-rating_list.players // size))
        if number > pages:
            raise NotFound(gettext("Invalid page: that page contains no results"))
        first = (number - 1) * size + 1
        decimals = rating_decimals(game)
        rows = [
            {
                "rank": row.rank,
                "player": {"id": row.player_id, "name": row.name},
                "rating": rating_number(row.rating, decimals=decimals),
                "peak": rating_number(row.peak, decimals=decimals),
                "units": row.units,
                "change": rating_number(row.change, decimals=decimals),
                "new": row.new,
                "provisional": row.provisional,
                "inactive": row.inactive,
            }
            for row in RatingListRow.objects.filter(
                rating_list=rating_list, rank__gte=first, rank__lt=first + size
            ).order_by("rank", "name", "player_id")
        ]
        answer = {
            "game": game.slug,
            "date": rating_list.day,
            "version": rating_list.version,
            "published_at": rating_list.published_at,
            "count": rating_list.players,
            "next": page_link(request, number + 1) if number < pages else None,
            "previous": page_link(request, number - 1) if number > 1 else None,
            "rows": rows,
        }
        return Response(self.OutputSerializer(answer).data)


class PlayerRatingOnApi(APIView):
    """The rating a player had in a game at the end of a day (their last rated unit before it)."""

    @extend_schema_serializer(component_name="RatingOnDay")
    class OutputSerializer(AnswerSerializer):
        rating = RatingNumberField()
        peak = RatingNumberField()
        units = serializers.IntegerField(help_text="Rated units (matches, deals, boards) by then.")
        as_of = serializers.DateTimeField(help_text="When the unit that gave this rating was played.")

    @extend_schema(
        operation_id="players_rating_retrieve",
        parameters=[
            OpenApiParameter("game", str, required=True, description="The game's slug."),
            OpenApiParameter(
                "on",
                {"type": "string", "format": "date"},
                required=True,
                description="A day, YYYY-MM-DD: not after today.",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, pk):
        player = object_or_404(Player, pk=pk)
        params = query_params_once(request)
        slug, on = params.get("game") or "", params.get("on") or ""
        errors = {}
        game = Game.objects.filter(slug=slug[:100]).first() if slug else None
        if not slug:
            errors["game"] = [gettext("A game's slug is needed.")]
        elif game is None:
            errors["game"] = [gettext("Unknown game %(slug)r.") % {"slug": slug[:50]}]
        try:
            day = _day(on, "on") if on else None
        except ValidationError as error:
            errors.update(error.message_dict)
            day = None
        if not on:
            errors["on"] = [gettext("A day as YYYY-MM-DD.")]
        elif day is not None and day > activity_today():
            errors["on"] = [gettext("A day that has begun: not after today.")]
        if errors:
            raise ValidationError(errors)
        found = player_rating_on(player=player, game=game, day=day)
        if found is None:
            raise NotFound(gettext("The player had no rating in %(game)s by then.") % {"game": game.name})
        decimals = rating_decimals(game)
        answer = {
            "rating": rating_number(found.rating, decimals=decimals),
            "peak": rating_number(found.peak, decimals=decimals),
            "units": found.units,
            "as_of": found.as_of,
        }
        return Response(self.OutputSerializer(answer).data)
