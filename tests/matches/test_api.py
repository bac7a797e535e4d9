"""The REST contract of API.md for Slaps results, including hostile input."""

import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.models import ApiToken
from leagues.models import Player
from matches.models import Match, Seat
from ratings.models import PlayerRating, RatingChange
from tests.factories import PlayerFactory, UserFactory, api_token_for

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(hours=2)).isoformat()


def body(ann, bob, **overrides):
    data = {"game": "slaps", "played_at": PLAYED, "rated": True, "players": [ann.pk, bob.pk], "winner": ann.pk}
    data.update(overrides)
    return data


def nothing_stored():
    return not Match.objects.exists() and not Seat.objects.exists() and not RatingChange.objects.exists()


def test_referee_submits_a_result_and_it_is_rated(referee_client, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body(ann, bob), format="json")
    assert response.status_code == 201, response.json()
    match_id = response.json()["id"]
    detail = referee_client.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "rated"
    assert detail["game"] == "slaps"
    assert detail["rated"] is True
    assert detail["referee"] is None  # no full name set, and the public never reads a username
    assert detail["winner"] == ann.pk
    changes = {row["player"]: row for row in detail["rating_changes"]}
    # Seed 000, both at 1000: E = 1/(1 + 10^0) = 0.5, K = 32: Ann 1000 + 32(1 - 0.5) = 1016, Bob 984.
    assert changes[ann.pk] == {"player": ann.pk, "rating_before": 1000, "rating_after": 1016, "delta": 16}
    assert changes[bob.pk]["rating_after"] == 984
    assert isinstance(changes[bob.pk]["rating_after"], int), "Slaps ratings are whole numbers"


def test_friendly_is_stored_and_never_rated(referee_client, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body(ann, bob, rated=False), format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "friendly"
    assert response.json()["rating_changes"] == []
    assert not PlayerRating.objects.exists()


HOSTILE = [
    ("same player twice", lambda a, b: body(a, a), "players"),
    ("unknown player", lambda a, b: body(a, b, players=[a.pk, 999999], winner=a.pk), "players"),
    ("winner not in the match", lambda a, b: body(a, b, winner=999999), "winner"),
    ("winner missing", lambda a, b: body(a, b, winner=None), "winner"),
    ("bad date", lambda a, b: body(a, b, played_at="yesterday-ish"), "played_at"),
    ("impossible date", lambda a, b: body(a, b, played_at="2026-02-30T10:00:00Z"), "played_at"),
    ("date in the future", lambda a, b: body(a, b, played_at="2999-01-01T00:00:00Z"), "played_at"),
    ("date missing", lambda a, b: body(a, b, played_at=None), "played_at"),
    ("unknown game", lambda a, b: body(a, b, game="chess"), "game"),
    ("game not a string", lambda a, b: body(a, b, game=["slaps"]), "game"),
    ("game missing", lambda a, b: {k: v for k, v in body(a, b).items() if k != "game"}, "game"),
    ("three players", lambda a, b: body(a, b, players=[a.pk, b.pk, a.pk + b.pk]), "players"),
    ("one player", lambda a, b: body(a, b, players=[a.pk]), "players"),
    ("players not a list", lambda a, b: body(a, b, players="1,2"), "players"),
    ("player id not a number", lambda a, b: body(a, b, players=[a.pk, "bob"]), "players"),
    ("player id a boolean", lambda a, b: body(a, b, players=[a.pk, True]), "players"),
    ("player id negative", lambda a, b: body(a, b, players=[a.pk, -b.pk]), "players"),
    ("player id overflowing bigint", lambda a, b: body(a, b, players=[a.pk, 2**70]), "players"),
    ("player id a float", lambda a, b: body(a, b, players=[a.pk, 1.5]), "players"),
    ("rated not a boolean", lambda a, b: body(a, b, rated="maybe"), "rated"),
    ("winner a string", lambda a, b: body(a, b, winner="<script>"), "winner"),
]


@pytest.mark.parametrize(("case", "make_body", "field"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(referee_client, case, make_body, field):
    ann, bob = PlayerFactory(), PlayerFactory()
    response = referee_client.post("/api/matches/", make_body(ann, bob), format="json")
    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors, errors
    assert all(isinstance(message, str) and message for message in errors[field])
    assert nothing_stored()


@pytest.mark.parametrize("payload", ["[1, 2]", '"slaps"', "null", "{not json", "12"])
def test_bodies_that_are_not_objects_are_rejected(referee_client, payload):
    response = referee_client.generic("POST", "/api/matches/", payload, content_type="application/json")
    assert response.status_code == 400
    assert nothing_stored()


def test_anonymous_cannot_submit(anon_client, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    response = anon_client.post("/api/matches/", body(ann, bob), format="json")
    assert response.status_code in (401, 403)
    assert nothing_stored()


def test_signed_in_non_referee_gets_403(reference_data):
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    ann, bob = PlayerFactory(), PlayerFactory()
    assert client.post("/api/matches/", body(ann, bob), format="json").status_code == 403
    assert client.post("/api/players/", {"name": "Eve"}, format="json").status_code == 403
    assert nothing_stored()
    assert not Player.objects.filter(name="Eve").exists()


def test_bad_token_is_401(reference_data):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.post("/api/matches/", {}, format="json").status_code == 401


def test_only_admins_void(referee_client, admin_user, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        match_id = referee_client.post("/api/matches/", body(ann, bob), format="json").json()["id"]
    assert referee_client.post(f"/api/matches/{match_id}/void/").status_code == 403
    assert APIClient().post(f"/api/matches/{match_id}/void/").status_code in (401, 403)
    assert Match.objects.get(pk=match_id).status == "rated"

    admin = APIClient()
    admin.force_authenticate(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/api/matches/{match_id}/void/")
    assert response.status_code == 200
    assert response.json()["status"] == "void"
    assert admin.get(f"/api/matches/{match_id}/").json()["rating_changes"] == []
    assert not PlayerRating.objects.exists()
    assert admin.post("/api/matches/999999/void/").status_code == 404


def test_unknown_match_is_404(anon_client, reference_data):
    assert anon_client.get("/api/matches/424242/").status_code == 404


def test_create_player(referee_client):
    response = referee_client.post("/api/players/", {"name": "  Ada   Lovelace "}, format="json")
    assert response.status_code == 201
    assert response.json()["name"] == "Ada Lovelace"
    assert response.json()["ratings"] == []


@pytest.mark.parametrize("name", ["", "   ", None, 12, "x" * 101, "bad\x00name", ["Ada"]])
def test_create_player_rejects_bad_names(referee_client, name):
    response = referee_client.post("/api/players/", {"name": name}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    assert not Player.objects.exists()


def test_createreferee_prints_a_working_token(reference_data, capsys):
    call_command("createreferee", "table7")
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert ApiToken.objects.get(digest=hashlib.sha256(token.encode()).hexdigest()).user.username == "table7"
    # Running it again reuses the user and its token, which it cannot print again: the secret is stored nowhere.
    call_command("createreferee", "table7")
    again = capsys.readouterr()
    assert again.out == ""
    assert "--rotate-token" in again.err
    assert ApiToken.objects.count() == 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/players/", {"name": "Tab Le"}, format="json").status_code == 201


def test_a_five_thousand_digit_id_is_a_400_not_a_crash(referee_client):
    ann = PlayerFactory()
    response = referee_client.post("/api/matches/", body(ann, ann, players=[ann.pk, "9" * 5000]), format="json")
    assert response.status_code == 400
    assert nothing_stored()


def test_a_retried_submission_with_the_same_idempotency_key_is_stored_once(referee_client, referee):
    ann, bob = PlayerFactory(), PlayerFactory()
    first = referee_client.post("/api/matches/", body(ann, bob), format="json", HTTP_IDEMPOTENCY_KEY="table-3-round-7")
    again = referee_client.post("/api/matches/", body(ann, bob), format="json", HTTP_IDEMPOTENCY_KEY="table-3-round-7")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert Match.objects.count() == 1
    other = referee_client.post("/api/matches/", body(ann, bob), format="json", HTTP_IDEMPOTENCY_KEY="table-3-round-8")
    assert other.status_code == 201
    assert Match.objects.count() == 2
    # Keys belong to their referee: another referee's same key is a new result.
    from tests.factories import RefereeFactory

    colleague = APIClient()
    colleague.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(RefereeFactory())}")
    assert (
        colleague.post(
            "/api/matches/", body(ann, bob), format="json", HTTP_IDEMPOTENCY_KEY="table-3-round-7"
        ).status_code
        == 201
    )
    assert Match.objects.count() == 3


@pytest.mark.parametrize("key", ["x" * 65, "caf\u00e9", "tab\there"])
def test_bad_idempotency_keys_are_refused(referee_client, key):
    ann, bob = PlayerFactory(), PlayerFactory()
    response = referee_client.post("/api/matches/", body(ann, bob), format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()
    assert nothing_stored()


def test_createreferee_rotates_a_token(reference_data, capsys):
    call_command("createreferee", "table7")
    old = capsys.readouterr().out.strip().splitlines()[-1]
    call_command("createreferee", "table7", "--rotate-token")
    new = capsys.readouterr().out.strip().splitlines()[-1]
    assert new != old
    live = ApiToken.objects.get(revoked_at__isnull=True)
    assert live.digest == hashlib.sha256(new.encode()).hexdigest()
    stale, fresh = APIClient(), APIClient()
    stale.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert stale.post("/api/players/", {"name": "Old Key"}, format="json").status_code == 401
    assert fresh.post("/api/players/", {"name": "New Key"}, format="json").status_code == 201
    assert list(Player.objects.values_list("name", flat=True)) == ["New Key"]


def test_createreferee_rotates_no_token_for_an_unknown_user(reference_data):
    with pytest.raises(CommandError, match="no token to rotate"):
        call_command("createreferee", "tabel7", "--rotate-token")
    assert not get_user_model().objects.filter(username="tabel7").exists()
    assert not ApiToken.objects.exists()


def test_an_admin_rotates_a_token_on_the_admin_pages(referee_client, referee, admin_user):
    """Revoke the referee's token from admin's token list, then add one for the same user: shown once."""
    old = ApiToken.objects.get(user=referee)
    admin = Client()
    admin.force_login(admin_user)
    changelist = "/admin/config/apitoken/"
    revoked = admin.post(changelist, {"action": "revoke", "_selected_action": [old.pk]})
    assert revoked.status_code == 302
    added = admin.post(f"{changelist}add/", {"user": referee.pk, "name": "table 7"})
    assert added.status_code == 200
    assert "no-store" in added["Cache-Control"]
    new = ApiToken.objects.get(user=referee, revoked_at__isnull=True)
    secret = re.search(r'id="api-token-secret" value="([^"]+)"', added.content.decode())[1]
    assert hashlib.sha256(secret.encode()).hexdigest() == new.digest
    assert referee_client.post("/api/players/", {"name": "Old Key"}, format="json").status_code == 401
    referee_client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert referee_client.post("/api/players/", {"name": "New Key"}, format="json").status_code == 201
    assert secret not in admin.get(changelist).content.decode()
    assert secret not in admin.get(f"{changelist}{new.pk}/change/").content.decode()
