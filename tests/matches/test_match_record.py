"""``match_record``: ``match_submit`` for an operator's command, with no request whose permission to check."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

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
    with django_capture_on_commit_callbacks() as queued:
        match = match_record(referee=UserFactory(), data=body(a, b), queue_rating=False)

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
