"""``match_record``: ``match_submit`` for an operator's command, with no request whose permission to check."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.cleaning import ResultBatch
from matches.models import AuditEntry, Match, ResultsVersion
from matches.services import match_record, match_submit
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def body(a, b, **extra) -> dict:
    played_at = (timezone.now() - timedelta(hours=1)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [a.pk, b.pk], "winner": a.pk, **extra}


def test_an_account_without_referee_rights_is_recorded_as_the_referee_and_the_actor(
    reference_data, django_capture_on_commit_callbacks
):
    account = UserFactory()  # no group: the pages and the API would refuse it
    a, b = PlayerFactory(), PlayerFactory()
    with pytest.raises(PermissionDenied):
        match_submit(referee=account, data=body(a, b))
    assert not Match.objects.exists()

    with django_capture_on_commit_callbacks() as queued:
        match = match_record(referee=account, data=body(a, b))

    assert match.referee == account
    entry = AuditEntry.objects.get(match=match)
    assert (entry.action, entry.actor) == (AuditEntry.Action.SUBMITTED, account)
    assert ResultsVersion.objects.get(game=match.game).version == 1
    assert len(queued) == 1  # its rating task, as for a submitted result


def test_without_queueing_the_rating_the_rest_of_the_write_is_the_same(
    reference_data, django_capture_on_commit_callbacks
):
    a, b = PlayerFactory(), PlayerFactory()
    referee = UserFactory()  # saving a user queues its own callback (the auth stamp's renewal: config/auth.py)
    with django_capture_on_commit_callbacks() as queued:
        match = match_record(referee=referee, data=body(a, b), queue_rating=False)

    assert queued == []
    assert match.status == Match.Status.SUBMITTED  # waits for the caller's own rating run (or the sweeper)
    assert AuditEntry.objects.filter(match=match, action=AuditEntry.Action.SUBMITTED).count() == 1
    assert ResultsVersion.objects.get(game=match.game).version == 1


def test_bad_input_is_refused_as_on_every_path_and_stores_nothing(reference_data):
    a = PlayerFactory()
    with pytest.raises(ValidationError) as refused:
        match_record(referee=UserFactory(), data=body(a, a), queue_rating=False)
    assert "players" in refused.value.message_dict
    assert not Match.objects.exists()
    assert not AuditEntry.objects.exists()
    assert not ResultsVersion.objects.exists()


def test_a_batch_stores_the_same_rows_and_leaves_the_version_to_its_caller(
    reference_data, django_capture_on_commit_callbacks
):
    a, b = PlayerFactory(), PlayerFactory()
    batch = ResultBatch()
    with pytest.raises(ValueError, match="queue_rating=False"):
        match_record(referee=UserFactory(), data=body(a, b), batch=batch)
    assert not Match.objects.exists()
    referee = UserFactory()
    with django_capture_on_commit_callbacks() as queued:
        first = match_record(referee=referee, data=body(a, b), queue_rating=False, batch=batch)
        with CaptureQueriesContext(connection) as second_queries:
            second = match_record(referee=referee, data=body(b, a), queue_rating=False, batch=batch)
    assert queued == []
    # The game and its leagues were read for the first: the players, then the match, its seats, its audit entry.
    assert len(second_queries) == 4, [query["sql"][:80] for query in second_queries]
    assert [first.status, second.status] == [Match.Status.SUBMITTED] * 2
    assert AuditEntry.objects.filter(match__in=[first, second], action=AuditEntry.Action.SUBMITTED).count() == 2
    assert not ResultsVersion.objects.exists()  # the caller bumps once, last (games.importing.import_apply)
    with pytest.raises(ValidationError):
        match_record(referee=UserFactory(), data=body(a, a), queue_rating=False, batch=batch)
    assert Match.objects.count() == 2


def test_an_import_raises_its_games_results_version_once(reference_data, tmp_path):
    from io import StringIO

    from django.core.management import call_command

    UserFactory(username="referee")
    rows = [f"2026-03-0{day}T18:00:00Z,Ann,Bob,a" for day in range(1, 6)]
    path = tmp_path / "season.csv"
    path.write_text("played_at,player_a,player_b,winner\n" + "\n".join(rows) + "\n")
    call_command("import_results", str(path), "--game", "slaps", stdout=StringIO())
    assert Match.objects.count() == 5
    assert ResultsVersion.objects.get(game__slug="slaps").version == 1
