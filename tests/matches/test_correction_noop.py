"""A correction that changes nothing changes nothing, league included (PRODUCT.md, issue 11 bug 7).

The admin's *Correct result* form is pre-filled with ``match_as_body``, the
stored body, which carries the league the match is filed under for every
game (it used to for bridge only, so saving a Slaps or Preferans form
unchanged moved the match to amateur and the audit entry lost the league).
A correction whose body would store exactly what is stored is a no-op: no
changed row anywhere, no replay queued, and no audit entry (nothing
happened to record); the admin page says "No change". A body without
``league`` keeps the match's league.

"Changes nothing" compares the content of every row of the project's apps
(``tests.matches.rows``) and the on-commit callbacks (a replay is one).
"""

import html
import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import League
from matches.models import AuditEntry, Match
from matches.services import match_correct, match_submit
from ratings.models import PlayerRating
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, api_token_for
from tests.matches.rows import rows_changed, rows_snapshot

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def body_for(game: str, players) -> dict:
    a, b, c, d, e, f, g, h = (player.pk for player in players)
    played_at = PLAYED.isoformat()
    if game == "slaps":
        return {"game": "slaps", "played_at": played_at, "players": [a, b], "winner": b, "league": "slaps-pro"}
    if game == "preferans":
        seats = [{"player": a}, {"bot": "hard"}, {"player": b}]
        deals = [[4, -2.5, -1.5], [-6, 3, 3]]
        return {"game": "preferans", "played_at": played_at, "seats": seats, "deals": deals, "league": "preferans-pro"}
    tables = [{"ns": [a, b], "ew": [c, d], "ns_score": 420}, {"ns": [e, f], "ew": [g, h], "ns_score": -50}]
    boards = [{"number": 1, "tables": tables}, {"number": 2, "tables": [{"ns": [a, b], "ew": [c, d], "ns_imps": 2.5}]}]
    return {"game": "bridge", "played_at": played_at, "boards": boards, "league": "bridge-pro"}


@pytest.fixture
def admin_pages():
    client = Client()
    client.force_login(AdminFactory())
    return client


def pros(game: str, count: int) -> list:
    """Players of the game's pro league, as a promotion leaves them: only they may play its results."""
    league = League.objects.get(slug=f"{game}-pro")
    players = PlayerFactory.create_batch(count)
    for player in players:
        PlayerRating.objects.create(player=player, game=league.game, league=league, rating=1850, peak_rating=1850)
    return players


def stored_match(game: str, django_capture_on_commit_callbacks) -> Match:
    with django_capture_on_commit_callbacks(execute=True):
        match = match_submit(referee=RefereeFactory(), data=body_for(game, pros(game, 8)))
    match.refresh_from_db()
    assert match.status == "rated"
    assert match.league.slug == f"{game}-pro"
    return match


def prefilled_body(page: str) -> str:
    return html.unescape(re.search(r'<textarea name="body"[^>]*>(.*?)</textarea>', page, re.DOTALL).group(1))


@pytest.mark.parametrize("game", ["slaps", "preferans", "bridge"])
def test_saving_the_admin_form_unchanged_changes_nothing(
    reference_data, admin_pages, game, django_capture_on_commit_callbacks
):
    match = stored_match(game, django_capture_on_commit_callbacks)
    url = f"/admin/matches/match/{match.pk}/correct/"
    text = prefilled_body(admin_pages.get(url).content.decode())
    assert json.loads(text)["league"] == f"{game}-pro"  # the form shows the league it keeps
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_pages.post(url, {"body": text}, follow=True)
    assert response.redirect_chain[0][1] == 302
    assert "No change: the result is as stored" in response.content.decode()
    assert callbacks == []  # no replay queued
    assert rows_changed(before, rows_snapshot()) == {}


@pytest.mark.parametrize("game", ["slaps", "preferans", "bridge"])
def test_the_same_result_through_the_api_changes_nothing(reference_data, game, django_capture_on_commit_callbacks):
    """The submitted body re-sent: keys in another order, defaults spelled out, the league left out (kept)."""
    match = stored_match(game, django_capture_on_commit_callbacks)
    submitted = AuditEntry.objects.get(match=match, action="submitted").data
    resent = {key: submitted[key] for key in reversed(list(submitted)) if key != "league"} | {"rated": True}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(AdminFactory())}")
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(f"/api/matches/{match.pk}/correct/", resent, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["league"] == f"{game}-pro"
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_correction_without_a_league_keeps_it_and_the_audit_entry_shows_it(
    reference_data, django_capture_on_commit_callbacks
):
    match = stored_match("slaps", django_capture_on_commit_callbacks)
    admin = AdminFactory()
    ann, bob = (seat.player for seat in match.seats.order_by("position"))
    with django_capture_on_commit_callbacks(execute=True):
        match_correct(
            match_id=match.pk,
            by=admin,
            data={"game": "slaps", "played_at": PLAYED.isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk},
        )
    match.refresh_from_db()
    assert match.league.slug == "slaps-pro"
    assert match.winner_seat.player == ann
    entry = AuditEntry.objects.get(match=match, action="corrected")
    assert (entry.data["before"]["league"], entry.data["after"]["league"]) == ("slaps-pro", "slaps-pro")
    assert (entry.data["before"]["winner"], entry.data["after"]["winner"]) == (bob.pk, ann.pk)

    # Naming another league is a change like any other: moved, audited, replayed.
    before = rows_snapshot()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        match_correct(
            match_id=match.pk,
            by=admin,
            data={**entry.data["after"], "league": "slaps-amateur"},
        )
    # The replay, the "results rated" signal of the corrected result (ratings.signals), and the kept figures'
    # run its new ratings ask for (ratings.figures).
    assert len(callbacks) == 3
    match.refresh_from_db()
    assert match.league.slug == "slaps-amateur"
    changed = rows_changed(before, rows_snapshot())
    assert changed["matches.Match"] == [match.pk]
    assert len(changed["matches.AuditEntry"]) == 1
    moved = AuditEntry.objects.filter(match=match, action="corrected").order_by("-id").first()
    assert (moved.data["before"]["league"], moved.data["after"]["league"]) == ("slaps-pro", "slaps-amateur")


@pytest.mark.parametrize("game", ["slaps", "preferans", "bridge"])
def test_the_same_result_through_the_service_changes_nothing(reference_data, game, django_capture_on_commit_callbacks):
    """Below HTTP: ``match_correct`` given the stored body (as ``match_as_body`` gives it, the league included)
    and again without the league stores nothing, queues no replay and writes no audit entry."""
    from matches.selectors import match_as_body

    match = stored_match(game, django_capture_on_commit_callbacks)
    stored = match_as_body(Match.objects.get(pk=match.pk))
    assert stored["league"] == f"{game}-pro"
    admin = AdminFactory()
    before = rows_snapshot()
    for body in (stored, {key: value for key, value in stored.items() if key != "league"}):
        with django_capture_on_commit_callbacks() as callbacks:
            kept = match_correct(match_id=match.pk, by=admin, data=body)
        assert callbacks == []
        assert kept.league.slug == f"{game}-pro"
    assert rows_changed(before, rows_snapshot()) == {}
