"""A production-shaped stack for integration tests: gunicorn + a Celery worker on
Redis, both real processes, talking to the test's PostgreSQL database.

Vocabulary:
    ledger snapshot   every rating and every ledger row of the database, as
                      sorted tuples (``ledger_snapshot``): what two runs compare.
    expected ledger   the snapshot the stored results should give
                      (``ledger_expected``): today a single-threaded replay of
                      the stored results; to become the independent oracle's
                      replay of the submitted bodies, in this one place.
    rows differing    the size of the multiset difference between two
                      snapshots (``ledger_rows_differing``): a lost update is
                      a row missing, a doubled one a row twice.

Helpers that every concurrent test uses, so that none can pass by accident:
``run_threads`` joins with a deadline and re-raises what any thread raised;
every wait loop has a deadline and fails when it passes.
"""

import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from ratings.benchmarks.stack import Stack, free_port, port_open
from ratings.services import ratings_pending_games
from tests.factories import reference_data_ensure


def run_threads(functions: list[Callable[[], Any]], *, timeout: float) -> list[Any]:
    """Run each function on a thread of its own and return their results, in order.

    Fails the test if any thread raised (all the exceptions, as one
    ``ExceptionGroup``) or is still running ``timeout`` seconds after the
    start. Each thread closes its own database connection when done.
    """
    results: list[Any] = [None] * len(functions)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(index: int, function: Callable[[], Any]) -> None:
        try:
            results[index] = function()
        except BaseException as error:
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in enumerate(functions)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    running = sum(thread.is_alive() for thread in threads)
    if errors:
        raise ExceptionGroup(f"{len(errors)} of {len(functions)} test threads raised", errors)
    assert not running, f"{running} of {len(functions)} test threads still running after {timeout} s"
    return results


def wait_until(condition: Callable[[], Any], *, timeout: float, what: str, every: float = 0.1) -> Any:
    """Poll ``condition`` until it returns something true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(every)
    return value


@dataclass
class History:
    """What a test did through the API, for the expected ledger: results as submitted, then voids and corrections.

    ``submitted`` maps each created match id to the body that created it;
    ``corrected`` to the body of its last correction; ``voided`` holds the
    voided ids. Only what the server answered 200/201 to is recorded.
    """

    submitted: dict[int, dict] = field(default_factory=dict)
    corrected: dict[int, dict] = field(default_factory=dict)
    voided: set[int] = field(default_factory=set)


def ledger_snapshot() -> tuple[list[tuple], list[tuple]]:
    """Every player rating and every ledger row, sorted: (ratings, ledger)."""
    from ratings.models import PlayerRating, RatingChange

    ratings = sorted(
        PlayerRating.objects.values_list("game_id", "player_id", "rating", "peak_rating", "rated_matches", "league_id")
    )
    ledger = sorted(
        RatingChange.objects.values_list(
            "match_id", "unit", "player_id", "rating_before", "rating_after", "peak_after", "rated_matches_after"
        )
    )
    return ratings, ledger


def ledger_expected(*, history: History) -> tuple[list[tuple], list[tuple]]:
    """The snapshot the stored results should give: THE one place that defines "expected" for load and faults.

    Today: every game replayed from scratch, single-threaded, from the
    stored results (``ratings_replay_all``). It rewrites the database's
    ledger, so take the concurrent snapshot first. ``history`` is what the
    test submitted; the replay reads the same from the database, an
    independent oracle will read it from here.
    """
    from leagues.models import Game
    from ratings.services import ratings_replay_all

    del history  # The replay reads the stored results instead.
    for game in Game.objects.all():
        ratings_replay_all(game_id=game.pk)
    return ledger_snapshot()


def ledger_rows_differing(actual, expected) -> int:
    """Rows (ratings and ledger) in one snapshot and not the other, counted with multiplicity."""
    differing = 0
    for mine, theirs in zip(actual, expected, strict=True):
        mine_counts, their_counts = Counter(mine), Counter(theirs)
        differing += sum(((mine_counts - their_counts) + (their_counts - mine_counts)).values())
    return differing


def wait_ratings_settled(timeout: float = 120) -> None:
    """Wait until no game has rating work left (``ratings_pending_games``).

    Not just "nothing submitted": a void that lands after the last result was
    rated leaves only its replay to do, and a snapshot must wait for that too.
    """
    deadline = time.monotonic() + timeout
    while pending := ratings_pending_games():
        assert time.monotonic() < deadline, f"rating work left in games {pending} after {timeout} s"
        time.sleep(0.5)


@pytest.fixture
def stack(transactional_db, require_postgres, require_redis, tmp_path):
    """gunicorn (2 workers) and one Celery worker on Redis, on the test database."""
    import redis

    redis.Redis.from_url(require_redis).flushdb()
    reference_data_ensure()
    stack = Stack(require_redis, tmp_path)
    try:
        stack.start_worker()
        stack.start_web()
        yield stack
    finally:
        stack.stop()


class PrivateRedis:
    """A Redis server of the test's own, on a free port, that the test may stop and start."""

    def __init__(self, log_dir: Path):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.cache_url = f"redis://127.0.0.1:{self.port}/1"
        self.log_dir = log_dir
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import shutil

        binary = shutil.which("redis-server")
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not port_open("127.0.0.1", self.port):
            if time.monotonic() > deadline:
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis(require_redis, tmp_path):
    import shutil

    if not shutil.which("redis-server"):
        from tests.conftest import service_missing

        service_missing("redis-server binary for fault tests")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fault_stack(transactional_db, require_postgres, private_redis, tmp_path):
    """Like ``stack``, on a Redis of the test's own; the test starts the workers it needs.

    As README's production set-up: the broker (db 0) and ``CACHE_URL`` (db 1)
    on the same Redis, so stopping it takes the cache down with the broker.
    """
    reference_data_ensure()
    stack = Stack(private_redis.url, tmp_path, cache_url=private_redis.cache_url)
    try:
        stack.start_web()
        yield stack
    finally:
        stack.stop()
