"""The buffering proxy of docs/deploy/nginx.conf, run for real in front of gunicorn on the production
settings, with one gthread worker of one thread (production runs three of four: docs/operations.md).

Slow clients (headers or body sent a byte at a time) hold a gunicorn thread each for as long as they
dribble: straight at gunicorn, the first holds its only thread, the second queues behind it, and a
normal request waits until the first has finished sending. One thread makes that order certain: a
gthread worker accepts connections beyond its threads and queues them, so with more workers or threads
which slow client holds which thread would be chance. Through nginx, which reads whole requests before
it passes them on, the same normal request is answered at once while three slow clients are still
sending, and the slow ones are answered too once they have finished. Timings are measured and
reported; what is asserted is the order of events (answered before or after the slow clients finished
sending) and one generous bound (5 s).
"""

import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass

import pytest

from benchmarks.proxy import HOST, Nginx
from benchmarks.stack import Stack
from leagues.models import Player
from tests.conftest import FIGURES, TEST_REDIS_URL
from tests.factories import RefereeFactory, api_token_for, reference_data_ensure

pytestmark = [pytest.mark.postgres, pytest.mark.services, pytest.mark.nginx]

DRIBBLE_SECONDS = 6.0  # a slow client spreads the slow part of its request over this long (nginx allows 10 s)
PROMPT = 5.0  # a normal request through the proxy is answered within this, slow clients or not


def connect(port: int, *, tls: bool, timeout: float) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if not tls:
        return sock
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own self-signed certificate
    return context.wrap_socket(sock, server_hostname=HOST)


def read_status(sock: socket.socket) -> int:
    answer = b""
    while b"\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


def request_bytes(method: str, path: str, *, body: bytes = b"", extra: str = "") -> tuple[bytes, bytes]:
    """(head, body) of a request that closes its connection when answered."""
    length = f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n" if method == "POST" else ""
    head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n{length}{extra}Connection: close\r\n\r\n"
    return head.encode(), body


@dataclass
class Timed:
    status: int = 0
    answered_at: float | None = None  # time.monotonic()
    error: str = ""


def normal_request(port: int, *, tls: bool, timeout: float) -> Timed:
    """One GET of the API's game list, answered or not within ``timeout`` seconds."""
    head, _ = request_bytes("GET", "/api/games/")
    result = Timed()
    try:
        with connect(port, tls=tls, timeout=timeout) as sock:
            sock.sendall(head)
            result.status = read_status(sock)
            result.answered_at = time.monotonic()
    except (TimeoutError, OSError) as error:
        result.error = repr(error)
    return result


class SlowClient(threading.Thread):
    """Sends its request's head (``slow="head"``) or its body (``slow="body"``) a byte at a time, then reads
    the answer.

    The body is a referee's player creation that the API refuses (an empty name) once it has read it all:
    Django reads a body only when the view asks for it, so only an authorised write holds a worker while
    its body arrives; and nothing is stored. The requests claim https, as a proxy that does not buffer
    would pass them on (through nginx, nginx's own value replaces it).
    """

    def __init__(self, port: int, *, tls: bool, slow: str, token: str):
        super().__init__(daemon=True)
        self.port, self.tls, self.slow = port, tls, slow
        extra = "X-Forwarded-Proto: https\r\n"
        if slow == "head":
            self.head, self.body = request_bytes("GET", "/api/games/", extra=extra)
        else:
            body = b'{"name": "", "padding": "' + b"s" * 40 + b'"}'
            self.head, self.body = request_bytes(
                "POST", "/api/players/", body=body, extra=f"{extra}Authorization: Token {token}\r\n"
            )
        self.started_sending = threading.Event()
        self.finished_sending_at: float | None = None
        self.status = 0
        self.error = ""

    def run(self) -> None:
        try:
            with connect(self.port, tls=self.tls, timeout=60) as sock:
                slow_part = self.head if self.slow == "head" else self.body
                if self.slow == "body":
                    sock.sendall(self.head)
                self.started_sending.set()
                for index in range(len(slow_part)):
                    if index:  # the pause before each byte: the time is taken right after the last one is sent
                        time.sleep(DRIBBLE_SECONDS / len(slow_part))
                    sock.sendall(slow_part[index : index + 1])
                if self.slow == "head":
                    sock.sendall(self.body)
                self.finished_sending_at = time.monotonic()
                self.status = read_status(sock)
        except OSError as error:
            self.error = repr(error)
        finally:
            self.started_sending.set()

    def still_sending_at(self, moment: float) -> bool:
        return self.finished_sending_at is None or self.finished_sending_at > moment


def start_slow_clients(port: int, *, tls: bool, kinds: list[str], token: str) -> list[SlowClient]:
    clients = [SlowClient(port, tls=tls, slow=kind, token=token) for kind in kinds]
    for client in clients:
        client.start()
        client.started_sending.wait(10)
    time.sleep(1.0)  # every slow connection accepted (by a gunicorn worker, or by nginx) before the normal one
    return clients


def join_all(clients: list[SlowClient]) -> None:
    for client in clients:
        client.join(60)
    assert not any(client.is_alive() for client in clients), "a slow client still running after 60 s"


@pytest.fixture
def proxied(transactional_db, require_postgres, require_redis, tmp_path):
    """gunicorn (one gthread worker, one thread) on the production settings, nginx from the example in front."""
    import redis

    redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    reference_data_ensure()
    stack = Stack(require_redis, tmp_path, cache_url=require_redis)
    stack.behind_the_proxy(HOST)
    nginx = Nginx(gunicorn_port=stack.port)
    try:
        stack.start_web(workers=1, threads=1)
        nginx.start()
        yield stack, nginx, api_token_for(RefereeFactory())
    finally:
        nginx.stop()
        stack.stop()


@pytest.mark.timeout(180)
def test_slow_clients_stall_gunicorn_but_not_the_proxy(proxied):
    stack, nginx, token = proxied
    # Both paths answer a normal request; through the proxy the request counts as https (no redirect).
    assert normal_request(stack.port, tls=False, timeout=10).status == 301  # gunicorn alone: SECURE_SSL_REDIRECT
    assert normal_request(nginx.https_port, tls=True, timeout=10).status == 200

    # The control: two slow clients straight at gunicorn hold its thread, one after the other.
    slow = start_slow_clients(stack.port, tls=False, kinds=["head", "body"], token=token)
    started = time.monotonic()
    direct = normal_request(stack.port, tls=False, timeout=30)
    join_all(slow)
    first_done = min(client.finished_sending_at for client in slow)
    assert direct.answered_at is not None, direct.error
    assert direct.answered_at >= first_done, "gunicorn answered while its thread was held by slow clients"
    assert [client.status for client in slow] == [200, 400]  # each was served in turn, its body read in full
    FIGURES["proxy: normal request, gunicorn's one thread held by 2 slow clients (s)"] = round(
        direct.answered_at - started, 2
    )

    # Through nginx: three slow clients dribble, the normal request is answered at once.
    slow = start_slow_clients(nginx.https_port, tls=True, kinds=["head", "head", "body"], token=token)
    started = time.monotonic()
    proxied_answer = normal_request(nginx.https_port, tls=True, timeout=PROMPT)
    assert proxied_answer.status == 200, proxied_answer.error or proxied_answer.status
    assert proxied_answer.answered_at - started < PROMPT
    assert all(client.still_sending_at(proxied_answer.answered_at) for client in slow)
    FIGURES["proxy: normal request through nginx beside 3 slow clients (s)"] = round(
        proxied_answer.answered_at - started, 2
    )
    # Once they have finished, nginx passes their whole requests on: each is answered.
    join_all(slow)
    assert [client.error for client in slow] == ["", "", ""]
    assert [client.status for client in slow] == [200, 200, 400]  # the write read in full, then refused
    assert not Player.objects.exists()


@pytest.mark.timeout(120)
def test_the_proxy_cuts_off_a_client_slower_than_its_header_timeout(proxied):
    """client_header_timeout 10s: a head still incomplete after 10 s is dropped by nginx (408 in its log),
    never passed on. Slow clients cannot hold even nginx's connections for long."""
    import select

    _, nginx, _ = proxied
    head, _ = request_bytes("GET", "/api/games/")
    started = time.monotonic()
    closed_after = None
    with connect(nginx.https_port, tls=True, timeout=30) as sock:
        for index in range(len(head)):  # about 37 s at this pace, if nginx let it
            try:
                sock.sendall(head[index : index + 1])
                readable, _, _ = select.select([sock], [], [], 0.5)
                if readable and sock.recv(4096) == b"":
                    closed_after = time.monotonic() - started
                    break
            except OSError:
                closed_after = time.monotonic() - started
                break
    assert closed_after is not None, "nginx let a head take longer than its header timeout"
    assert 9 <= closed_after <= 20, closed_after
    # The request line never completed: nginx logs what it had, with 408, and sent nothing upstream.
    assert re.search(r'"[^"]*" 408 0 ', (nginx.prefix / "access.log").read_text())
    FIGURES["proxy: a head dribbled past client_header_timeout 10s is cut after (s)"] = round(closed_after, 1)


def read_answer(sock: socket.socket) -> bytes:
    """The whole answer of a request sent with ``Connection: close``."""
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def test_the_proxy_refuses_a_body_over_its_cap_and_redirects_plain_http(proxied):
    _, nginx, token = proxied
    auth = f"Authorization: Token {token}\r\n"
    # Over the application's cap (1 MiB) but under the proxy's (2 MiB): nginx passes it on and the
    # client gets the application's JSON 413, which names the limit.
    head, body = request_bytes("POST", "/api/players/", body=b"x" * (1024 * 1024 + 1), extra=auth)
    with connect(nginx.https_port, tls=True, timeout=30) as sock:
        sock.sendall(head + body)
        answer = read_answer(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"application/json" in answer.split(b"\r\n\r\n", 1)[0]
    assert b"at most 1,048,576 bytes" in answer
    # Over the proxy's own cap: refused by nginx on the announced length, before any of the body is read.
    head, _ = request_bytes("POST", "/api/players/", body=b"x" * (2 * 1024 * 1024 + 1), extra=auth)
    with connect(nginx.https_port, tls=True, timeout=10) as sock:
        sock.sendall(head)
        assert read_status(sock) == 413
    assert not Player.objects.exists()
    with connect(nginx.http_port, tls=False, timeout=10) as sock:
        sock.sendall(request_bytes("GET", "/api/games/")[0])
        assert read_status(sock) == 301
    log = (nginx.prefix / "access.log").read_text()
    assert log.count('"POST /api/players/ HTTP/1.1" 413') == 2


def test_the_proxy_lets_an_admin_import_file_through_to_the_application(proxied):
    """Admin's import takes a file up to CARDRANK_IMPORT_MAX_BYTES (20 MiB), far over the 2 MiB cap: its one
    upload address has its own, a little above, so the application (not nginx) answers such a body."""
    _, nginx, _token = proxied
    path = "/admin/games/importrun/add/"
    head, body = request_bytes("POST", path, body=b"x" * (3 * 1024 * 1024))
    with connect(nginx.https_port, tls=True, timeout=30) as sock:
        sock.sendall(head + body)
        status = read_status(sock)
    assert status == 403  # Django's: no CSRF token, no session; the body was read through
    head, _ = request_bytes("POST", path, body=b"x" * (22 * 1024 * 1024))
    with connect(nginx.https_port, tls=True, timeout=10) as sock:
        sock.sendall(head)
        assert read_status(sock) == 413  # over even the upload's cap: refused unread
    log = (nginx.prefix / "access.log").read_text()
    assert f'"POST {path} HTTP/1.1" 403' in log
