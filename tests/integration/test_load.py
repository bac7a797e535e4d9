"""Many referees at once: 2,000 results of all three games from 16 concurrent
clients at gunicorn (2 web workers) with 2 Celery worker processes, while an
admin voids and corrects results mid-stream. Afterwards every player rating
(rating, peak, count, league), every ledger row (rating before and after,
delta, count, peak, league after) and every promotion equals the oracle's
(``ledger_expected``: the independent oracle, ``tests/oracle``, replaying the
bodies the test submitted with its corrections and voids; never the service's
own replay).

Figures are measured: voids and corrections are counted from the audit log
(what the server applied, not what the test asked for), and each is written
before the assertion that checks it.
"""

import json
import random
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games.bridge.scoring import plausible_result
from matches.models import AuditEntry, Match
from ratings.models import RatingChange
from tests.conftest import FIGURES
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, api_token_for, bridge_session_body
from tests.integration.conftest import (
    History,
    ledger_expected,
    ledger_rows_differing,
    ledger_rows_shown,
    ledger_snapshot,
    run_threads,
    wait_ratings_settled,
)

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
            # Two boards, each table a result the board can have at its vulnerability (the cleaner refuses others).
            scores = [tuple(plausible_result(rng, number)[3] for _table in range(2)) for number in (1, 2)]
            bodies.append(bridge_session_body(ids, played_at, scores))
    return bodies


ADMIN_ACTIONS = 40


def audited(action: str) -> int:
    """Actions the server applied: each void and correction writes its audit entry in its own transaction."""
    return AuditEntry.objects.filter(action=action).count()


@pytest.mark.timeout(1800)  # 2,000 results and two settles of up to 300 s each, on a slow CI host
def test_two_thousand_results_from_sixteen_clients_equal_the_oracle(stack):
    stack.start_worker("second")  # two worker processes rate concurrently
    rng = random.Random(5)
    players = [player.pk for player in PlayerFactory.create_batch(40)]
    tokens = [api_token_for(RefereeFactory()) for _ in range(CLIENTS)]
    admin_token = api_token_for(AdminFactory())
    bodies = plan(players, rng)
    created: list[int] = []
    failures: list[str] = []
    history = History()
    lock = threading.Lock()

    def client(number: int) -> None:
        headers = {"Authorization": f"Token {tokens[number]}", "Content-Type": "application/json"}
        for body in bodies[number::CLIENTS]:
            status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
            with lock:
                if status == 201:
                    created.append(json.loads(response)["id"])
                    history.submitted[created[-1]] = body
                else:
                    failures.append(f"{status}: {response[:200]!r}")

    def admin() -> None:
        """Voids and corrections while results are being rated."""
        headers = {"Authorization": f"Token {admin_token}", "Content-Type": "application/json"}
        done = 0
        deadline = time.monotonic() + 600
        while done < ADMIN_ACTIONS:
            assert time.monotonic() < deadline, f"the admin managed {done} of {ADMIN_ACTIONS} actions in 600 s"
            time.sleep(0.2)
            with lock:
                candidates = list(created)
            if len(candidates) < 100:
                continue
            target = rng.choice(candidates[:-50])
            if target in history.voided or target in history.corrected:
                continue  # one action per match, so the audit log's count is the actions' count
            if done % 2:
                status, _ = stack.request("POST", f"/api/matches/{target}/void/", b"", headers)
                if status == 200:
                    with lock:
                        history.voided.add(target)
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
                if status == 200:
                    with lock:
                        history.corrected[target] = correction
            assert status == 200
            done += 1

    started = time.monotonic()
    run_threads([lambda number=number: client(number) for number in range(CLIENTS)] + [admin], timeout=900)
    submitted_in = time.monotonic() - started
    FIGURES.update(
        {
            "results submitted (201)": len(created),
            "concurrent clients": CLIENTS,
            "web workers": 2,
            "celery worker processes": 2,
            "voids applied mid-stream (audit log)": audited(AuditEntry.Action.VOIDED),
            "corrections applied mid-stream (audit log)": audited(AuditEntry.Action.CORRECTED),
            "submission time (s)": round(submitted_in, 1),
        }
    )
    assert not failures, failures[:5]
    assert len(created) == RESULTS

    wait_ratings_settled(timeout=300)
    rated_in = time.monotonic() - started
    FIGURES["all rated after (s)"] = round(rated_in, 1)
    # An admin's void after everything is rated: the worker replays most of the game's history.
    late_void = Match.objects.filter(game__slug="preferans", status="rated").order_by("played_at", "id")[5]
    status, _ = stack.request(
        "POST", f"/api/matches/{late_void.pk}/void/", b"", {"Authorization": f"Token {admin_token}"}
    )
    assert status == 200
    history.voided.add(late_void.pk)
    wait_ratings_settled(timeout=300)
    assert not RatingChange.objects.filter(match=late_void).exists()

    voids, corrections = audited(AuditEntry.Action.VOIDED), audited(AuditEntry.Action.CORRECTED)
    concurrent = ledger_snapshot()
    expected = ledger_expected(history=history)
    differing = ledger_rows_differing(concurrent, expected)
    FIGURES.update(
        {
            "voids applied after all were rated": voids - FIGURES["voids applied mid-stream (audit log)"],
            "ledger rows stored / expected by the oracle": f"{len(concurrent[1])} / {len(expected[1])}",
            "player ratings stored / expected by the oracle": f"{len(concurrent[0])} / {len(expected[0])}",
            "rows differing from the oracle's ledger (lost, doubled or wrong)": differing,
        }
    )
    assert (voids, corrections) == (len(history.voided), len(history.corrected))
    assert voids + corrections == ADMIN_ACTIONS + 1
    assert differing == 0, ledger_rows_shown(concurrent, expected)
    assert Match.objects.filter(status="rated").count() + Match.objects.filter(status="void").count() == RESULTS
