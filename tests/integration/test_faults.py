"""Faults: a worker killed mid-stream, Redis down, PostgreSQL connections cut,
the same task run twice at once. In every case each result is rated exactly
once and the ratings equal a single-threaded replay."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone
from rest_framework.authtoken.models import Token

from leagues.models import Game
from matches.models import Match
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_replay_all
from tests.conftest import FIGURES
from tests.factories import PlayerFactory, RefereeFactory
from tests.integration.conftest import wait_ratings_settled

pytestmark = [pytest.mark.postgres, pytest.mark.services]


def snapshot():
    return (
        sorted(PlayerRating.objects.values_list("player_id", "rating", "peak_rating", "rated_matches")),
        sorted(RatingChange.objects.values_list("match_id", "unit", "player_id", "rating_before", "rating_after")),
    )


def stream(stack, count: int, clients: int, *, on_progress=None, retries: int = 0) -> tuple[list[int], list[int]]:
    """Submit ``count`` Slaps results from ``clients`` threads; returns (created ids, failed statuses)."""
    players = [player.pk for player in PlayerFactory.create_batch(12)]
    tokens = [Token.objects.create(user=RefereeFactory()).key for _ in range(clients)]
    base = timezone.now() - timedelta(days=1)
    created, failed = [], []
    lock = threading.Lock()

    def client(number: int) -> None:
        headers = {"Authorization": f"Token {tokens[number]}", "Content-Type": "application/json"}
        for index in range(number, count, clients):
            a, b = players[index % 12], players[(index * 5 + 1) % 12]
            if a == b:
                b = players[(index + 1) % 12]
            body = {"game": "slaps", "played_at": (base + timedelta(seconds=30 * index)).isoformat(),
                    "players": [a, b], "winner": a}  # fmt: skip
            # A retry carries the same Idempotency-Key: never a second copy of the result.
            keyed = {**headers, "Idempotency-Key": f"stream-{index}"}
            for _attempt in range(retries + 1):
                status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), keyed)
                if status in (200, 201):
                    break
                time.sleep(0.5)
            with lock:
                if status in (200, 201):
                    created.append(json.loads(response)["id"])
                else:
                    failed.append(status)
                if on_progress:
                    on_progress(len(created))

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(client, number) for number in range(clients)]:
            future.result()
    return created, failed


def equals_replay() -> bool:
    concurrent = snapshot()
    for game in Game.objects.all():
        ratings_replay_all(game_id=game.pk)
    return snapshot() == concurrent


def test_a_worker_killed_mid_stream_loses_nothing(fault_stack):
    fault_stack.start_worker("doomed", pool="solo")
    killed = threading.Event()

    def progress(done: int) -> None:
        if done >= 100 and not killed.is_set():
            killed.set()
            fault_stack.kill("doomed")

    created, failed = stream(fault_stack, 300, 8, on_progress=progress)
    assert killed.is_set()
    assert not failed
    assert len(created) == 300
    # Another worker comes up: unacknowledged tasks return, the sweeper catches the rest.
    fault_stack.start_worker("rescuer", pool="solo", beat=True)
    wait_ratings_settled()
    assert equals_replay()
    assert RatingChange.objects.count() == 600
    FIGURES["faults: workers SIGKILLed mid-stream"] = 1
    FIGURES["faults: results rated after a worker was killed"] = len(created)


def test_results_are_accepted_while_redis_is_down_and_rated_when_it_returns(fault_stack, private_redis):
    fault_stack.start_worker("worker", pool="solo", beat=True)
    private_redis.stop()
    created, failed = stream(fault_stack, 60, 4)
    assert not failed, "submissions are accepted without the broker"
    assert len(created) == 60
    assert set(Match.objects.filter(pk__in=created).values_list("status", flat=True)) == {"submitted"}
    private_redis.start()  # same port: the worker reconnects, beat's sweeper rates what was never queued
    wait_ratings_settled()
    assert equals_replay()
    FIGURES["faults: results accepted while Redis was down"] = len(created)


def test_postgresql_connections_cut_under_load(fault_stack):
    fault_stack.start_worker("worker", pool="solo", beat=True)
    cuts = []

    def cut(done: int) -> None:
        if done in (50, 120) and done not in cuts:
            cuts.append(done)
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()  # this client thread's own connection

    created, failed = stream(fault_stack, 200, 6, on_progress=cut, retries=3)
    assert len(cuts) == 2
    assert not failed, failed
    assert len(set(created)) == 200
    connection.close()  # the test's own connection was cut too: reconnect, as the site does
    wait_ratings_settled()
    # No result half-stored: every match has both its seats.
    seat_counts = Match.objects.annotate(n=Count("seats")).values_list("n", flat=True)
    assert set(seat_counts) == {2}
    assert Match.objects.count() == 200, "retries with the same Idempotency-Key stored nothing twice"
    assert equals_replay()
    FIGURES["faults: PostgreSQL connection cuts under load"] = len(cuts)


def test_the_same_task_twice_at_once_applies_once(transactional_db, require_postgres, slaps_world):
    from ratings.tasks import ratings_apply_match

    match_ids = slaps_world
    barrier = threading.Barrier(4)

    def run(match_id: int) -> None:
        from django.db import connection as thread_connection

        try:
            barrier.wait()
            ratings_apply_match(match_id)
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=run, args=(match_ids[-1],)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert RatingChange.objects.count() == 2 * len(match_ids)
    assert equals_replay()
    FIGURES["faults: duplicate concurrent deliveries"] = 4


@pytest.fixture
def slaps_world(reference_data):
    from tests.factories import slaps_match

    ann, bob, cid = PlayerFactory.create_batch(3)
    base = timezone.now() - timedelta(hours=5)
    return [
        slaps_match(winner=winner, loser=loser, played_at=base + timedelta(minutes=i)).pk
        for i, (winner, loser) in enumerate([(ann, bob), (bob, cid), (cid, ann), (ann, cid)])
    ]


def test_postgresql_restarted_under_load(fault_stack):
    """The real thing: the cluster restarts while results arrive; clients retry what failed."""
    import shutil
    import subprocess
    from pathlib import Path

    from tests.conftest import service_missing

    versions = sorted(Path("/etc/postgresql").glob("*")) if Path("/etc/postgresql").exists() else []
    if not shutil.which("pg_ctlcluster") or not versions:
        service_missing("pg_ctlcluster, to restart PostgreSQL")
    fault_stack.start_worker("worker", pool="solo", beat=True)
    restarts = []

    def restart(done: int) -> None:
        if done >= 60 and not restarts:
            restarts.append(done)
            subprocess.run(
                ["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1].name, "main", "restart"],
                check=True,
                timeout=120,
                capture_output=True,
            )

    created, failed = stream(fault_stack, 160, 6, on_progress=restart, retries=30)
    assert restarts
    assert not failed, failed
    assert len(set(created)) == 160
    connection.close()  # the test's own connection died with the server
    wait_ratings_settled()
    seat_counts = Match.objects.annotate(n=Count("seats")).values_list("n", flat=True)
    assert set(seat_counts) == {2}, "no result half-stored"
    assert Match.objects.count() == 160, "retries with the same Idempotency-Key stored nothing twice"
    assert equals_replay()
    FIGURES["faults: PostgreSQL restarts under load"] = len(restarts)
