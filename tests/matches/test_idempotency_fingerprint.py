"""Retries: ``Idempotency-Key`` with the same body returns the first match and stores nothing;
the same key with a different body is refused (422) and stores nothing (PRODUCT.md "Retries").

"The same body" is the same request once validated, i.e. the same result
stored: JSON key order and whitespace, ids given as strings, the time zone
``played_at`` is written in, defaults spelled out or left out (``"rated":
true``, the game's amateur league) and fields the API ignores do not make a
request another one. Anything that would store another result (another
winner, time, seat order, deal, league, rated flag, game) does.

Every "stores nothing" compares the content of every row of the project's
apps before and after (``tests.matches.rows``), not counts.
"""

import json
import threading
import time
from datetime import UTC, timedelta

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leagues.models import League
from matches.models import Match
from matches.services import IdempotencyKeyReused, match_submit_idempotent
from ratings.models import PlayerRating
from tests.factories import PlayerFactory, RefereeFactory
from tests.matches.rows import rows_changed, rows_snapshot

pytestmark = pytest.mark.django_db

# Whole seconds in UTC, so the same instant can be written in another zone below.
PLAYED = (timezone.now() - timedelta(days=2)).astimezone(UTC).replace(microsecond=0)
PLAYED_Z = PLAYED.strftime("%Y-%m-%dT%H:%M:%SZ")
PLAYED_PLUS_TWO = PLAYED.astimezone(timezone.get_fixed_timezone(120)).isoformat()  # the same instant at UTC+2


def post_raw(client, text: str, key: str):
    """POST a body exactly as written (key order, spacing), as a client library would send it."""
    return client.post("/api/matches/", text, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)


@pytest.fixture
def ann_bob(reference_data):
    """Two pros of Slaps: their result may be filed under the amateur league (the default) or the pro one."""
    return make_pros("slaps", PlayerFactory(name="Ann"), PlayerFactory(name="Bob"))


def make_pros(game: str, *players):
    """Players of the game's pro league, as a promotion leaves them."""
    league = League.objects.get(slug=f"{game}-pro")
    for player in players:
        PlayerRating.objects.create(player=player, game=league.game, league=league, rating=1850, peak_rating=1850)
    return players


def slaps_text(ann, bob) -> str:
    return json.dumps({"game": "slaps", "played_at": PLAYED_Z, "players": [ann.pk, bob.pk], "winner": ann.pk})


SAME_REQUEST = {
    "keys reordered, other spacing": lambda a, b: (
        f'{{ "winner" : {a},\n  "players" : [ {a} , {b} ],\t"played_at": "{PLAYED_Z}", "game": "slaps" }}'
    ),
    '"rated": true spelled out': lambda a, b: json.dumps(
        {"game": "slaps", "played_at": PLAYED_Z, "rated": True, "players": [a, b], "winner": a}
    ),
    "ids as strings": lambda a, b: json.dumps(
        {"game": "slaps", "played_at": PLAYED_Z, "players": [str(a), str(b)], "winner": str(a)}
    ),
    "the same instant at UTC+2": lambda a, b: json.dumps(
        {"game": "slaps", "played_at": PLAYED_PLUS_TWO, "players": [a, b], "winner": a}
    ),
    "the default league named": lambda a, b: json.dumps(
        {"game": "slaps", "played_at": PLAYED_Z, "players": [a, b], "winner": a, "league": "slaps-amateur"}
    ),
    "a field the API ignores": lambda a, b: json.dumps(
        {"game": "slaps", "played_at": PLAYED_Z, "players": [a, b], "winner": a, "note": "table 3"}
    ),
}


@pytest.mark.parametrize("spell", SAME_REQUEST.values(), ids=SAME_REQUEST.keys())
def test_the_same_request_spelled_otherwise_returns_the_first_match_and_stores_nothing(referee_client, ann_bob, spell):
    ann, bob = ann_bob
    first = post_raw(referee_client, slaps_text(ann, bob), "round-7")
    assert first.status_code == 201, first.content
    before = rows_snapshot()
    again = post_raw(referee_client, spell(ann.pk, bob.pk), "round-7")
    assert again.status_code == 200, again.content
    assert again.json()["id"] == first.json()["id"]
    assert rows_changed(before, rows_snapshot()) == {}


OTHER_REQUEST = {
    "the other winner": lambda a, b: {"game": "slaps", "played_at": PLAYED_Z, "players": [a, b], "winner": b},
    "another time": lambda a, b: {
        "game": "slaps",
        "played_at": (PLAYED - timedelta(minutes=1)).isoformat(),
        "players": [a, b],
        "winner": a,
    },
    "a friendly": lambda a, b: {"game": "slaps", "played_at": PLAYED_Z, "players": [a, b], "winner": a, "rated": False},
    "the seats swapped": lambda a, b: {"game": "slaps", "played_at": PLAYED_Z, "players": [b, a], "winner": a},
    "filed under the pro league": lambda a, b: {
        "game": "slaps",
        "played_at": PLAYED_Z,
        "players": [a, b],
        "winner": a,
        "league": "slaps-pro",
    },
    "another game": lambda a, b: {
        "game": "preferans",
        "played_at": PLAYED_Z,
        "seats": [{"player": a}, {"player": b}],
        "deals": [[2, -2]],
    },
}


@pytest.mark.parametrize("other", OTHER_REQUEST.values(), ids=OTHER_REQUEST.keys())
def test_the_same_key_with_another_body_is_a_422_naming_the_key_and_stores_nothing(referee_client, ann_bob, other):
    ann, bob = ann_bob
    first = post_raw(referee_client, slaps_text(ann, bob), "round-7")
    assert first.status_code == 201
    before = rows_snapshot()
    response = post_raw(referee_client, json.dumps(other(ann.pk, bob.pk)), "round-7")
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/json"
    errors = response.json()
    assert list(errors) == ["Idempotency-Key"]
    assert "'round-7' was used for another request" in errors["Idempotency-Key"][0]
    assert rows_changed(before, rows_snapshot()) == {}
    # The first body is still the key's: its retry is answered, and nothing is stored either.
    retry = post_raw(referee_client, slaps_text(ann, bob), "round-7")
    assert (retry.status_code, retry.json()["id"]) == (200, first.json()["id"])
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_bad_body_with_a_used_key_is_a_400_naming_the_field(referee_client, ann_bob):
    ann, bob = ann_bob
    assert post_raw(referee_client, slaps_text(ann, bob), "round-7").status_code == 201
    before = rows_snapshot()
    bad = {"game": "slaps", "played_at": PLAYED_Z, "players": [ann.pk, bob.pk], "winner": 10**30}
    response = post_raw(referee_client, json.dumps(bad), "round-7")
    assert response.status_code == 400
    assert list(response.json()) == ["winner"]
    assert rows_changed(before, rows_snapshot()) == {}


def test_service_preferans_and_bridge_bodies_compare_by_what_they_store(reference_data):
    """Whists 4, "4" and 4.00 are one number; a bridge pair is the same pair in either order;
    IMPs 3 and "3.00" are the same; a different deal or score is another request."""
    referee = RefereeFactory()
    a, b, c, d, e, f, g, h = (player.pk for player in PlayerFactory.create_batch(8))
    preferans = {
        "game": "preferans",
        "played_at": PLAYED_Z,
        "seats": [{"player": a}, {"bot": "normal"}, {"player": b}],
        "deals": [[4, -2.5, -1.5], [-6, 3, 3]],
    }
    match, created = match_submit_idempotent(referee=referee, data=preferans, key="pref-1")
    assert created
    before = rows_snapshot()
    spelled = {**preferans, "deals": [["4", "-2.50", -1.5], [-6.0, "3", 3.00]], "rated": "true"}
    assert match_submit_idempotent(referee=referee, data=spelled, key="pref-1") == (match, False)
    other_deal = {**preferans, "deals": [[4, -2.5, -1.5], [-6, 4, 2]]}
    with pytest.raises(IdempotencyKeyReused) as refused:
        match_submit_idempotent(referee=referee, data=other_deal, key="pref-1")
    assert "pref-1" in refused.value.message_dict["Idempotency-Key"][0]
    assert rows_changed(before, rows_snapshot()) == {}

    bridge = {
        "game": "bridge",
        "played_at": PLAYED_Z,
        "boards": [
            {
                "number": 1,
                "tables": [
                    {"ns": [a, b], "ew": [c, d], "ns_score": 420},
                    {"ns": [e, f], "ew": [g, h], "ns_score": -50},
                ],
            },
            {"number": 2, "tables": [{"ns": [a, b], "ew": [c, d], "ns_imps": 3}]},
        ],
    }
    session, created = match_submit_idempotent(referee=referee, data=bridge, key="bridge-1")
    assert created
    before = rows_snapshot()
    reversed_pairs = json.loads(json.dumps(bridge))
    reversed_pairs["boards"][0]["tables"][0]["ns"] = [b, a]
    reversed_pairs["boards"][1]["tables"][0]["ns_imps"] = "3.00"
    assert match_submit_idempotent(referee=referee, data=reversed_pairs, key="bridge-1") == (session, False)
    other_score = json.loads(json.dumps(bridge))
    other_score["boards"][0]["tables"][1]["ns_score"] = -100
    with pytest.raises(IdempotencyKeyReused):
        match_submit_idempotent(referee=referee, data=other_score, key="bridge-1")
    assert rows_changed(before, rows_snapshot()) == {}


def test_the_422_is_in_the_published_schema(client, reference_data):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    responses = schema["paths"]["/api/matches/"]["post"]["responses"]
    assert "422" in responses
    content = responses["422"]["content"]["application/json"]["schema"]
    if "$ref" in content:  # a named component or the schema written inline: clients read both alike
        content = schema["components"]["schemas"][content["$ref"].rsplit("/", 1)[-1]]
    assert "Idempotency-Key" in content["properties"]


# --- two requests racing with one key ----------------------------------------------------------


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def _race(referee, first_body, second_body, key):
    """Run two submissions with one key so that both miss each other's row at the lookup.

    The first stores its match inside a transaction held open; the second then
    looks the key up (nothing committed yet), inserts, and blocks on the unique
    (referee, key) index. Only once PostgreSQL shows it waiting on that lock
    does the first commit. Returns ({"first": ..., "second": ...}, errors),
    each outcome a (match, created) pair or the exception raised.
    """
    from django.db import transaction

    outcomes, errors = {}, []
    stored, release = threading.Event(), threading.Event()

    def first():
        try:
            with transaction.atomic():
                outcomes["first"] = match_submit_idempotent(referee=referee, data=first_body, key=key)
                stored.set()
                assert release.wait(timeout=30), "the second request never blocked on the key"
        except Exception as error:  # collected, asserted empty below
            errors.append(error)
        finally:
            stored.set()
            connection.close()

    def second():
        try:
            outcomes["second"] = match_submit_idempotent(referee=referee, data=second_body, key=key)
        except IdempotencyKeyReused as refused:
            outcomes["second"] = refused
        except Exception as error:  # collected, asserted empty below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert stored.wait(timeout=30)
    threads.append(threading.Thread(target=second))
    threads[1].start()
    deadline = time.monotonic() + 30
    while _waiting_on_a_lock() == 0:
        assert time.monotonic() < deadline, "the second request never waited on the first one's key"
        assert threads[1].is_alive(), f"the second request finished without waiting: {outcomes}, {errors}"
        time.sleep(0.05)
    release.set()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return outcomes, errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_racing_requests_with_one_key_and_different_bodies_store_one(require_postgres, reference_data):
    referee = RefereeFactory()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    base = {"game": "slaps", "played_at": PLAYED_Z, "rated": False, "players": [ann.pk, bob.pk]}
    outcomes, errors = _race(referee, {**base, "winner": ann.pk}, {**base, "winner": bob.pk}, "race-1")
    assert errors == []
    match, created = outcomes["first"]
    assert created
    assert isinstance(outcomes["second"], IdempotencyKeyReused)
    assert "race-1" in outcomes["second"].message_dict["Idempotency-Key"][0]
    stored = Match.objects.get()
    assert stored.pk == match.pk
    seats = [(seat.player_id, int(seat.result)) for seat in stored.seats.order_by("position")]
    assert seats == [(ann.pk, 1), (bob.pk, 0)]  # the first request's result
    assert list(stored.audit_entries.values_list("action", flat=True)) == ["submitted"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_racing_requests_with_one_key_and_the_same_body_store_one(require_postgres, reference_data):
    referee = RefereeFactory()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = {"game": "slaps", "played_at": PLAYED_Z, "rated": False, "players": [ann.pk, bob.pk], "winner": bob.pk}
    outcomes, errors = _race(referee, body, {**body, "players": [str(ann.pk), str(bob.pk)]}, "race-2")
    assert errors == []
    (first, created), (second, again) = outcomes["first"], outcomes["second"]
    assert (created, again) == (True, False)
    assert second.pk == first.pk
    assert list(Match.objects.values_list("pk", flat=True)) == [first.pk]


@pytest.mark.django_db(transaction=True)
def test_keys_stored_before_fingerprints_are_fingerprinted_by_the_migration(reference_data):
    """Rows keyed before 0012 have no fingerprint; the migration gives each the one of what it stores,
    so a retry of its request is still answered and another body with its key is refused."""
    from django.db.migrations.executor import MigrationExecutor

    referee = RefereeFactory()
    a, b, c, d = (player.pk for player in make_pros("bridge", *PlayerFactory.create_batch(4)))
    bodies = {
        "old-slaps": {"game": "slaps", "played_at": PLAYED_Z, "players": [a, b], "winner": b},
        "old-preferans": {
            "game": "preferans",
            "played_at": PLAYED_Z,
            "seats": [{"player": a}, {"bot": "hard"}, {"player": b}],
            "deals": [[4, -2.5, -1.5], [0, 0, 0]],
        },
        "old-bridge": {
            "game": "bridge",
            "played_at": PLAYED_Z,
            "boards": [{"number": 3, "tables": [{"ns": [b, a], "ew": [c, d], "ns_imps": -4.5}]}],
            "league": "bridge-pro",
        },
    }
    stored = {key: match_submit_idempotent(referee=referee, data=body, key=key)[0].pk for key, body in bodies.items()}
    executor = MigrationExecutor(connection)
    executor.migrate([("matches", "0010_results_version")])  # the fingerprint column goes
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # 0012 adds and fills it, 0013 requires it
    assert Match.objects.filter(idempotency_fingerprint__isnull=True).count() == 0
    before = rows_snapshot()
    for key, body in bodies.items():
        assert match_submit_idempotent(referee=referee, data=body, key=key) == (
            Match.objects.get(pk=stored[key]),
            False,
        )
    with pytest.raises(IdempotencyKeyReused):
        match_submit_idempotent(referee=referee, data={**bodies["old-slaps"], "winner": a}, key="old-slaps")
    with pytest.raises(IdempotencyKeyReused):
        match_submit_idempotent(
            referee=referee, data={**bodies["old-bridge"], "league": "bridge-amateur"}, key="old-bridge"
        )
    assert rows_changed(before, rows_snapshot()) == {}


# --- hostile retries --------------------------------------------------------------------------

HOSTILE_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["", " ", "\x00", "9" * 400, "NaN", "-0", "1e309", "slaps-pro", "slaps-amateur", "true"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    field=st.sampled_from(["game", "played_at", "rated", "league", "players", "winner", "note"]), value=HOSTILE_VALUES
)
def test_a_used_key_with_an_almost_identical_body_never_stores(referee_client, ann_bob, field, value):
    """Whatever one field becomes, a retry with a used key is answered with the first match (200,
    the same request), refused (422 naming the key, or 400 naming a field), never a 5xx, and stores nothing."""
    ann, bob = ann_bob
    first = post_raw(referee_client, slaps_text(ann, bob), "fuzz")
    assert first.status_code in (200, 201)
    before = rows_snapshot()
    body = json.loads(slaps_text(ann, bob)) | {field: value}
    response = post_raw(referee_client, json.dumps(body), "fuzz")
    assert response.status_code in (200, 400, 422), response.content[:300]
    if response.status_code == 200:
        assert response.json()["id"] == first.json()["id"]
    if response.status_code == 422:
        assert list(response.json()) == ["Idempotency-Key"]
    assert rows_changed(before, rows_snapshot()) == {}
