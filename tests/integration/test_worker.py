"""Submit through the real API (gunicorn) and see a real Celery worker rate it.

The expected ratings are the independent oracle's (tests/oracle) replay of the stored results, never an
engine's ``rate`` or the service's own replay."""

import json
import time
from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from leagues.models import Game
from matches.models import Match
from tests.factories import PlayerFactory, RefereeFactory, api_token_for, bridge_session_body
from tests.integration.conftest import wait_until
from tests.oracle_db import assert_ledger_is_the_oracles, oracle_outcome_from_db

pytestmark = [pytest.mark.postgres, pytest.mark.services]


def poll_until_rated(stack, match_id: int, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _status, body = stack.request("GET", f"/api/matches/{match_id}/")
        data = json.loads(body)
        if data["status"] == "rated":
            return data
        time.sleep(0.1)
    raise AssertionError(f"match {match_id} not rated in {timeout}s: {data}\n{stack.log('worker')}")


def test_worker_rates_results_submitted_through_the_api(stack):
    token = api_token_for(RefereeFactory())
    players = PlayerFactory.create_batch(4)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    base = timezone.now() - timedelta(days=1)
    # Submitted out of played order: the third arrives late and forces a replay.
    plan = [(0, 1, 0, 10), (2, 3, 2, 20), (1, 2, 1, 5), (3, 0, 0, 30)]
    ids = []
    for a, b, winner, minutes in plan:
        body = {
            "game": "slaps",
            "played_at": (base + timedelta(minutes=minutes)).isoformat(),
            "players": [players[a].pk, players[b].pk],
            "winner": players[winner].pk,
        }
        status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
        assert status == 201, response
        created = json.loads(response)
        assert created["status"] in ("submitted", "rated")
        ids.append(created["id"])
    rated = [poll_until_rated(stack, match_id) for match_id in ids]
    assert "ratings.tasks.ratings_apply_match" in stack.log("worker")

    # Every ledger row is the independent oracle's replay of the stored results in played order (not the
    # engine's), and the API shows the oracle's standings.
    slaps = Game.objects.get(slug="slaps")
    assert assert_ledger_is_the_oracles(game=slaps) == 8
    standings = oracle_outcome_from_db(game=slaps).standings
    for player in players:
        status, body = stack.request("GET", f"/api/players/{player.pk}/")
        [rating] = json.loads(body)["ratings"]
        assert rating["rating"] == standings[player.pk].rating
        assert rating["rated_matches"] == standings[player.pk].rated_matches
    assert all(row["rating_changes"] for row in rated)
    assert Match.objects.filter(status="rated").count() == 4


def test_bad_input_through_the_real_server_stores_nothing(stack):
    token = api_token_for(RefereeFactory())
    ann = PlayerFactory()
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    body = {"game": "slaps", "played_at": "2026-01-01T10:00:00Z", "players": [ann.pk, ann.pk], "winner": ann.pk}
    status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
    assert status == 400
    assert "players" in json.loads(response)
    status, _ = stack.request("POST", "/api/matches/", b"{", headers)
    assert status == 400
    assert not Match.objects.exists()


def test_worker_rates_a_preferans_game_deal_by_deal(stack):
    token = api_token_for(RefereeFactory())
    ann, bob, cid = PlayerFactory.create_batch(3)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    deals = [[4, -2, -2, 0], [-6, 3, 3, 0], [1.5, 2.5, -1, -3], [-10, 4, 4, 2], [0, 0, 0, 0]]
    body = {
        "game": "preferans",
        "played_at": (timezone.now() - timedelta(hours=1)).isoformat(),
        "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}, {"player": cid.pk}],
        "deals": deals,
    }
    status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
    assert status == 201, response
    rated = poll_until_rated(stack, json.loads(response)["id"])

    # Every deal's row is the independent oracle's (tests/oracle), and so is each player's game total.
    preferans = Game.objects.get(slug="preferans")
    assert assert_ledger_is_the_oracles(game=preferans) == 5 * 3
    final = {player: standing.rating for player, standing in oracle_outcome_from_db(game=preferans).standings.items()}
    assert {row["player"]: Fraction(str(row["rating_after"])) for row in rated["rating_changes"]} == final


def test_worker_rates_a_bridge_session_like_the_oracle(stack):
    token = api_token_for(RefereeFactory())
    ids = [player.pk for player in PlayerFactory.create_batch(8)]
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    scores = [(420, -50), (-100, 140), (620, 620), (-1430, 100)]
    body = bridge_session_body(ids, timezone.now() - timedelta(hours=2), scores)
    status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
    assert status == 201, response
    poll_until_rated(stack, json.loads(response)["id"])

    bridge = Game.objects.get(slug="bridge")
    assert assert_ledger_is_the_oracles(game=bridge) == 4 * 8
    standings = oracle_outcome_from_db(game=bridge).standings
    for pid in ids:
        status, body = stack.request("GET", f"/api/players/{pid}/")
        [rating] = json.loads(body)["ratings"]
        assert Fraction(str(rating["rating"])) == standings[pid].rating


def test_a_rating_period_league_waits_for_its_close_then_rates_everything(stack):
    from celery import Celery

    from leagues.models import League
    from ratings.models import RatingChange

    league = League.objects.get(slug="bridge-amateur")
    league.rating_period_days = 3
    league.rating_period_anchor = (timezone.now() - timedelta(days=1)).date()
    league.save()
    token = api_token_for(RefereeFactory())
    ids = [player.pk for player in PlayerFactory.create_batch(8)]
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    start, end = league.period_bounds(timezone.now())
    created = []
    for offset, scores in ((1, [(420, -50)]), (2, [(-600, 100), (140, 110)])):
        played_at = max(start, timezone.now() - timedelta(hours=3)) + timedelta(minutes=offset)
        body = bridge_session_body(ids, played_at, scores, league="bridge-amateur")
        status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
        assert status == 201, response
        data = json.loads(response)
        assert data["status"] == "submitted"
        assert parse_datetime(data["rated_after"]) == end
        created.append(data["id"])

    # Not the current app: that would stay the test process's own after this test, and services that
    # queue through celery.current_app (eager in tests) would send to its broker instead.
    producer = Celery(broker=stack.broker_url, set_as_current=False)
    # The worker handles the submissions' tasks, and a sweep of closed periods: nothing is due yet.
    producer.send_task("ratings.tasks.ratings_close_periods")
    # "received" and "succeeded": the worker has run the sweep (and found nothing due).
    wait_until(
        lambda: stack.log("worker").count("ratings_close_periods") >= 2, timeout=60, what="the worker to run the sweep"
    )
    assert not RatingChange.objects.exists()
    assert set(Match.objects.filter(pk__in=created).values_list("status", flat=True)) == {"submitted"}

    # The period closes (moved into the past, as the clock would): one beat tick rates both at once.
    Match.objects.filter(pk__in=created).update(due_at=timezone.now() - timedelta(seconds=1))
    producer.send_task("ratings.tasks.ratings_close_periods")
    rated = [poll_until_rated(stack, match_id) for match_id in created]
    assert all(row["status"] == "rated" for row in rated)
    periods = set(RatingChange.objects.values_list("details__period_rating", flat=True))
    assert periods == {1000.0}, "every board of the period was computed from the ratings at its start"
    assert RatingChange.objects.count() == 8 * 3
    # And every row is the oracle's, as of the period's end (the oracle holds results back until then).
    assert assert_ledger_is_the_oracles(game=league.game, now=end) == 8 * 3
    producer.close()
