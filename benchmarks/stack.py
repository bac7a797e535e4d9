"""A production-shaped stack of real processes: gunicorn and Celery workers on Redis.

Used by the integration tests and by ``manage.py benchmark``: the processes
run this checkout with the given database and broker URLs in their
environment, exactly as a deployment would.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.db import connection

REPO = Path(settings.BASE_DIR)


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


BIN = Path(sys.executable).parent


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    config = connection.settings_dict
    user = config.get("USER") or "postgres"
    password = f":{config['PASSWORD']}" if config.get("PASSWORD") else ""
    host = config.get("HOST") or "127.0.0.1"
    port = config.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{config['NAME']}"


#: gunicorn's worker class, threads per worker and timeout in production (docs/operations.md).
#:
#: gthread, not sync: a sync worker serves a request on its only thread, which is also the one that tells
#: the arbiter it is alive, so a download streaming for longer than ``--timeout`` was killed in the middle
#: and its client got a cut-off file (a game's results.csv, 130,000 of its 200,001 lines). A gthread
#: worker's main thread keeps telling the arbiter while its threads stream, so an answer runs as long as
#: it needs; a slow client still holds only a thread, and the buffering proxy in front (docs/proxy.md)
#: keeps slow clients off gunicorn altogether. ``--timeout`` then bounds only a worker whose main loop
#: is stuck. Sixteen threads: a heavy read waiting for its turn (``config.lanes``) holds a thread, not a
#: core, and a cheap request must still find a free thread beside twenty such waiters.
GUNICORN_WORKER_CLASS = "gthread"
GUNICORN_THREADS = 16
GUNICORN_TIMEOUT = 30
#: The heavy reads' own gunicorn (``config.lanes``, docs/deploy/nginx.conf): one worker, at niceness 10, so
#: that visitors asking for them without pause take what the CPU has left, never the web pool's share.
HEAVY_READS_WORKERS = 1
HEAVY_READS_NICE = 10


def gunicorn_argv(
    bind: str, *, workers: int, threads: int = GUNICORN_THREADS, timeout: int = GUNICORN_TIMEOUT
) -> list[str]:
    """The production gunicorn command (docs/operations.md's, with its process count), listening on ``bind``."""
    return [str(BIN / "gunicorn"), "config.wsgi", "-b", bind, "-w", str(workers), "-k", GUNICORN_WORKER_CLASS,
            "--threads", str(threads), "--timeout", str(timeout)]  # fmt: skip


class Stack:
    """The processes of one deployment. ``cache_url``: the ``CACHE_URL`` they share (none: each its own memory)."""

    def __init__(self, broker_url: str, log_dir: Path, *, cache_url: str | None = None):
        self.broker_url = broker_url
        self.port = free_port()
        self.heavy_port: int | None = None  # the heavy reads' own gunicorn, once started
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_dir = log_dir
        self.processes: dict[str, subprocess.Popen] = {}
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "DATABASE_CONN_MAX_AGE": "0",
            "CELERY_BROKER_URL": broker_url,
            "DJANGO_DEBUG": "true",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
            # Fault tests: a dead worker's tasks come back after 5 s; the sweeper runs every 2 s.
            "CELERY_VISIBILITY_TIMEOUT": "5",
            "CARDRANK_SWEEP_EVERY_SECONDS": "2",
            "CARDRANK_SWEEP_AFTER_SECONDS": "1",
        }
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.env.pop("CACHE_URL", None)  # Only what the caller asks for, not the developer's shell.
        if cache_url:
            self.env["CACHE_URL"] = cache_url

    def behind_the_proxy(self, host: str, **extra: str) -> None:
        """Production settings behind docs/deploy/nginx.conf (``benchmarks.proxy``): no debug, a secret key of
        the run's own, the proxy's ``Host`` allowed, one trusted proxy hop; ``extra`` variables on top."""
        self.env.update(
            {
                "DJANGO_DEBUG": "false",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DJANGO_ALLOWED_HOSTS": f"{host},127.0.0.1,localhost",
                "CARDRANK_TRUSTED_PROXY_COUNT": "1",
                **extra,
            }
        )

    def start(self, name: str, argv: list[str]) -> None:
        log = (self.log_dir / f"{name}.log").open("w")
        self.processes[name] = subprocess.Popen(argv, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT)

    def start_worker(
        self,
        name: str = "worker",
        concurrency: int = 1,
        *,
        pool: str = "prefork",
        beat: bool = False,
        queues: str = "celery,admin",
        nice: int = 0,
    ):
        """A Celery worker; by default on both queues (ratings and long admin work), as one process may be.

        ``nice``: the worker's niceness, as docs/operations.md starts the admin queue's (``nice -n 10``), so
        that its long runs give way to gunicorn and the ratings worker when a core is wanted."""
        argv = ["nice", "-n", str(nice)] if nice else []
        argv += [str(BIN / "celery"), "-A", "config", "worker", "--loglevel=INFO", f"--concurrency={concurrency}",
                f"--pool={pool}", "--without-gossip", "--without-mingle", f"--hostname={name}@%h",
                f"--queues={queues}"]  # fmt: skip
        if beat:
            argv += ["--beat", f"--schedule={self.log_dir / (name + '-beat')}"]
        self.start(name, argv)
        self.wait_for_log(name, "ready.")

    def kill(self, name: str) -> None:
        """SIGKILL, as the kernel's OOM killer or a pulled plug would."""
        self.processes[name].kill()
        self.processes[name].wait(timeout=10)

    def start_web(
        self,
        workers: int = 2,
        *,
        threads: int = GUNICORN_THREADS,
        timeout: int = GUNICORN_TIMEOUT,
        name: str = "web",
        port: int | None = None,
        nice: int = 0,
        extra: tuple[str, ...] = (),
    ) -> None:
        """gunicorn as docs/operations.md runs it (``gunicorn_argv``), on this stack's port (or ``port``).

        ``nice``: its niceness, as the heavy reads' gunicorn runs (``start_heavy_reads``)."""
        port = port or self.port
        argv = gunicorn_argv(f"127.0.0.1:{port}", workers=workers, threads=threads, timeout=timeout)
        self.start(name, [*(["nice", "-n", str(nice)] if nice else []), *argv, *extra])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if port_open("127.0.0.1", port):
                return
            self.check_alive(name)
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not start:\n{self.log(name)}")

    def start_heavy_reads(self, *, extra: tuple[str, ...] = ()) -> int:
        """The heavy reads' own gunicorn, as docs/operations.md runs it (``HEAVY_READS_WORKERS`` worker at
        ``HEAVY_READS_NICE``), on a port of its own, which it returns: the proxy sends them there."""
        self.heavy_port = free_port()
        self.start_web(HEAVY_READS_WORKERS, name="heavy", port=self.heavy_port, nice=HEAVY_READS_NICE, extra=extra)
        return self.heavy_port

    def log(self, name: str) -> str:
        return (self.log_dir / f"{name}.log").read_text(errors="replace")

    def check_alive(self, name: str) -> None:
        if self.processes[name].poll() is not None:
            raise RuntimeError(f"{name} exited with {self.processes[name].returncode}:\n{self.log(name)}")

    def wait_for_log(self, name: str, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log(name):
                return
            self.check_alive(name)
            time.sleep(0.2)
        raise RuntimeError(f"{name} did not log {text!r} in {timeout}s:\n{self.log(name)}")

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None, *, timeout: float = 30
    ):
        url = self.base_url + path  # always http://127.0.0.1:<port>/..., built here
        request = urllib.request.Request(url, data=body, method=method, headers=headers or {})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def hammer(self, path: str, *, clients: int, seconds: float, cookie: str = "") -> tuple[list[float], int]:
        """``clients`` concurrent GETs of ``path`` for ``seconds``: (times of the 200 answers, requests made).

        ``cookie``: a ``Cookie`` header's value, for pages behind sign-in (the entry pages).

        A lighter client than ``request`` for load: coroutines on one thread
        write a minimal HTTP/1.1 request and read the answer to its end (one
        connection per request, as urllib and gunicorn's sync workers do), so
        the load generator takes little of the CPU it shares with the server.
        """
        extra = f"Cookie: {cookie}\r\n" if cookie else ""
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{extra}Connection: close\r\n\r\n"
        ).encode()  # the path and cookie are ours, built by the benchmark

        async def client(times: list[float], served: list[int], stop: float) -> None:
            while time.monotonic() < stop:
                started = time.perf_counter()
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(request)
                answer = await reader.read()
                writer.close()
                elapsed = time.perf_counter() - started
                served[0] += 1
                if answer.startswith(b"HTTP/1.1 200 "):
                    times.append(elapsed)

        async def run() -> tuple[list[float], int]:
            times: list[float] = []
            served = [0]
            stop = time.monotonic() + seconds
            await asyncio.gather(*(client(times, served, stop) for _ in range(clients)))
            return times, served[0]

        # On a thread of its own: the caller's thread may already run an event loop (Playwright's, in the tests).
        with ThreadPoolExecutor(max_workers=1) as thread:
            return thread.submit(asyncio.run, run()).result()
