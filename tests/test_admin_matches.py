"""Admin cannot corrupt a match: its page edits nothing, its list reads players, league and status in a
fixed number of queries, and a correction goes through the game's own entry form and ``match_correct``.

Expected ratings are worked by hand from seed 000 (Elo, start 1000, K = 32, scale 400).
"""

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.utils import timezone

from games.preferans.models import Deal
from leagues.models import Bot, League, Player
from matches.models import AuditEntry, Match
from matches.services import match_submit, match_void
from ratings.models import PlayerRating
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory
from tests.matches.rows import rows_changed, rows_snapshot

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(second=0, microsecond=0)

# Written by hand: the fields of a match its admin page may edit. None: every column is a service's.
EDITABLE_MATCH_FIELDS: set[str] = set()


class FormFields(HTMLParser):
    """The fields a browser would post from the page's forms: inputs (checked radios only), selects
    (the selected option, else the first), textareas; and the names of every control."""

    def __init__(self):
        super().__init__()
        self.values: dict[str, str] = {}
        self.controls: set[str] = set()
        self._select: str | None = None
        self._first: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name:
            self.controls.add(name)
            kind = attrs.get("type", "text")
            if kind in ("radio", "checkbox"):
                if "checked" in attrs:
                    self.values[name] = attrs.get("value", "on")
            elif kind not in ("submit", "button"):
                self.values[name] = attrs.get("value") or ""
        elif tag == "select" and name:
            self.controls.add(name)
            self._select, self._first = name, None
        elif tag == "option" and self._select:
            value = attrs.get("value", "")
            if self._first is None:
                self._first = value
                self.values.setdefault(self._select, value)
            if "selected" in attrs:
                self.values[self._select] = value
        elif tag == "textarea" and name:
            self.controls.add(name)
            self._textarea = name
            self.values[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data


def form_fields(html: str) -> FormFields:
    parser = FormFields()
    parser.feed(html)
    return parser


def the_entry_form(html: str) -> dict[str, str]:
    """The entry form's fields as the page fills them (the part between its <form data-entry> tags)."""
    start = html.rindex("<form", 0, html.index("data-entry"))
    return form_fields(html[start : html.index("</form>", start)]).values


@pytest.fixture
def admin_pages():
    client = Client()
    client.force_login(AdminFactory())
    return client


@pytest.fixture
def people(reference_data):
    return {name: PlayerFactory(name=name) for name in ["Ann", "Bob", "Cleo", "Dan"]}


def slaps_result(referee, winner, loser, played_at=PLAYED, **extra) -> Match:
    body = {"game": "slaps", "played_at": played_at.isoformat(), "players": [winner.pk, loser.pk]}
    return match_submit(referee=referee, data={**body, "winner": winner.pk, **extra})


def preferans_result(referee, people) -> Match:
    body = {
        "game": "preferans",
        "played_at": PLAYED.isoformat(),
        "seats": [{"player": people["Ann"].pk}, {"bot": "normal"}, {"player": people["Bob"].pk}],
        "deals": [[4, -2.5, -1.5], [-6, 3, 3]],
    }
    return match_submit(referee=referee, data=body)


# --- 1. the match page edits nothing ---------------------------------------------------------------------


def test_no_field_of_a_match_is_editable_in_admin(admin_pages, people, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = slaps_result(RefereeFactory(), people["Ann"], people["Bob"])
    page = admin_pages.get(f"/admin/matches/match/{match.pk}/change/")
    assert page.status_code == 200
    controls = form_fields(page.content.decode()).controls
    fields = [field for field in Match._meta.concrete_fields if not field.primary_key]
    # A new column must be looked at here: is it a service's? (dispute: match_dispute; facts: the kind's cleaner)
    assert len(fields) == 19
    editable = {field.name for field in fields if {field.name, field.attname} & controls}
    assert editable == EDITABLE_MATCH_FIELDS
    # Nor the seats or the audit log below it: their inlines carry only the formsets' hidden bookkeeping.
    inline = {name.rsplit("-", 1)[1] for name in controls if name.startswith(("seats-", "audit_entries-"))}
    assert inline <= {"TOTAL_FORMS", "INITIAL_FORMS", "MIN_NUM_FORMS", "MAX_NUM_FORMS", "id", "match"}
    assert "Save" not in page.content.decode()
    # The audit log's data is there, folded (a session's is thousands of characters).
    html = page.content.decode()
    assert re.search(r"<details><summary>Submitted \(\d+ characters\)</summary><pre class=\"audit-data\">", html)
    assert f"&quot;winner&quot;: {people['Ann'].pk}" in html


def test_a_forged_post_to_a_match_changes_nothing(admin_pages, people, django_capture_on_commit_callbacks):
    league = League.objects.get(slug="slaps-pro")
    with django_capture_on_commit_callbacks(execute=True):
        match = slaps_result(RefereeFactory(), people["Ann"], people["Bob"])
    someone = AdminFactory()
    forged = {
        "game": match.game_id,
        "played_at_0": "2020-01-01",
        "played_at_1": "10:00:00",
        "rated": "",
        "status": "friendly",
        "league": league.pk,
        "referee": someone.pk,
        "idempotency_key": "stolen-key",
        "idempotency_fingerprint": "0" * 64,
        "awaiting_confirmation": "on",
        "confirmed_by": someone.pk,
        "due_at_0": "2030-01-01",
        "due_at_1": "00:00:00",
        "voided_at_0": "2026-01-01",
        "voided_at_1": "00:00:00",
        "voided_by": someone.pk,
        "batch_head": match.pk,
        "seats-TOTAL_FORMS": "2",
        "seats-INITIAL_FORMS": "2",
        "seats-0-id": match.seats.get(position=1).pk,
        "seats-0-match": match.pk,
        "seats-0-result": "0",
        "seats-1-id": match.seats.get(position=2).pk,
        "seats-1-match": match.pk,
        "seats-1-result": "1",
        "audit_entries-TOTAL_FORMS": "0",
        "audit_entries-INITIAL_FORMS": "0",
        "_save": "Save",
    }
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_pages.post(f"/admin/matches/match/{match.pk}/change/", forged)
    assert response.status_code == 403
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}
    assert admin_pages.post("/admin/matches/match/add/", forged).status_code == 403
    assert rows_changed(before, rows_snapshot()) == {}


def test_voiding_from_the_list_still_works(admin_pages, people, django_capture_on_commit_callbacks):
    """The page is read-only, the list's action is not: it voids through the service."""
    with django_capture_on_commit_callbacks(execute=True):
        match = slaps_result(RefereeFactory(), people["Ann"], people["Bob"])
    with django_capture_on_commit_callbacks(execute=True):
        admin_pages.post("/admin/matches/match/", {"action": "void_matches", "_selected_action": [match.pk]})
    match.refresh_from_db()
    assert match.status == Match.Status.VOID
    assert AuditEntry.objects.filter(match=match, action="voided").count() == 1


# --- 2. the match list -----------------------------------------------------------------------------------


@pytest.fixture
def waiting_league():
    league = League.objects.get(slug="slaps-amateur")
    league.requires_confirmation = True
    league.save()
    return league


def list_rows(html: str) -> dict[str, str]:
    """The list's rows by match id: the row's text, cells joined by " | "."""

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self._cells, self._in = [], None, False

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self._cells = []
            elif tag in ("td", "th") and self._cells is not None:
                self._cells.append("")
                self._in = True
            elif tag == "img" and self._in and self._cells:
                self._cells[-1] += dict(attrs).get("alt", "")  # the rated column's icon

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self._in = False
            elif tag == "tr" and self._cells is not None:
                self.rows.append([cell.strip() for cell in self._cells])
                self._cells = None

        def handle_data(self, data):
            if self._in and self._cells:
                self._cells[-1] += data

    parser = Rows()
    parser.feed(html[html.index('id="result_list"') :])
    return {row[1]: " | ".join(row[2:]) for row in parser.rows[1:] if len(row) > 2}


def test_the_list_shows_players_league_and_status(admin_pages, people, django_capture_on_commit_callbacks):
    ann, bob, cleo, dan = people["Ann"], people["Bob"], people["Cleo"], people["Dan"]
    referee = RefereeFactory()
    with django_capture_on_commit_callbacks(execute=True):
        slaps = slaps_result(referee, ann, bob, played_at=PLAYED - timedelta(hours=3))
        preferans = preferans_result(referee, people)
        bridge = match_submit(
            referee=referee,
            data={
                "game": "bridge",
                "played_at": (PLAYED - timedelta(hours=2)).isoformat(),
                "boards": [{"number": 1, "tables": [{"ns": [ann.pk, bob.pk], "ew": [cleo.pk, dan.pk], "ns_imps": 3}]}],
            },
        )
    league = League.objects.get(slug="slaps-amateur")
    league.requires_confirmation = True
    league.save()
    with django_capture_on_commit_callbacks(execute=True):
        waiting = slaps_result(referee, dan, cleo, played_at=PLAYED - timedelta(hours=1))
    rows = list_rows(admin_pages.get("/admin/matches/match/").content.decode())
    local = timezone.localtime
    assert rows == {
        str(waiting.pk): f"{local(waiting.played_at):%Y-%m-%d %H:%M} | Dan (won) vs Cleo | Slaps Amateur "
        "| Waiting for confirmation | True",
        str(preferans.pk): f"{local(PLAYED):%Y-%m-%d %H:%M} | Ann, Normal bot, Bob | Preferans Amateur | Rated | True",
        str(bridge.pk): f"{local(bridge.played_at):%Y-%m-%d %H:%M} | Session of 4 players | Bridge Amateur "
        "| Rated | True",
        str(slaps.pk): f"{local(slaps.played_at):%Y-%m-%d %H:%M} | Ann (won) vs Bob | Slaps Amateur | Rated | True",
    }


def test_the_list_filters_by_league_status_and_waiting(admin_pages, people, django_capture_on_commit_callbacks):
    ann, bob, cleo = people["Ann"], people["Bob"], people["Cleo"]
    referee = RefereeFactory()
    with django_capture_on_commit_callbacks(execute=True):
        rated = slaps_result(referee, ann, bob, played_at=PLAYED - timedelta(hours=3))
        voided = slaps_result(referee, bob, cleo, played_at=PLAYED - timedelta(hours=2))
        preferans = preferans_result(referee, people)
    match_void(match_id=voided.pk, by=AdminFactory())
    league = League.objects.get(slug="slaps-amateur")
    league.requires_confirmation = True
    league.save()
    with django_capture_on_commit_callbacks(execute=True):
        waiting = slaps_result(referee, cleo, ann, played_at=PLAYED - timedelta(hours=1))

    def ids(query: str) -> set[int]:
        page = admin_pages.get(f"/admin/matches/match/?{query}")
        assert page.status_code == 200
        return {int(pk) for pk in list_rows(page.content.decode())}

    slaps_league = League.objects.get(slug="slaps-amateur").pk
    assert ids(f"league__id__exact={slaps_league}") == {rated.pk, voided.pk, waiting.pk}
    assert ids(f"league__id__exact={League.objects.get(slug='preferans-amateur').pk}") == {preferans.pk}
    assert ids("status__exact=void") == {voided.pk}
    assert ids("waiting=yes") == {waiting.pk}
    assert ids("waiting=no") == {rated.pk, voided.pk, preferans.pk}
    # Hostile values: a filter value that is no choice lists everything or nothing, never a 500.
    assert admin_pages.get("/admin/matches/match/?waiting=%27;drop").status_code == 200
    assert admin_pages.get("/admin/matches/match/?league__id__exact=abc").status_code in (200, 302)


@pytest.mark.parametrize("count", [10, 50])
def test_the_list_reads_a_page_in_a_fixed_number_of_queries(
    admin_pages, reference_data, count, django_assert_num_queries
):
    """Ten matches or fifty, Slaps and Preferans with bots: the same queries (no query per row)."""
    referee = RefereeFactory()
    players = PlayerFactory.create_batch(6)
    for n in range(count):
        a, b = players[n % 6], players[(n + 1) % 6]
        played = PLAYED - timedelta(minutes=n)
        if n % 2:
            slaps_result(referee, a, b, played_at=played)
        else:
            body = {
                "game": "preferans",
                "played_at": played.isoformat(),
                "seats": [{"player": a.pk}, {"bot": "easy"}, {"player": b.pk}],
                "deals": [[2, -1, -1]],
            }
            match_submit(referee=referee, data=body)
    admin_pages.get("/admin/matches/match/")  # the session and permissions cached as on any later page
    # session, user, the game and league filters' choices, 2 counts, the page, its seats (players and bots
    # joined), the date hierarchy's range and its days
    with django_assert_num_queries(10):
        page = admin_pages.get("/admin/matches/match/")
    assert len(list_rows(page.content.decode())) == count


# --- 3. corrections through the entry form -----------------------------------------------------------------


def test_the_match_page_links_its_correction_to_the_games_entry_form(admin_pages, people):
    match = slaps_result(RefereeFactory(), people["Ann"], people["Bob"])
    page = admin_pages.get(f"/admin/matches/match/{match.pk}/change/").content.decode()
    assert f'href="/results/slaps/?correct={match.pk}">Correct result</a>' in page
    assert f'href="/admin/matches/match/{match.pk}/correct/">Correct as JSON</a>' in page


def test_a_slaps_correction_starts_from_the_stored_result(admin_pages, people):
    ann, bob = people["Ann"], people["Bob"]
    match = slaps_result(RefereeFactory(), ann, bob, league="slaps-amateur")
    page = admin_pages.get(f"/results/slaps/?correct={match.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Correct a Slaps result" in html
    assert the_entry_form(html) == {
        "csrfmiddlewaretoken": the_entry_form(html)["csrfmiddlewaretoken"],
        "game": "slaps",
        "correct": str(match.pk),
        "league": "slaps-amateur",
        "player_a_text": "Ann",
        "player_a": str(ann.pk),
        "player_b_text": "Bob",
        "player_b": str(bob.pk),
        "winner": "a",
        "played_at": f"{timezone.localtime(PLAYED):%Y-%m-%dT%H:%M}",
        "rated": "true",
    }
    assert "New player not found?" not in html  # a new player is added on a new result's page


def test_an_admin_corrects_a_slaps_result_on_its_entry_form_and_the_ratings_replay(
    admin_pages, people, django_capture_on_commit_callbacks
):
    """Ann beat Bob, then Bob beat Cleo: Ann 1016, Bob 984, then Bob 984 + 32 x (1 - 0.4770) = 1000.74,
    rounded 1001, Cleo 983. Corrected so that Bob won the first: Bob 1016, Ann 984; then Bob 1016 beats
    Cleo 1000: E = 1 / (1 + 10^(-16/400)) = 0.5230, Bob 1016 + 32 x 0.4770 = 1031.26, 1031, Cleo 985."""
    ann, bob, cleo = people["Ann"], people["Bob"], people["Cleo"]
    referee = RefereeFactory()
    with django_capture_on_commit_callbacks(execute=True):
        first = slaps_result(referee, ann, bob, played_at=PLAYED - timedelta(hours=1))
        slaps_result(referee, bob, cleo)

    def ratings():
        return {r.player.name: round(float(r.rating), 2) for r in PlayerRating.objects.select_related("player")}

    assert ratings() == {"Ann": 1016, "Bob": 1001, "Cleo": 983}
    url = f"/results/slaps/?correct={first.pk}"
    form = the_entry_form(admin_pages.get(url).content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_pages.post(url, {**form, "winner": "b"}, follow=True)
    assert response.redirect_chain == [(f"/admin/matches/match/{first.pk}/change/", 302)]
    assert "Result corrected; ratings are being replayed from it." in response.content.decode()
    assert ratings() == {"Ann": 984, "Bob": 1031, "Cleo": 985}
    entry = AuditEntry.objects.get(match=first, action="corrected")
    assert (entry.data["before"]["winner"], entry.data["after"]["winner"]) == (ann.pk, bob.pk)
    assert entry.actor.is_superuser


def test_a_correction_through_htmx_goes_back_to_the_match_in_admin(
    admin_pages, people, django_capture_on_commit_callbacks
):
    match = slaps_result(RefereeFactory(), people["Ann"], people["Bob"])
    url = f"/results/slaps/?correct={match.pk}"
    form = the_entry_form(admin_pages.get(url).content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_pages.post("/results/slaps/", {**form, "winner": "b"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert response["HX-Redirect"] == f"/admin/matches/match/{match.pk}/change/"
    assert match.seats.get(player=people["Bob"]).result == 1
    assert Match.objects.count() == 1  # corrected, not entered again


@pytest.mark.parametrize("game", ["slaps", "preferans"])
def test_a_correction_saved_unchanged_changes_nothing(admin_pages, people, game, django_capture_on_commit_callbacks):
    referee = RefereeFactory()
    with django_capture_on_commit_callbacks(execute=True):
        if game == "slaps":
            # Stored with seconds the form's minute field would lose: unchanged, the stored time stands.
            match = slaps_result(referee, people["Ann"], people["Bob"], played_at=PLAYED.replace(second=37))
        else:
            match = preferans_result(referee, people)
    url = f"/results/{game}/?correct={match.pk}"
    form = the_entry_form(admin_pages.get(url).content.decode())
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_pages.post(url, form, follow=True)
    assert response.redirect_chain == [(f"/admin/matches/match/{match.pk}/change/", 302)]
    assert "No change: the result is as stored; nothing was replayed." in response.content.decode()
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_preferans_correction_starts_from_the_stored_game_and_saves_a_changed_deal(
    admin_pages, people, django_capture_on_commit_callbacks
):
    ann, bob = people["Ann"], people["Bob"]
    with django_capture_on_commit_callbacks(execute=True):
        match = preferans_result(RefereeFactory(), people)
    url = f"/results/preferans/?correct={match.pk}"
    html = admin_pages.get(url).content.decode()
    assert "Correct a Preferans game" in html
    form = the_entry_form(html)
    assert {name: value for name, value in form.items() if name.startswith(("seat-", "deal-", "rows"))} == {
        "rows": "2",
        "seat-1-player": str(ann.pk),
        "seat-1-player_text": "Ann",
        "seat-1-bot": "",
        "seat-2-player": "",
        "seat-2-player_text": "",
        "seat-2-bot": "normal",
        "seat-3-player": str(bob.pk),
        "seat-3-player_text": "Bob",
        "seat-3-bot": "",
        "seat-4-player": "",
        "seat-4-player_text": "",
        "seat-4-bot": "",
        "deal-1-1": "4",
        "deal-1-2": "-2.5",
        "deal-1-3": "-1.5",
        "deal-2-1": "-6",
        "deal-2-2": "3",
        "deal-2-3": "3",
    }
    assert form["league"] == "preferans-amateur"
    # The second deal was Bob's, not Ann's: -6 and 3 change places, and a third deal is added.
    changed = {**form, "deal-2-1": "3", "deal-2-3": "-6", "rows": "3"}
    changed |= {"deal-3-1": "1", "deal-3-2": "0", "deal-3-3": "-1"}
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_pages.post(url, {**changed, "action": "save"})
    assert response.status_code == 302
    assert [deal.whists for deal in Deal.objects.filter(match=match).order_by("number")] == [
        [4, -2.5, -1.5],
        [3, 3, -6],
        [1, 0, -1],
    ]
    assert [str(seat.result) for seat in match.seats.order_by("position")] == ["8.00", "0.50", "-8.50"]
    assert match.seats.get(position=2).bot == Bot.objects.get(slug="normal")


def test_a_refused_correction_shows_its_errors_on_the_form_and_changes_nothing(
    admin_pages, people, django_capture_on_commit_callbacks
):
    ann, bob = people["Ann"], people["Bob"]
    with django_capture_on_commit_callbacks(execute=True):
        match = slaps_result(RefereeFactory(), ann, bob)
    url = f"/results/slaps/?correct={match.pk}"
    form = the_entry_form(admin_pages.get(url).content.decode())
    before = rows_snapshot()
    hostile = [
        (
            {"player_b": str(ann.pk), "player_b_text": "Ann"},
            "Choose a different second player: Ann is already the first.",
        ),
        ({"league": "preferans-pro"}, "Unknown league for Slaps."),
        ({"league": "slaps-pro"}, "Slaps Pro takes results between its own players, and Ann, Bob are not among"),
        ({"played_at": "2999-01-01T10:00"}, "The match cannot have been played in the future."),
        ({"played_at": "yesterday"}, "Enter a valid date and time"),
        ({"winner": "c"}, "Choose who won"),
        ({"player_a": "-3", "player_a_text": ""}, "Choose the first player"),
    ]
    for change, message in hostile:
        response = admin_pages.post(url, {**form, **change})
        assert response.status_code == 400, change
        html = response.content.decode()
        assert message in html, change
        assert f'name="correct" value="{match.pk}"' in html  # still correcting, never a new result
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_refused_preferans_correction_shows_its_errors_and_changes_nothing(
    admin_pages, people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        match = preferans_result(RefereeFactory(), people)
    url = f"/results/preferans/?correct={match.pk}"
    form = {**the_entry_form(admin_pages.get(url).content.decode()), "action": "save"}
    before = rows_snapshot()
    hostile = [
        ({"deal-1-1": "5"}, "Deal 1: the whists sum to +1.00, not 0 (each deal is zero-sum)."),
        ({"deal-2-2": "three"}, "Deal 2: whists are numbers with at most two decimals"),
        ({"seat-2-bot": "shark"}, "Unknown bot(s): "),
        ({"seat-1-bot": "easy"}, "Seat 1: a player or a bot, not both."),
        (
            {"seat-3-player": str(people["Ann"].pk), "seat-3-player_text": "Ann"},
            "Ann already holds seat 1: choose another player.",
        ),
        ({"league": "slaps-amateur"}, "Unknown league for Preferans."),
        ({"rated": "maybe"}, "Must be true (rated) or false (friendly)."),
    ]
    for change, message in hostile:
        response = admin_pages.post(url, {**form, **change})
        assert response.status_code == 400, change
        html = response.content.decode()
        assert message in html, change
        assert f'name="correct" value="{match.pk}"' in html, change
    assert rows_changed(before, rows_snapshot()) == {}
    assert [deal.whists for deal in Deal.objects.filter(match=match).order_by("number")] == [
        [4, -2.5, -1.5],
        [-6, 3, 3],
    ]


def test_who_may_correct_and_what(admin_pages, people, django_capture_on_commit_callbacks):
    ann, bob = people["Ann"], people["Bob"]
    with django_capture_on_commit_callbacks(execute=True):
        match = slaps_result(RefereeFactory(), ann, bob)
        preferans = preferans_result(RefereeFactory(), people)
    referee = Client()
    referee.force_login(RefereeFactory())
    form = the_entry_form(admin_pages.get(f"/results/slaps/?correct={match.pk}").content.decode())
    before = rows_snapshot()
    # A referee may enter results, not correct them: not by the URL, nor by a forged field.
    assert referee.get(f"/results/slaps/?correct={match.pk}").status_code == 403
    assert referee.post("/results/slaps/", {**form, "winner": "b"}).status_code == 403
    assert Client().get(f"/results/slaps/?correct={match.pk}").status_code == 302  # the sign-in page
    # Only a match of the page's game, by its id.
    assert admin_pages.get(f"/results/slaps/?correct={preferans.pk}").status_code == 404
    assert admin_pages.get("/results/slaps/?correct=abc").status_code == 404
    assert admin_pages.get("/results/slaps/?correct=99999999").status_code == 404
    assert admin_pages.post("/results/slaps/", {**form, "correct": "0"}).status_code == 404
    assert rows_changed(before, rows_snapshot()) == {}
    # A voided match is not corrected: back to its page, saying so.
    match_void(match_id=match.pk, by=AdminFactory())
    response = admin_pages.post("/results/slaps/", {**form, "winner": "b"}, follow=True)
    assert response.redirect_chain == [(f"/admin/matches/match/{match.pk}/change/", 302)]
    assert "A voided match cannot be corrected." in response.content.decode()
    assert match.seats.get(player=ann).result == 1


def bridge_session(people, extra_players, referee) -> Match:
    """Two boards at two tables, NS scores: pairs Ann-Bob v Cleo-Dan and Eve-Fay v Gus-Hal."""
    ann, bob, cleo, dan = (people[name] for name in ["Ann", "Bob", "Cleo", "Dan"])
    eve, fay, gus, hal = extra_players
    tables = [{"ns": [ann.pk, bob.pk], "ew": [cleo.pk, dan.pk]}, {"ns": [eve.pk, fay.pk], "ew": [gus.pk, hal.pk]}]
    body = {
        "game": "bridge",
        "played_at": PLAYED.isoformat(),
        "boards": [
            {"number": 1, "tables": [{**tables[0], "ns_score": 420}, {**tables[1], "ns_score": -50}]},
            {"number": 2, "tables": [{**tables[0], "ns_score": 100}, {**tables[1], "ns_score": 140}]},
        ],
    }
    return match_submit(referee=referee, data=body)


@pytest.fixture
def eight(people):
    return [PlayerFactory(name=name) for name in ["Eve", "Fay", "Gus", "Hal"]]


def test_a_bridge_session_is_corrected_on_the_evening_page(
    admin_pages, people, eight, django_capture_on_commit_callbacks
):
    """A session shows as a free movement entering NS scores: partnerships numbered as they first sit,
    tables as rows. Saved unchanged it changes nothing; a changed score is stored."""
    with django_capture_on_commit_callbacks(execute=True):
        match = bridge_session(people, eight, RefereeFactory())
    ids = {player.name: str(player.pk) for player in Player.objects.all()}
    url = f"/results/bridge/?correct={match.pk}"
    html = admin_pages.get(url).content.decode()
    assert "Correct a bridge session" in html
    form = the_entry_form(html)
    shown = {name: form[name] for name in form if name.startswith(("b1-", "b2-", "pair-")) and "_text" not in name}
    assert {name: value for name, value in shown.items() if value} == {
        "pair-1-1": ids["Ann"],
        "pair-1-2": ids["Bob"],
        "pair-2-1": ids["Cleo"],
        "pair-2-2": ids["Dan"],
        "pair-3-1": ids["Eve"],
        "pair-3-2": ids["Fay"],
        "pair-4-1": ids["Gus"],
        "pair-4-2": ids["Hal"],
        "b1-t1-ns": "1",
        "b1-t1-ew": "2",
        "b1-t1-score": "420",
        "b1-t2-ns": "3",
        "b1-t2-ew": "4",
        "b1-t2-score": "-50",
        "b2-t1-ns": "1",
        "b2-t1-ew": "2",
        "b2-t1-score": "100",
        "b2-t2-ns": "3",
        "b2-t2-ew": "4",
        "b2-t2-score": "140",
    }
    assert (form["movement"], form["tables"], form["boards"], form["league"]) == ("free", "2", "2", "bridge-amateur")

    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_pages.post(url, form, follow=True)
    assert "No change: the result is as stored; nothing was replayed." in response.content.decode()
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_pages.post(url, {**form, "b2-t2-score": "170"})
    assert response.status_code == 302
    scores = [
        [table.ns_score for table in board.tables.order_by("table")] for board in match.boards.order_by("position")
    ]
    assert scores == [[420, -50], [100, 170]]
    # A score no bridge board can have is refused on its cell, and changes nothing.
    before = rows_snapshot()
    response = admin_pages.post(url, {**form, "b1-t1-score": "425"})
    assert response.status_code == 400
    cell = re.search(r'<input[^>]*name="b1-t1-score"[^>]*>', response.content.decode()).group(0)
    assert 'value="425"' in cell
    assert 'aria-invalid="true"' in cell
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_team_match_in_imps_saved_unchanged_on_the_evening_page_changes_nothing(
    admin_pages, people, eight, django_capture_on_commit_callbacks
):
    ann, bob, cleo, dan = (people[name] for name in ["Ann", "Bob", "Cleo", "Dan"])
    eve, fay, gus, hal = eight
    tables = [{"ns": [ann.pk, bob.pk], "ew": [cleo.pk, dan.pk]}, {"ns": [gus.pk, hal.pk], "ew": [eve.pk, fay.pk]}]
    body = {
        "game": "bridge",
        "played_at": PLAYED.isoformat(),
        "boards": [
            {"number": n, "tables": [{**tables[0], "ns_imps": imps}, tables[1]]} for n, imps in [(1, 2.5), (2, -7)]
        ],
    }
    with django_capture_on_commit_callbacks(execute=True):
        match = match_submit(referee=RefereeFactory(), data=body)
    url = f"/results/bridge/?correct={match.pk}"
    form = the_entry_form(admin_pages.get(url).content.decode())
    assert (form["scoring"], form["b1-t1-score"], form["b2-t1-score"]) == ("imps", "2.5", "-7")
    assert (form["b1-t2-ns"], form["b1-t2-ew"]) == ("3", "4")
    before = rows_snapshot()
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_pages.post(url, form, follow=True)
    assert "No change: the result is as stored; nothing was replayed." in response.content.decode()
    assert callbacks == []
    assert rows_changed(before, rows_snapshot()) == {}


def test_a_bridge_session_the_evening_page_cannot_show_is_corrected_as_json(admin_pages, people):
    """Boards numbered from 5 (a scoring program's file): the evening page numbers boards from 1, so
    its correction opens admin's JSON form, saying why."""
    ann, bob, cleo, dan = (people[name] for name in ["Ann", "Bob", "Cleo", "Dan"])
    body = {
        "game": "bridge",
        "played_at": PLAYED.isoformat(),
        "boards": [{"number": 5, "tables": [{"ns": [ann.pk, bob.pk], "ew": [cleo.pk, dan.pk], "ns_imps": 3}]}],
    }
    match = match_submit(referee=RefereeFactory(), data=body)
    response = admin_pages.get(f"/results/bridge/?correct={match.pk}", follow=True)
    assert response.redirect_chain == [(f"/admin/matches/match/{match.pk}/correct/", 302)]
    html = response.content.decode()
    assert "The Bridge entry page cannot show this result: correct it here, as JSON." in html
    assert '<textarea name="body"' in html
    assert Player.objects.count() == 4


# --- 4. a game's leagues fit its page ------------------------------------------------------------------------


def test_a_games_page_shows_its_leagues_compactly_with_a_link_to_each(admin_pages, reference_data):
    from leagues.models import Game

    slaps = Game.objects.get(slug="slaps")
    html = admin_pages.get(f"/admin/leagues/game/{slaps.pk}/change/").content.decode()
    controls = form_fields(html).controls
    assert {name.split("-", 2)[2] for name in controls if name.startswith("leagues-0-")} == {
        "id",
        "game",
        "name",
        "slug",
        "tier",
        "promotion_threshold",
        "requires_confirmation",
        "DELETE",
    }
    amateur = League.objects.get(slug="slaps-amateur")
    assert f'href="/admin/leagues/league/{amateur.pk}/change/"' in html  # the floor and period are there
