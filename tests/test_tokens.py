"""API tokens (issue 25, "Tokens"): stored hashed, shown once, with an expiry, revocation and rotation.

Digests are computed here with ``hashlib`` (SHA-256 in hex, docs/security.md "Tokens"), never with the
code under test, and lifetimes come from the settings the test sets.
"""

import hashlib
import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.models import ApiToken
from config.tokens import api_token_create, api_token_rotate
from leagues.models import Player
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db

MOVE = importlib.import_module("config.migrations.0002_authtoken_keys_hashed").authtoken_keys_move


def sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def client_with(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


def post_player(secret: str, name: str = "Tok En"):
    return client_with(secret).post("/api/players/", {"name": name}, format="json")


def rows_containing(text: str) -> list[str]:
    """Every stored row, of every table Django knows, with a text column containing ``text``."""
    found = []
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.CharField | models.TextField):
                continue
            if model._default_manager.filter(**{f"{field.attname}__contains": text}).exists():
                found.append(f"{model._meta.label}.{field.attname}")
    return found


def test_the_printed_token_is_stored_nowhere_only_its_digest(reference_data, capsys):
    call_command("createreferee", "table7")
    secret = capsys.readouterr().out.strip().splitlines()[-1]
    assert rows_containing(secret) == []
    token = ApiToken.objects.get(digest=sha256(secret))
    assert token.user.username == "table7"
    assert token.prefix == secret[:8]
    assert post_player(secret).status_code == 201


def test_a_valid_token_authenticates_as_its_user(referee):
    issued = api_token_create(user=referee, name="table 3")
    response = post_player(issued.secret)
    assert response.status_code == 201
    assert Player.objects.filter(name="Tok En").exists()


@pytest.mark.parametrize("secret", ["not-a-real-token", "", "x" * 300])
def test_an_unknown_token_is_401_with_the_scheme(reference_data, secret):
    response = post_player(secret)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert not Player.objects.exists()


def test_an_expired_token_is_401_saying_so(referee):
    issued = api_token_create(user=referee)
    assert post_player(issued.secret, "Before").status_code == 201
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = post_player(issued.secret, "After")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert "expired" in response.json()["detail"]
    assert not Player.objects.filter(name="After").exists()


def test_a_revoked_token_is_401_saying_so_from_admins_action(referee):
    issued = api_token_create(user=referee)
    admin = Client()
    admin.force_login(AdminFactory())
    answer = admin.post("/admin/config/apitoken/", {"action": "revoke", "_selected_action": [issued.token.pk]})
    assert answer.status_code == 302
    issued.token.refresh_from_db()
    assert issued.token.revoked_at is not None
    response = post_player(issued.secret)
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]
    assert not Player.objects.exists()


def test_an_inactive_users_token_is_401(referee):
    issued = api_token_create(user=referee)
    referee.is_active = False
    referee.save()
    assert post_player(issued.secret).status_code == 401


def test_the_lifetime_is_the_setting(referee, settings):
    settings.CARDRANK_TOKEN_DAYS = 7
    before = timezone.now()
    token = api_token_create(user=referee).token
    after = timezone.now()
    assert before + timedelta(days=7) <= token.expires_at <= after + timedelta(days=7)


def test_rotation_revokes_the_old_token_at_once_and_shows_the_new_one(referee):
    old = api_token_create(user=referee, name="table 3")
    new = api_token_rotate(token=old.token)
    assert new.secret != old.secret
    assert (new.token.user, new.token.name) == (referee, "table 3")
    assert post_player(old.secret, "Old").status_code == 401
    assert post_player(new.secret, "New").status_code == 201
    assert list(Player.objects.values_list("name", flat=True)) == ["New"]
    # A revoked token is not rotated: that would hand out a working secret for a token taken back.
    with pytest.raises(ValidationError):
        api_token_rotate(token=old.token)
    assert ApiToken.objects.filter(user=referee).count() == 2


def test_the_last_use_is_written_at_most_once_a_minute(referee):
    issued = api_token_create(user=referee)
    assert issued.token.last_used_at is None
    recent = timezone.now() - timedelta(seconds=30)
    ApiToken.objects.filter(pk=issued.token.pk).update(last_used_at=recent)
    assert post_player(issued.secret, "One").status_code == 201
    assert ApiToken.objects.get(pk=issued.token.pk).last_used_at == recent
    stale = timezone.now() - timedelta(minutes=2)
    ApiToken.objects.filter(pk=issued.token.pk).update(last_used_at=stale)
    before = timezone.now()
    assert post_player(issued.secret, "Two").status_code == 201
    assert ApiToken.objects.get(pk=issued.token.pk).last_used_at >= before


def test_the_migration_moves_old_keys_hashed_and_they_keep_working(referee, settings):
    """The data migration's function, run on DRF tokens as the older code made them."""
    settings.CARDRANK_TOKEN_DAYS = 30
    other = UserFactory()
    old_keys = {Token.objects.create(user=user).key: user for user in (referee, other)}
    before = timezone.now()
    MOVE(apps, None)
    after = timezone.now()
    assert not Token.objects.exists()  # the plain-text keys are gone
    for key, user in old_keys.items():
        assert rows_containing(key) == []
        moved = ApiToken.objects.get(digest=sha256(key))
        assert (moved.user, moved.prefix) == (user, key[:8])
        assert before + timedelta(days=30) <= moved.expires_at <= after + timedelta(days=30)
    assert post_player(next(key for key, user in old_keys.items() if user == referee)).status_code == 201
    MOVE(apps, None)  # run again: nothing moves twice
    assert ApiToken.objects.count() == 2


def test_admin_shows_prefix_and_dates_never_the_secret(referee):
    issued = api_token_create(user=referee, name="table 3")
    admin = Client()
    admin.force_login(AdminFactory())
    for url in ("/admin/config/apitoken/", f"/admin/config/apitoken/{issued.token.pk}/change/"):
        page = admin.get(url)
        assert page.status_code == 200
        html = page.content.decode()
        assert issued.secret not in html
        assert issued.token.digest not in html
        assert f"{issued.secret[:8]}…" in html
        assert "table 3" in html
    assert admin.get("/admin/authtoken/tokenproxy/").status_code == 404  # DRF's plain-text page is gone


def test_admin_adds_a_token_shown_once_on_a_page_nobody_keeps(referee, settings):
    settings.CARDRANK_TOKEN_DAYS = 7
    admin = Client()
    admin.force_login(AdminFactory())
    before = timezone.now()
    added = admin.post("/admin/config/apitoken/add/", {"user": referee.pk, "name": "table 9"})
    assert added.status_code == 200
    assert "no-store" in added["Cache-Control"]
    secret = re.search(r'id="api-token-secret" value="([^"]+)"', added.content.decode())[1]
    token = ApiToken.objects.get(digest=sha256(secret))
    assert (token.user, token.name) == (referee, "table 9")
    assert token.expires_at >= before + timedelta(days=7)
    assert rows_containing(secret) == []  # not in admin's history either
    assert secret not in str(added.cookies)  # nor in a message waiting in a cookie
    assert post_player(secret).status_code == 201


def test_admin_refuses_a_new_token_already_expired(referee):
    admin = Client()
    admin.force_login(AdminFactory())
    answer = admin.post(
        "/admin/config/apitoken/add/",
        {"user": referee.pk, "expires_at_0": "2020-01-01", "expires_at_1": "12:00:00"},
    )
    assert answer.status_code == 200
    assert "must expire in the future" in answer.content.decode()
    assert not ApiToken.objects.exists()


def test_only_superusers_add_tokens(referee):
    """A token acts as its user: a staff member allowed to add tokens could otherwise act as a superuser."""
    staff = UserFactory(is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="config"))
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/config/apitoken/").status_code == 200
    assert client.post("/admin/config/apitoken/add/", {"user": referee.pk}).status_code == 403
    assert not ApiToken.objects.exists()
