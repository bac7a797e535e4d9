"""The confirmations page (``/results/confirm/``): each waiting result shown whole by its kind, confirmed with a
message naming it and its rating changes, or disputed with a note; with HTMX and without JavaScript.

And the words a waiting result is shown with everywhere: "waiting for a second referee", or "disputed".
Ratings are seed 000's by hand: 1000 v 1000, K = 32: 1016 and 984.
"""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import League
from matches.confirmation import match_dispute
from matches.models import AuditEntry, Match
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, UserFactory

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def pages_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def slaps(winner, loser) -> dict:
    return {"game": "slaps", "played_at": PLAYED.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def preferans(first, second) -> dict:
    seats = [{"player": first.pk}, {"player": second.pk}, {"bot": "normal"}]
    return {"game": "preferans", "played_at": PLAYED.isoformat(), "seats": seats, "deals": [[4, -2, -2], [-6, 5, 1]]}


def bridge(players) -> dict:
    a, b, c, d, e, f, g, h = (player.pk for player in players)
    tables = [{"ns": [a, b], "ew": [c, d], "ns_score": 420}, {"ns": [e, f], "ew": [g, h], "ns_score": -50}]
    return {"game": "bridge", "played_at": PLAYED.isoformat(), "boards": [{"number": 1, "tables": tables}]}


def version_of(html: str, match_id: int) -> str:
    return re.search(rf'name="match" value="{match_id}"><input type="hidden" name="version" value="(\d+)"', html)[1]


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(tier="amateur").update(requires_confirmation=True)


@pytest.fixture
def club(two_step):
    entered_by, checker = RefereeFactory(username="entered-by"), RefereeFactory(username="checker")
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
    players = [PlayerFactory(name=name) for name in names]
    return {"entered_by": entered_by, "checker": checker, "players": players}


def enter(club, body) -> int:
    answer = api_for(club["entered_by"]).post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["awaiting_confirmation"] is True
    return answer.json()["id"]


def card(html: str, match_id: int) -> str:
    """The card of one result: from its data-match up to the next card, or the end of the list."""
    start = html.index(f'data-match="{match_id}"')
    end = html.find('<li class="confirm-card', start)
    return html[start:end] if end != -1 else html[start:]


def test_each_waiting_result_is_shown_whole_by_its_kind(club):
    ann, bob, cid = club["players"][:3]
    slaps_id = enter(club, slaps(bob, ann))
    preferans_id = enter(club, preferans(ann, cid))
    bridge_id = enter(club, bridge(club["players"]))

    html = pages_for(club["checker"]).get("/results/confirm/").content.decode()

    assert '<link rel="stylesheet" href="/static/css/confirm.css">' in html
    shown = card(html, slaps_id)
    assert f'<a href="/matches/{slaps_id}/">Slaps match #{slaps_id}</a>' in shown
    won = f'<strong><a href="/players/{bob.pk}/">Bob</a></strong> won against <a href="/players/{ann.pk}/">Ann</a>'
    assert won in shown
    assert f"Slaps Amateur · played {timezone.localtime(PLAYED):%Y-%m-%d %H:%M} · entered by entered-by, " in shown
    assert '<span class="status status-submitted">Waiting for a second referee</span>' in shown
    assert f"Confirm #{slaps_id}" in shown
    assert f"Dispute #{slaps_id}" in shown
    assert f'<label for="dispute-note-{slaps_id}">What is wrong with this result?</label>' in shown

    shown = card(html, preferans_id)
    assert f'<a href="/players/{ann.pk}/">Ann</a> <strong>-2 whists</strong>' in shown  # 4 - 6
    assert f'<a href="/players/{cid.pk}/">Cid</a> <strong>3 whists</strong>' in shown  # -2 + 5
    assert "<strong>-1 whists</strong>" in shown  # the bot: -2 + 1
    assert "2 deals: each deal's whists" in shown
    assert '<tr><td>2</td><td class="num">-6</td><td class="num">5</td><td class="num">1</td></tr>' in shown

    shown = card(html, bridge_id)
    assert "1 board, 8 players in 4 pairs" in shown
    # Board 1: table 1 NS +420, table 2 NS -50: Ann & Bob and Gus & Hal gain 470 points, 10 IMPs (430-490).
    assert '<td>1=</td><td>Ann &amp; Bob</td><td class="num">1</td><td class="num">+10</td>' in shown
    assert '<td>1=</td><td>Gus &amp; Hal</td><td class="num">1</td><td class="num">+10</td>' in shown
    assert '<td>3=</td><td>Cid &amp; Dee</td><td class="num">1</td><td class="num">-10</td>' in shown


def test_the_author_sees_theirs_without_buttons(club):
    match_id = enter(club, slaps(*club["players"][:2]))
    shown = card(pages_for(club["entered_by"]).get("/results/confirm/").content.decode(), match_id)
    assert "This result is yours" in shown
    assert "Confirm #" not in shown
    assert "Dispute #" not in shown


def test_the_page_reads_a_fixed_number_of_queries(club, django_assert_num_queries):
    players = club["players"]
    enter(club, slaps(players[0], players[1]))
    enter(club, preferans(players[2], players[3]))
    checker = pages_for(club["checker"])
    checker.get("/results/confirm/")  # the session's first read
    # The session, the user and their permissions (read on every request: config/auth.py); the waiting
    # matches, their seats and deals (no bridge session waits: no boards are read); the menu's games (entry
    # pages). Its count is the one the first read kept (matches_to_confirm_count).
    with django_assert_num_queries(7):
        checker.get("/results/confirm/")
    enter(club, slaps(players[4], players[5]))
    enter(club, preferans(players[6], players[7]))
    enter(club, bridge(players))
    # Five results, as many queries, and a bridge session's tables and their four seats' players, once.
    with django_assert_num_queries(9 + 5):
        checker.get("/results/confirm/")


def test_confirming_without_javascript_answers_the_whole_page(club):
    ann, bob = club["players"][:2]
    match_id = enter(club, slaps(ann, bob))
    checker = pages_for(club["checker"])
    version = version_of(checker.get("/results/confirm/").content.decode(), match_id)

    # Not a transaction test: the rating task runs at the test's end, so the page cannot show changes yet.
    answer = checker.post("/results/confirm/", {"match": match_id, "version": version, "action": "confirm"})

    html = answer.content.decode()
    assert answer.status_code == 200
    assert html.startswith("<!doctype html>")
    assert answer["Vary"].count("HX-Request") == 1
    assert '<div class="notice" role="status" id="confirm-done" tabindex="-1" autofocus>' in html
    assert f'Confirmed <a href="/matches/{match_id}/">Slaps match #{match_id}</a> (Ann (won), Bob).' in html
    assert "Ratings are being computed" in html
    assert "Nothing waits for confirmation." in html
    assert Match.objects.get(pk=match_id).confirmed_by == club["checker"]


@pytest.mark.django_db(transaction=True)
def test_a_confirmation_answers_with_the_rating_changes(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    entered_by, checker = RefereeFactory(), RefereeFactory()
    ann, bob, cid, dee = (PlayerFactory(name=name) for name in ["Ann", "Bob", "Cid", "Dee"])
    first = api_for(entered_by).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
    second = api_for(entered_by).post("/api/matches/", slaps(cid, dee), format="json").json()["id"]
    page = pages_for(checker)
    version = version_of(page.get("/results/confirm/").content.decode(), first)

    answer = page.post("/results/confirm/", {"match": first, "version": version}, HTTP_HX_REQUEST="true")

    html = answer.content.decode()
    assert html.lstrip().startswith('<div id="to-confirm">')
    assert f'Confirmed <a href="/matches/{first}/">Slaps match #{first}</a> (Ann (won), Bob).' in html
    assert f'<a href="/players/{ann.pk}/">Ann</a> 1000 → 1016 <strong>+16</strong>' in html
    assert f'<a href="/players/{bob.pk}/">Bob</a> 1000 → 984 <strong>\u221216</strong>' in html
    assert "being computed" not in html
    # The menu's count, swapped out of band: one result left for this referee.
    assert '<span id="to-confirm-count" hx-swap-oob="true"> (1)</span>' in html
    assert f'data-match="{second}"' in html
    assert f'data-match="{first}"' not in html
    assert Match.objects.get(pk=first).status == "rated"


def test_disputing_on_the_page(club):
    ann, bob = club["players"][:2]
    match_id = enter(club, slaps(ann, bob))
    checker = pages_for(club["checker"])
    version = version_of(checker.get("/results/confirm/").content.decode(), match_id)
    form = {"match": match_id, "version": version, "action": "dispute"}

    # No note: refused in the card, which keeps what was typed (spaces here) and stays open.
    blank = checker.post("/results/confirm/", form | {"note": "   "}, HTTP_HX_REQUEST="true").content.decode()
    shown = card(blank, match_id)
    assert (
        f'<div class="errors" role="alert" id="confirm-error-{match_id}">'
        "Say what is wrong with the result: a note is required to dispute it.</div>"
    ) in shown
    assert '<details class="dispute" open>' in shown
    described = f'aria-describedby="confirm-error-{match_id} dispute-hint-{match_id}"'
    assert f'{described} aria-invalid="true" autofocus>   </textarea>' in shown
    assert AuditEntry.objects.filter(match_id=match_id).count() == 1

    note = "Bob won: <script>alert(1)</script>"
    answer = checker.post("/results/confirm/", form | {"note": note}, HTTP_HX_REQUEST="true").content.decode()
    assert f'Disputed <a href="/matches/{match_id}/">Slaps match #{match_id}</a>' in answer
    assert "it stays unrated until an admin corrects or voids it" in answer
    assert "Nothing waits for confirmation." in answer
    assert "Disputed, waiting for an admin (1)" in answer
    shown = card(answer, match_id)
    assert "Disputed by checker" in shown
    assert '<blockquote class="dispute-note">Bob won: &lt;script&gt;alert(1)&lt;/script&gt;</blockquote>' in shown
    assert '<span class="status status-disputed">Disputed</span>' in shown
    assert "Confirm #" not in shown
    assert '<span id="to-confirm-count" hx-swap-oob="true"></span>' in answer
    match = Match.objects.get(pk=match_id)
    assert (match.dispute_note, match.disputed_by, match.status) == (note, club["checker"], "submitted")


def test_a_refused_action_says_why_and_changes_nothing(club, admin_user):
    match_id = enter(club, slaps(*club["players"][:2]))
    checker = pages_for(club["checker"])
    odd = checker.post("/results/confirm/", {"match": match_id, "action": "delete"}).content.decode()
    assert '<div class="errors" role="alert" id="confirm-error-' in odd
    assert "Confirm or dispute: nothing else is done here." in odd
    gone = checker.post("/results/confirm/", {"match": 999999, "action": "dispute", "note": "x"}).content.decode()
    assert '<div class="errors" role="alert">That result no longer exists.</div>' in gone
    api_for(admin_user).post(f"/api/matches/{match_id}/void/")
    voided = checker.post("/results/confirm/", {"match": match_id, "action": "dispute", "note": "x"}).content.decode()
    # The result left the list: the error shows on top.
    assert '<div class="errors" role="alert">This result was voided: there is nothing to dispute.</div>' in voided
    assert list(AuditEntry.objects.filter(match_id=match_id).order_by("id").values_list("action", flat=True)) == [
        "submitted",
        "voided",
    ]
    reader = pages_for(UserFactory())
    assert reader.post("/results/confirm/", {"match": match_id, "action": "confirm"}).status_code == 403


# --- the words, wherever a waiting result is shown ----------------------------------------------------


def test_a_waiting_or_disputed_result_reads_so_everywhere(club):
    ann, bob = club["players"][:2]
    match_id = enter(club, slaps(ann, bob))
    reader = Client()
    waiting = '<span class="status status-submitted">Waiting for a second referee</span>'
    page = reader.get(f"/matches/{match_id}/").content.decode()
    assert waiting in page
    assert "Waiting for a second referee: a two-step league rates it once another referee confirms it." in page
    assert waiting in reader.get("/matches/").content.decode()
    assert waiting in reader.get("/").content.decode()
    profile = reader.get(f"/players/{ann.pk}/").content.decode()
    assert waiting in profile
    assert "Submitted" not in profile

    match_dispute(match_id=match_id, by=club["checker"], note="Bob won.")
    disputed = '<span class="status status-disputed">Disputed</span>'
    page = reader.get(f"/matches/{match_id}/").content.decode()
    assert disputed in page
    assert "Disputed by a second referee: not rated until an admin corrects or voids it." in page
    assert "Bob won." not in page  # the note is for referees and admins
    assert disputed in reader.get("/matches/").content.decode()
    assert disputed in reader.get(f"/players/{ann.pk}/").content.decode()  # the results version moved


def test_the_entry_page_says_a_saved_result_waits_for_a_second_referee(club):
    ann, bob = club["players"][:2]
    form = {"player_a": ann.pk, "player_b": bob.pk, "winner": "a", "played_at": "2026-11-01T18:00", "rated": "true"}
    html = pages_for(club["entered_by"]).post("/results/slaps/", form, HTTP_HX_REQUEST="true").content.decode()
    assert "— waiting for a second referee." in html
    assert "— submitted." not in html
