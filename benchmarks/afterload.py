"""Anonymous load after a result (issue 25): does one new result, then anonymous readers, slow the site down?

The probe that opened issue 25 found that after a new result one anonymous compare replayed a
200,000-deal Preferans game inside its request, so a handful of visitors held every gunicorn worker
until its timeout. Heavy figures are now kept by a task (``ratings.figures``); this scenario measures
what a visitor meets in that situation.

Vocabulary:
    history     a synthetic Preferans game (``benchmarks.replay.build_history``: 4-seat games, deals
                written in bulk, audited) rated by the replay, as ``manage.py benchmark``'s replay does.
    stack       the deployment's processes (``benchmarks.stack.Stack``) with the production settings, as
                docs/operations.md starts them: the web gunicorn (its worker class and timeout; 2 workers,
                as the issue's probe), the heavy reads' own gunicorn (one worker, nice 10), nginx from
                docs/deploy/nginx.conf in front of both (``benchmarks.proxy``: an EC certificate of the
                run's own), and one Celery worker per queue as ``make worker`` starts them ("ratings" on
                ``celery``, "admin" on ``admin`` at nice 10, where the figures are computed), on this
                database and a Redis broker and cache. Every visitor and the probe come through nginx over
                HTTPS, a new connection (and TLS handshake) per request, as a browser's first visit.
    steady      every page of the mix answered once, then the figures' runs waited for until every kept
                figure is computed: the state a site is in between results. (The replay, in this process
                where Celery runs eagerly, has already computed the game's figures once; the pages ask for
                the drift windows the mix reads, which the stack's admin worker computes.)
    probe       the 21st client: one request at a time to ``/api/games/`` (an empty read), timed; its p95
                unloaded (nothing else running) is the baseline.
    mix         what 20 anonymous clients ask, each in turn, without pause: the compare page and API, the
                quality pages, the drift API (the offered windows only), the leagues' crosstables, a
                heavy player's history API and profile, the game's results.csv and that player's
                history.csv (read to their last byte).
    load        the mix for a while with the probe timed beside it: once before the result (the capacity
                of the stack under 20 clients) and once right after one result is POSTed (the target:
                the probe's p95 at most 2x its unloaded p95, and no 5xx).

Every answer is read to its end and checked whole: a chunked answer must end with its last chunk, one with
a Content-Length must have that many bytes (a worker killed mid-download leaves neither). A refused or
reset connection is counted, not retried. Peak memory: each process's ``VmHWM`` (its peak resident size,
``/proc/<pid>/status``), sampled through the run for gunicorn's workers and each Celery worker's processes,
so a worker killed and replaced still counts.

The data lives in the replay benchmark's game ("benchmark-preferans", players "bench …") and is deleted
afterwards unless asked to keep it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import multiprocessing
import random
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from benchmarks.proxy import HOST, Nginx, nginx_binary
from benchmarks.replay import SLUG, benchmark_game, build_history, cleanup
from benchmarks.stack import Stack
from config.tokens import api_token_create
from leagues.models import Game, Player
from matches.models import Match, Seat
from ratings.drift import PERIODS, drift_windows, game_active_days
from ratings.models import FigureState, KeptFigure, RatingChange
from ratings.services import ratings_replay_all

CLIENTS = 20
PROBE = "/api/games/"
#: The probe's unloaded baseline: this many requests, one at a time (it is the ratio's denominator: fewer
#: gave p95s that varied by half within minutes, docs/performance.md).
UNLOADED_REQUESTS = 1000
#: A client gives up on an answer after this long (gunicorn's own timeout is 30 s: a worker it kills
#: closes the connection well before).
CLIENT_TIMEOUT = 90
#: The issue's targets.
TARGET_RATIO = 2.0
#: The admin worker's niceness, as docs/operations.md and ``make worker`` start it.
ADMIN_NICE = 10
TARGET_SERVER_ERRORS = 0
REFEREE = "bench-afterload-referee"
#: How long the figures' runs may take before the benchmark stops waiting (a 200,000-deal replay in memory).
FIGURES_WAIT = 1800


# --- one answer, read whole ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no answer (refused, reset or closed before a status line, timed out)
    seconds: float
    size: int  # the body's bytes (de-chunked)
    complete: bool  # the whole body arrived (its last chunk, or Content-Length bytes)
    error: str = ""
    timed_out: bool = False  # the client gave up (``CLIENT_TIMEOUT``), whatever had arrived


def answer_parsed(raw: bytes, seconds: float) -> Answer:
    """An HTTP/1.1 answer as read to the connection's end: its status, and whether its body is whole."""
    head, found, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if not found or len(parts) < 2 or not parts[1].isdigit():
        return Answer(status=None, seconds=seconds, size=0, complete=False, error="no status line")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip().lower()
    status = int(parts[1])
    if headers.get(b"transfer-encoding") == b"chunked":
        size, complete = _dechunked_size(body)
    elif b"content-length" in headers:
        size, complete = len(body), len(body) >= int(headers[b"content-length"])
    else:  # delimited by the connection's close: nothing tells a cut body from a whole one
        size, complete = len(body), True
    return Answer(status=status, seconds=seconds, size=size, complete=complete)


def _dechunked_size(body: bytes) -> tuple[int, bool]:
    """The data's size in a chunked body, and whether the body ends with its last (empty) chunk."""
    position = size = 0
    while True:
        end = body.find(b"\r\n", position)
        if end < 0:
            return size, False
        try:
            length = int(body[position:end].split(b";")[0], 16)
        except ValueError:
            return size, False
        if length == 0:
            return size, True
        position = end + 2 + length + 2
        if position > len(body):
            return size + max(0, len(body) - end - 2), False
        size += length


@functools.cache
def _client_tls() -> ssl.SSLContext:
    """One context for every connection of a process: building one loads the CA store (tens of ms)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the run's own self-signed certificate
    return context


async def answer_get(port: int, path: str, *, timeout: float = CLIENT_TIMEOUT) -> Answer:
    """GET ``path`` through the proxy (HTTPS on ``port``) on a connection of its own, as a visitor's browser
    opens one: the TLS handshake, the request, the answer read to its end, all timed."""
    started = time.perf_counter()
    request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode()
    try:
        connecting = asyncio.open_connection("127.0.0.1", port, ssl=_client_tls(), server_hostname=HOST)
        reader, writer = await asyncio.wait_for(connecting, timeout)
        try:
            writer.write(request)
            raw = await asyncio.wait_for(reader.read(), timeout)
        finally:
            writer.close()
    except TimeoutError:
        return Answer(status=None, seconds=time.perf_counter() - started, size=0, complete=False, timed_out=True)
    except OSError as error:
        return Answer(status=None, seconds=time.perf_counter() - started, size=0, complete=False, error=repr(error))
    return answer_parsed(raw, time.perf_counter() - started)


def _run(coroutine):
    # On a thread of its own, as Stack.hammer does: the caller's thread may already run an event loop.
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


# --- figures of a series of answers ----------------------------------------------------------------------


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def answers_summary(answers: list[Answer]) -> dict:
    """Counts by status, failures, and the times of the whole 2xx answers."""
    times = [a.seconds for a in answers if a.status is not None and 200 <= a.status < 300 and a.complete]
    statuses = Counter(str(a.status) for a in answers if a.status is not None)
    return {
        "requests": len(answers),
        "statuses": dict(sorted(statuses.items())),
        "server_errors": sum(1 for a in answers if a.status is not None and a.status >= 500),
        "connection_errors": sum(1 for a in answers if a.status is None and not a.timed_out),
        "timeouts": sum(1 for a in answers if a.timed_out),
        "truncated": sum(1 for a in answers if a.status is not None and not a.complete),
        "p50_ms": _ms(statistics.median(times)) if times else None,
        "p95_ms": _ms(_percentile(times, 0.95)) if times else None,
        "max_ms": _ms(max(times)) if times else None,
        "mb_read": round(sum(a.size for a in answers) / 1e6, 1),
    }


# --- peak memory of the stack's processes ----------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    """Every process's children, from ``/proc/<pid>/stat`` (its fourth field is the parent)."""
    tree: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        tree.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return tree


def _descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    found, stack = [], list(tree.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack += tree.get(child, [])
    return found


def _peak_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class PeakMemory:
    """Samples the peak resident size of a stack's processes on a thread, until stopped.

    ``groups`` names each process to watch: gunicorn's master (its workers are its children) and each
    Celery worker's main process (its pool's processes are its children).
    """

    def __init__(self, groups: dict[str, int], every: float = 0.5):
        self.groups = groups
        self.every = every
        self.peaks: dict[str, dict[int, int]] = {name: {} for name in groups}  # group -> pid -> peak KB
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def sample(self) -> None:
        tree = _children()
        for name, root in self.groups.items():
            for pid in (root, *_descendants(root, tree)):
                peak = _peak_kb(pid)
                if peak is not None:
                    self.peaks[name][pid] = max(peak, self.peaks[name].get(pid, 0))

    def report(self) -> dict:
        """Per group: the largest peak of its children (the workers) and of its main process, in MB."""
        out = {}
        for name, root in self.groups.items():
            children = [kb for pid, kb in self.peaks[name].items() if pid != root]
            out[name] = {
                "main_mb": round(self.peaks[name].get(root, 0) / 1024, 1),
                "children_peak_mb": round(max(children, default=0) / 1024, 1),
                "children_seen": len(children),
            }
        return out


# --- the scenario --------------------------------------------------------------------------------------


def cache_beside(broker_url: str) -> str:
    """The cache's Redis URL by default: the broker's server, the next database (the broker's own is /N)."""
    parts = urlsplit(broker_url)
    return parts._replace(path=f"/{int(parts.path.strip('/') or 0) + 1}").geturl()


def _production(stack: Stack, cache_url: str) -> None:
    """The production settings, as ``benchmarks.service`` runs them (no debug, hashed static files, a shared
    Redis cache, persistent connections), with the cache this scenario is given: service's own is a fixed
    database, which another run of the benchmark may be using."""
    redis.Redis.from_url(cache_url).flushdb()  # a fresh deployment's cache: nothing of an earlier run's
    # The visitors come through nginx (HTTPS); the referee's result is POSTed straight to gunicorn over HTTP.
    stack.behind_the_proxy(HOST, DJANGO_SECURE_SSL_REDIRECT="false", CACHE_URL=cache_url, DATABASE_CONN_MAX_AGE="60")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=settings.BASE_DIR,
        env=stack.env,
        check=True,
    )


def vacuum() -> None:
    """Planner statistics, as autovacuum leaves a live database: right after a bulk load there are none."""
    with connection.cursor() as cursor:
        for model in (Player, Match, Seat, RatingChange):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")  # table names from the models


def mix_urls(game: Game, *, heavy: int, pairs: list[tuple[int, int]]) -> dict[str, list[str]]:
    """The mix, by page kind: each kind's URLs, asked in turn."""
    slug = game.slug
    windows = drift_windows(game)
    own = game_active_days(game)
    drift = [f"/api/games/{slug}/drift/?{urlencode({'active_days': days})}" for days in windows]
    drift += [f"/api/games/{slug}/drift/?{urlencode({'period': period, 'active_days': own})}" for period in PERIODS]
    compare = [urlencode({"game": slug, "a": a, "b": b}) for a, b in pairs]
    return {
        "compare page": [f"/compare/?{query}" for query in compare],
        "compare API": [f"/api/compare/?{query}" for query in compare],
        "quality overview": ["/quality/"],
        "quality of the game": [f"/quality/{slug}/"],
        "drift API": drift,
        "crosstable": [f"/leagues/{league.slug}/crosstable/" for league in game.leagues.order_by("tier", "pk")],
        "history API": [f"/api/players/{heavy}/history/"],
        "profile": [f"/players/{heavy}/"],
        "results.csv": [f"/api/games/{slug}/results.csv"],
        "history.csv": [f"/api/players/{heavy}/history.csv"],
    }


def _every(urls: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    for kind, paths in urls.items():
        for path in paths:
            yield kind, path


async def _load(port: int, urls: dict[str, list[str]], *, clients: int, seconds: float):
    """``clients`` visitors asking the mix without pause for ``seconds``, the probe timed beside them."""
    kinds = list(urls)
    answers: dict[str, list[Answer]] = {kind: [] for kind in kinds}
    stop = time.monotonic() + seconds

    async def visitor(number: int) -> None:
        turn = number  # each visitor starts at another kind, so every kind is asked from the first second
        while time.monotonic() < stop:
            kind = kinds[turn % len(kinds)]
            paths = urls[kind]
            answers[kind].append(await answer_get(port, paths[(turn // len(kinds)) % len(paths)]))
            turn += 1

    started = time.perf_counter()
    with _probe_process() as process:
        timed = asyncio.get_running_loop().run_in_executor(process, _probe_for, port, seconds)
        *_, probe = await asyncio.gather(*(visitor(n) for n in range(clients)), timed)
    return answers, probe, time.perf_counter() - started


def _probe_process() -> ProcessPoolExecutor:
    """The probe's own process: a 21st client is not on the visitors' event loop, nor behind their GIL (the
    visitors' loop reading hundreds of megabytes would otherwise delay the probe's reads, not the server)."""
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))


def _probe_for(port: int, seconds: float) -> list[Answer]:
    """In the probe's process: ``PROBE`` asked one at a time for ``seconds``."""

    async def prober() -> list[Answer]:
        stop = time.monotonic() + seconds
        answers = []
        while time.monotonic() < stop:
            answers.append(await answer_get(port, PROBE))
        return answers

    return asyncio.run(prober())


def _probe_count(port: int, count: int) -> list[Answer]:
    """In the probe's process: ``PROBE`` asked ``count`` times, one at a time."""

    async def prober() -> list[Answer]:
        return [await answer_get(port, PROBE) for _ in range(count)]

    return asyncio.run(prober())


def _unloaded(port: int, count: int) -> list[Answer]:
    """The probe alone, from the same kind of process as under the load."""
    with _probe_process() as process:
        return process.submit(_probe_count, port, count).result()


def figures_settled(game_ids: list[int]) -> bool:
    """No figure asked for and not computed, no run asked for or running (for these games)."""
    waiting = KeptFigure.objects.filter(game_id__in=game_ids, computed_at__isnull=True).exists()
    busy = FigureState.objects.filter(game_id__in=game_ids).filter(Q(wanted=True) | Q(running_since__isnull=False))
    return not waiting and not busy.exists()


def _wait(condition, *, timeout: float, what: str, stack: Stack) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what} not done in {timeout} s")
        for name in stack.processes:
            stack.check_alive(name)
        time.sleep(0.5)
    return time.monotonic() - started


def _referee_token() -> str:
    group, _ = Group.objects.get_or_create(name="referees")
    user, _ = get_user_model().objects.get_or_create(username=REFEREE)
    user.groups.add(group)
    user.api_tokens.all().delete()  # a token's secret is shown once: an earlier run's cannot be read back
    return api_token_create(user=user, name="benchmark").secret


def _result_body(game: Game, seated: list[int]) -> bytes:
    deals = [[4, -2, -2, 0], [-6, 3, 3, 0], [1, 1, -1, -1], [2, 0, -4, 2]]
    body = {"game": game.slug, "played_at": timezone.now().isoformat(), "seats": [{"player": p} for p in seated]}
    return json.dumps(body | {"deals": deals}).encode()


def _log_count(stack: Stack, name: str, text: str) -> int:
    return stack.log(name).count(text)


def _worker_class(log: str) -> str:
    """The worker class gunicorn says it uses ("Using worker: gthread"): the stack chooses it, not this module."""
    found = re.search(r"Using worker: (\S+)", log)
    return found.group(1) if found else "unknown"


def after_result(
    *,
    broker_url: str,
    cache_url: str,
    deals: int,
    players: int,
    seconds: float,
    web_workers: int = 2,
    clients: int = CLIENTS,
    unloaded_requests: int = UNLOADED_REQUESTS,
    keep: bool = False,
    seed: int = 25,
    without: frozenset[str] = frozenset(),
) -> dict:
    """The scenario (module docstring): build and rate the history, start the stack, settle the figures, time
    the probe unloaded, load, POST a result, load again; returns the figures.

    ``without``: page kinds of the mix left out, to tell which kind the probe waits behind (a diagnosis,
    not the scenario: the figures the targets are judged on have the whole mix)."""
    if connection.vendor != "postgresql":
        return {"skipped": "needs PostgreSQL (DATABASE_URL=postgres://...) shared by gunicorn and the workers"}
    if not nginx_binary():
        return {"skipped": "needs nginx (apt-get install -y nginx-light): the visitors go through the proxy"}
    leftover = Game.objects.filter(slug=SLUG).first()
    if leftover is not None:
        cleanup(leftover)  # an interrupted run (or --keep) left its data: start from nothing
    game = benchmark_game()
    stack = Stack(broker_url, Path(tempfile.mkdtemp(prefix="cardrank-afterload-")))
    nginx: Nginx | None = None
    out: dict = {"deals": deals, "players": players, "web_workers": web_workers, "clients": clients}
    out["without"] = sorted(without)
    try:
        started = time.perf_counter()
        build_history(game, deals=deals, players=players, seed=seed)
        out["build_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        ratings_replay_all(game_id=game.pk)
        out["replay_s"] = round(time.perf_counter() - started, 1)
        out["ledger_rows"] = RatingChange.objects.filter(game=game).count()
        vacuum()
        heavy = (
            RatingChange.objects.filter(game=game)
            .values("player")
            .annotate(rows=Count("id"))
            .order_by("-rows", "player")
            .first()["player"]
        )
        rng = random.Random(seed)
        sample = list(Match.objects.filter(game=game).order_by("pk").values_list("pk", flat=True)[:2000])
        pairs = []
        for match_id in rng.sample(sample, min(5, len(sample))):
            seated = list(Seat.objects.filter(match_id=match_id).order_by("position").values_list("player", flat=True))
            pairs.append((seated[0], seated[1]))
        urls = {kind: paths for kind, paths in mix_urls(game, heavy=heavy, pairs=pairs).items() if kind not in without}
        token = _referee_token()

        _production(stack, cache_url)
        stack.start_worker("ratings", queues="celery")
        stack.start_worker("admin", queues="admin", nice=ADMIN_NICE)
        stack.start_web(workers=web_workers)
        stack.start_heavy_reads()
        nginx = Nginx(gunicorn_port=stack.port, heavy_port=stack.heavy_port, key="ec")  # docs/deploy/nginx.conf
        nginx.start()
        port = nginx.https_port
        groups = {name: stack.processes[name].pid for name in ("web", "heavy", "ratings", "admin")}
        with PeakMemory(groups) as memory:
            # Steady: every page asked once (a figure never computed is asked for by its first request),
            # then every run waited for.
            started = time.monotonic()
            _run(_answer_every(port, urls))
            all_games = list(Game.objects.values_list("pk", flat=True))
            _wait(lambda: figures_settled(all_games), timeout=FIGURES_WAIT, what="the figures' first runs", stack=stack)
            out["figures_first_s"] = round(time.monotonic() - started, 1)
            steady = _run(_answer_every(port, urls))
            unsteady = {path: a.status for (kind, path), a in steady.items() if a.status != 200 or not a.complete}
            if unsteady:
                raise RuntimeError(f"pages not answering 200 in the steady state: {unsteady}")

            out["unloaded"] = answers_summary(_unloaded(port, unloaded_requests))

            answers, probe, took = _run(_load(port, urls, clients=clients, seconds=seconds))
            out["before_result"] = _loaded(answers, probe, took, steady=steady, web_workers=web_workers)

            posted_at = timezone.now()
            status, body = stack.request(
                "POST",
                "/api/matches/",
                _result_body(game, _seated(heavy, pairs)),
                {"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
            if status != 201:
                raise RuntimeError(f"the result was refused: {status} {body[:300]!r}")
            match_id = json.loads(body)["id"]
            answers, probe, took = _run(_load(port, urls, clients=clients, seconds=seconds))
            load_ended = timezone.now()
            out["after_result"] = _loaded(answers, probe, took, steady=steady, web_workers=web_workers)

            rated = Match.objects.filter(pk=match_id, status=Match.Status.RATED).exists
            _wait(rated, timeout=FIGURES_WAIT, what="the result's rating", stack=stack)
            _wait(lambda: figures_settled([game.pk]), timeout=FIGURES_WAIT, what="the figures' run", stack=stack)
            # The probe alone again, everything settled: the ratio is taken to the faster of the two baselines,
            # so a baseline slowed by the host (autovacuum after the build, a neighbour) cannot flatter it.
            out["unloaded_at_end"] = answers_summary(_unloaded(port, unloaded_requests))
        state = FigureState.objects.get(game=game)
        ran = state.finished_at is not None and state.finished_at > posted_at
        out["figures_after_result_s"] = round((state.finished_at - posted_at).total_seconds(), 1) if ran else None
        out["figures_done_during_load"] = ran and state.finished_at <= load_ended
        out["rss"] = memory.report()
        out["worker_timeouts"] = _log_count(stack, "web", "WORKER TIMEOUT")
        out["web_worker_class"] = _worker_class(stack.log("web"))
        out["web_workers_started"] = _log_count(stack, "web", "Booting worker")
        out["heavy_reads_worker_timeouts"] = _log_count(stack, "heavy", "WORKER TIMEOUT")
    finally:
        if nginx is not None:
            nginx.stop()
        stack.stop()
        if not keep:
            cleanup(game)
            get_user_model().objects.filter(username=REFEREE).delete()
    baselines = [out[name]["p95_ms"] for name in ("unloaded", "unloaded_at_end") if out.get(name, {}).get("p95_ms")]
    unloaded, loaded = (min(baselines) if baselines else None), out["after_result"]["probe"]["p95_ms"]
    out["p95_unloaded_ms"], out["p95_loaded_ms"] = unloaded, loaded
    out["ratio"] = round(loaded / unloaded, 2) if loaded and unloaded else None
    before = out["before_result"]["probe"]["p95_ms"]
    out["ratio_to_before_result"] = round(loaded / before, 2) if loaded and before else None
    loads = (out["before_result"], out["after_result"])
    out["server_errors"] = out["after_result"]["server_errors"]
    out["targets"] = {
        "ratio_at_most": TARGET_RATIO,
        "ratio_met": out["ratio"] is not None and out["ratio"] <= TARGET_RATIO,
        "server_errors_at_most": TARGET_SERVER_ERRORS,
        "server_errors_met": out["server_errors"] <= TARGET_SERVER_ERRORS,
    }
    out["connection_errors"] = sum(load["connection_errors"] for load in loads)
    out["timeouts"] = sum(load["timeouts"] for load in loads)
    out["truncated"] = sum(load["truncated"] for load in loads)
    return out


def _seated(heavy: int, pairs: list[tuple[int, int]]) -> list[int]:
    """The new result's four players: the heavy one (whose pages are in the mix), the first compared pair,
    then any others of the history."""
    chosen = [heavy]
    for pid in [*pairs[0], *Player.objects.filter(name__startswith="bench ").values_list("pk", flat=True)[:5]]:
        if pid not in chosen:
            chosen.append(pid)
    return chosen[:4]


async def _answer_every(port: int, urls: dict[str, list[str]]) -> dict[tuple[str, str], Answer]:
    return {(kind, path): await answer_get(port, path) for kind, path in _every(urls)}


def _loaded(
    answers: dict[str, list[Answer]],
    probe: list[Answer],
    took: float,
    *,
    steady: dict[tuple[str, str], Answer],
    web_workers: int,
) -> dict:
    """A load's figures: the probe's, each page kind's (with its time alone, from the steady pass), and the
    stack's throughput. ``busy_ms_per_request``: the workers' time over the requests served, what each
    costs on average; with every worker busy, a request waits about clients / workers times that."""
    everything = [a for kind in answers.values() for a in kind] + probe
    alone = {kind: _ms(max(a.seconds for (k, _), a in steady.items() if k == kind)) for kind in answers}
    pages = [
        {"page": kind, **answers_summary(kind_answers), "alone_ms": alone[kind]}
        for kind, kind_answers in answers.items()
    ]
    summary = answers_summary(everything)
    return {
        "seconds": round(took, 1),
        "served_per_s": round(len(everything) / took, 1),
        "busy_ms_per_request": _ms(web_workers * took / max(1, len(everything))),
        "probe": answers_summary(probe),
        "pages": pages,
        "server_errors": summary["server_errors"],
        "connection_errors": summary["connection_errors"],
        "truncated": summary["truncated"],
        "timeouts": summary["timeouts"],
    }
