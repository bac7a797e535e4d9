"""The benchmark's service measures work on a real stack (their figures are not judged here)."""

import pytest

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
