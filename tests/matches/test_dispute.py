"""Disputing a waiting result (Tabbycat: a ballot the adjudication core must look at), and the menu's count.

A referee other than the author of the waiting version may dispute it with a
note (``matches.confirmation.match_dispute``): the result stays unrated, leaves
the "to confirm" list for its "disputed" section, cannot be confirmed, and waits
for an admin, whose correction (the result then waits for confirmation again) or
void ends the dispute; the note is in the audit log and on the match's admin
page. Every refusal is a clear 400 that changes nothing. Expected messages and
ratings are written here by hand (seed 000 for Slaps: 1000 v 1000, K = 32).
"""

import threading
import time
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leagues.models import League
from matches.confirmation import match_confirm, match_dispute
from matches.models import AuditEntry, Match, ResultsVersion
from matches.selectors import matches_to_confirm
from ratings.models import PlayerRating, RatingChange
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, UserFactory

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)
NOTE = "Bob won this one: the sheet says so."


def slaps(winner, loser, **extra) -> dict:
    return {
        "game": "slaps",
        "played_at": PLAYED.isoformat(),
        "players": [winner.pk, loser.pk],
        "winner": winner.pk,
    } | extra


def audit(match_id: int) -> list[str]:
    return list(AuditEntry.objects.filter(match_id=match_id).order_by("id").values_list("action", flat=True))


def dispute_fields(match_id: int) -> tuple:
    match = Match.objects.get(pk=match_id)
    return match.disputed_at is not None, match.disputed_by_id, match.dispute_note


def pages_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


@pytest.fixture
def waiting(two_step):
    """A Slaps result entered by ``first``, waiting for a second referee."""
    first, second = RefereeFactory(username="first"), RefereeFactory(username="second", first_name="Sam")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    match_id = api_for(first).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
    assert Match.objects.get(pk=match_id).awaiting_confirmation
    return {"first": first, "second": second, "ann": ann, "bob": bob, "match_id": match_id}


# --- the service and the API --------------------------------------------------------------------


def test_a_second_referee_disputes_a_waiting_result_with_a_note(waiting):
    match_id, second = waiting["match_id"], waiting["second"]
    version_before = ResultsVersion.objects.get(game__slug="slaps").version

    answer = api_for(second).post(f"/api/matches/{match_id}/dispute/", {"note": NOTE}, format="json")

    assert answer.status_code == 200
    body = answer.json()
    assert (body["status"], body["awaiting_confirmation"], body["disputed_by"]) == ("submitted", True, "Sam")
    assert body["rating_changes"] == []
    assert dispute_fields(match_id) == (True, second.pk, NOTE)
    assert audit(match_id) == ["submitted", "disputed"]
    entry = AuditEntry.objects.get(match_id=match_id, action="disputed")
    assert (entry.actor_id, entry.data) == (second.pk, {"note": NOTE})
    assert ResultsVersion.objects.get(game__slug="slaps").version == version_before + 1
    assert not RatingChange.objects.exists()

    # It cannot be confirmed now, by anyone, and a second dispute is refused: nothing changes.
    for who in (second, RefereeFactory()):
        refused = api_for(who).post(f"/api/matches/{match_id}/confirm/")
        assert refused.status_code == 400
        assert refused.json() == {
            "non_field_errors": ["This result is disputed: it waits for an admin to correct or void it."]
        }
    again = api_for(RefereeFactory()).post(f"/api/matches/{match_id}/dispute/", {"note": "Me too."}, format="json")
    assert again.status_code == 400
    assert again.json() == {"non_field_errors": ["This result is already disputed: it waits for an admin."]}
    assert audit(match_id) == ["submitted", "disputed"]
    assert dispute_fields(match_id) == (True, second.pk, NOTE)
    assert Match.objects.get(pk=match_id).status == "submitted"


TEN_KB = "x" * 10_240

HOSTILE_NOTES = {
    "empty": ("", "Say what is wrong with the result: a note is required to dispute it."),
    "spaces only": ("  \n\t ", "Say what is wrong with the result: a note is required to dispute it."),
    "null": (None, "Say what is wrong with the result: a note is required to dispute it."),
    "a number": (42, "Say what is wrong with the result: a note is required to dispute it."),
    "a list": (["wrong"], "Say what is wrong with the result: a note is required to dispute it."),
    "10 KB": (TEN_KB, "At most 1000 characters; this note has 10240."),
    "1001 characters": ("y" * 1001, "At most 1000 characters; this note has 1001."),
    "a NUL": ("Bob\x00won", "The note contains control, formatting (such as bidirectional) or unassigned characters."),
    "an escape sequence": (
        "\x1b[31mwrong\x1b[0m",
        "The note contains control, formatting (such as bidirectional) or unassigned characters.",
    ),
    "a bidirectional override": (
        "score \u202e01-3",
        "The note contains control, formatting (such as bidirectional) or unassigned characters.",
    ),
    "a lone surrogate's neighbour, private use": (
        "see \ue000",
        "The note contains control, formatting (such as bidirectional) or unassigned characters.",
    ),
}


@pytest.mark.parametrize(("note", "message"), HOSTILE_NOTES.values(), ids=HOSTILE_NOTES.keys())
def test_a_bad_note_is_refused_and_changes_nothing(waiting, note, message):
    match_id = waiting["match_id"]
    version_before = ResultsVersion.objects.get(game__slug="slaps").version

    refused = api_for(waiting["second"]).post(f"/api/matches/{match_id}/dispute/", {"note": note}, format="json")

    assert refused.status_code == 400
    assert refused.json() == {"note": [message]}
    assert dispute_fields(match_id) == (False, None, "")
    assert audit(match_id) == ["submitted"]
    assert ResultsVersion.objects.get(game__slug="slaps").version == version_before
    # Still waiting, and still confirmable.
    assert api_for(waiting["second"]).post(f"/api/matches/{match_id}/confirm/").status_code == 200


@pytest.mark.parametrize(
    ("note", "stored"),
    [
        ("z" * 1000, "z" * 1000),  # the longest note
        ("  Deal 4 twice.\r\nBob won.  ", "Deal 4 twice.\nBob won."),  # trimmed, one kind of line break
        ("Wrong \U0001f468\u200d\U0001f469\u200d\U0001f467 table",) * 2,
        ("Cafe\u0301 table", "Caf\u00e9 table"),  # NFC, as names are stored
    ],
    ids=["1000 characters", "line breaks", "an emoji with joiners", "combining accent"],
)
def test_a_good_note_is_stored_as_written(waiting, note, stored):
    match = match_dispute(match_id=waiting["match_id"], by=waiting["second"], note=note)
    assert Match.objects.get(pk=match.pk).dispute_note == stored
    assert AuditEntry.objects.get(match=match, action="disputed").data == {"note": stored}


def test_the_author_cannot_dispute_their_own_result(waiting):
    match_id = waiting["match_id"]
    own = api_for(waiting["first"]).post(f"/api/matches/{match_id}/dispute/", {"note": NOTE}, format="json")
    assert own.status_code == 400
    assert own.json() == {
        "non_field_errors": ["A second referee disputes a result: you entered (or corrected) this one."]
    }
    assert dispute_fields(match_id) == (False, None, "")
    assert audit(match_id) == ["submitted"]


def test_only_a_waiting_result_can_be_disputed(waiting, admin_user, django_capture_on_commit_callbacks):
    second = waiting["second"]
    only_waiting = {
        "non_field_errors": [
            "Only a result waiting for confirmation can be disputed; ask an admin to correct this one."
        ]
    }
    # Confirmed, then rated.
    confirmed_id = waiting["match_id"]
    with django_capture_on_commit_callbacks(execute=True):
        assert api_for(second).post(f"/api/matches/{confirmed_id}/confirm/").status_code == 200
    assert Match.objects.get(pk=confirmed_id).status == "rated"
    # A friendly, and a result of a league without the setting (rated at once).
    cid, dee = PlayerFactory(), PlayerFactory()
    friendly_id = api_for(waiting["first"]).post("/api/matches/", slaps(cid, dee, rated=False), format="json").json()
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=False)
    with django_capture_on_commit_callbacks(execute=True):
        at_once = api_for(waiting["first"]).post("/api/matches/", slaps(dee, cid), format="json").json()
    assert Match.objects.get(pk=at_once["id"]).status == "rated"
    for match_id in (confirmed_id, friendly_id["id"], at_once["id"]):
        refused = api_for(second).post(f"/api/matches/{match_id}/dispute/", {"note": NOTE}, format="json")
        assert refused.status_code == 400
        assert refused.json() == only_waiting
        assert dispute_fields(match_id) == (False, None, "")
    # Voided while waiting.
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    void_id = api_for(waiting["first"]).post("/api/matches/", slaps(cid, dee), format="json").json()["id"]
    assert api_for(admin_user).post(f"/api/matches/{void_id}/void/").status_code == 200
    refused = api_for(second).post(f"/api/matches/{void_id}/dispute/", {"note": NOTE}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"non_field_errors": ["This result was voided: there is nothing to dispute."]}
    assert audit(void_id) == ["submitted", "voided"]


def test_who_may_call_the_dispute_api(waiting):
    match_id = waiting["match_id"]
    url = f"/api/matches/{match_id}/dispute/"
    from rest_framework.test import APIClient

    assert APIClient().post(url, {"note": NOTE}, format="json").status_code == 401
    assert api_for(UserFactory()).post(url, {"note": NOTE}, format="json").status_code == 403
    unknown = api_for(waiting["second"]).post("/api/matches/999999/dispute/", {"note": NOTE}, format="json")
    assert unknown.status_code == 404
    not_an_object = api_for(waiting["second"]).post(url, ["a note"], format="json")
    assert not_an_object.status_code == 400
    assert not_an_object.json() == {"non_field_errors": ['A JSON object: {"note": "what is wrong"}.']}
    not_json = api_for(waiting["second"]).post(url, "note=wrong", content_type="application/x-www-form-urlencoded")
    assert not_json.status_code == 415
    assert dispute_fields(match_id) == (False, None, "")
    assert audit(match_id) == ["submitted"]


def test_a_void_ends_the_dispute(waiting, admin_user):
    match_id = waiting["match_id"]
    match_dispute(match_id=match_id, by=waiting["second"], note=NOTE)

    assert api_for(admin_user).post(f"/api/matches/{match_id}/void/").status_code == 200

    assert dispute_fields(match_id) == (False, None, "")
    assert Match.objects.get(pk=match_id).status == "void"
    assert audit(match_id) == ["submitted", "disputed", "voided"]  # the note stays in the log
    assert AuditEntry.objects.get(match_id=match_id, action="disputed").data == {"note": NOTE}


def test_a_correction_ends_the_dispute_and_the_result_waits_again(
    waiting, admin_user, django_capture_on_commit_callbacks
):
    """Ann v Bob was disputed (Bob won); the admin corrects it. The corrected result waits for a referee
    other than the admin: the one who disputed confirms it, and it is rated: Bob 1016, Ann 984."""
    match_id, ann, bob, second = waiting["match_id"], waiting["ann"], waiting["bob"], waiting["second"]
    match_dispute(match_id=match_id, by=second, note=NOTE)

    corrected = api_for(admin_user).post(f"/api/matches/{match_id}/correct/", slaps(bob, ann), format="json")

    assert corrected.status_code == 200
    assert (corrected.json()["awaiting_confirmation"], corrected.json()["disputed_by"]) == (True, None)
    assert dispute_fields(match_id) == (False, None, "")
    assert audit(match_id) == ["submitted", "disputed", "corrected"]
    assert list(matches_to_confirm(user_id=second.pk).values_list("pk", flat=True)) == [match_id]
    assert not matches_to_confirm(user_id=admin_user.pk).exists()  # the admin wrote this version
    with django_capture_on_commit_callbacks(execute=True):
        assert api_for(second).post(f"/api/matches/{match_id}/confirm/").status_code == 200
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=bob).rating == 1016
    assert PlayerRating.objects.get(player=ann).rating == 984


def test_a_correction_that_changes_nothing_leaves_the_dispute(waiting, admin_user):
    match_id = waiting["match_id"]
    match_dispute(match_id=match_id, by=waiting["second"], note=NOTE)
    unchanged = slaps(waiting["ann"], waiting["bob"], league="slaps-amateur")
    assert api_for(admin_user).post(f"/api/matches/{match_id}/correct/", unchanged, format="json").status_code == 200
    assert dispute_fields(match_id) == (True, waiting["second"].pk, NOTE)
    assert audit(match_id) == ["submitted", "disputed"]


def test_a_result_corrected_after_it_was_read_is_not_disputed_unseen(waiting, admin_user):
    match_id = waiting["match_id"]
    read = AuditEntry.objects.get(match_id=match_id, action="submitted").pk
    api_for(admin_user).post(f"/api/matches/{match_id}/correct/", slaps(waiting["bob"], waiting["ann"]), format="json")
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        match_dispute(match_id=match_id, by=waiting["second"], note=NOTE, version=read)
    assert refused.value.messages == ["This result was corrected after you read it: read it again, then dispute."]
    assert dispute_fields(match_id) == (False, None, "")


# --- the database holds the rule too ------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "rated", "awaiting_confirmation": False},  # a rated result
        {"awaiting_confirmation": False},  # not waiting
        {"disputed_by": None},  # no one disputed it
        {"dispute_note": ""},  # no note
    ],
    ids=["rated", "not waiting", "without who", "without a note"],
)
def test_the_database_refuses_a_dispute_that_is_not_whole_or_not_on_a_waiting_result(waiting, fields):
    match_id = waiting["match_id"]
    row = {"disputed_at": timezone.now(), "disputed_by": waiting["second"], "dispute_note": NOTE} | fields
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=match_id).update(**row)
    assert dispute_fields(match_id) == (False, None, "")


# --- two referees at once -----------------------------------------------------------------------


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def _race(first_call, second_call):
    """The first call runs inside a transaction held open (its row lock held) until the second call is seen
    waiting on that lock in PostgreSQL; then the first commits. Returns each call's outcome or exception."""
    outcomes: dict = {}
    done, release = threading.Event(), threading.Event()

    def first():
        try:
            with transaction.atomic():
                outcomes["first"] = first_call()
                done.set()
                assert release.wait(timeout=30)
        except Exception as error:  # the outcome is asserted by the test
            outcomes["first"] = error
        finally:
            done.set()
            connection.close()

    def second():
        try:
            outcomes["second"] = second_call()
        except Exception as error:  # the outcome is asserted by the test
            outcomes["second"] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert done.wait(timeout=30)
    threads.append(threading.Thread(target=second))
    threads[1].start()
    deadline = time.monotonic() + 30
    while _waiting_on_a_lock() == 0:
        assert time.monotonic() < deadline, "the second call never waited on the first one's row lock"
        assert threads[1].is_alive(), f"the second call finished without waiting: {outcomes}"
        time.sleep(0.05)
    release.set()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return outcomes


@pytest.mark.postgres
@pytest.mark.parametrize("second_action", ["dispute", "confirm"])
@pytest.mark.django_db(transaction=True)
def test_a_dispute_and_a_racing_dispute_or_confirmation_cannot_both_win(
    require_postgres, reference_data, second_action
):
    from django.core.exceptions import ValidationError

    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    first, one, other = RefereeFactory(), RefereeFactory(), RefereeFactory()
    ann, bob = PlayerFactory(), PlayerFactory()
    match_id = api_for(first).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]

    def later():
        if second_action == "dispute":
            return match_dispute(match_id=match_id, by=other, note="Another note.")
        return match_confirm(match_id=match_id, by=other)

    outcomes = _race(lambda: match_dispute(match_id=match_id, by=one, note=NOTE), later)

    assert isinstance(outcomes["first"], Match)
    assert isinstance(outcomes["second"], ValidationError)
    expected = {
        "dispute": "This result is already disputed: it waits for an admin.",
        "confirm": "This result is disputed: it waits for an admin to correct or void it.",
    }[second_action]
    assert outcomes["second"].messages == [expected]
    assert dispute_fields(match_id) == (True, one.pk, NOTE)
    assert audit(match_id) == ["submitted", "disputed"]
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.awaiting_confirmation, match.confirmed_by_id) == ("submitted", True, None)
    assert not RatingChange.objects.exists()


# --- the menu's count ---------------------------------------------------------------------------


def menu_count(html: str) -> str:
    start = html.index('<span id="to-confirm-count">') + len('<span id="to-confirm-count">')
    return html[start : html.index("</span>", start)]


def test_the_menu_counts_the_results_a_referee_may_confirm(two_step, admin_user):
    """Ann's referee entered two, Bob's one; one of Ann's referee's is disputed by Bob's; an admin corrected
    one of Bob's referee's, so it is the admin's version now."""
    mine, theirs = RefereeFactory(), RefereeFactory()
    players = PlayerFactory.create_batch(4)
    first = api_for(mine).post("/api/matches/", slaps(players[0], players[1]), format="json").json()["id"]
    api_for(mine).post("/api/matches/", slaps(players[2], players[3]), format="json")
    theirs_id = api_for(theirs).post("/api/matches/", slaps(players[1], players[2]), format="json").json()["id"]

    assert menu_count(pages_for(mine).get("/matches/").content.decode()) == " (1)"
    assert menu_count(pages_for(theirs).get("/matches/").content.decode()) == " (2)"
    assert menu_count(pages_for(admin_user).get("/matches/").content.decode()) == " (3)"

    match_dispute(match_id=first, by=theirs, note=NOTE)
    assert menu_count(pages_for(theirs).get("/matches/").content.decode()) == " (1)"
    assert menu_count(pages_for(admin_user).get("/matches/").content.decode()) == " (2)"

    api_for(admin_user).post(f"/api/matches/{theirs_id}/correct/", slaps(players[2], players[1]), format="json")
    assert menu_count(pages_for(theirs).get("/matches/").content.decode()) == " (2)"  # now the admin's version
    assert menu_count(pages_for(admin_user).get("/matches/").content.decode()) == " (1)"
    assert menu_count(pages_for(mine).get("/matches/").content.decode()) == " (1)"

    nothing = RefereeFactory()
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=False)
    Match.objects.filter(disputed_at__isnull=True).update(awaiting_confirmation=False)
    assert menu_count(pages_for(nothing).get("/matches/").content.decode()) == ""  # no "(0)"


def count_queries(captured) -> list[str]:
    """The menu's count (not the matches list's paging, which counts every match)."""
    count = 'SELECT COUNT(*) AS "__count" FROM "matches_match"'
    return [q["sql"] for q in captured if q["sql"].startswith(count) and "awaiting_confirmation" in q["sql"]]


def test_the_count_is_kept_until_the_next_results_write(waiting):
    """Read once, the count is kept in the cache under the results stamp: the next page reads no count,
    and a new result (any results write renews the stamp) is counted at once."""
    second = pages_for(waiting["second"])
    assert menu_count(second.get("/matches/").content.decode()) == " (1)"
    with CaptureQueriesContext(connection) as again:
        assert menu_count(second.get("/matches/").content.decode()) == " (1)"
    assert count_queries(again.captured_queries) == []
    carl, dee = PlayerFactory(name="Carl"), PlayerFactory(name="Dee")
    api_for(waiting["first"]).post("/api/matches/", slaps(carl, dee), format="json")
    with CaptureQueriesContext(connection) as after:
        assert menu_count(second.get("/matches/").content.decode()) == " (2)"
    assert len(count_queries(after.captured_queries)) == 1


def test_the_count_is_one_query_and_only_for_a_referee(waiting, client):
    with CaptureQueriesContext(connection) as referee_page:
        html = pages_for(waiting["second"]).get("/matches/").content.decode()
    assert menu_count(html) == " (1)"
    assert len(count_queries(referee_page.captured_queries)) == 1

    with CaptureQueriesContext(connection) as visitor_page:
        assert "To confirm" not in client.get("/matches/").content.decode()
    assert count_queries(visitor_page.captured_queries) == []

    with CaptureQueriesContext(connection) as reader_page:
        assert "To confirm" not in pages_for(UserFactory()).get("/matches/").content.decode()
    assert count_queries(reader_page.captured_queries) == []


@pytest.mark.postgres
def test_the_count_can_read_the_partial_index(waiting, require_postgres):
    """On a big table the planner picks it; here the scan is switched off to show it applies."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = matches_to_confirm(user_id=waiting["second"].pk).explain()
    assert "match_to_confirm_idx" in plan


# --- admin sees the dispute ---------------------------------------------------------------------


def test_the_admin_filters_disputed_results_and_reads_the_note(waiting, admin_user):
    match_id = waiting["match_id"]
    other = (
        api_for(waiting["first"])
        .post("/api/matches/", slaps(waiting["bob"], waiting["ann"]), format="json")
        .json()["id"]
    )
    match_dispute(match_id=match_id, by=waiting["second"], note="Bob won <b>this</b> one.")
    admin = pages_for(admin_user)

    listed = admin.get("/admin/matches/match/?disputed=yes").content.decode()
    assert f"/admin/matches/match/{match_id}/change/" in listed
    assert f"/admin/matches/match/{other}/change/" not in listed
    assert "?disputed=yes" in admin.get("/admin/matches/match/").content.decode()  # the filter is offered

    page = admin.get(f"/admin/matches/match/{match_id}/change/").content.decode()
    assert "Bob won &lt;b&gt;this&lt;/b&gt; one." in page  # escaped, read-only
    assert 'name="dispute_note"' not in page
