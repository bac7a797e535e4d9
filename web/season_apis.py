"""A league's seasons in the API (``games.seasons`` works out their tables; issue 27).

- ``GET /api/leagues/SLUG/seasons/``: the league's seasons, the latest first: ``[{"id", "name",
  "first_day", "last_day", "closed", "closed_at", "champions", "url"}]`` (a league has a few a year).
- ``GET /api/leagues/SLUG/seasons/ID/``: one season and a page of its table (``page``, ``page_size``;
  ``count``, ``next``, ``previous``), best first, with the players it moved.

A running season's table is the one last worked out (``table_at``); a closed one's is frozen.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses, query_params_once
from leagues.models import League, Season
from leagues.season_selectors import season_honours, season_lines, season_moved, seasons_of
from web.found import object_or_404
from web.league_apis import PlayerRefSerializer, page_link, whole_number_param

#: Lines of a table a page, by default and at most.
TABLE_PAGE_SIZE = 100
TABLE_PAGE_MAX = 1_000
#: Seasons a league's list gives at most (the latest).
SEASONS_MAX = 200


def _league(slug: str) -> League:
    return object_or_404(League.objects.select_related("game"), slug=slug[:100])


class SeasonSummarySerializer(AnswerSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    first_day = serializers.DateField()
    last_day = serializers.DateField()
    closed = serializers.BooleanField(help_text="Over, its table frozen.")
    closed_at = serializers.DateTimeField(allow_null=True)
    champions = PlayerRefSerializer(many=True, help_text="The first place of a closed season (ties share it).")
    url = serializers.URLField(help_text="The season and its table in this API.")


class LeagueSeasonsApi(APIView):
    """A league's seasons, the latest first."""

    @extend_schema(
        operation_id="leagues_seasons_list",
        responses={200: SeasonSummarySerializer(many=True), **error_responses(404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug):
        league = _league(slug)
        honours = season_honours(list(seasons_of(league=league)[:SEASONS_MAX]))
        answer = [
            {
                "id": entry.season.pk,
                "name": entry.season.name,
                "first_day": entry.season.first_day,
                "last_day": entry.season.last_day,
                "closed": entry.season.closed_at is not None,
                "closed_at": entry.season.closed_at,
                "champions": [{"id": line.player_id, "name": line.name} for line in entry.champions],
                "url": request.build_absolute_uri(reverse("api-league-season", args=[league.slug, entry.season.pk])),
            }
            for entry in honours
        ]
        return Response(SeasonSummarySerializer(answer, many=True).data)


class SeasonLineSerializer(AnswerSerializer):
    rank = serializers.IntegerField()
    tied = serializers.BooleanField(help_text="Shares its rank.")
    player = PlayerRefSerializer(help_text="The player, by the name the table was made with.")
    points = serializers.DecimalField(
        max_digits=12, decimal_places=2, coerce_to_string=False, help_text="Points, or the rating gained (the rule)."
    )
    results = serializers.IntegerField()
    won = serializers.IntegerField(help_text="Opponents beaten.")
    drawn = serializers.IntegerField(help_text="Opponents tied with.")
    lost = serializers.IntegerField(help_text="Opponents lost to.")
    moved = serializers.ChoiceField(
        choices=["up", "down", ""], help_text="Promoted (up) or relegated (down) at the season's end, or not."
    )


class SeasonApi(APIView):
    """One season and a page of its table, best first."""

    @extend_schema_serializer(component_name="SeasonPage")
    class OutputSerializer(AnswerSerializer):
        league = serializers.CharField(help_text="The league's slug.")
        id = serializers.IntegerField()
        name = serializers.CharField()
        first_day = serializers.DateField()
        last_day = serializers.DateField()
        rule = serializers.ChoiceField(choices=League.SeasonRule.values, help_text="How the table ranks.")
        closed_at = serializers.DateTimeField(allow_null=True, help_text="When it was frozen; null while it runs.")
        table_at = serializers.DateTimeField(allow_null=True, help_text="When the table was last worked out.")
        count = serializers.IntegerField(help_text="Lines in the table.")
        next = serializers.URLField(allow_null=True, help_text="The next page's URL, or null.")
        previous = serializers.URLField(allow_null=True, help_text="The previous page's URL, or null.")
        lines = SeasonLineSerializer(many=True)

    @extend_schema(
        operation_id="leagues_seasons_retrieve",
        parameters=[
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="From 1; past the last: 404."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1},
                description=f"Lines per page, {TABLE_PAGE_SIZE} by default; at most {TABLE_PAGE_MAX} are given.",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 404, *ANY_REQUEST_ERRORS)},
    )
    def get(self, request, slug, pk):
        league = _league(slug)
        season = object_or_404(Season, league=league, pk=pk)
        params = query_params_once(request)
        size = min(whole_number_param(params, "page_size", TABLE_PAGE_SIZE), TABLE_PAGE_MAX)
        number = whole_number_param(params, "page", 1)
        paginator = Paginator(season_lines(season=season), size)
        if number > paginator.num_pages:
            raise NotFound(gettext("Invalid page: that page contains no results"))
        page = paginator.page(number)
        moved = season_moved(season=season)
        answer = {
            "league": league.slug,
            "id": season.pk,
            "name": season.name,
            "first_day": season.first_day,
            "last_day": season.last_day,
            "rule": league.season_rule,
            "closed_at": season.closed_at,
            "table_at": season.table_at,
            "count": paginator.count,
            "next": page_link(request, number + 1) if page.has_next() else None,
            "previous": page_link(request, number - 1) if number > 1 else None,
            "lines": [
                {
                    "rank": line.rank,
                    "tied": line.tied,
                    "player": {"id": line.player_id, "name": line.name},
                    "points": line.points,
                    "results": line.results,
                    "won": line.won,
                    "drawn": line.drawn,
                    "lost": line.lost,
                    "moved": moved.get(line.player_id, ""),
                }
                for line in page.object_list
            ],
        }
        return Response(self.OutputSerializer(answer).data)
