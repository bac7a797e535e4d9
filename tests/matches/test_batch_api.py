"""``POST /api/matches/batch/``: many results in one request, all or none, errors by item, safe to retry.

Expected ratings are hand calculations (seed 000's Elo, K = 32 for new
players), never read from the engine.
"""

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from matches.models import AuditEntry, Match, Seat
from matches.services import BATCH_MAX
from ratings.models import PlayerRating, RatingChange
from tests.conftest import api_for
from tests.factories import PlayerFactory, UserFactory, bridge_session_body
from web.match_apis import BATCH_MAX_BYTES

pytestmark = pytest.mark.django_db

URL = "/api/matches/batch/"


def at(hours: int) -> str:
    return (timezone.now() - timedelta(hours=hours)).isoformat()


def slaps(a, b, *, hours: int, winner=None, **more) -> dict:
    return {"game": "slaps", "played_at": at(hours), "players": [a.pk, b.pk], "winner": (winner or a).pk, **more}


def nothing_stored() -> bool:
    return not (Match.objects.exists() or Seat.objects.exists() or RatingChange.objects.exists())


def post(client, data, **headers):
    return client.post(URL, data, format="json", headers=headers)


def test_a_batch_of_every_game_is_stored_and_rated_once_committed(referee_client, django_capture_on_commit_callbacks):
    players = PlayerFactory.create_batch(8)
    ann, bob, cleo = players[:3]
    items = [
        slaps(ann, bob, hours=5),  # Ann 1000 -> 1016, Bob 1000 -> 984 (E = 0.5, K = 32)
        slaps(ann, cleo, hours=4),  # Ann 1016 vs Cleo 1000: E = 1/(1+10^(-16/400)) = 0.5230, 1016 + 32*0.4770 = 1031.3
        {
            "game": "preferans",
            "played_at": at(3),
            "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}],
            "deals": [[4, -2, -2]],
        },
        bridge_session_body([p.pk for p in players], timezone.now() - timedelta(hours=2), [(420, -50)]),
    ]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(referee_client, {"matches": items})
    assert response.status_code == 201, response.json()
    answer = response.json()["matches"]
    assert [match["game"] for match in answer] == ["slaps", "slaps", "preferans", "bridge"]
    ids = [match["id"] for match in answer]
    assert list(Match.objects.filter(pk__in=ids).values_list("status", flat=True)) == ["rated"] * 4
    # One rating task per game, not one per result, the kept figures' run each game's new ratings ask for, and
    # one "results rated" signal per game's run (ratings.signals: the apps above hear the batch once a game).
    assert len(callbacks) == 9
    slaps_ann = PlayerRating.objects.get(player=ann, game__slug="slaps")
    assert (slaps_ann.rating, slaps_ann.rated_matches) == (1031, 2)
    assert PlayerRating.objects.get(player=bob, game__slug="slaps").rating == 984
    assert AuditEntry.objects.filter(action=AuditEntry.Action.SUBMITTED).count() == 4
    heads = Match.objects.filter(batch_head__isnull=True)
    assert heads.count() == 1  # the others point to the batch's first match
    assert Match.objects.filter(batch_head=heads.get()).count() == 3


def test_one_bad_item_stores_nothing_and_is_named_by_its_index(referee_client):
    ann, bob = PlayerFactory.create_batch(2)
    items = [slaps(ann, bob, hours=5), slaps(ann, bob, hours=4), slaps(ann, bob, hours=3, winner=PlayerFactory())]
    items[1]["players"] = [ann.pk, ann.pk]
    response = post(referee_client, {"matches": items})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert set(errors) == {"1", "2"}
    assert "players" in errors["1"]
    assert "winner" in errors["2"]
    assert nothing_stored()
    assert not AuditEntry.objects.exists()


def test_an_item_refused_only_when_stored_rolls_back_the_others(referee_client, django_capture_on_commit_callbacks):
    """Items are cleaned one by one before any is stored; an item the store refuses still undoes the rest."""
    ann, bob = PlayerFactory.create_batch(2)
    items = [slaps(ann, bob, hours=5), "not a body", {"game": "slaps"}]
    response = post(referee_client, {"matches": items})
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"1", "2"}
    assert nothing_stored()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"matches": {"game": "slaps"}}, "matches"),
        ({"matches": "slaps"}, "matches"),
        ({"matches": []}, "matches"),
        ({}, "matches"),
        ({"matches": None}, "matches"),
        ([{"game": "slaps"}], "non_field_errors"),
        ("matches", "non_field_errors"),
    ],
)
def test_a_body_that_is_not_a_list_of_items_is_refused(referee_client, data, field):
    response = post(referee_client, data)
    assert response.status_code == 400
    assert field in response.json()
    assert nothing_stored()


def test_nested_garbage_is_refused_item_by_item(referee_client):
    deep: object = [1]
    for _ in range(20):
        deep = {"x": deep}
    items = [{"game": ["slaps"]}, {"game": "slaps", "players": {"a": 1}, "winner": [1]}, 7, None, [[]], deep]
    response = post(referee_client, {"matches": items})
    assert response.status_code == 400, response.content
    body = response.json()
    assert "errors" in body or "detail" in body  # JSON nested too deep is refused as a whole
    if "errors" in body:
        assert set(body["errors"]) == {str(index) for index in range(len(items))}
    assert nothing_stored()


def test_the_limits_are_the_documented_ones():
    """docs/api.md: at most 100 results and 65,536 bytes a batch (measured: a full batch is answered well
    inside gunicorn's 30 s on a host three times slower than the measuring one)."""
    assert (BATCH_MAX, BATCH_MAX_BYTES) == (100, 65_536)


def test_more_items_than_the_limit_are_refused_before_any_is_read(referee_client):
    ann, bob = PlayerFactory.create_batch(2)
    item = slaps(ann, bob, hours=1)
    response = referee_client.post(URL, json.dumps({"matches": [item] * 101}), content_type="application/json")
    assert response.status_code == 400, response.content
    assert "At most 100" in response.json()["matches"][0]
    assert nothing_stored()


def padded(items: list[dict], size: int) -> str:
    """The batch's JSON, padded with spaces (which JSON ignores) to exactly ``size`` bytes."""
    text = json.dumps({"matches": items})
    return text[:-1] + " " * (size - len(text)) + "}"


def test_a_body_over_the_batch_cap_is_refused_and_one_at_it_is_taken(
    referee_client, django_capture_on_commit_callbacks
):
    """64 KiB a batch, far under the general 1 MiB: two valid results padded one byte past it are refused
    (413 naming the cap, nothing stored); the same padded to the cap are stored."""
    ann, bob = PlayerFactory.create_batch(2)
    items = [slaps(ann, bob, hours=2), slaps(ann, bob, hours=1, winner=bob)]
    over = referee_client.post(URL, padded(items, 65_537), content_type="application/json")
    assert over.status_code == 413, over.content
    assert "65,536 bytes" in over.json()["detail"]
    assert nothing_stored()
    with django_capture_on_commit_callbacks(execute=True):
        at_cap = referee_client.post(URL, padded(items, 65_536), content_type="application/json")
    assert at_cap.status_code == 201, at_cap.content
    assert Match.objects.count() == 2


def test_the_limit_itself_is_accepted(referee_client):
    players = PlayerFactory.create_batch(2)
    items = [slaps(*players, hours=1 + n % 50, rated=False) for n in range(BATCH_MAX)]
    response = post(referee_client, {"matches": items})
    assert response.status_code == 201
    assert Match.objects.count() == BATCH_MAX


def test_a_retry_with_the_same_key_returns_the_stored_matches(referee_client, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory.create_batch(2)
    items = [slaps(ann, bob, hours=3), slaps(ann, bob, hours=2, winner=bob)]
    with django_capture_on_commit_callbacks(execute=True):
        first = post(referee_client, {"matches": items}, **{"Idempotency-Key": "evening-1"})
    assert first.status_code == 201
    # The same items, written differently: ids as text, key order, the zone of played_at.
    again_items = [
        {**item, "players": [str(pk) for pk in item["players"]], "played_at": _in_zone(item["played_at"])}
        for item in items
    ]
    again = post(referee_client, {"matches": again_items}, **{"Idempotency-Key": "evening-1"})
    assert again.status_code == 200, again.json()
    assert [m["id"] for m in again.json()["matches"]] == [m["id"] for m in first.json()["matches"]]
    assert Match.objects.count() == 2
    assert RatingChange.objects.count() == 4


def _in_zone(text: str) -> str:
    return datetime.fromisoformat(text).astimezone(ZoneInfo("Europe/Ljubljana")).isoformat()


def test_the_same_key_with_other_items_is_422_and_stores_nothing(referee_client):
    ann, bob = PlayerFactory.create_batch(2)
    items = [slaps(ann, bob, hours=3), slaps(ann, bob, hours=2)]
    assert post(referee_client, {"matches": items}, **{"Idempotency-Key": "k"}).status_code == 201
    other = post(referee_client, {"matches": items[:1]}, **{"Idempotency-Key": "k"})
    assert other.status_code == 422
    assert "was used for another request" in other.json()["Idempotency-Key"][0]
    single = referee_client.post("/api/matches/", items[0], format="json", headers={"Idempotency-Key": "k"})
    assert single.status_code == 422  # one key, one request: a single submission cannot reuse a batch's
    assert Match.objects.count() == 2


def test_a_key_a_single_submission_used_is_refused_for_a_batch(referee_client):
    ann, bob = PlayerFactory.create_batch(2)
    item = slaps(ann, bob, hours=3)
    assert (
        referee_client.post("/api/matches/", item, format="json", headers={"Idempotency-Key": "s"}).status_code == 201
    )
    response = post(referee_client, {"matches": [item]}, **{"Idempotency-Key": "s"})
    assert response.status_code == 422
    assert Match.objects.count() == 1


def test_only_referees_submit_batches(anon_client, reference_data):
    ann, bob = PlayerFactory.create_batch(2)
    data = {"matches": [slaps(ann, bob, hours=1)]}
    assert post(anon_client, data).status_code == 401
    assert post(api_for(UserFactory()), data).status_code == 403
    assert nothing_stored()


def test_admin_shows_a_batched_match_without_listing_every_match(referee_client, client, admin_user):
    ann, bob = PlayerFactory.create_batch(2)
    answer = post(referee_client, {"matches": [slaps(ann, bob, hours=3), slaps(ann, bob, hours=2)]}).json()
    client.force_login(admin_user)
    page = client.get(f"/admin/matches/match/{answer['matches'][1]['id']}/change/")
    assert page.status_code == 200
    assert 'name="batch_head"' not in page.content.decode()  # read-only: no select of every match
