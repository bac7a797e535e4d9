"""The benchmark harness works (CI checks the harness, never the timings)."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from django.core.management import call_command

from benchmarks.afterload import answer_parsed
from benchmarks.replay import benchmark_game, build_history, cleanup
from leagues.models import Game, Player
from matches.models import AuditEntry, Match, ResultsVersion
from matches.selectors import match_as_body, match_detail_queryset
from tests.conftest import REPO


@pytest.mark.django_db(transaction=True)
def test_benchmark_prints_a_table_and_a_json_object_and_cleans_up(reference_data, capsys):
    call_command(
        "benchmark", "--updates", "2000", "--deals", "400", "--players", "50", "--import-results", "60",
        "--import-boards", "4", "--import-tables", "3", "--tuning-results", "300", "--skip-services",
    )  # fmt: skip
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Benchmark (quick)")
    result = json.loads(lines[-1])
    assert {row["engine"] for row in result["engines"]} == {"elo", "preferans"}
    assert all(row["ratio"] > 0 for row in result["engines"])
    assert result["replay"]["ledger_rows"] == 1600  # 400 deals x 4 seats
    assert result["replay"]["rows_per_s"] > 0
    # The official list at the history's end: every player who played, and the list gone with the game.
    assert result["replay"]["list_players"] == 50
    assert result["replay"]["list_ratio_to_replay"] > 0
    assert any(line.startswith("rating list of 50 players published in ") for line in lines)
    from ratings.models import RatingList

    assert not RatingList.objects.exists()
    assert not Game.objects.filter(slug="benchmark-preferans").exists()
    assert not Player.objects.filter(name__startswith="bench ").exists()
    imported = result["import"]
    assert imported["slaps_csv"]["results"] == 60
    assert imported["slaps_csv"]["ledger_rows"] == 120
    assert imported["bridge_pbn"]["results"] == 1  # one session
    assert imported["bridge_pbn"]["new_players"] == 12  # 6 pairs
    assert imported["bridge_pbn"]["ledger_rows"] == 4 * 12  # every player on every board
    assert imported["bridge_pbn"]["hand_records"] == 4  # each board's deal analysed
    assert imported["bridge_pbn"]["analyse_s"] > 0
    assert all(row["ratio_to_replay"] > 0 for row in imported.values())
    assert imported["slaps_csv"]["peak_rss_mb"] >= imported["slaps_csv"]["peak_rss_before_mb"] > 0
    junk = imported["slaps_csv"]["junk"]  # a line of junk a problem: the first thousand kept, the rest counted
    assert (junk["problems_kept"], junk["problems_counted"]) == (1000, junk["lines"] - 1000)
    assert any(line.startswith("import bridge PBN: 1 results") for line in lines)
    assert not Game.objects.filter(slug__startswith="benchmark-import").exists()
    assert not Player.objects.filter(name__startswith="bench-import").exists()
    tuning = result["tuning"]
    assert tuning["results"] == 300
    assert tuning["candidates"] == 21  # the current parameters and 20 others
    assert tuning["ratio_to_one_replay"] > 0
    assert any(line.startswith("tuning: 300 Slaps results x 21 candidates") for line in lines)
    search = result["tuning_search"]
    assert search["results"] == 300
    assert 1 <= search["replays"] <= search["budget"]
    assert search["rounds"] >= 1
    assert isinstance(search["converged"], bool)
    assert search["ratio_to_one_replay"] > 0
    assert any(line.startswith("tuning search: 300 Slaps results, ") for line in lines)


@pytest.mark.django_db(transaction=True)
def test_the_path_section_counts_a_results_calls_and_cleans_up(reference_data, capsys):
    """``--only path``: one Preferans result posted, its calls counted through the modules it passes (the
    test settings rate it eagerly, so its rating task is counted apart from the request)."""
    from django.contrib.auth import get_user_model

    call_command("benchmark", "--only", "path")
    lines = capsys.readouterr().out.strip().splitlines()
    path = json.loads(lines[-1])["path"]
    request = path["request"]
    for module in ("web/match_apis.py", "matches/services.py", "matches/cleaning.py", "ratings/intake.py"):
        assert module in request["file_list"]
    assert "games/preferans/results.py" in request["file_list"]  # the kind cleans its body
    assert "ratings/replay.py" not in request["file_list"]  # rating is the task's
    assert "ratings/replay.py" in path["task ratings_apply_match"]["file_list"]
    assert request["files"] == len(request["file_list"])
    assert request["calls"] > request["hops_between_modules"] > request["hops_between_apps"] > 0
    assert any(line.startswith("a Preferans result's path, request: ") for line in lines)
    assert not Game.objects.filter(slug__startswith="benchmark-path-").exists()
    assert not Player.objects.filter(name__startswith="bench path ").exists()
    assert not get_user_model().objects.filter(username__startswith="benchmark-path-").exists()


@pytest.mark.django_db(transaction=True)
def test_the_replays_bulk_history_leaves_what_the_write_path_would(reference_data):
    """Stored in bulk for speed, yet audited per result, with the game's results version raised; cleaned up after.

    Committed as it goes, as the benchmark runs (PostgreSQL's audit guard is lifted only for committed rows).
    """
    game = benchmark_game()
    build_history(game, deals=40, players=12)

    matches = list(match_detail_queryset().filter(game=game))
    assert len(matches) == 10  # 40 deals, 4 to a game
    entries = {entry.match_id: entry for entry in AuditEntry.objects.filter(match__game=game)}
    assert set(entries) == {match.pk for match in matches}
    for match in matches:
        assert entries[match.pk].action == AuditEntry.Action.SUBMITTED
        assert entries[match.pk].data == match_as_body(match)  # the body the write path would have logged
    assert ResultsVersion.objects.get(game=game).version >= 1

    cleanup(game)
    assert not Game.objects.filter(slug="benchmark-preferans").exists()
    assert not Match.objects.exists()
    assert not AuditEntry.objects.exists()
    assert not ResultsVersion.objects.filter(game_id=game.pk).exists()


CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
SIZED = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"


@pytest.mark.parametrize(
    ("raw", "status", "size", "complete"),
    [
        (CHUNKED + b"5\r\na,b\r\n\r\n3\r\n1,2\r\n0\r\n\r\n", 200, 8, True),
        # Cut after a chunk whose data ends "0\r\n": the bytes end as a last chunk would, yet it is not one.
        (CHUNKED + b"6\r\n1,20\r\n\r\n", 200, 6, False),
        (CHUNKED + b"5\r\na,b\r\n\r\n9\r\n1,2", 200, 8, False),  # cut inside the second chunk
        (CHUNKED + b"5\r\na,b", 200, 3, False),
        (SIZED + b"0123456789", 200, 10, True),
        (SIZED + b"01234", 200, 5, False),
        (b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 503, 0, True),
        (b"HTTP/1.1 200 OK\r\n\r\nclosed", 200, 6, True),  # delimited by the close: nothing says it is cut
        (b"", None, 0, False),  # the connection closed before any answer (a worker killed)
        (b"HTTP/1.1 200 OK\r\nContent-Le", None, 0, False),  # cut inside the head
    ],
)
def test_the_after_result_clients_tell_a_whole_answer_from_a_cut_one(raw, status, size, complete):
    answer = answer_parsed(raw, 0.5)
    assert (answer.status, answer.size, answer.complete) == (status, size, complete)


SHIPPED = {"config", "games", "hooks", "leagues", "matches", "notices", "people", "ratings", "web"}
# Not part of the checkout's source: what a developer's runs leave behind.
LEFT_BEHIND = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", "db.sqlite3", "staticfiles", "mutants",
    "mutation-results", "test-artifacts", ".pytest_cache", ".ruff_cache", ".hypothesis", "celerybeat-schedule*",
)  # fmt: skip
# Imports every module an install holds, with Django set up as a deployment would.
IMPORT_ALL = """
import importlib, pkgutil, sys
import django
django.setup()
names = [info.name for info in pkgutil.walk_packages([sys.argv[1]]) if not info.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
print(len(names), "modules")
"""


def test_an_install_ships_no_harness_and_there_the_command_says_so(tmp_path):
    """What ``pip install .`` installs, built by setuptools from a copy of this checkout as the wheel is.

    It holds the apps and the ``benchmark`` command, never the harness or the
    tests; every module in it imports without them, and the command answers
    with a CommandError (no traceback) and touches no database.
    """
    source, lib, elsewhere = tmp_path / "source", tmp_path / "lib", tmp_path / "elsewhere"
    shutil.copytree(REPO, source, ignore=LEFT_BEHIND)
    elsewhere.mkdir()
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib", str(lib)],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert {path.name for path in lib.iterdir()} == SHIPPED
    assert (lib / "ratings/management/commands/benchmark.py").is_file()
    assert not [path for path in lib.rglob("*bench*") if path.is_dir()]  # no harness package, under any app

    # Only the install on the path: the interpreter's site-packages hold this project in editable
    # mode, but its finder maps config, leagues, matches and ratings only, after PYTHONPATH.
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(lib), "DJANGO_SETTINGS_MODULE": "config.settings"}
    imported = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(lib)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    assert int(imported.stdout.split()[0]) > 50

    result = subprocess.run(
        # Without the system checks: the wheel holds the code, not the site's templates/ and static/ (a
        # deployment runs from the checkout, docs/deploy), whose absence the checks would report first.
        [sys.executable, "-m", "django", "benchmark", "--skip-services", "--skip-checks"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "CommandError: The benchmark harness is not installed here" in result.stderr
    assert "checkout" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert not list(tmp_path.rglob("*.sqlite3"))  # no database was opened, so none was created


@pytest.mark.django_db(transaction=True)
def test_the_digests_section_sends_each_digest_once_to_a_real_smtp_server_and_cleans_up(reference_data, capsys):
    """``--only digests`` (issue 27): every claimed player's evening built and sent, received by the SMTP
    server the benchmark starts, timed against the replay; its game, players, accounts and records deleted."""
    from django.contrib.auth import get_user_model

    from notices.models import DigestSent, NoticeChoices

    call_command("benchmark", "--only", "digests")
    lines = capsys.readouterr().out.strip().splitlines()
    digests = json.loads(lines[-1])["digests"]
    assert digests["digests"] == 100  # --quick
    assert digests["results"] == 50  # 100 players at tables of four, two games each
    assert digests["backend"].startswith("SMTP (aiosmtpd on 127.0.0.1:")
    assert digests["ratio_to_replay"] > 0
    assert digests["rss_peak_mb"] > 0
    assert any(line.startswith("evening digests: 100 built and sent to SMTP") for line in lines)
    assert not Game.objects.filter(slug="benchmark-preferans").exists()
    assert not Player.objects.filter(name__startswith="bench digest ").exists()
    assert not get_user_model().objects.filter(username__startswith="bench-digest-").exists()
    assert not DigestSent.objects.exists()
    assert not NoticeChoices.objects.exists()
