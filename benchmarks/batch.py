"""The batch endpoint at its limits: how long POST /api/matches/batch/ takes to answer a full batch.

A *full batch* of a game is the largest body the endpoint takes for it: as
many results as ``BATCH_MAX`` allows, each as large as a result may be, until
the next one would pass the batch's body cap (``BATCH_MAX_BYTES``):

    slaps       Slaps results (small: the count is the limit)
    preferans   Preferans games of 4 players and 500 deals (the most a game has)
    bridge      bridge sessions of 30 boards at 8 tables (a large club's evening)

Each is sent, with a referee's token, to gunicorn started as production
starts it (``benchmarks.stack``, on the configured PostgreSQL database), with
a Celery worker rating what it stores, as a deployment's would; the time is
from the request's first byte to its answer's last, the answer checked to
be 201 with every result. The batch's own games (``benchmark-batch-…``, with
their players, "bench batch …") are deleted afterwards.

What the figures are for: the endpoint's caps are chosen so that a full
batch is answered well inside gunicorn's 30 s timeout on a host three times
slower than the one measuring (docs/api.md says which caps, and the figures).
"""

from __future__ import annotations

import json
import random
import secrets
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.utils import timezone

from benchmarks.replay import cleanup
from benchmarks.stack import Stack
from leagues.models import Game, League, Player
from matches.services import BATCH_MAX
from web.match_apis import BATCH_MAX_BYTES

PREFIX = "benchmark-batch-"
PLAYER_PREFIX = "bench batch "
SYSTEMS = {"slaps": "elo", "preferans": "preferans", "bridge": "bridge"}
DEALS = 500
BOARDS, TABLES = 30, 8
# NS scores a board can have at any vulnerability (partscores, made by either side).
PARTSCORES = (90, 110, 140, -90, -110, -140)


def _games() -> dict[str, Game]:
    games = {}
    for name, system in SYSTEMS.items():
        game, _ = Game.objects.get_or_create(
            slug=f"{PREFIX}{name}", defaults={"name": f"Benchmark batch {name}", "rating_system": system}
        )
        for tier in ("amateur", "pro"):
            League.objects.get_or_create(
                game=game, tier=tier, defaults={"slug": f"{game.slug}-{tier}", "name": f"Bench batch {tier}"}
            )
        games[name] = game
    return games


def _item(name: str, slug: str, players: list[int], index: int, rng: random.Random, start) -> dict:
    played_at = (start + timedelta(minutes=index)).isoformat()
    if name == "slaps":
        a, b = rng.sample(players, 2)
        return {"game": slug, "played_at": played_at, "players": [a, b], "winner": a}
    if name == "preferans":
        deals = []
        for _ in range(DEALS):
            a, b, c = rng.randint(-8, 8), rng.randint(-8, 8), rng.randint(-8, 8)
            deals.append([a, b, c, -a - b - c])
        return {"game": slug, "played_at": played_at, "seats": [{"player": p} for p in rng.sample(players, 4)],
                "deals": deals}  # fmt: skip
    seated = rng.sample(players, 4 * TABLES)
    tables = [seated[4 * table : 4 * table + 4] for table in range(TABLES)]
    boards = [
        {
            "number": number,
            "tables": [{"ns": four[:2], "ew": four[2:], "ns_score": rng.choice(PARTSCORES)} for four in tables],
        }
        for number in range(1, BOARDS + 1)
    ]
    return {"game": slug, "played_at": played_at, "boards": boards}


def full_batch(name: str, slug: str, players: list[int], rng: random.Random, *, max_bytes: int) -> bytes:
    """The largest batch of ``name``'s results the caps allow (module docstring), as its body."""
    start = timezone.now() - timedelta(days=30)
    items: list[str] = []
    size = len('{"matches": []}')
    while len(items) < BATCH_MAX:
        item = json.dumps(_item(name, slug, players, len(items), rng, start), separators=(",", ":"))
        if size + len(item) + 1 > max_bytes:
            break
        items.append(item)
        size += len(item) + 1
    return ('{"matches": [' + ",".join(items) + "]}").encode()


def batch_speed(*, broker_url: str, web_workers: int = 3) -> dict:
    """Time a full batch of each game through gunicorn (module docstring); ``{"skipped": ...}`` off PostgreSQL."""
    if connection.vendor != "postgresql":
        return {"skipped": "needs PostgreSQL (DATABASE_URL=postgres://...) shared by gunicorn and the worker"}
    from config.tokens import api_token_create

    rng = random.Random(25)
    for leftover in Game.objects.filter(slug__startswith=PREFIX):
        cleanup(leftover, player_prefix=f"{PLAYER_PREFIX}{leftover.slug} ")
    games = _games()
    referee = get_user_model().objects.create_user(f"bench-batch-referee-{secrets.token_hex(4)}")
    referee.groups.add(Group.objects.get(name="referees"))
    token = api_token_create(user=referee).secret
    stack = Stack(broker_url, Path(tempfile.mkdtemp(prefix="cardrank-bench-batch-")))
    stack.env.update({"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                      "DJANGO_SECURE_SSL_REDIRECT": "false", "CARDRANK_API_WRITE_RATE": "100000/min"})  # fmt: skip
    rows = []
    try:
        stack.start_worker("bench-batch")
        stack.start_web(workers=web_workers)
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        # The port opens before the workers have loaded Django (seconds each on a busy host): wait for them.
        for _ in range(2 * web_workers):
            stack.request("GET", "/api/games/", timeout=300)
        for name, game in games.items():
            # Players of the game's own (its cleanup deletes them with it).
            named = (Player(name=f"{PLAYER_PREFIX}{game.slug} {n:04d}") for n in range(200))
            players = [player.pk for player in Player.objects.bulk_create(named)]
            body = full_batch(name, game.slug, players, rng, max_bytes=BATCH_MAX_BYTES)
            count = body.count(b'"played_at"')
            # Warmed first by a batch of one of the game's results: a fresh process's first request pays
            # for loading what every later one finds ready.
            one = json.dumps({"matches": [json.loads(body)["matches"][0]]}).encode()
            status, answer = stack.request("POST", "/api/matches/batch/", one, headers, timeout=300)
            if status != 201:
                raise RuntimeError(f"{name}, one result: {status} {answer[:300]!r}")
            started = time.perf_counter()
            status, answer = stack.request("POST", "/api/matches/batch/", body, headers, timeout=300)
            seconds = time.perf_counter() - started
            if status != 201 or len(json.loads(answer)["matches"]) != count:
                raise RuntimeError(f"{name}: {status} {answer[:300]!r}")
            units = {"slaps": count, "preferans": count * DEALS, "bridge": count * BOARDS * TABLES}[name]
            rows.append({"game": name, "results": count, "units": units, "body_kb": round(len(body) / 1024, 1),
                         "answer_kb": round(len(answer) / 1024, 1), "seconds": round(seconds, 2)})  # fmt: skip
    finally:
        stack.stop()
        for game in games.values():
            cleanup(game, player_prefix=f"{PLAYER_PREFIX}{game.slug} ")
        referee.delete()
    return {"batch_max": BATCH_MAX, "batch_max_bytes": BATCH_MAX_BYTES, "web_workers": web_workers, "full": rows}
