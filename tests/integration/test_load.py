"""Many referees at once: 2,000 results of all three games from 16 concurrent
clients at gunicorn (2 web workers) with 2 Celery worker processes, while an
admin voids and corrects results mid-stream. Afterwards every rating, peak,
count and ledger row equals a single-threaded replay in (played_at, id) order.
"""

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from leagues.models import Game
from matches.models import Match
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_replay_all
from tests.conftest import FIGURES
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, bridge_session_body
from tests.integration.conftest import wait_ratings_settled

pytestmark = [pytest.mark.postgres, pytest.mark.services]

RESULTS = 2000
CLIENTS = 16


def plan(players: list[int], rng: random.Random) -> list[dict]:
    base = timezone.now() - timedelta(days=3)
    bodies = []
    for index in range(RESULTS):
        played_at = base + timedelta(seconds=60 * index)
        if rng.random() < 0.05:  # a late result: played hours before results already in
            played_at -= timedelta(minutes=rng.randint(30, 600))
        kind = rng.random()
        if kind < 0.7:
            a, b = rng.sample(players, 2)
            bodies.append({"game": "slaps", "played_at": played_at.isoformat(), "players": [a, b], "winner": a})
        elif kind < 0.9:
            humans = rng.sample(players, rng.choice([2, 3]))
            seats = [{"player": pid} for pid in humans] + ([{"bot": "normal"}] if len(humans) == 2 else [])
            deals = []
            for _ in range(rng.randint(2, 4)):
                first, second = rng.randint(-8, 8), rng.randint(-8, 8)
                deals.append([first, second, -first - second])
            bodies.append({"game": "preferans", "played_at": played_at.isoformat(), "seats": seats, "deals": deals})
        else:
            ids = rng.sample(players, 8)
            scores = [(rng.choice([420, -50, 140, -100, 620]), rng.choice([420, -50, 110, 170])) for _ in range(2)]
            bodies.append(bridge_session_body(ids, played_at, scores))
    return bodies


def snapshot():
    ratings = sorted(
        PlayerRating.objects.values_list("game_id", "player_id", "rating", "peak_rating", "rated_matches", "league_id")
    )
    ledger = sorted(
        RatingChange.objects.values_list(
            "match_id", "unit", "player_id", "rating_before", "rating_after", "peak_after", "rated_matches_after"
        )
    )
    return ratings, ledger


def test_two_thousand_results_from_sixteen_clients_equal_the_replay(stack):
    stack.start_worker("second")  # two worker processes rate concurrently
    rng = random.Random(5)
    players = [player.pk for player in PlayerFactory.create_batch(40)]
    tokens = [Token.objects.create(user=RefereeFactory()).key for _ in range(CLIENTS)]
    admin_token = Token.objects.create(user=AdminFactory()).key
    bodies = plan(players, rng)
    created: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        headers = {"Authorization": f"Token {tokens[number]}", "Content-Type": "application/json"}
        for body in bodies[number::CLIENTS]:
            status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
            with lock:
                if status == 201:
                    created.append(json.loads(response)["id"])
                else:
                    failures.append(f"{status}: {response[:200]!r}")

    def admin() -> None:
        """Voids and corrections while results are being rated."""
        headers = {"Authorization": f"Token {admin_token}", "Content-Type": "application/json"}
        done = 0
        while done < 40:
            time.sleep(0.2)
            with lock:
                candidates = list(created)
            if len(candidates) < 100:
                continue
            target = rng.choice(candidates[:-50])
            if done % 2:
                status, _ = stack.request("POST", f"/api/matches/{target}/void/", b"", headers)
            else:
                status, body = stack.request("GET", f"/api/matches/{target}/")
                data = json.loads(body)
                if data["game"] != "slaps" or data["status"] == "void":
                    continue
                loser = next(p["id"] for p in data["players"] if p["id"] != data["winner"])
                correction = {"game": "slaps", "played_at": data["played_at"], "players": [data["winner"], loser],
                              "winner": loser}  # fmt: skip
                status, _ = stack.request(
                    "POST", f"/api/matches/{target}/correct/", json.dumps(correction).encode(), headers
                )
            assert status == 200
            done += 1

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=CLIENTS + 1) as pool:
        futures = [pool.submit(client, number) for number in range(CLIENTS)] + [pool.submit(admin)]
        for future in futures:
            future.result()
    submitted_in = time.monotonic() - started
    assert not failures, failures[:5]
    assert len(created) == RESULTS

    wait_ratings_settled(timeout=300)
    rated_in = time.monotonic() - started
    # An admin's void after everything is rated: the worker replays most of the game's history.
    late_void = Match.objects.filter(game__slug="preferans", status="rated").order_by("played_at", "id")[5]
    status, _ = stack.request(
        "POST", f"/api/matches/{late_void.pk}/void/", b"", {"Authorization": f"Token {admin_token}"}
    )
    assert status == 200
    wait_ratings_settled(timeout=300)
    assert not RatingChange.objects.filter(match=late_void).exists()

    concurrent = snapshot()
    for game in Game.objects.all():
        ratings_replay_all(game_id=game.pk)
    replayed = snapshot()
    lost = len(set(replayed[1]) ^ set(concurrent[1]))
    assert concurrent == replayed, "concurrent rating equals a single-threaded replay"
    assert Match.objects.filter(status="rated").count() + Match.objects.filter(status="void").count() == RESULTS
    FIGURES.update(
        {
            "results submitted": RESULTS,
            "concurrent clients": CLIENTS,
            "web workers": 2,
            "celery worker processes": 2,
            "voids and corrections mid-stream": 40,
            "voids after all were rated": 1,
            "submission time (s)": round(submitted_in, 1),
            "all rated after (s)": round(rated_in, 1),
            "ledger rows": len(concurrent[1]),
            "rows differing from the replay (lost or doubled)": lost,
        }
    )
