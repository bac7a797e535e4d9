"""The benchmark's service measures work on a real stack (their figures are not judged here)."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from benchmarks.afterload import REFEREE
from benchmarks.replay import SLUG as REPLAY_SLUG
from benchmarks.service import SLUG, service_benchmarks
from leagues.models import Game, Player
from matches.models import Match
from tests.factories import reference_data_ensure

pytestmark = [pytest.mark.postgres, pytest.mark.services]


@pytest.fixture
def broker(transactional_db, require_postgres, require_redis):
    reference_data_ensure()  # the referees group's permissions, which a transactional test's flush removes
    return require_redis


TINY = {"latency_results": 5, "sustain_seconds": 2, "players": 300, "profile_units": 40, "page_seconds": 0.5}


def test_the_service_measures_run_on_gunicorn_and_a_worker_and_clean_up(broker):
    result = service_benchmarks(broker_url=broker, **TINY)
    assert result["latency"]["results"] == 5
    assert 0 < result["latency"]["p50_ms"] <= result["latency"]["p95_ms"]
    sustained = result["sustained"]
    assert sustained["submitted"] > 0
    assert sustained["rated_per_s"] > 0
    pages = {row["page"]: row for row in result["pages"]}
    assert "profile (many rated units)" in pages
    assert "leaderboard page, peak" in pages
    assert all(row["requests_per_s"] > 0 and row["queries_warm"] <= row["queries"] for row in pages.values())
    assert not Game.objects.filter(slug=SLUG).exists()
    assert not Match.objects.exists()
    assert not Player.objects.exists()


def test_only_the_submissions_section(broker):
    result = service_benchmarks(broker_url=broker, **TINY, sections=frozenset({"submissions"}))
    assert result["latency"]["results"] == 5
    assert result["sustained"]["submitted"] > 0
    assert "pages" not in result


# The page kinds of the after-result mix, as issue 25 names them.
MIX = {
    "compare page", "compare API", "quality overview", "quality of the game", "drift API", "crosstable",
    "history API", "profile", "results.csv", "history.csv",
}  # fmt: skip


@pytest.mark.nginx  # the visitors come through the proxy, which sends the heavy reads to their own gunicorn
def test_the_after_result_scenario_runs_through_the_command_and_cleans_up(broker, capsys):
    """``--only after-result`` at a tiny size: every page kind of the mix answered whole through nginx, the
    result rated and the figures computed again, memory sampled for both gunicorns, the table and the JSON
    printed; nothing left behind."""
    call_command(
        "benchmark", "--only", "after-result", "--deals", "40", "--players", "12", "--seconds", "1",
        "--broker", broker, "--cache", broker,
    )  # fmt: skip
    lines = capsys.readouterr().out.strip().splitlines()
    after = json.loads(lines[-1])["after_result"]
    assert any(line.startswith("anonymous load after a result: 40 deals, 12 players") for line in lines)
    assert after["ledger_rows"] == 160  # 40 deals x 4 seats
    assert after["web_workers"] == 2  # the probe, unless --web-workers says otherwise
    assert after["unloaded"]["requests"] == 1000
    for phase in ("before_result", "after_result"):
        load = after[phase]
        assert {row["page"] for row in load["pages"]} == MIX
        unanswered = {
            row["page"]: row["statuses"] for row in load["pages"] if row["statuses"] != {"200": row["requests"]}
        }
        assert all(row["requests"] > 0 for row in load["pages"]), load["pages"]
        assert not unanswered, f"{phase}: pages not all 200: {unanswered}"
        assert load["probe"]["requests"] > 0
    assert after["server_errors"] == after["connection_errors"] == after["truncated"] == 0
    assert after["figures_after_result_s"] is not None  # the result's rating asked the figures again
    assert after["rss"]["web"]["children_seen"] == 2
    assert after["rss"]["web"]["children_peak_mb"] > 0
    assert after["rss"]["heavy"]["children_seen"] == 1  # the heavy reads' own gunicorn served the mix
    assert after["heavy_reads_worker_timeouts"] == 0
    assert after["rss"]["admin"]["children_peak_mb"] > 0
    assert not Game.objects.filter(slug=REPLAY_SLUG).exists()
    assert not Player.objects.exists()
    assert not get_user_model().objects.filter(username=REFEREE).exists()
