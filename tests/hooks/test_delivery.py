"""Events reach a real HTTP receiver (tests/hooks/conftest.py) signed, once, and only where they are wanted;
a failing receiver is retried with back-off, then given up; a hanging one delays nobody."""

import datetime
import hashlib
import hmac
import json
import time
from datetime import date, timedelta

import pytest
from django.utils import timezone

from hooks import receivers, sending
from hooks.models import WebhookDelivery
from hooks.services import deliveries_sweep, delivery_attempt, delivery_claim, webhook_ping
from leagues.models import Game, League, Season, SeasonStanding
from leagues.signals import season_closed
from matches.models import Match
from ratings.lists import rating_list_publish
from ratings.models import RatingList
from ratings.signals import rating_list_published, results_rated
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, slaps_match
from tests.hooks.conftest import SECRET

pytestmark = pytest.mark.django_db


def slaps_body(winner, loser, hours=1):
    played_at = (timezone.now() - timedelta(hours=hours)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [winner.pk, loser.pk], "winner": winner.pk}


def enter(referee, body, capture):
    with capture(execute=True):
        answer = api_for(referee).post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def verified(request) -> dict:
    """The body, after checking the signature as a receiver does (docs/webhooks.md), with hmac of its own."""
    timestamp = request.headers["X-Cardrank-Timestamp"]
    expected = hmac.new(SECRET.encode(), timestamp.encode() + b"." + request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["X-Cardrank-Signature"], "sha256=" + expected)
    assert abs(time.time() - int(timestamp)) < 60
    return json.loads(request.body.decode("utf-8"))


def test_a_rated_result_reaches_the_receiver_signed(settings, receiver, webhook_to, django_capture_on_commit_callbacks):
    settings.CARDRANK_SITE_URL = "https://ranks.example.org"
    webhook = webhook_to()
    referee, ann, bob = RefereeFactory(), PlayerFactory(name="Ann Äkerlund"), PlayerFactory(name="Bob")
    created = enter(referee, slaps_body(ann, bob), django_capture_on_commit_callbacks)

    assert len(receiver.requests) == 1
    request = receiver.requests[0]
    assert request.path == "/hooks/cardrank"
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert request.headers["User-Agent"] == "Cardrank-Webhooks/1"
    assert request.headers["X-Cardrank-Event"] == "result.rated"
    delivery = WebhookDelivery.objects.get()
    assert request.headers["X-Cardrank-Delivery"] == str(delivery.uuid)
    body = verified(request)
    assert "Äkerlund".encode() in request.body  # UTF-8, not escaped
    assert body["event"] == "result.rated"
    assert body["id"] == str(delivery.uuid)
    assert body["created"].endswith("Z")
    slaps = Game.objects.get(slug="slaps")
    assert body["data"]["game"] == {"id": slaps.pk, "slug": "slaps", "name": "Slaps"}
    assert (body["data"]["part"], body["data"]["parts"]) == (1, 1)
    (result,) = body["data"]["results"]
    assert result["id"] == created["id"]
    assert result["url"] == f"https://ranks.example.org/matches/{created['id']}/"
    assert result["league"]["slug"] == "slaps-amateur"
    assert result["league"]["url"] == "https://ranks.example.org/leagues/slaps-amateur/"
    # Both start at 1000; K 32, expected score one half: the winner gains 16 (seed 000).
    assert [(p["id"], p["name"], p["rating"], p["change"]) for p in result["players"]] == [
        (ann.pk, "Ann Äkerlund", "1016.00", "16.00"),
        (bob.pk, "Bob", "984.00", "-16.00"),
    ]
    assert result["players"][0]["url"] == f"https://ranks.example.org/players/{ann.pk}/"
    assert body["text"].startswith("Slaps: 1 result rated.")
    assert "Ann Äkerlund 1016 (+16), Bob 984 (-16)" in body["text"]
    assert body["content"] == body["text"]  # what Discord shows

    delivery.refresh_from_db()
    assert delivery.webhook == webhook
    assert delivery.delivered_at is not None
    assert delivery.next_attempt_at is None
    assert (delivery.attempts, delivery.last_status_code, delivery.last_error) == (1, 200, "")


def test_a_published_list_reaches_the_receiver(receiver, webhook_to, django_capture_on_commit_callbacks):
    webhook_to()
    slaps = Game.objects.get(slug="slaps")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    played = timezone.now() - timedelta(days=3)
    with django_capture_on_commit_callbacks(execute=True):
        slaps_match(winner=ann, loser=bob, played_at=played)
        day = timezone.localdate() - timedelta(days=1)
        published = rating_list_publish(game=slaps, day=day)
    lists = [verified(r) for r in receiver.requests if r.headers["X-Cardrank-Event"] == "list.published"]
    assert len(lists) == 1
    data = lists[0]["data"]
    assert data["date"] == day.isoformat()
    assert data["version"] == 1
    assert data["players"] == 2
    assert data["url"] == f"http://127.0.0.1:8000/games/slaps/lists/{day.isoformat()}/"
    assert [(row["rank"], row["player"]["name"], row["rating"], row["new"]) for row in data["top"]] == [
        (1, "Ann", "1016.00", True),
        (2, "Bob", "984.00", True),
    ]
    assert lists[0]["text"].startswith(f"Slaps rating list of {day.isoformat()} published: 2 players.")
    assert published.rating_list.pk  # the list the event is about


def test_a_closed_season_reaches_its_leagues_webhook(receiver, webhook_to, django_capture_on_commit_callbacks):
    amateur = League.objects.get(slug="slaps-amateur")
    webhook_to("Amateurs", league=amateur)
    webhook_to("Pros", league=League.objects.get(slug="slaps-pro"))
    season = Season.objects.create(
        league=amateur, name="Autumn", first_day=date(2026, 9, 1), last_day=date(2026, 11, 30)
    )
    SeasonStanding.objects.create(season=season, rank=1, player_id=7, name="Ann", points=12, results=8, won=6)
    SeasonStanding.objects.create(season=season, rank=2, player_id=8, name="Bob", points=9, results=8, won=4)
    with django_capture_on_commit_callbacks(execute=True):
        season_closed.send_robust(sender=Season, season_id=season.pk)
    (request,) = receiver.requests
    body = verified(request)
    assert body["event"] == "season.closed"
    assert body["data"]["season"]["name"] == "Autumn"
    assert body["data"]["league"]["slug"] == "slaps-amateur"
    assert [(line["rank"], line["player"]["name"], line["points"]) for line in body["data"]["standings"]] == [
        (1, "Ann", "12.00"),
        (2, "Bob", "9.00"),
    ]
    assert "Champion: Ann." in body["text"]
    assert WebhookDelivery.objects.get().webhook.name == "Amateurs"


def test_a_test_event(receiver, webhook_to, django_capture_on_commit_callbacks):
    webhook = webhook_to(active=False)  # asked for by an admin: sent even to an inactive webhook
    with django_capture_on_commit_callbacks(execute=True):
        delivery = webhook_ping(webhook=webhook, by="admin")
    (request,) = receiver.requests
    assert request.headers["X-Cardrank-Event"] == "ping"
    body = verified(request)
    assert (body["event"], body["id"], body["data"]) == (
        "ping",
        str(delivery.uuid),
        {"webhook": "Club chat", "by": "admin"},
    )
    delivery.refresh_from_db()
    assert delivery.delivered_at is not None


def test_a_failing_receiver_is_retried_with_back_off_and_then_delivered(
    receiver, webhook_to, django_capture_on_commit_callbacks
):
    webhook = webhook_to()
    receiver.answers.extend([500, 200])
    with django_capture_on_commit_callbacks(execute=True):
        delivery = webhook_ping(webhook=webhook)
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code, delivery.delivered_at) == (1, 500, None)
    assert delivery.last_error == "HTTP 500 Internal Server Error"
    waited = delivery.next_attempt_at - timezone.now()
    assert timedelta(seconds=50) < waited <= timedelta(minutes=1)

    assert deliveries_sweep() == 0  # not due yet: nothing sent
    assert len(receiver.requests) == 1
    assert deliveries_sweep(now=delivery.next_attempt_at) == 1  # a minute later, as beat runs it
    delivery.refresh_from_db()
    assert len(receiver.requests) == 2
    assert (delivery.attempts, delivery.last_status_code, delivery.next_attempt_at) == (2, 200, None)
    assert delivery.delivered_at is not None
    assert [entry["status"] for entry in delivery.history] == [500, 200]
    # The same body both times: the receiver can tell a retry by its delivery id.
    assert receiver.requests[0].body == receiver.requests[1].body
    assert deliveries_sweep(now=timezone.now() + timedelta(days=1)) == 0


def test_a_receiver_that_keeps_failing_is_given_up_after_six_attempts(
    receiver, webhook_to, django_capture_on_commit_callbacks
):
    webhook = webhook_to()
    receiver.answers.extend([503] * 10)
    with django_capture_on_commit_callbacks(execute=True):
        delivery = webhook_ping(webhook=webhook)
    waits = []
    for _ in range(5):
        delivery.refresh_from_db()
        waits.append(delivery.next_attempt_at - timezone.now())
        assert delivery_attempt(delivery_id=delivery.pk, due_by=delivery.next_attempt_at) is not None
    delivery.refresh_from_db()
    assert [round(wait / timedelta(minutes=1)) for wait in waits] == [1, 5, 30, 120, 720]
    assert (delivery.attempts, delivery.next_attempt_at, delivery.delivered_at) == (6, None, None)
    assert delivery.status == "given up"
    assert delivery_attempt(delivery_id=delivery.pk, due_by=timezone.now() + timedelta(days=30)) is None
    assert len(receiver.requests) == 6


def test_a_redirect_is_not_followed(receiver, webhook_to, django_capture_on_commit_callbacks):
    receiver.answers.append(302)
    with django_capture_on_commit_callbacks(execute=True):
        delivery = webhook_ping(webhook=webhook_to())
    delivery.refresh_from_db()
    assert (delivery.last_status_code, delivery.delivered_at) == (302, None)
    assert len(receiver.requests) == 1


def test_one_delivery_is_never_sent_twice_at_once(receiver, webhook_to, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # recorded, not yet queued
        delivery = webhook_ping(webhook=webhook_to())
    seen_due = timezone.now()
    first = delivery_claim(delivery_id=delivery.pk, due_by=seen_due)
    second = delivery_claim(delivery_id=delivery.pk, due_by=seen_due)  # a second task, or the sweep's
    assert first is not None
    assert second is None
    assert first.attempts == 1


def test_the_same_signal_twice_stores_one_delivery(receiver, webhook_to, django_capture_on_commit_callbacks):
    webhook_to()
    slaps = Game.objects.get(slug="slaps")
    match = slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
    with django_capture_on_commit_callbacks(execute=True):  # rates the result (heard) and publishes (heard)
        rating_list = rating_list_publish(game=slaps, day=timezone.localdate() - timedelta(days=1)).rating_list
    assert sorted(WebhookDelivery.objects.values_list("event", flat=True)) == ["list.published", "result.rated"]
    with django_capture_on_commit_callbacks(execute=True):  # both heard again, as a duplicated send would
        results_rated.send_robust(sender=Match, game_id=slaps.pk, match_ids=[match.pk])
        rating_list_published.send_robust(sender=type(rating_list), rating_list_id=rating_list.pk)
    assert sorted(WebhookDelivery.objects.values_list("event", flat=True)) == ["list.published", "result.rated"]
    assert len(receiver.requests) == 2


def test_webhooks_of_other_leagues_and_inactive_ones_get_nothing(
    receiver, webhook_to, django_capture_on_commit_callbacks
):
    webhook_to("Pros only", league=League.objects.get(slug="slaps-pro"))
    webhook_to("Bridge club", league=League.objects.get(slug="bridge-amateur"))
    webhook_to("Switched off", active=False)
    webhook_to("Lists only", on_result_rated=False, on_season_closed=False)
    amateurs = webhook_to("Amateurs", league=League.objects.get(slug="slaps-amateur"))
    enter(RefereeFactory(), slaps_body(PlayerFactory(), PlayerFactory()), django_capture_on_commit_callbacks)
    assert [d.webhook for d in WebhookDelivery.objects.select_related("webhook")] == [amateurs]
    assert len(receiver.requests) == 1


def test_an_import_becomes_events_of_a_hundred_results(receiver, webhook_to, django_capture_on_commit_callbacks):
    webhook = webhook_to()
    slaps = Game.objects.get(slug="slaps")
    amateur = League.objects.get(slug="slaps-amateur")
    played = timezone.now() - timedelta(days=1)
    matches = Match.objects.bulk_create(
        Match(game=slaps, league=amateur, played_at=played + timedelta(seconds=i), status="rated") for i in range(250)
    )
    ids = [match.pk for match in matches]
    with django_capture_on_commit_callbacks(execute=True):
        results_rated.send_robust(sender=Match, game_id=slaps.pk, match_ids=ids)
    bodies = [verified(request)["data"] for request in receiver.requests]
    assert [len(data["results"]) for data in bodies] == [100, 100, 50]
    assert [(data["part"], data["parts"]) for data in bodies] == [(1, 3), (2, 3), (3, 3)]
    assert [result["id"] for data in bodies for result in data["results"]] == ids
    assert WebhookDelivery.objects.filter(webhook=webhook).count() == 3


def test_no_active_webhook_costs_one_small_query(django_assert_num_queries, reference_data):
    slaps = Game.objects.get(slug="slaps")
    with django_assert_num_queries(1):  # this app's receiver alone (other apps listen to the signal too)
        receivers.results_rated(Match, game_id=slaps.pk, match_ids=list(range(1, 5000)))
    with django_assert_num_queries(1):
        receivers.rating_list_published(RatingList, rating_list_id=1)


def test_with_a_shared_cache_the_receivers_ask_no_query_until_a_webhook_changes(
    settings, tmp_path, django_assert_num_queries, webhook_to, django_capture_on_commit_callbacks
):
    from django.core.cache import cache

    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(tmp_path)}
    }
    cache.clear()
    slaps = Game.objects.get(slug="slaps")
    match = slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
    receivers.results_rated(Match, game_id=slaps.pk, match_ids=[match.pk])  # reads and keeps: no webhook
    with django_assert_num_queries(0):
        receivers.results_rated(Match, game_id=slaps.pk, match_ids=[match.pk])
    with django_capture_on_commit_callbacks(execute=True):
        webhook_to()  # saving a webhook renews what was kept
        receivers.results_rated(Match, game_id=slaps.pk, match_ids=[match.pk])
    assert WebhookDelivery.objects.filter(event="result.rated").count() == 1


def test_a_hanging_receiver_delays_no_request(receiver, webhook_to, django_capture_on_commit_callbacks, monkeypatch):
    """The request that rates a result records the delivery and leaves its sending to a task queued after the
    commit: under eager Celery (this test) the task runs when the commit's callbacks do, after the answer;
    with a broker, on a worker. A receiver that never answers costs the task ``TIMEOUT``, then a retry."""
    monkeypatch.setattr(sending, "TIMEOUT", 1)
    receiver.delay = 5
    webhook_to()
    referee, ann, bob = RefereeFactory(), PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=False) as request_callbacks:
        started = time.monotonic()
        answer = api_for(referee).post("/api/matches/", slaps_body(ann, bob), format="json")
        answered_in = time.monotonic() - started
    assert answer.status_code == 201
    assert answered_in < 1
    assert receiver.requests == []
    # The rating run, as a worker runs it after the request's commit: it hears results_rated and queues
    # the delivery after its own commit; nothing is posted inside it.
    with django_capture_on_commit_callbacks(execute=False) as rating_callbacks:
        for callback in request_callbacks:
            callback()
    with django_capture_on_commit_callbacks(execute=False) as hook_callbacks:
        for callback in rating_callbacks:
            callback()
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempts == 0
    assert receiver.requests == []
    assert len(hook_callbacks) == 1  # the send, queued for after the commit
    started = time.monotonic()
    hook_callbacks[0]()  # the task, as the worker runs it
    took = time.monotonic() - started
    assert receiver.arrived.is_set()
    assert 0.9 < took < 3
    delivery.refresh_from_db()
    assert delivery.delivered_at is None
    assert delivery.last_status_code is None
    assert "timed out" in delivery.last_error
    assert delivery.next_attempt_at > timezone.now() + datetime.timedelta(seconds=50)
