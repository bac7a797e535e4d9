"""With real processes: gunicorn answers the API, one Celery worker rates (the ``celery`` queue) and another
sends webhooks (the ``admin`` queue), on PostgreSQL and Redis. A receiver that hangs past the send's
timeout delays neither the request that entered a result nor the rating of the next one."""

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from benchmarks.stack import Stack
from hooks.models import WebhookDelivery
from matches.models import Match
from tests.conftest import needs
from tests.factories import PlayerFactory, RefereeFactory, api_token_for, reference_data_ensure

pytestmark = [pytest.mark.postgres, pytest.mark.services]


@pytest.fixture
@needs("services")
def two_workers(transactional_db, require_postgres, require_redis, tmp_path):
    import redis

    redis.Redis.from_url(require_redis).flushdb()
    reference_data_ensure()
    stack = Stack(require_redis, tmp_path)
    try:
        stack.start_worker("ratings", queues="celery")
        stack.start_worker("admin", queues="admin")
        stack.start_web()
        yield stack
    finally:
        stack.stop()


def wait_for(condition, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} not within {timeout} s"
        time.sleep(0.1)
    return found


def test_a_hanging_receiver_delays_no_request_and_no_rating(two_workers, receiver, webhook_to):
    stack = two_workers
    receiver.delay = 14  # past the sender's 10 s timeout
    webhook_to()
    headers = {"Authorization": f"Token {api_token_for(RefereeFactory())}", "Content-Type": "application/json"}
    ann, bob = PlayerFactory(), PlayerFactory()

    def enter(winner, loser, minutes):
        body = {
            "game": "slaps",
            "played_at": (timezone.now() - timedelta(minutes=minutes)).isoformat(),
            "players": [winner.pk, loser.pk],
            "winner": winner.pk,
        }
        started = time.monotonic()
        status, answer = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
        assert status == 201, answer
        return json.loads(answer)["id"], time.monotonic() - started

    for _ in range(4):  # each gunicorn worker's first answer loads what it lazily imports
        assert stack.request("GET", "/api/games/")[0] == 200
    _first, first_took = enter(ann, bob, 30)
    assert first_took < 3, first_took
    receiver.arrived.wait(30)
    assert receiver.arrived.is_set(), stack.log("admin")  # the admin worker is now waiting on the receiver
    hung_at = time.monotonic()

    second, second_took = enter(bob, ann, 20)
    assert second_took < 3, second_took
    wait_for(lambda: Match.objects.get(pk=second).status == "rated", timeout=8, what="the second result rated")
    assert time.monotonic() - hung_at < 9  # rated while the first delivery still hung

    delivery = wait_for(
        lambda: WebhookDelivery.objects.filter(last_error__icontains="timed out").first(),
        timeout=30,
        what="the hanging delivery's timeout",
    )
    assert delivery.delivered_at is None
    assert delivery.attempts == 1
    assert delivery.next_attempt_at > timezone.now()
    assert "hooks.tasks.webhook_deliver[" in stack.log("admin")  # a task run, not the banner's list
    assert "hooks.tasks.webhook_deliver[" not in stack.log("ratings")
