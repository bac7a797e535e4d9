"""Who may write what: a permission matrix over every write endpoint and page,
CSRF on pages, revocable tokens, corrections and the audit log."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.tokens import api_token_create
from leagues.models import Player
from matches.models import AuditEntry, Match
from ratings.models import PlayerRating
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, UserFactory, api_token_for, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db
PLAYED = (timezone.now() - timedelta(hours=1)).isoformat()


@pytest.fixture
def world(reference_data):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    match = slaps_match(winner=ann, loser=bob)
    return {"ann": ann, "bob": bob, "match": match}


def users():
    return {
        "anonymous": None,
        "player": UserFactory(),
        "referee": RefereeFactory(),
        "admin": AdminFactory(),
    }


def api_client(user):
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(user)}")
    return client


def page_client(user):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def state():
    return (
        Match.objects.count(),
        Player.objects.count(),
        AuditEntry.objects.count(),
        Match.objects.filter(status="void").count(),
    )


# role -> expected status, for each write; "ok" means the write succeeds.
API_MATRIX = {
    "create player": {"anonymous": 401, "player": 403, "referee": 201, "admin": 201},
    "submit result": {"anonymous": 401, "player": 403, "referee": 201, "admin": 201},
    "void match": {"anonymous": 401, "player": 403, "referee": 403, "admin": 200},
    "correct match": {"anonymous": 401, "player": 403, "referee": 403, "admin": 200},
}


def api_call(client, action, world):
    ann, bob, match = world["ann"], world["bob"], world["match"]
    body = {"game": "slaps", "played_at": PLAYED, "players": [ann.pk, bob.pk], "winner": bob.pk}
    if action == "create player":
        return client.post("/api/players/", {"name": "Zed"}, format="json")
    if action == "submit result":
        return client.post("/api/matches/", body, format="json")
    if action == "void match":
        return client.post(f"/api/matches/{match.pk}/void/")
    return client.post(f"/api/matches/{match.pk}/correct/", body, format="json")


@pytest.mark.parametrize("action", list(API_MATRIX))
@pytest.mark.parametrize("role", ["anonymous", "player", "referee", "admin"])
def test_api_permission_matrix(world, role, action):
    user = users()[role]
    before = state()
    response = api_call(api_client(user), action, world)
    expected = API_MATRIX[action][role]
    assert response.status_code == expected, response.content
    if expected >= 400:
        assert state() == before, "a refused request stored nothing"
    else:
        assert state() != before


def _slaps_form(w):
    return {"player_a": w["ann"].pk, "player_b": w["bob"].pk, "winner": "a", "played_at": "2026-11-01T18:00"}


def _preferans_form(w):
    seats = {"seat-1": f"p:{w['ann'].pk}", "seat-2": "b:normal", "rows": "1"}
    return {**seats, "deal-1-1": "2", "deal-1-2": "-2", "played_at": "2026-11-01T18:00"}


PAGES = {
    "slaps entry": ("/results/slaps/", _slaps_form),
    "preferans entry": ("/results/preferans/", _preferans_form),
    "bridge entry": ("/results/bridge/", lambda w: {"tables": "1", "boards": "1", "played_at": "2026-11-01T18:00"}),
    "add player": ("/results/players/", lambda w: {"name": "Zed"}),
}
PAGE_MATRIX = {"anonymous": 302, "player": 403, "referee": "ok", "admin": "ok"}


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("role", ["anonymous", "player", "referee", "admin"])
def test_page_permission_matrix(world, role, page):
    url, make = PAGES[page]
    client = page_client(users()[role])
    before = state()
    get = client.get(url)
    response = client.post(url, make(world))
    expected = PAGE_MATRIX[role]
    if expected == "ok":
        assert get.status_code == 200 or url == "/results/players/"
        assert response.status_code in (200, 302, 400)
    else:
        assert get.status_code in (expected, 405)
        assert response.status_code == expected
        if expected == 302:
            assert "/accounts/login/" in response["Location"]
        assert state() == before


def test_admin_correction_page_is_for_admins_only(world):
    url = f"/admin/matches/match/{world['match'].pk}/correct/"
    assert page_client(None).get(url).status_code == 302
    assert page_client(RefereeFactory()).get(url).status_code == 302  # not staff: the admin login
    admin = page_client(AdminFactory())
    page = admin.get(url).content.decode()
    assert "&quot;game&quot;: &quot;slaps&quot;" in page


def test_csrf_is_enforced_on_pages_and_session_api(world):
    referee = RefereeFactory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(referee)
    before = state()
    form = {"player_a": world["ann"].pk, "player_b": world["bob"].pk, "winner": "a", "played_at": "2026-11-01T18:00"}
    assert client.post("/results/slaps/", form).status_code == 403
    body = {
        "game": "slaps",
        "played_at": PLAYED,
        "players": [world["ann"].pk, world["bob"].pk],
        "winner": world["ann"].pk,
    }
    assert client.post("/api/matches/", body, content_type="application/json").status_code == 403
    assert state() == before


def test_tokens_are_revocable(world):
    referee = RefereeFactory()
    issued = api_token_create(user=referee)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.secret}")
    assert client.post("/api/players/", {"name": "Yan"}, format="json").status_code == 201
    issued.token.delete()
    assert client.post("/api/players/", {"name": "Yul"}, format="json").status_code == 401
    assert not Player.objects.filter(name="Yul").exists()
    referee.groups.clear()
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
    assert fresh.post("/api/players/", {"name": "Yul"}, format="json").status_code == 403


def test_correction_through_the_api_replays_and_is_audited(world, django_capture_on_commit_callbacks):
    """Ann beat Bob (both 1000, E = 0.5, K = 32): Ann 1016. The correction makes Bob the winner of that
    same match: Ann 1000 + 32(0 - 0.5) = 984, and the replayed ledger is the oracle's."""
    admin = AdminFactory()
    client = api_client(admin)
    ann, bob, match = world["ann"], world["bob"], world["match"]
    from ratings.services import ratings_process_game

    ratings_process_game(game_id=match.game_id)
    assert PlayerRating.objects.get(player=ann).rating == 1016
    body = {"game": "slaps", "played_at": match.played_at.isoformat(), "players": [ann.pk, bob.pk], "winner": bob.pk}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/matches/{match.pk}/correct/", body, format="json")
    assert response.status_code == 200
    assert PlayerRating.objects.get(player=ann).rating == 984
    assert assert_ledger_is_the_oracles(game=match.game) == 2
    entry = AuditEntry.objects.get(action="corrected")
    assert entry.actor == admin
    assert entry.data["before"]["winner"] == ann.pk
    assert entry.data["after"]["winner"] == bob.pk
    bad = client.post(f"/api/matches/{match.pk}/correct/", {**body, "game": "preferans"}, format="json")
    assert bad.status_code == 400
    assert AuditEntry.objects.filter(action="corrected").count() == 1
    assert client.post("/api/matches/999999/correct/", body, format="json").status_code == 404


def test_every_write_is_audited_and_the_log_cannot_be_edited(world, django_capture_on_commit_callbacks):
    referee, admin = RefereeFactory(), AdminFactory()
    body = {
        "game": "slaps",
        "played_at": PLAYED,
        "players": [world["ann"].pk, world["bob"].pk],
        "winner": world["ann"].pk,
    }
    with django_capture_on_commit_callbacks(execute=True):
        match_id = api_client(referee).post("/api/matches/", body, format="json").json()["id"]
        api_client(admin).post(f"/api/matches/{match_id}/void/")
    actions = list(AuditEntry.objects.filter(match_id=match_id).order_by("at", "id").values_list("action", "actor"))
    assert actions == [("submitted", referee.pk), ("voided", admin.pk)]
    entry = AuditEntry.objects.filter(match_id=match_id).first()
    entry.action = "confirmed"
    with pytest.raises(ValueError, match="never edited"):
        entry.save()
    with pytest.raises(ValueError, match="never deleted"):
        entry.delete()
    admin_pages = page_client(admin)
    assert admin_pages.get("/admin/matches/auditentry/").status_code == 200
    assert admin_pages.get(f"/admin/matches/auditentry/{entry.pk}/delete/").status_code == 403


@pytest.mark.postgres
def test_the_database_refuses_to_edit_the_audit_log(world, require_postgres):
    from django.db import DatabaseError, transaction

    AuditEntry.objects.create(actor=None, action="submitted", match=world["match"], data={})
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.update(action="voided")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.all()._raw_delete(AuditEntry.objects.db)


def test_admin_corrects_a_result_in_admin(world, django_capture_on_commit_callbacks):
    import json

    admin = page_client(AdminFactory())
    match = world["match"]
    url = f"/admin/matches/match/{match.pk}/correct/"
    assert admin.post(url, {"body": "{not json"}).status_code == 400
    same_twice = {"game": "slaps", "played_at": PLAYED, "players": [world["ann"].pk] * 2, "winner": world["ann"].pk}
    rejected = admin.post(url, {"body": json.dumps(same_twice)})
    assert rejected.status_code == 400
    assert b"players:" in rejected.content
    fixed = {**same_twice, "players": [world["ann"].pk, world["bob"].pk], "winner": world["bob"].pk}
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(url, {"body": json.dumps(fixed)}).status_code == 302
    match.refresh_from_db()
    assert match.winner_seat.player == world["bob"]
    assert AuditEntry.objects.filter(match=match, action="corrected").count() == 1


def test_a_users_own_and_group_permissions_are_read_in_one_query(reference_data, django_assert_num_queries):
    from django.contrib.auth.models import Permission

    referee, nobody, admin = RefereeFactory(), UserFactory(), AdminFactory()
    direct = UserFactory()
    direct.user_permissions.add(Permission.objects.get(codename="void_match"))
    inactive = RefereeFactory(is_active=False)
    with django_assert_num_queries(1):
        assert referee.has_perm("matches.submit_result")  # through the referees group
        assert not referee.has_perm("matches.void_match")
    with django_assert_num_queries(1):
        assert direct.has_perm("matches.void_match")  # given to the user directly
        assert not direct.has_perm("matches.submit_result")
    assert not nobody.has_perm("matches.submit_result")
    assert not inactive.has_perm("matches.submit_result")
    assert admin.has_perm("matches.void_match")
    referee.groups.clear()
    assert not type(referee).objects.get(pk=referee.pk).has_perm("matches.submit_result")
    assert referee.get_all_permissions() >= {"matches.submit_result"}  # this request's cache, as Django's keeps it
