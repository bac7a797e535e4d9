"""Downloads are never cut off by gunicorn, and one that could not finish never looks complete (issue 25).

gunicorn runs as production runs it (``benchmarks.stack.gunicorn_argv``: gthread workers), nginx from
docs/deploy/nginx.conf in front. A download is held in the middle, deterministically, by a lock: the
test takes PostgreSQL's ACCESS EXCLUSIVE lock on the matches table, so a player's history.csv, whose
head and byte order mark are already sent, waits at its first read of the matches (``ratings.exports``)
until the test lets go, or until the test kills the worker streaming it (SIGKILL, as the kernel's OOM
killer, a deploy's hard stop or a sync worker's timeout would).

- Held past gunicorn's ``--timeout`` (2 s here, 30 s in production), the download still ends whole: a
  sync worker was killed at its timeout in the middle of the file (a 200,000-result results.csv came
  back with 130,000 lines).
- Cut off by a killed worker, the answer ends without chunked encoding's last chunk, straight from
  gunicorn and through nginx alike, so the client's HTTP library says the file is incomplete. Before
  ``proxy_http_version 1.1`` nginx read gunicorn over HTTP/1.0 and passed a cut-off answer on as
  complete, its last chunk added.
"""

import http.client
import os
import signal
import ssl
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection, transaction

from benchmarks.proxy import HOST, Nginx
from benchmarks.stack import Stack
from leagues.models import Game
from ratings.services import ratings_process_game
from tests.conftest import TEST_REDIS_URL
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.postgres, pytest.mark.services]

TIMEOUT = 2  # gunicorn's --timeout in these tests, seconds
BOM = "\ufeff".encode()
START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


@pytest.fixture
def served(transactional_db, require_postgres, require_redis, tmp_path):
    """gunicorn (one gthread worker, --timeout 2) on production settings; Ann with three rated Slaps wins."""
    import redis

    redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    reference_data_ensure()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    for day in range(3):
        slaps_match(winner=ann, loser=bob, played_at=START + timedelta(days=day))
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    stack = Stack(require_redis, tmp_path, cache_url=require_redis)
    # Straight at gunicorn over plain HTTP, as well as through nginx: no redirect to https.
    stack.behind_the_proxy(HOST, DJANGO_SECURE_SSL_REDIRECT="false")
    try:
        stack.start_web(workers=1, timeout=TIMEOUT)
        yield stack, ann
    finally:
        stack.stop()


class Download(threading.Thread):
    """GET a player's history.csv over HTTP/1.1 (http.client decodes the chunks): the status, the bytes read
    and, when the answer ended early, the error saying so."""

    def __init__(self, connect, path: str):
        super().__init__(daemon=True)
        self.connect, self.path = connect, path
        self.status = 0
        self.body = b""
        self.error: Exception | None = None

    def run(self) -> None:
        link = self.connect()
        try:
            link.request("GET", self.path, headers={"Host": HOST})
            response = link.getresponse()
            self.status = response.status
            self.body = response.read()
        except (http.client.IncompleteRead, ConnectionError) as error:
            self.error = error
        finally:
            link.close()


def held_at_the_matches() -> bool:
    """Whether a query waits for the test's lock on the matches table: the download is in its middle."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'matches_match'::regclass")
        return cursor.fetchone()[0] > 0


def wait_held(download: Download) -> None:
    deadline = time.monotonic() + 30
    while not held_at_the_matches():
        assert download.is_alive(), f"the download ended before it was held: {download.status} {download.error}"
        assert time.monotonic() < deadline, "the download never reached the matches table"
        time.sleep(0.05)


def worker_pid(stack: Stack) -> int:
    master = stack.processes["web"].pid
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children  # one worker: the one streaming
    return int(children[0])


def lock_matches() -> None:
    with connection.cursor() as cursor:
        cursor.execute("LOCK TABLE matches_match IN ACCESS EXCLUSIVE MODE")


def plain(stack: Stack):
    return lambda: http.client.HTTPConnection("127.0.0.1", stack.port, timeout=60)


@pytest.mark.timeout(120)
def test_a_download_longer_than_the_worker_timeout_ends_whole(served):
    stack, ann = served
    download = Download(plain(stack), f"/api/players/{ann.pk}/history.csv")
    with transaction.atomic():
        lock_matches()
        download.start()
        wait_held(download)
        time.sleep(3 * TIMEOUT)  # held well past gunicorn's timeout: a sync worker is killed meanwhile
    download.join(60)
    assert download.error is None, download.error
    assert download.status == 200
    lines = download.body.removeprefix(BOM).decode().splitlines()
    assert lines[0].startswith("played_at,game,league,match")
    assert len(lines) == 1 + 3  # the header and Ann's three wins: the whole file


@pytest.mark.timeout(120)
def test_a_download_cut_off_by_a_killed_worker_is_incomplete_for_its_client(served):
    """Straight from gunicorn: the answer stops without its last chunk (the control for the proxy's test)."""
    stack, ann = served
    download = Download(plain(stack), f"/api/players/{ann.pk}/history.csv")
    with transaction.atomic():
        lock_matches()
        download.start()
        wait_held(download)
        os.kill(worker_pid(stack), signal.SIGKILL)
    download.join(60)
    assert download.status == 200  # the head was sent before the worker died
    assert isinstance(download.error, http.client.IncompleteRead | ConnectionError), (download.error, download.body)


@pytest.mark.nginx
@pytest.mark.timeout(120)
def test_through_the_proxy_a_cut_off_download_stays_cut_off(served):
    stack, ann = served
    nginx = Nginx(gunicorn_port=stack.port)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own self-signed certificate
    try:
        nginx.start()
        secure = lambda: http.client.HTTPSConnection("127.0.0.1", nginx.https_port, timeout=60, context=context)  # noqa: E731
        whole = Download(secure, f"/api/players/{ann.pk}/history.csv")
        whole.run()
        assert (whole.status, whole.error) == (200, None)
        assert len(whole.body.removeprefix(BOM).decode().splitlines()) == 4  # through nginx, whole when whole

        download = Download(secure, f"/api/players/{ann.pk}/history.csv")
        with transaction.atomic():
            lock_matches()
            download.start()
            wait_held(download)
            os.kill(worker_pid(stack), signal.SIGKILL)
        download.join(60)
        assert download.status == 200
        assert isinstance(download.error, http.client.IncompleteRead | ConnectionError), (
            "nginx passed a cut-off download on as complete",
            download.body,
        )
        assert "upstream prematurely closed connection" in nginx.log()
    finally:
        nginx.stop()
