"""A production-shaped stack for integration tests: gunicorn + a Celery worker on
Redis, both real processes, talking to the test's PostgreSQL database."""

import subprocess
import time
from pathlib import Path

import pytest

from ratings.benchmarks.stack import Stack, free_port, port_open
from ratings.services import ratings_pending_games
from tests.factories import reference_data_ensure


def wait_ratings_settled(timeout: float = 120) -> None:
    """Wait until no game has rating work left (``ratings_pending_games``).

    Not just "nothing submitted": a void that lands after the last result was
    rated leaves only its replay to do, and a snapshot must wait for that too.
    """
    deadline = time.monotonic() + timeout
    while pending := ratings_pending_games():
        assert time.monotonic() < deadline, f"rating work left in games {pending}"
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
    """Like ``stack``, on a Redis of the test's own; the test starts the workers it needs."""
    reference_data_ensure()
    stack = Stack(private_redis.url, tmp_path)
    try:
        stack.start_web()
        yield stack
    finally:
        stack.stop()
