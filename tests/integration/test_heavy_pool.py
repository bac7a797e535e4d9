"""The heavy reads' own gunicorn (issue 25, docs/operations.md): nginx from docs/deploy/nginx.conf sends the
pages and downloads that read a history there, and everything else to the web pool; the heavy reads' gunicorn
runs at niceness 10, so that a crowd asking for them takes only what the CPU has left.

Which gunicorn answered is read from each one's access log (``--access-logfile -``, this test's only
addition to the documented command).
"""

import os
import re
import time

import pytest

from benchmarks.proxy import HOST, Nginx
from benchmarks.stack import HEAVY_READS_NICE, Stack
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match
from tests.integration.test_proxy import connect

pytestmark = [pytest.mark.postgres, pytest.mark.services, pytest.mark.nginx]
ACCESS_LOG = ("--access-logfile", "-")


@pytest.fixture
def pools(transactional_db, require_postgres, require_redis, tmp_path):
    import redis

    from leagues.models import Game

    redis.Redis.from_url(require_redis).flushdb()
    reference_data_ensure()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    stack = Stack(require_redis, tmp_path, cache_url=require_redis)
    stack.behind_the_proxy(HOST)
    nginx = None
    try:
        stack.start_web(workers=1, extra=ACCESS_LOG)
        stack.start_heavy_reads(extra=ACCESS_LOG)
        nginx = Nginx(gunicorn_port=stack.port, heavy_port=stack.heavy_port)
        nginx.start()
        yield stack, nginx, ann
    finally:
        if nginx:
            nginx.stop()
        stack.stop()


def _get(port: int, path: str) -> int:
    with connect(port, tls=True, timeout=30) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def _served(stack: Stack, name: str, path: str) -> bool:
    """Whether gunicorn ``name``'s access log has a GET of ``path`` (the log is written as it answers)."""
    deadline = time.monotonic() + 5
    pattern = re.compile(rf'"GET {re.escape(path)} HTTP/1\.[01]"')
    while time.monotonic() < deadline:
        if pattern.search(stack.log(name)):
            return True
        time.sleep(0.1)
    return False


def test_the_proxy_sends_heavy_reads_to_their_own_niced_gunicorn(pools):
    stack, nginx, ann = pools
    heavy = [f"/players/{ann.pk}/", f"/api/players/{ann.pk}/history.csv", "/quality/slaps/", "/api/compare/?game=slaps"]
    cheap = ["/api/games/", "/leagues/slaps-amateur/", "/"]
    for path in heavy + cheap:
        assert _get(nginx.https_port, path) in {200, 400}, path  # the compare API without players: 400
    for path in heavy:
        assert _served(stack, "heavy", path), path
        assert not re.search(rf'"GET {re.escape(path)} HTTP', stack.log("web")), path
    for path in cheap:
        assert _served(stack, "web", path), path
        assert not re.search(rf'"GET {re.escape(path)} HTTP', stack.log("heavy")), path

    # The documented niceness: the heavy reads' gunicorn (its master and worker) gives way for the CPU.
    master = stack.processes["heavy"].pid
    assert os.getpriority(os.PRIO_PROCESS, master) == HEAVY_READS_NICE
    assert os.getpriority(os.PRIO_PROCESS, stack.processes["web"].pid) == 0
