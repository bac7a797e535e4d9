"""Kept figures through the real stack (issue 25): gunicorn answers "being computed" without computing, and the
real Celery worker, on the admin queue, computes and keeps the figures after a result is rated."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import PlayerFactory, RefereeFactory, api_token_for
from tests.integration.conftest import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.services]


def _drift(stack) -> tuple[int, dict]:
    status, body = stack.request("GET", "/api/games/slaps/drift/?period=month")
    return status, json.loads(body)


def test_a_rated_result_has_its_figures_computed_by_the_admin_queue(stack):
    token = api_token_for(RefereeFactory())
    ann, bob = PlayerFactory.create_batch(2)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def post(minutes: int, winner) -> None:
        body = {
            "game": "slaps",
            "played_at": (timezone.now() - timedelta(days=1, minutes=-minutes)).isoformat(),
            "players": [ann.pk, bob.pk],
            "winner": winner.pk,
        }
        status, answer = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
        assert status == 201, answer

    post(0, ann)
    # The rating asks for the figures; the worker computes them on the admin queue, gunicorn never does.
    status, first = wait_until(
        lambda: (answer := _drift(stack))[0] == 200 and answer, timeout=60, what="the drift computed"
    )
    assert first["computing"] is False
    assert first["points"][-1]["active_players"] == 2
    assert "ratings.tasks.figures_compute" in stack.log("worker")
    status, page = stack.request("GET", "/quality/slaps/")
    assert status == 200
    assert "As of" in page.decode()

    post(1, bob)
    later = wait_until(
        lambda: (answer := _drift(stack)[1])["as_of"] > first["as_of"] and answer,
        timeout=60,
        what="the drift computed again after the second result",
    )
    assert later["points"][-1]["active_players"] == 2
