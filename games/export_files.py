"""A game's whole public results CSV, prepared as a file in the background and served from it.

Writing a whole game's CSV reads every result with its parts: 73 s for a Preferans game of 200,000 deals
(``manage.py benchmark --only after-result --full``, 2026-12-02). Twenty visitors asking for it at once held
every web thread for minutes. So the public, unfiltered ``results.csv`` is a *kept figure*
(``ratings.figures``): each run over the game's figures writes it to a file (``default_storage``, under
``exports/``) and keeps its name, size and the results version it holds; a download is that file, sent from
disk (``FileResponse``), as of its time (``Last-Modified``). A download of a file older than the game's
results asks for a run; one asked for before any file was written is 202 ("being prepared").

Staff downloads (federation numbers filled) and filtered ones are still streamed as they are read: the
filtered public ones only up to ``STREAM_AT_MOST`` results (``results_stream_allowed``).
"""

from __future__ import annotations

import tempfile

from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone

from config.csvout import with_bom
from games.exporting import ExportFilter, export_csv_pieces, export_matches
from leagues.models import Game
from matches.models import ResultsVersion

#: The kept figure's name (``ratings.figures.figure_provide``).
RESULTS_CSV = "export:results.csv"
#: The most results a filtered public download streams (a narrower filter, or the whole prepared file).
STREAM_AT_MOST = 10_000


def results_version(game: Game) -> int:
    return ResultsVersion.objects.filter(game=game).values_list("version", flat=True).first() or 0


def results_file_prepare(game: Game) -> dict | None:
    """Write the game's public CSV to a new file and drop the one before the one it replaces: the kept
    figure's value (``previous``: the replaced file, kept until the next run).

    None for a game without a CSV (bridge: its results are the JSON dump's). Written to a temporary file
    first, so a download never reads a half-written file.
    """
    if not game.kind.csv_columns:
        return None
    from ratings.figures import figure_kept_value

    version = results_version(game)  # read first: the file holds at least this version's results
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S%f")
    rows = export_matches(game).count()
    with tempfile.TemporaryFile() as out:
        for piece in with_bom(export_csv_pieces(game, ExportFilter(), with_ids=False)):
            out.write(piece.encode("utf-8"))
        size = out.tell()
        out.seek(0)
        name = default_storage.save(f"exports/{game.slug}/results-{stamp}.csv", File(out))
    # The file this one replaces stays one run longer: a download that read the kept figure just before the
    # run stored this one still finds it (deleted at once, it answered 202 under load). The one before it goes.
    previous = figure_kept_value(game=game, name=RESULTS_CSV) or {}
    if previous.get("previous") and previous["previous"] != name:
        default_storage.delete(previous["previous"])
    replaced = previous.get("file") if previous.get("file") != name else None
    return {"file": name, "bytes": size, "results": rows, "results_version": version, "previous": replaced}


def results_stream_allowed(game: Game, which: ExportFilter) -> bool:
    """Whether a filtered public download is small enough to stream on a request."""
    return export_matches(game, which).order_by().count() <= STREAM_AT_MOST


def results_files_drop(*, player, **kwargs) -> None:
    """``ratings.people.player_erased``: a prepared file naming the erased person is deleted at once, in
    each game they played; its download is "being prepared" until the run the erasure asks for writes it
    again without the name (connected in ``games.apps``)."""
    from matches.models import Match
    from ratings.figures import figures_request
    from ratings.models import KeptFigure

    game_ids = set(Match.objects.filter(seats__player=player).values_list("game_id", flat=True))
    for kept in KeptFigure.objects.filter(game_id__in=game_ids, name=RESULTS_CSV):
        for key in ("file", "previous"):
            if kept.value and kept.value.get(key):
                default_storage.delete(kept.value[key])
        KeptFigure.objects.filter(pk=kept.pk).update(value=None, computed_at=None)
    for game_id in sorted(game_ids):
        figures_request(game_id=game_id)
