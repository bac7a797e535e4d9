"""Sessions with a shared cache (``SESSION_ENGINE`` in config/settings.py): a signed-in page reads its
session from Redis, not PostgreSQL, and the database stays the truth (signing out ends a session for
every web process; an evicted cache entry is read back from the database)."""

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config.sessions import _cache_key as session_cache_key
from tests.factories import RefereeFactory

pytestmark = pytest.mark.django_db


def _tables(queries) -> list[str]:
    """The first table each query reads, as ``FROM "table"`` names it."""
    return [query["sql"].split(' FROM "', 1)[1].split('"', 1)[0] for query in queries]


def _signed_in() -> tuple[Client, str]:
    referee = RefereeFactory(username="table7")
    browser = Client()
    response = browser.post(
        "/accounts/login/", {"username": "table7", "password": "correct horse battery"}, secure=True
    )
    assert response.status_code == 302, response.content[:300]
    return browser, referee.username


def test_the_embedded_default_keeps_sessions_in_the_database_only():
    """Without CACHE_URL each process has its own memory cache: a session cached there would outlive a
    sign-out in another process, so ``make run``'s settings read sessions from the database."""
    assert django_settings.CACHE_URL == "" or django_settings.SESSION_ENGINE == "config.sessions"
    if not django_settings.CACHE_URL:
        assert django_settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


def test_a_signed_in_page_reads_its_session_from_the_cache(production, reference_data):
    browser, _ = _signed_in()
    browser.get("/results/slaps/", secure=True)  # the first read after sign-in may fill the cache
    with CaptureQueriesContext(connection) as queries:
        page = browser.get("/results/slaps/", secure=True)
    assert page.status_code == 200
    # No session query: it is kept in the cache, and so are the games (games/setup.py). The user's row and
    # permissions are read on every request, so a revoked referee is refused at once (config/auth.py;
    # tests/test_revocation.py).
    assert _tables(queries.captured_queries) == ["auth_user", "auth_permission"]


def test_the_cache_keeps_a_session_under_a_digest_of_its_key_never_the_key(production, reference_data):
    """The session key is the cookie's value, a credential: whoever lists the cache must not find it
    (config/sessions.py; every key and value is searched in ``tests/test_revocation.py``)."""
    browser, _ = _signed_in()
    assert browser.get("/results/slaps/", secure=True).status_code == 200
    key = browser.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert cache.get(session_cache_key(key))["_auth_user_id"]
    assert cache.get("django.contrib.sessions.cached_db" + key) is None


def test_signing_out_ends_the_session_though_it_was_cached(production, reference_data):
    browser, _ = _signed_in()
    assert browser.get("/results/slaps/", secure=True).status_code == 200
    stolen = browser.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert browser.post("/accounts/logout/", secure=True).status_code in (200, 302)
    replay = Client()
    replay.cookies[django_settings.SESSION_COOKIE_NAME] = stolen
    answer = replay.get("/results/slaps/", secure=True)
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/login/")


def test_a_session_evicted_from_the_cache_is_read_from_the_database(production, reference_data):
    browser, _ = _signed_in()
    assert browser.get("/results/slaps/", secure=True).status_code == 200
    cache.clear()  # an eviction, a Redis restart
    with CaptureQueriesContext(connection) as queries:
        page = browser.get("/results/slaps/", secure=True)
    assert page.status_code == 200
    assert "Sign out table7" in page.content.decode()
    assert _tables(queries.captured_queries)[0] == "django_session"
