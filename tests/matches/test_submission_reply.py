"""A submission's reply is built from what it stored, and says exactly what reading the match back says."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import League
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

# A referee's device in another time zone: the reply, like a read, gives UTC.
PLAYED = (timezone.now() - timedelta(days=6)).astimezone(timezone.get_fixed_timezone(120)).isoformat()


def slaps_body(ids):
    return {"game": "slaps", "played_at": PLAYED, "players": ids[:2], "winner": ids[1]}


def friendly_body(ids):
    return {**slaps_body(ids), "rated": False}


def preferans_body(ids):
    seats = [{"player": ids[2]}, {"bot": "normal"}, {"player": ids[0]}]
    return {"game": "preferans", "played_at": PLAYED, "seats": seats, "deals": [[4, -2.5, -1.5], [-6, 3, 3]]}


def bridge_body(ids):
    a, b, c, d, e, f, g, h = ids
    tables = [  # given out of table order
        {"ns": [e, f], "ew": [g, h], "ns_score": -100},  # board 7, all vulnerable: one down
        {"ns": [a, b], "ew": [c, d], "ns_score": 620},  # and 4♠ making
    ]
    second = [{"ns": [a, b], "ew": [c, d], "ns_imps": 3}]
    boards = [{"number": 7, "tables": tables}, {"number": 2, "tables": second}]
    return {"game": "bridge", "played_at": PLAYED, "boards": boards, "league": "bridge-amateur"}


def confirmation_body(ids):
    return {**slaps_body(ids), "league": "slaps-amateur"}


@pytest.mark.parametrize(
    "make_body",
    [slaps_body, friendly_body, preferans_body, bridge_body, confirmation_body],
    ids=["slaps", "friendly", "preferans", "bridge in a rating period", "awaiting confirmation"],
)
def test_the_reply_to_a_submission_is_what_reading_it_back_gives(
    referee_client, make_body, django_assert_max_num_queries
):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=make_body is confirmation_body)
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=7, rating_period_anchor=(timezone.now() - timedelta(days=10)).date()
    )
    ids = [player.pk for player in PlayerFactory.create_batch(8)]
    with django_assert_max_num_queries(20) as queries:
        reply = referee_client.post("/api/matches/", make_body(ids), format="json")
    statements = [query["sql"] for query in queries.captured_queries]  # before the next request clears the log
    assert reply.status_code == 201, reply.json()
    read_back = referee_client.get(f"/api/matches/{reply.json()['id']}/")
    assert reply.json() == read_back.json()
    assert reply.json()["played_at"].endswith("Z")
    assert reply.json()["status"] in ("submitted", "friendly")
    # Nothing is read again after the status: the rest of the reply is what was just stored.
    status_read = next(
        i for i, sql in enumerate(statements) if sql.startswith('SELECT "matches_match"."id", "matches_match"."status"')
    )
    assert statements[status_read + 1 :] == []


def test_a_retried_submission_reads_its_match_back(referee_client):
    ids = [player.pk for player in PlayerFactory.create_batch(2)]
    first = referee_client.post("/api/matches/", slaps_body(ids), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = referee_client.post("/api/matches/", slaps_body(ids), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
