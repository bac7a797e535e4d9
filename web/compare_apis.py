"""Read APIs over head-to-head records: two players (or bridge pairs) compared, and a player's record
against each opponent (``ratings.compare`` reads them; the game's kind says what a record is).

Public and read-only like the other player APIs. Answers go through each API's ``OutputSerializer``.
"""

from datetime import UTC

from django.core.exceptions import ValidationError
from django.core.paginator import InvalidPage, Paginator
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, RatingNumberField, error_responses, query_params_once
from leagues.models import Player
from ratings.compare import compare_game, compare_sides, comparison_record, player_head_to_head, side_ids
from ratings.headtohead import HeadToHeadRow
from ratings.selectors import rating_decimals, rating_number
from web.found import object_or_404

HEAD_TO_HEAD_PAGE_SIZE = 50
HEAD_TO_HEAD_PAGE_MAX = 200


class OpponentSerializer(AnswerSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class SidePlayerSerializer(AnswerSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    rating = RatingNumberField(help_text="The current rating; the game's start rating for a player not yet rated.")
    rated_matches = serializers.IntegerField()
    league = serializers.CharField(allow_null=True, help_text="The league's slug; null for a player not yet rated.")


class SideSerializer(AnswerSerializer):
    name = serializers.CharField(help_text="The player's name; a pair's two names joined by ' & '.")
    rating = RatingNumberField(help_text="The player's rating; a pair's is its partners' mean.")
    players = SidePlayerSerializer(many=True)


class RecordSerializer(AnswerSerializer):
    meetings = serializers.IntegerField(help_text="Rated results shared: Slaps matches, Preferans games, boards.")
    wins_a = serializers.IntegerField()
    wins_b = serializers.IntegerField()
    draws = serializers.IntegerField()
    last_met = serializers.DateTimeField(allow_null=True, default_timezone=UTC)
    rating_change_a = RatingNumberField(help_text="The sum of a's ledger deltas in the units shared with b.")
    rating_change_b = RatingNumberField()
    points_a = serializers.FloatField(allow_null=True, help_text="Preferans: a's whists; bridge: net IMPs; else null.")
    points_b = serializers.FloatField(allow_null=True)


def _side(side, decimals: int) -> dict:
    return {
        "name": side.name,
        "rating": rating_number(side.rating, decimals=decimals),
        "players": [
            {
                "id": one.player.pk,
                "name": one.player.name,
                "rating": rating_number(one.rating, decimals=decimals),
                "rated_matches": one.rated_matches,
                "league": one.league.slug if one.league else None,
            }
            for one in side.players
        ],
    }


def _number(value) -> float | None:
    return None if value is None else float(value)


class CompareApi(APIView):
    """Two players (bridge: two pairs) compared: ratings, record and the expected score of a."""

    @extend_schema_serializer(component_name="Comparison")
    class OutputSerializer(AnswerSerializer):
        game = serializers.CharField(help_text="The game's slug.")
        a = SideSerializer()
        b = SideSerializer()
        expected_score_a = serializers.FloatField(
            allow_null=True,
            help_text="What the rating system expects of a against b, from 0 to 1 (Preferans: the chance that a "
            "ends a game with more whists than b, on the game's pair scale; null while that scale is being "
            "computed for the first time).",
        )
        record = RecordSerializer()
        recent = serializers.ListField(
            child=serializers.IntegerField(), help_text="The ids of their latest rated meetings, newest first."
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, required=True, description="The game's slug."),
            OpenApiParameter("a", str, required=True, description="A player's id; bridge: a pair, 12,13."),
            OpenApiParameter("b", str, required=True, description="The other side, as a."),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request):
        params = query_params_once(request)
        game = compare_game(params.get("game"))
        size = game.kind.compare_side_size
        errors = {}
        sides = {}
        for name in ("a", "b"):
            try:
                sides[name] = side_ids(params.get(name), name=name, size=size)
            except ValidationError as error:
                errors.update(error.message_dict)
        if errors:
            raise ValidationError(errors)
        try:
            comparison = compare_sides(game=game, a=sides["a"], b=sides["b"])
        except Player.DoesNotExist as error:
            raise NotFound(str(error)) from error
        decimals = rating_decimals(game)
        record = comparison_record(comparison)
        data = {
            "game": game.slug,
            "a": _side(comparison.a, decimals),
            "b": _side(comparison.b, decimals),
            "expected_score_a": None if comparison.expected_score_a is None else round(comparison.expected_score_a, 4),
            "record": {
                **record,
                "rating_change_a": rating_number(record["rating_change_a"], decimals=decimals),
                "rating_change_b": rating_number(record["rating_change_b"], decimals=decimals),
                "points_a": _number(record["points_a"]),
                "points_b": _number(record["points_b"]),
            },
            "recent": [match.pk for match in comparison.meetings],
        }
        return Response(self.OutputSerializer(data).data)


class HeadToHeadRowSerializer(AnswerSerializer):
    opponents = OpponentSerializer(many=True, help_text="The opponent; bridge: the opposing pair's two players.")
    meetings = serializers.IntegerField(help_text="Rated results shared: Slaps matches, Preferans games, boards.")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    last_met = serializers.DateTimeField(allow_null=True, default_timezone=UTC)
    rating_change = RatingNumberField(help_text="The sum of the player's ledger deltas in the units shared.")
    points_for = serializers.FloatField(allow_null=True, help_text="Preferans: whists; bridge: net IMPs; else null.")
    points_against = serializers.FloatField(allow_null=True, help_text="Preferans: the opponent's whists; else null.")


class PlayerHeadToHeadApi(APIView):
    """A player's record against each opponent in one game, most meetings first, a page at a time."""

    @extend_schema_serializer(component_name="HeadToHeadPage")
    class OutputSerializer(AnswerSerializer):
        count = serializers.IntegerField(help_text="Opponents met.")
        next = serializers.URLField(allow_null=True, help_text="The next page's URL, or null.")
        previous = serializers.URLField(allow_null=True, help_text="The previous page's URL, or null.")
        results = HeadToHeadRowSerializer(many=True)

    @extend_schema(
        operation_id="players_head_to_head",
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The player's id."),
            OpenApiParameter("game", str, required=True, description="The game's slug."),
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="From 1; past the last: 404."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1},
                description=f"Rows per page, {HEAD_TO_HEAD_PAGE_SIZE} by default; at most {HEAD_TO_HEAD_PAGE_MAX}.",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, pk):
        player = object_or_404(Player, pk=pk)
        params = query_params_once(request)
        game = compare_game(params.get("game"))
        size = _whole(params.get("page_size"), "page_size", HEAD_TO_HEAD_PAGE_SIZE)
        number = _whole(params.get("page"), "page", 1)
        rows = player_head_to_head(player=player, game=game)
        paginator = Paginator(rows, min(size, HEAD_TO_HEAD_PAGE_MAX), allow_empty_first_page=True)
        try:
            page = paginator.page(number)
        except InvalidPage as error:
            raise NotFound(gettext("Invalid page: %(reason)s") % {"reason": error}) from error
        decimals = rating_decimals(game)
        url = request.build_absolute_uri()
        data = {
            "count": paginator.count,
            "next": replace_query_param(url, "page", number + 1) if page.has_next() else None,
            "previous": (
                (remove_query_param(url, "page") if number == 2 else replace_query_param(url, "page", number - 1))
                if page.has_previous()
                else None
            ),
            "results": [_row(row, decimals, points=bool(game.kind.points_label)) for row in page.object_list],
        }
        return Response(self.OutputSerializer(data).data)


def _whole(raw: str | None, name: str, default: int) -> int:
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) >= 1):
        raise ValidationError({name: [gettext("A whole number from 1.")]})
    return int(raw)


def _row(row: HeadToHeadRow, decimals: int, *, points: bool) -> dict:
    return {
        "opponents": [{"id": one.id, "name": one.name} for one in row.opponents],
        "meetings": row.meetings,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "last_met": row.last_met,
        "rating_change": rating_number(row.rating_change, decimals=decimals),
        "points_for": _number(row.points_for) if points else None,
        "points_against": _number(row.points_against) if points else None,
    }
