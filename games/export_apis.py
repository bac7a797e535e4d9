"""Download a game's results: CSV for anyone, the JSON dump for the club's staff (docs/import.md).

Thin: ``games.exporting`` writes the files, streamed as they are read.
Who may download what: every results CSV is public, as the results pages
are, but its federation-number columns are filled only for the club's
staff (``config.permissions.user_sees_club_data``); the JSON dump, a whole
game with its players' numbers, is the staff's alone.
"""

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema

from config.api import (
    ANY_REQUEST_ERRORS,
    NO_FORMAT_PARAMETER,
    DownloadApi,
    IsClubStaff,
    download_responses,
    query_params_once,
)
from config.csvout import download, with_bom
from config.permissions import user_sees_club_data
from games.exporting import ExportFilter, export_csv_pieces, export_filter, export_json_pieces
from leagues.models import Game

FILTERS = [
    OpenApiParameter("league", str, description="Only the results filed under this league of the game (its slug)."),
    OpenApiParameter(
        "from", {"type": "string", "format": "date"}, description="Only results from this day on (the club's zone)."
    ),
    OpenApiParameter(
        "to",
        {"type": "string", "format": "date"},
        description="Only results up to this day, included (the club's zone).",
    ),
]


def _game_and_filter(request, slug: str) -> tuple[Game, ExportFilter]:
    game = get_object_or_404(Game, slug=DownloadApi.slug_of(slug))
    params = query_params_once(request)
    return game, export_filter(
        game=game, league=params.get("league"), date_from=params.get("from"), date_to=params.get("to")
    )


class GameResultsCsvApi(DownloadApi):
    """A game's results as the CSV ``import_results`` reads, oldest first, voided ones left out."""

    @extend_schema(
        operation_id="games_results_csv",
        parameters=[*FILTERS, NO_FORMAT_PARAMETER],
        responses=download_responses(
            "text/csv",
            "The game's CSV (docs/import.md's columns; UTF-8 with a byte order mark). Federation numbers are "
            "filled for the club's staff only. A game without a CSV (bridge) answers 404: take its JSON dump.",
            400,
            404,
            *ANY_REQUEST_ERRORS,
        ),
    )
    def get(self, request, slug):
        game, which = _game_and_filter(request, slug)
        if not game.kind.csv_columns:
            raise Http404(f"{game.name} results have no CSV: staff download the JSON dump (results.json).")
        pieces = export_csv_pieces(game, which, with_ids=user_sees_club_data(request.user))
        return download(with_bom(pieces), filename=f"{game.slug}-results{which.slug()}.csv")


class GameDumpApi(DownloadApi):
    """A game's JSON dump (its settings, leagues, players with their numbers, results): the club's staff."""

    permission_classes = [IsClubStaff]

    @extend_schema(
        operation_id="games_results_json",
        parameters=[*FILTERS, NO_FORMAT_PARAMETER],
        responses=download_responses(
            "application/json",
            '{"format": "cardrank-results", "version": 1, "game", "leagues", "results", "players"}: the dump '
            "manage.py import_results reads back (docs/import.md).",
            400,
            403,
            404,
            *ANY_REQUEST_ERRORS,
        ),
    )
    def get(self, request, slug):
        game, which = _game_and_filter(request, slug)
        return download(
            export_json_pieces(game, which),
            filename=f"{game.slug}-results{which.slug()}.json",
            content_type="application/json",
        )
