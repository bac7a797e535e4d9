"""A referee who loses the role is refused on the very next request, whatever took it away: admin's forms
and Django's signals, but also a ``QuerySet.update``, a bulk delete of membership rows or raw SQL, which
send no signal (issue 26). Nothing about a user is kept between requests (config/auth.py): the user's row
is read on every request and the permissions once per request, so there is nothing to renew.

Each test signs a referee in, through the page (a session) and the API (a token), on the production
settings (DEBUG off, the Redis cache), asks once, takes the role away, and asks again."""

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from config.tokens import api_token_create
from tests.conftest import api_for
from tests.factories import AdminFactory, RefereeFactory

pytestmark = pytest.mark.django_db

ENTRY = "/results/slaps/"
API = "/api/matches/"


def _signed_in(user) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _page_allowed(browser: Client) -> bool:
    answer = browser.get(ENTRY, secure=True)
    assert answer.status_code in (200, 302, 403), answer.status_code
    return answer.status_code == 200


def _api_allowed(api) -> bool:
    """A result with no fields: a referee's is refused for what it lacks (400), anyone else's for who sent it."""
    answer = api.post(API, {}, format="json", secure=True)
    assert answer.status_code in (400, 401, 403), answer.status_code
    return answer.status_code == 400


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _raw(sql: str, params) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _leave_the_group_by_raw_sql(referee) -> None:
    _raw(f"DELETE FROM {_table(get_user_model().groups.through)} WHERE user_id = %s", [referee.pk])  # noqa: S608


def _leave_the_group_by_a_bulk_delete(referee) -> None:
    get_user_model().groups.through.objects.filter(user_id=referee.pk).delete()  # no m2m_changed


def _deactivate_by_update(referee) -> None:
    get_user_model().objects.filter(pk=referee.pk).update(is_active=False)


def _group_loses_the_permission_by_a_bulk_delete(referee) -> None:
    Group.permissions.through.objects.filter(
        group__user=referee, permission__codename="submit_result"
    ).delete()  # no m2m_changed


def _group_loses_the_permission_by_signals(referee) -> None:
    referee.groups.get().permissions.remove(Permission.objects.get(codename="submit_result"))


def _leave_the_group_by_signals(referee) -> None:
    referee.groups.clear()


def _group_deleted(referee) -> None:
    Group.objects.filter(user=referee).delete()


REVOCATIONS = [
    _leave_the_group_by_raw_sql,
    _leave_the_group_by_a_bulk_delete,
    _deactivate_by_update,
    _group_loses_the_permission_by_a_bulk_delete,
    _group_loses_the_permission_by_signals,
    _leave_the_group_by_signals,
    _group_deleted,
]


@pytest.mark.parametrize("revoke", REVOCATIONS, ids=lambda revoke: revoke.__name__.strip("_"))
def test_a_revoked_referee_is_refused_on_the_next_page(production, reference_data, revoke):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _page_allowed(browser)
    assert _page_allowed(browser)  # a second request, as a cache would have kept the first
    revoke(referee)
    assert not _page_allowed(browser)


@pytest.mark.parametrize("revoke", REVOCATIONS, ids=lambda revoke: revoke.__name__.strip("_"))
def test_a_revoked_referee_is_refused_on_the_next_api_call(production, reference_data, revoke):
    referee = RefereeFactory()
    api = api_for(referee)
    assert _api_allowed(api)
    assert _api_allowed(api)
    revoke(referee)
    assert not _api_allowed(api)


def test_a_demoted_superuser_is_refused_on_the_next_request_though_no_signal_says_so(production, reference_data):
    admin = AdminFactory()  # a superuser in no group: every permission comes from the flag
    browser, api = _signed_in(admin), api_for(admin)
    assert _page_allowed(browser)
    assert _api_allowed(api)
    _raw(f"UPDATE {_table(get_user_model())} SET is_superuser = %s WHERE id = %s", [False, admin.pk])  # noqa: S608
    assert not _page_allowed(browser)
    assert not _api_allowed(api)
    get_user_model().objects.filter(pk=admin.pk).update(is_superuser=True)
    assert _page_allowed(browser)
    assert _api_allowed(api)


def test_a_new_password_ends_the_other_sessions(production, reference_data):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _page_allowed(browser)
    referee.set_password("a-new-password-for-the-test")
    type(referee).objects.filter(pk=referee.pk).update(password=referee.password)  # around the signals too
    assert browser.get(ENTRY, secure=True).status_code == 302


def test_permissions_are_read_once_per_request_in_one_query(production, reference_data):
    browser = _signed_in(RefereeFactory())
    for _ in range(2):  # the second request reads them again: nothing is kept between requests
        with CaptureQueriesContext(connection) as queries:
            assert _page_allowed(browser)
        reads = [query["sql"] for query in queries.captured_queries if ' FROM "auth_permission"' in query["sql"]]
        assert len(reads) == 1


def test_no_password_hash_or_credential_reaches_the_cache(production, reference_data, require_redis):
    """After pages and API calls signed in both ways, nothing the cache's Redis holds, keys or values,
    contains a password's hash, a session key (sessions are kept under its digest: config/sessions.py) or
    an API token (its secret or its digest)."""
    referee = RefereeFactory()
    browser = Client()
    assert (
        browser.post(
            "/accounts/login/", {"username": referee.username, "password": "correct horse battery"}, secure=True
        ).status_code
        == 302
    )
    issued = api_token_create(user=referee)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {issued.secret}")
    for _ in range(2):
        assert _page_allowed(browser)
        assert _api_allowed(api)
    referee.refresh_from_db()
    session_key = browser.cookies[settings.SESSION_COOKIE_NAME].value
    secrets = {
        "password hash": referee.password.encode(),
        "the hash's digest part": referee.password.rsplit("$", 1)[-1].encode(),
        "session key": session_key.encode(),
        "API token": issued.secret.encode(),
        "API token's digest": issued.token.digest.encode(),
    }
    held = redis.Redis.from_url(require_redis)
    stored = [(key, held.get(key) or b"") for key in held.scan_iter() if held.type(key) == b"string"]
    assert stored  # the session, the stamps, the menu's count: the cache was used
    for name, secret in secrets.items():
        assert not [key for key, value in stored if secret in key or secret in value], name
