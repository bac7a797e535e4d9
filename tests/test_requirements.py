"""What a test needs is said by a marker, and its absence skips the test with the reason, or fails it where
every service is required (tests/conftest.py, docs/testing.md "What a test needs").

The skip-or-fail checks run pytest in a process of its own on one real test of the suite, with the thing it
needs taken away (a missing shared data folder, SQLite for a PostgreSQL test), once as a newcomer runs it and
once as CI does: what the newcomer sees is a skip naming the reason, what CI sees is a failure.
"""

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO, worker_redis_url

TENNIS = "tests/ratings/test_tuning_tennis.py"
APPEND_ONLY = "tests/ratings/test_people.py::test_the_log_stays_append_only_outside_an_erasure"


def pytest_alone(*args: str, **variables: str) -> subprocess.CompletedProcess:
    """``pytest ARGS`` in a process of its own, on SQLite, outside this run's xdist worker and requirements."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CARDRANK_REQUIRE_SERVICES", "PYTEST_ADDOPTS"}
        and not key.startswith("PYTEST_XDIST")
    }
    env.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_missing_shared_data_skips_with_its_path_and_fails_where_required(tmp_path):
    missing = tmp_path / "no-shared-data"
    newcomer = pytest_alone("-q", TENNIS, CARDRANK_SHARED_DATA=str(missing))
    assert newcomer.returncode == 0, newcomer.stdout + newcomer.stderr
    assert "1 skipped" in newcomer.stdout
    assert f"SKIPPED [1] {TENNIS}:" in newcomer.stdout  # listed at the test's own line, with its reason
    assert f"the real data {missing / 'tennis-atp'}" in newcomer.stdout

    ci = pytest_alone("-q", TENNIS, CARDRANK_SHARED_DATA=str(missing), CARDRANK_REQUIRE_SERVICES="1")
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert "1 error" in ci.stdout
    assert f"Required service missing: the real data {missing / 'tennis-atp'}" in ci.stdout


def test_a_postgresql_test_skips_on_sqlite_and_fails_there_where_required():
    newcomer = pytest_alone("-q", APPEND_ONLY)
    assert newcomer.returncode == 0, newcomer.stdout + newcomer.stderr
    assert "1 skipped" in newcomer.stdout
    assert "PostgreSQL: set DATABASE_URL=postgres://" in newcomer.stdout

    ci = pytest_alone("-q", APPEND_ONLY, CARDRANK_REQUIRE_SERVICES="1")
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert "Required service missing: PostgreSQL" in ci.stdout


def test_a_fixture_standing_for_a_service_gives_its_marker():
    """``production`` means the test Redis: its tests are selected by ``-m redis`` with no marker of their own."""
    listed = pytest_alone("-q", "--collect-only", "-m", "redis", "tests/test_vary.py")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "tests/test_vary.py::test_public_pages_that_answer_a_partial_vary_on_hx_request" in listed.stdout
    assert "tests/test_vary.py::test_entry_pages_that_answer_a_partial_vary_on_hx_request" in listed.stdout
    assert "2 tests collected" in listed.stdout
    left = pytest_alone("-q", "--collect-only", "-m", "not redis", "tests/test_vary.py")
    assert left.returncode == 5, left.stdout + left.stderr  # no test collected: both were marked
    assert "2 deselected" in left.stdout


def test_a_group_of_tests_runs_on_one_worker():
    """``make test``'s ``--dist loadgroup`` keeps the browser tests on one worker, one Chromium at a time.

    pytest 9.2 with pytest-xdist 3.8 silently stops grouping (pytest-xdist#1386): xdist marks a group in the
    node id, which pytest 9.2 no longer lets it change. This fails on such an upgrade. The tests are skipped
    (no Chromium given), so only the scheduling runs."""
    files = ["tests/browser/test_profile.py", "tests/browser/test_quality_drift.py", "tests/browser/test_csp.py"]
    run = pytest_alone("-n", "2", "--dist", "loadgroup", "-v", *files, CARDRANK_CHROMIUM="/nonexistent/chromium")
    assert run.returncode == 0, run.stdout + run.stderr
    reported = re.findall(r"^\[(gw\d+)\] \[ *\d+%\] SKIPPED (\S+)", run.stdout, re.MULTILINE)
    assert len(reported) == 6, run.stdout  # two profiles, three drift views, one policy walk
    assert all(test.endswith("@browser") for _, test in reported), run.stdout
    assert len({worker for worker, _ in reported}) == 1, run.stdout


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/15", "", "redis://127.0.0.1:6379/15"),  # no xdist: the configured database
        ("redis://127.0.0.1:6379/15", "gw0", "redis://127.0.0.1:6379/15"),
        ("redis://127.0.0.1:6379/15", "gw3", "redis://127.0.0.1:6379/12"),
        ("redis://:secret@redis.internal:6380/9", "gw7", "redis://:secret@redis.internal:6380/2"),
    ],
)
def test_each_xdist_worker_has_a_redis_database_of_its_own(url, worker, expected):
    assert worker_redis_url(url, worker) == expected


@pytest.mark.parametrize(("url", "worker"), [("redis://127.0.0.1:6379/15", "gw8"), ("redis://127.0.0.1:6379/2", "gw3")])
def test_a_worker_without_a_database_of_its_own_is_refused(url, worker):
    with pytest.raises(pytest.UsageError, match="no Redis database of its own"):
        worker_redis_url(url, worker)
