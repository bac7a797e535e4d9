"""The results version: every result write raises it, so cached profile parts that show results
(friendly, waiting and voided ones, which change no rating) are never stale."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import League
from matches.confirmation import match_confirm
from matches.models import Match
from matches.selectors import results_version_site
from matches.services import league_due_dates_refresh, match_correct, match_submit, match_void
from ratings.caching import rating_version
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory

pytestmark = pytest.mark.django_db


def body(winner, loser, *, rated=True, hours=1):
    played_at = (timezone.now() - timedelta(hours=hours)).isoformat()
    return {
        "game": "slaps",
        "played_at": played_at,
        "rated": rated,
        "players": [winner.pk, loser.pk],
        "winner": winner.pk,
    }


def test_every_result_write_raises_the_results_version(slaps):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    first, second, admin = RefereeFactory(), RefereeFactory(), AdminFactory()
    ann, bob = PlayerFactory(), PlayerFactory()
    seen = [results_version_site()]

    def changed() -> None:
        seen.append(results_version_site())
        assert seen[-1] != seen[-2]

    match_submit(referee=first, data=body(ann, bob, rated=False))
    changed()
    waiting = match_submit(referee=first, data={**body(ann, bob), "league": "slaps-amateur"})
    assert waiting.awaiting_confirmation
    changed()
    match_confirm(match_id=waiting.pk, by=second)
    changed()
    match_correct(match_id=waiting.pk, by=admin, data={**body(bob, ann), "league": "slaps-amateur"})
    changed()
    match_void(match_id=waiting.pk, by=admin)
    changed()
    match_void(match_id=waiting.pk, by=admin)  # voiding twice writes nothing
    assert results_version_site() == seen[-1]
    league_due_dates_refresh(league=League.objects.get(slug="slaps-amateur"))
    changed()


def test_a_friendly_result_changes_no_ratings_version_but_the_results_version(slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    before = rating_version(game_id=slaps.pk), results_version_site()
    match_submit(referee=RefereeFactory(), data=body(ann, bob, rated=False))
    assert rating_version(game_id=slaps.pk) == before[0]
    assert results_version_site() != before[1]


def recent(client, player) -> str:
    html = client.get(f"/players/{player.pk}/").content.decode()
    return html[html.index("<h2>Recent matches</h2>") :]


def test_profile_shows_results_that_change_no_rating_at_once(client, slaps):
    referee, admin = RefereeFactory(), AdminFactory()
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    assert "No matches yet." in recent(client, ann)  # cached

    friendly = match_submit(referee=referee, data=body(ann, bob, rated=False))
    html = recent(client, ann)
    assert f'data-match="{friendly.pk}"' in html
    assert "friendly: not rated" in html
    assert "Won" in html

    match_correct(match_id=friendly.pk, by=admin, data=body(bob, ann, rated=False))
    assert "Lost" in recent(client, ann)

    waiting = match_submit(referee=referee, data=body(ann, bob, hours=2))  # not rated yet (no worker ran)
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.SUBMITTED
    assert "waiting to be rated" in recent(client, ann)

    match_void(match_id=waiting.pk, by=admin)
    assert "voided: does not count" in recent(client, ann)

    bob.name = "Bobby"  # no ratings: no ratings version moves, the results version does
    bob.save()
    assert "Bobby" in recent(client, ann)
