"""The public whole-game results.csv (issue 25): prepared as a file by the figures' run, sent from disk as
of its time, never written by a request; a filtered public download streams only up to a bound."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.storage import default_storage
from rest_framework.test import APIClient

from games import export_files
from leagues.models import Game
from ratings.figures import figure_kept_value
from ratings.models import FigureState
from tests.factories import AdminFactory, PlayerFactory, figures_now, slaps_match
from web import export_apis

pytestmark = pytest.mark.django_db
START = datetime(2025, 5, 1, 18, tzinfo=UTC)
BOM = "\ufeff"


@pytest.fixture
def played(slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    slaps_match(winner=ann, loser=bob, played_at=START)
    slaps_match(winner=bob, loser=ann, played_at=START + timedelta(hours=1))
    FigureState.objects.all().delete()  # nobody asked for the figures yet
    return ann, bob


@pytest.fixture
def writes(monkeypatch):
    """How often a CSV of the game was written: the writer wrapped to count its calls and call through."""
    calls = []
    for module in (export_apis, export_files):
        original = module.export_csv_pieces

        def counting(*args, original=original, **kwargs):
            calls.append(1)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, "export_csv_pieces", counting)
    return calls


def body_of(response) -> str:
    return b"".join(response.streaming_content).decode("utf-8")


def test_before_the_first_file_the_download_is_being_prepared(played, writes, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as asked:
        answer = APIClient().get("/api/games/slaps/results.csv")
    assert (answer.status_code, answer["Retry-After"]) == (202, "30")
    assert answer.json()["computing"] is True
    assert writes == []  # the request wrote nothing
    assert len(asked) == 1  # it asked for the run that prepares the file


def test_the_prepared_file_is_sent_from_disk_as_of_its_time(played, writes):
    figures_now(Game.objects.get(slug="slaps"))
    assert len(writes) == 1  # by the run
    answer = APIClient().get("/api/games/slaps/results.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="slaps-results.csv"' in answer["Content-Disposition"]
    assert answer["Last-Modified"]
    text = body_of(answer)
    assert text.startswith(BOM)
    lines = text[len(BOM) :].splitlines()
    assert len(lines) == 3  # the header and the two results, oldest first
    assert lines[1].startswith("2025-05-01T18:00:00")
    assert ",Ann,,Bob,,a," in lines[1]  # Ann won (no federation numbers in a public file)
    assert lines[2].startswith("2025-05-01T19:00:00")
    assert len(writes) == 1  # the download wrote nothing


def test_a_new_result_asks_for_a_new_file_and_the_old_one_is_served_meanwhile(played, writes):
    ann, bob = played
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    first = figure_kept_value(game=game, name=export_files.RESULTS_CSV)
    from matches.versions import results_version_bump

    slaps_match(winner=ann, loser=bob, played_at=START + timedelta(hours=2))
    results_version_bump(game_ids=[game.pk])  # as every results write does
    FigureState.objects.all().delete()
    answer = APIClient().get("/api/games/slaps/results.csv")
    assert len(body_of(answer)[len(BOM) :].splitlines()) == 3  # as of the last run
    assert FigureState.objects.get(game=game).wanted is True  # and a run asked for
    figures_now(game)
    second = figure_kept_value(game=game, name=export_files.RESULTS_CSV)
    assert second["results"] == 3
    assert second["results_version"] > first["results_version"]
    # The file it replaced stays one run longer, for a download that read the kept figure just before.
    assert second["previous"] == first["file"]
    assert default_storage.exists(first["file"])
    assert len(body_of(APIClient().get("/api/games/slaps/results.csv"))[len(BOM) :].splitlines()) == 4
    FigureState.objects.all().delete()
    figures_now(game)
    third = figure_kept_value(game=game, name=export_files.RESULTS_CSV)
    assert third["previous"] == second["file"]
    assert not default_storage.exists(first["file"])  # the one before the replaced one is gone
    assert default_storage.exists(second["file"])
    assert default_storage.exists(third["file"])


def test_a_download_that_read_the_kept_figure_before_a_run_still_gets_the_file(played, monkeypatch):
    """A run replaces the file while a download is between reading the kept figure and opening the file:
    the download still answers 200 with the file it read of (under load, it answered 202)."""
    from ratings import figures
    from web import export_apis

    game = Game.objects.get(slug="slaps")
    figures_now(game)
    read_before_the_run = figures.figure_kept(game=game, name=export_files.RESULTS_CSV)
    FigureState.objects.all().delete()
    figures_now(game)  # the run that replaces the file
    monkeypatch.setattr(export_apis, "figure_kept", lambda **kwargs: read_before_the_run)
    answer = APIClient().get("/api/games/slaps/results.csv")
    assert answer.status_code == 200
    assert len(body_of(answer)[len(BOM) :].splitlines()) == 3


def test_a_filtered_public_download_streams_only_up_to_the_bound(played, monkeypatch):
    assert APIClient().get("/api/games/slaps/results.csv?from=2025-05-01").status_code == 200
    monkeypatch.setattr(export_files, "STREAM_AT_MOST", 1)
    refused = APIClient().get("/api/games/slaps/results.csv?from=2025-05-01")
    assert refused.status_code == 400
    assert "More than 1 results" in str(refused.json())


def test_staff_download_is_streamed_fresh(played, writes):
    client = APIClient()
    client.force_login(AdminFactory())
    answer = client.get("/api/games/slaps/results.csv")
    assert answer.status_code == 200
    assert len(body_of(answer)[len(BOM) :].splitlines()) == 3
    assert len(writes) == 1


def test_an_erased_name_leaves_the_prepared_file_at_once(played, django_capture_on_commit_callbacks):
    """The public file names players: erasing one deletes it at once (the download is "being prepared"),
    and the run the erasure asks for writes it again without the name."""
    from ratings.people import player_erase

    ann, _bob = played
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    FigureState.objects.all().delete()
    figures_now(game)  # a second file: the first is kept as the replaced one
    kept = figure_kept_value(game=game, name=export_files.RESULTS_CSV)
    old, replaced = kept["file"], kept["previous"]
    assert default_storage.exists(replaced)
    assert "Ann" in body_of(APIClient().get("/api/games/slaps/results.csv"))
    with django_capture_on_commit_callbacks(execute=False) as asked:
        player_erase(player=ann, by=AdminFactory())
    assert asked  # a run asked for
    assert not default_storage.exists(old)
    assert not default_storage.exists(replaced)  # both files named her
    assert APIClient().get("/api/games/slaps/results.csv").status_code == 202
    figures_now(game)
    text = body_of(APIClient().get("/api/games/slaps/results.csv"))
    assert "Ann" not in text
    assert len(text[len(BOM) :].splitlines()) == 3


def test_a_rename_asks_for_a_new_file(played, django_capture_on_commit_callbacks):
    ann, _bob = played
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    ann.name = "Annabel"
    with django_capture_on_commit_callbacks(execute=False) as asked:
        ann.save()
    assert len(asked) == 1
    assert FigureState.objects.get(game=game).wanted is True
