"""A real HTTP receiver for the webhooks' tests: a ``ThreadingHTTPServer`` on a thread of its own, bound to
127.0.0.2 (loopback, but not a name of the site: ``ALLOWED_HOSTS`` holds 127.0.0.1), on a free port.

It records every request (path, headers, the body's bytes) and answers each with the next status of
``answers`` (200 when none is left), after ``delay`` seconds."""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hooks.models import Webhook

SECRET = "a-receivers-shared-secret-of-40-chars!!!"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str = ""
    requests: list[Received] = field(default_factory=list)
    answers: deque = field(default_factory=deque)
    delay: float = 0.0
    arrived: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def receiver():
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            state.requests.append(Received(self.path, dict(self.headers.items()), body))
            state.arrived.set()
            status = state.answers.popleft() if state.answers else 200
            if state.delay:
                threading.Event().wait(state.delay)
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            answer = b"ok" * 10_000  # longer than the sender reads
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the sender stopped reading (a timeout, or it read enough)
                self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.2", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.2:{server.server_address[1]}/hooks/cardrank"
    yield state
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture
def webhook_to(receiver, reference_data):
    """A webhook to the receiver (every event, every league unless told), made as the admin's form does."""
    from hooks.services import webhook_save

    def make(name: str = "Club chat", **fields) -> Webhook:
        return webhook_save(name=name, url=receiver.url, secret=SECRET, **fields)

    return make
