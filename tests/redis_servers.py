"""Redis servers of a test's own, started with the settings under test (the shared test Redis is never reconfigured)."""

import shutil
import subprocess
import time
from contextlib import contextmanager

from benchmarks.stack import free_port, port_open
from tests.conftest import service_missing


@contextmanager
def redis_server(*options: str):
    """A Redis server of the test's own on a free port, started with ``options``: its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        service_missing("redis-server binary")
    port = free_port()
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *options]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not port_open("127.0.0.1", port):
            assert process.poll() is None, f"redis-server {options} exited"
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait(timeout=10)


def capped_cache_redis():
    """A cache Redis as docs/security.md sets one up: capped, evicting the least recently used keys."""
    return redis_server("--maxmemory", "32mb", "--maxmemory-policy", "allkeys-lru")
