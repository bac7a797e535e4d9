"""Service benchmarks, against real processes: gunicorn (3 web workers by default) and a
Celery worker (1 process by default) on Redis, on the configured PostgreSQL database.

On 2 cores shared with PostgreSQL, Redis and the clients, fewer processes
measured faster (3 web workers and 1 Celery process against 4 and 2: docs/performance.md),
because every process beyond the cores only adds
switching, and two Celery processes rating one game queue on its lock.

    latency      POST a Slaps result, poll GET /api/matches/ID/ until rated
    sustained    16 clients POST results for a while; rated results per second
    pages        leaderboard (API and HTML, current/peak, first and a deep
                 page) and a profile with many rated units, under 16 clients
    entry        the Slaps and Preferans entry pages and the player search
                 (a name's start, one letter, text inside names), signed in as
                 a referee, under 16 clients: with the players searched, not
                 listed, neither grows with the players

Baseline for every HTTP figure: the round trip of GET /api/games/ (an empty
read) measured in the same run. The data lives in a game of its own
("benchmark-slaps") and is deleted afterwards.

The measured results (latency, sustained) are POSTed to the API, so they take
the write path. The pages' data does not: it is up to 100,000 players' ratings
and one player's long ledger, written straight into the tables in bulk
(``_pages_data``), because what is measured is reading them, and entering and
rating that many results one by one would take far longer than the
measures. Its matches get the audit entries the write path would give them,
in bulk, and the game's results version is raised once.
"""

from __future__ import annotations

import json
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from benchmarks.replay import audit_in_bulk, cleanup, submitted_body
from benchmarks.stack import Stack
from config.tokens import api_token_create
from leagues.models import Game, League, Player
from matches.models import Match, Seat
from matches.versions import results_version_bump
from ratings.models import PlayerRating, RatingChange

SLUG = "benchmark-slaps"
CLIENTS = 16


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _setup(players: int) -> tuple[Game, League, list[int], list[str]]:
    game, _ = Game.objects.get_or_create(slug=SLUG, defaults={"name": "Benchmark Slaps", "rating_system": "elo"})
    league, _ = League.objects.get_or_create(
        game=game, tier="amateur", defaults={"slug": f"{SLUG}-amateur", "name": "Bench Slaps amateur"}
    )
    League.objects.get_or_create(game=game, tier="pro", defaults={"slug": f"{SLUG}-pro", "name": "Bench Slaps pro"})
    roster = Player.objects.bulk_create((Player(name=f"bench slaps {n:06d}") for n in range(players)), batch_size=5000)
    group, _ = Group.objects.get_or_create(name="referees")
    User = get_user_model()
    tokens = []
    for number in range(CLIENTS):
        user, _ = User.objects.get_or_create(username=f"bench-referee-{number}")
        user.groups.add(group)
        user.api_tokens.all().delete()  # a run's tokens are shown once: the last run's cannot be read back
        tokens.append(api_token_create(user=user, name="benchmark").secret)
    return game, league, [player.pk for player in roster], tokens


def _cleanup(game: Game) -> None:
    cleanup(game, player_prefix="bench slaps ")
    get_user_model().objects.filter(username__startswith="bench-referee-").delete()


def _body(players: list[int], rng: random.Random, played_at) -> bytes:
    a, b = rng.sample(players, 2)
    return json.dumps({"game": SLUG, "played_at": played_at.isoformat(), "players": [a, b], "winner": a}).encode()


def _wait_rated(stack: Stack, match_id: int, timeout: float = 30) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, body = stack.request("GET", f"/api/matches/{match_id}/")
        if json.loads(body)["status"] == "rated":
            return time.perf_counter()
        time.sleep(0.005)
    raise TimeoutError(f"match {match_id} not rated in {timeout} s")


def _baseline(stack: Stack, count: int = 200) -> float:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        stack.request("GET", "/api/games/")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _latency(stack: Stack, players, tokens, count: int, rng) -> dict:
    headers = {"Authorization": f"Token {tokens[0]}", "Content-Type": "application/json"}
    base = timezone.now() - timedelta(days=2)
    latencies = []
    for index in range(count):
        started = time.perf_counter()
        status, body = stack.request(
            "POST", "/api/matches/", _body(players, rng, base + timedelta(minutes=index)), headers
        )
        if status != 201:
            raise RuntimeError(f"submission failed: {status} {body[:200]!r}")
        latencies.append(_wait_rated(stack, json.loads(body)["id"]) - started)
    return {"results": count, "p50_ms": _ms(statistics.median(latencies)), "p95_ms": _ms(_percentile(latencies, 0.95))}


def _sustained(stack: Stack, players, tokens, seconds: float, rng) -> dict:
    base = timezone.now() - timedelta(days=1)
    created: list[int] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    counter = iter(range(10**9))

    def client(number: int) -> None:
        local = random.Random(number)
        headers = {"Authorization": f"Token {tokens[number]}", "Content-Type": "application/json"}
        while time.monotonic() < stop:
            with lock:
                index = next(counter)
            status, body = stack.request(
                "POST", "/api/matches/", _body(players, local, base + timedelta(seconds=index)), headers
            )
            if status == 201:
                with lock:
                    created.append(json.loads(body)["id"])

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        list(pool.map(client, range(CLIENTS)))
    submitted_for = time.perf_counter() - started
    deadline = time.monotonic() + 300
    while Match.objects.filter(game__slug=SLUG, status=Match.Status.SUBMITTED).exists():
        if time.monotonic() > deadline:
            raise TimeoutError("results left unrated")
        time.sleep(0.1)
    all_rated_after = time.perf_counter() - started
    return {
        "clients": CLIENTS,
        "seconds": round(submitted_for, 1),
        "submitted": len(created),
        "submitted_per_s": round(len(created) / submitted_for, 1),
        "rated_per_s": round(len(created) / all_rated_after, 1),
    }


def _pages_data(game: Game, league: League, players: list[int], profile_units: int, rng) -> int:
    """Give every player a rating, and one player a long history; returns that player's id."""
    ratings = []
    now = timezone.now()
    for pid in players:
        rating = Decimal(rng.randint(600, 1700))
        ratings.append(
            PlayerRating(
                player_id=pid,
                game=game,
                league=league,
                rating=rating,
                peak_rating=rating + rng.randint(0, 80),
                rated_matches=rng.randint(1, 200),
                # Last rated results spread over a year (without drawing from rng: the other figures stay as they were).
                last_played_at=now - timedelta(days=pid % 365),
            )
        )
    with transaction.atomic():
        PlayerRating.objects.filter(game=game).delete()
        PlayerRating.objects.bulk_create(ratings, batch_size=5000)
        star, rival = players[0], players[1]
        base = timezone.now() - timedelta(days=400)
        matches = Match.objects.bulk_create(
            (
                Match(game=game, played_at=base + timedelta(hours=n), status=Match.Status.RATED)
                for n in range(profile_units)
            ),
            batch_size=5000,
        )
        seats, changes, bodies = [], [], []
        rating = Decimal(1000)
        for match in matches:
            seats += [
                Seat(match=match, position=1, player_id=star, result=1),
                Seat(match=match, position=2, player_id=rival, result=0),
            ]
            bodies.append((match, submitted_body(match, game, players=[star, rival], winner=star)))
            changes.append(
                RatingChange(
                    game=game,
                    match=match,
                    player_id=star,
                    unit=0,
                    played_at=match.played_at,
                    rating_before=rating,
                    rating_after=rating + 1,
                    delta=1,
                    peak_after=rating + 1,
                    rated_matches_after=1,
                    league_after=league,
                    details={"expected": 0.5, "k": 16, "score": 1, "opponent_rating": 1000},
                )
            )
            rating += 1
        Seat.objects.bulk_create(seats, batch_size=5000)
        RatingChange.objects.bulk_create(changes, batch_size=5000)
        audit_in_bulk(bodies)
        results_version_bump(game_ids=[game.pk])
    # A live database has planner statistics and visibility maps (autovacuum); right after a bulk load it
    # has neither, and the planner hash-joins all 100,000 players to fetch the seats of 20 matches.
    with connection.cursor() as cursor:
        for model in (Player, PlayerRating, Match, Seat, RatingChange):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")  # table names from the models
    return star


def _pages(stack: Stack, league: League, star: int, seconds: float, players: int) -> list[dict]:
    deep = max(1, players // 50 // 2)
    html_deep = max(1, players // 25 // 2)
    board = f"/api/leagues/{league.slug}/leaderboard/"
    urls = {
        "empty GET (baseline under the same load)": "/api/games/",
        "leaderboard API, current, page 1": f"{board}?sort=current",
        "leaderboard API, peak, page 1": f"{board}?sort=peak",
        f"leaderboard API, current, page {deep}": f"{board}?sort=current&page={deep}",
        f"leaderboard API, peak, page {deep}": f"{board}?sort=peak&page={deep}",
        "leaderboard API, search": f"{board}?sort=current&search=00042",
        "leaderboard page, current": f"/leagues/{league.slug}/?sort=current",
        "leaderboard page, peak": f"/leagues/{league.slug}/?sort=peak",
        f"leaderboard page, peak, page {html_deep}": f"/leagues/{league.slug}/?sort=peak&page={html_deep}",
        "profile (many rated units)": f"/players/{star}/",
        # The header's search for anyone (web/find_pages.py): the results page, as a visitor without JavaScript gets it.
        "find a player, a name's start": "/players/?q=bench%20slaps%2000042",
        "find a player, one letter": "/players/?q=b",
        "find a player, inside names": "/players/?q=00042",
    }
    client = Client()
    return [_measure(stack, client, name, url, seconds) for name, url in urls.items()]


def _referee_cookie(stack: Stack) -> str:
    """A signed-in referee's session cookie for the stack: its session is signed with the stack's secret."""
    client = Client()
    with override_settings(SECRET_KEY=stack.env["DJANGO_SECRET_KEY"]):
        client.force_login(get_user_model().objects.get(username="bench-referee-0"))
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _entry(stack: Stack, seconds: float) -> list[dict]:
    """The entry pages and the player search, measured as ``_pages`` measures the public pages."""
    search = f"/players/search/?game={SLUG}&name=player_a&q="
    urls = {
        "entry page, Slaps": f"/results/{SLUG}/",
        "entry page, Preferans": "/results/preferans/",
        "player search, a name's start": search + "bench%20slaps%2000042",
        "player search, one letter": search + "b",
        "player search, inside names": search + "00042",
    }
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-referee-0"))
    cookie = _referee_cookie(stack)
    return [_measure(stack, client, name, url, seconds, cookie=cookie) for name, url in urls.items()]


def _measure(stack: Stack, client: Client, name: str, url: str, seconds: float, *, cookie: str = "") -> dict:
    with CaptureQueriesContext(connection) as cold:
        client.get(url)
    with CaptureQueriesContext(connection) as warm:
        client.get(url)
    # The clients share the machine with gunicorn and PostgreSQL: their own CPU per request says how much.
    client_cpu = time.process_time()
    times, served = stack.hammer(url, clients=CLIENTS, seconds=seconds, cookie=cookie)
    client_cpu = time.process_time() - client_cpu
    if not times:
        raise RuntimeError(f"{name}: no 200 answer from {url}")
    return {
        "page": name,
        "requests_per_s": round(len(times) / seconds, 1),
        "p50_ms": _ms(statistics.median(times)),
        "p95_ms": _ms(_percentile(times, 0.95)),
        "queries": len(cold),
        "queries_warm": len(warm),
        "client_cpu_ms_per_request": round(client_cpu * 1000 / max(1, served), 2),
    }


def _production_settings(stack: Stack, broker_url: str) -> None:
    """Run the stack as docs/operations.md's deployment does: no debug, hashed static files, a shared Redis cache,
    persistent database connections. Only the API write rate is lifted, for the load itself."""
    cache_url = urlsplit(broker_url)._replace(path="/13").geturl()
    # A fresh deployment's cache: this process wrote the synthetic game with its own (per-process) cache,
    # so nothing kept by an earlier run's stack (the games, under their stamp: games/setup.py) may stay.
    redis.Redis.from_url(cache_url).flushdb()
    stack.env.update(
        {
            "DJANGO_DEBUG": "false",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_SECURE_SSL_REDIRECT": "false",  # Plain HTTP on localhost; a proxy terminates TLS in production.
            "CACHE_URL": cache_url,
            "DATABASE_CONN_MAX_AGE": "60",
            "CARDRANK_API_WRITE_RATE": "100000/min",
        }
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=settings.BASE_DIR,
        env=stack.env,
        check=True,
    )


def service_benchmarks(
    *,
    broker_url: str,
    web_workers: int = 3,
    worker_processes: int = 1,
    latency_results: int,
    sustain_seconds: float,
    players: int,
    profile_units: int,
    page_seconds: float,
    sections: frozenset[str] = frozenset({"submissions", "pages"}),
) -> dict:
    """Measure the stack: the ``sections`` among "submissions" (latency and sustained load) and "pages"."""
    if connection.vendor != "postgresql":
        return {"skipped": "needs PostgreSQL (DATABASE_URL=postgres://...) shared by gunicorn and the worker"}
    rng = random.Random(9)
    game, league, roster, tokens = _setup(players)
    stack = Stack(broker_url, Path(tempfile.mkdtemp(prefix="cardrank-bench-")))
    _production_settings(stack, broker_url)
    try:
        stack.start_worker("bench", concurrency=worker_processes)
        stack.start_web(workers=web_workers)
        baseline = _baseline(stack)
        latency = sustained = None
        pages = []
        if "submissions" in sections:
            latency = _latency(stack, roster, tokens, latency_results, rng)
            sustained = _sustained(stack, roster, tokens, sustain_seconds, rng)
        if "pages" in sections:
            star = _pages_data(game, league, roster, profile_units, rng)
            pages = _pages(stack, league, star, page_seconds, players)
            pages += _entry(stack, page_seconds)
    finally:
        stack.stop()
        _cleanup(game)
    if latency is not None:
        latency["p95_to_baseline"] = round(latency["p95_ms"] / _ms(baseline), 1)
    loaded = next((row["p95_ms"] for row in pages if row["page"].startswith("empty GET")), None)
    for row in pages:
        row["p95_to_baseline"] = round(row["p95_ms"] / _ms(baseline), 1)
        if loaded:  # the entry pages' target: p95 within 2x the empty GET under the same 16 clients
            row["p95_to_loaded_empty"] = round(row["p95_ms"] / loaded, 2)
    measures = {"latency": latency, "sustained": sustained} if latency is not None else {}
    if "pages" in sections:
        measures["pages"] = pages
    return {
        "web_workers": web_workers,
        "worker_processes": worker_processes,
        "baseline_get_ms": _ms(baseline),
        **measures,
        "players": players,
        "profile_units": profile_units,
    }
