"""Download a game's results: CSV for anyone, the JSON dump for the club's staff (docs/import.md).

Thin: ``games.exporting`` writes the files, streamed as they are read.
Who may download what: every results CSV is public, as the results pages
are, but its federation-number columns are filled only for the club's
staff (``config.permissions.user_sees_club_data``); the JSON dump, a whole
game with its players' numbers, is the staff's alone.
"""

import contextlib

from django.contrib.humanize.templatetags.humanize import intcomma
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.utils.http import http_date
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

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
from games import export_files
from games.export_files import RESULTS_CSV, STREAM_AT_MOST, results_stream_allowed, results_version
from games.exporting import ExportFilter, export_csv_pieces, export_filter, export_json_pieces
from leagues.models import Game
from ratings.figures import RETRY_AFTER_SECONDS, figure_kept, figures_request
from web.found import object_or_404

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
    game = object_or_404(Game, slug=DownloadApi.slug_of(slug))
    params = query_params_once(request)
    return game, export_filter(
        game=game, league=params.get("league"), date_from=params.get("from"), date_to=params.get("to")
    )


class GameResultsCsvApi(DownloadApi):
    """A game's results as the CSV ``import_results`` reads, oldest first, voided ones left out.

    The public whole-game file is prepared in the background and sent from disk (``games.export_files``);
    a filtered public one streams up to ``STREAM_AT_MOST`` results; the staff's streams.
    """

    @extend_schema(
        operation_id="games_results_csv",
        parameters=[*FILTERS, NO_FORMAT_PARAMETER],
        responses=download_responses(
            "text/csv",
            "The game's CSV (docs/import.md's columns; UTF-8 with a byte order mark). Federation numbers are "
            "filled for the club's staff only. A game without a CSV (bridge) answers 404: take its JSON dump. "
            "The public whole-game file is the one last prepared in the background (Last-Modified says when); "
            "202 with Retry-After while the first is prepared. A filtered public download of more than "
            f"{STREAM_AT_MOST:,} results is 400: narrow it, or take the whole file.",
            400,
            404,
            *ANY_REQUEST_ERRORS,
        ),
    )
    def get(self, request, slug):
        game, which = _game_and_filter(request, slug)
        if not game.kind.csv_columns:
            raise Http404(
                gettext("%(game)s results have no CSV: staff download the JSON dump (results.json).")
                % {"game": game.name}
            )
        staff = user_sees_club_data(request.user)
        if not staff and which == ExportFilter():
            return _prepared_file(game)
        if not staff and not results_stream_allowed(game, which):
            raise ValidationError(
                {
                    "from": [
                        gettext(
                            "More than %(most)s results: narrow the league or the days, or download the whole "
                            "file (results.csv without a filter), prepared in the background."
                        )
                        % {"most": intcomma(export_files.STREAM_AT_MOST)}
                    ]
                }
            )
        pieces = export_csv_pieces(game, which, with_ids=staff)
        return download(with_bom(pieces), filename=f"{game.slug}-results{which.slug()}.csv")


def _prepared_file(game: Game):
    """The game's public CSV as last prepared (``games.export_files``), sent from disk; 202 before the first."""
    kept = figure_kept(game=game, name=RESULTS_CSV)
    value = kept.value or {}
    opened = None
    if not kept.computing:
        with contextlib.suppress(FileNotFoundError):  # deleted since the kept figure was read
            opened = default_storage.open(value["file"], "rb") if value.get("file") else None
        if opened is None:
            figures_request(game_id=game.pk)  # the kept file went missing (an erasure): prepared again
    if opened is None:
        answer = Response(
            {"detail": gettext("The file is being prepared in the background: ask again shortly."), "computing": True},
            status=202,
        )
        answer["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return answer
    if value.get("results_version") != results_version(game):
        figures_request(game_id=game.pk)  # results came since: the next run prepares it again
    response = FileResponse(
        opened,
        as_attachment=True,
        filename=f"{game.slug}-results.csv",
        content_type="text/csv; charset=utf-8",
    )
    response["Last-Modified"] = http_date(kept.computed_at.timestamp())
    response["X-Results-As-Of"] = kept.computed_at.isoformat()
    return response


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
