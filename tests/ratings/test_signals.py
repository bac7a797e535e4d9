"""The signals the lower apps send to the apps above them (ratings.signals, matches.signals): each once,
after the commit, with what happened, and never for a replay's re-rating."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from leagues.models import Game, League
from matches.signals import result_awaits_confirmation, result_disputed
from ratings.lists import rating_list_publish
from ratings.models import RatingList
from ratings.signals import rating_list_published, results_rated
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    """Every send of the four signals, as (name, kwargs without the signal and sender)."""
    calls = []
    receivers = []
    for name, signal in (
        ("rated", results_rated),
        ("list", rating_list_published),
        ("disputed", result_disputed),
        ("awaits", result_awaits_confirmation),
    ):

        def receiver(sender, signal=None, name=name, **kwargs):
            calls.append((name, kwargs))

        signal.connect(receiver, weak=False)
        receivers.append((signal, receiver))
    yield calls
    for signal, receiver in receivers:
        signal.disconnect(receiver)


def body(winner, loser, hours=1):
    played_at = (timezone.now() - timedelta(hours=hours)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [winner.pk, loser.pk], "winner": winner.pk}


def test_a_result_is_heard_once_when_first_rated_and_not_on_a_replay(
    reference_data, heard, django_capture_on_commit_callbacks
):
    referee, ann, bob = RefereeFactory(), PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        later = api_for(referee).post("/api/matches/", body(ann, bob, hours=1), format="json").json()
    assert heard == [("rated", {"game_id": Game.objects.get(slug="slaps").pk, "match_ids": [later["id"]]})]
    heard.clear()
    with django_capture_on_commit_callbacks(execute=True):  # played earlier: the later one is re-rated too
        earlier = api_for(referee).post("/api/matches/", body(bob, ann, hours=5), format="json").json()
    assert heard == [("rated", {"game_id": Game.objects.get(slug="slaps").pk, "match_ids": [earlier["id"]]})]


def test_a_refused_result_is_not_heard(reference_data, heard, django_capture_on_commit_callbacks):
    ann = PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_for(RefereeFactory()).post("/api/matches/", body(ann, ann), format="json")
    assert answer.status_code == 400
    assert heard == []


def test_waiting_and_disputed_results_are_heard(reference_data, heard, django_capture_on_commit_callbacks):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    first, second, ann, bob = RefereeFactory(), RefereeFactory(), PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        created = api_for(first).post("/api/matches/", body(ann, bob), format="json").json()
    assert heard == [("awaits", {"match_id": created["id"]})]
    heard.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_for(second).post(f"/api/matches/{created['id']}/dispute/", {"note": "Wrong winner"}, format="json")
    assert answer.status_code == 200, answer.content
    assert heard == [("disputed", {"match_id": created["id"], "by_id": second.pk})]


def test_a_published_list_is_heard_once(reference_data, heard, django_capture_on_commit_callbacks):
    game = Game.objects.get(slug="slaps")
    day = date.today() - timedelta(days=2)
    with django_capture_on_commit_callbacks(execute=True):
        rating_list_publish(game=game, day=day)
        rating_list_publish(game=game, day=day)  # the same day again: a no-op, not heard
    assert heard == [("list", {"rating_list_id": RatingList.objects.get(game=game, day=day).pk})]
