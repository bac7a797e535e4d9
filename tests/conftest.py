"""Shared fixtures.

Unit tests run on whatever ``DATABASE_URL`` names (SQLite by default) with
Celery tasks run eagerly. Tests of real services (PostgreSQL, Redis, a Celery
worker, gunicorn, Chromium) skip with a reason when a service is missing, and
fail instead when ``CARDRANK_REQUIRE_SERVICES=1`` (CI sets it).

Test-only settings live here, never in ``config.settings``: a fast password
hasher, and hypothesis profiles ("ci": derandomized, no example database, so a
CI run is repeatable; "dev": random, with the failing example's blob printed).
Every test also has a time limit (pytest-timeout, ``timeout`` in pyproject).
"""

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmarks.stack import port_open
from config.celery import app as celery_app
from tests import factories

# The test process itself always runs tasks eagerly; integration tests start
# real worker processes that talk to Redis.
celery_app.conf.update(task_always_eager=True, task_eager_propagates=True)

REPO = Path(__file__).resolve().parent.parent
# Figures the reliability tests report at the end of the run (see pytest_terminal_summary).
FIGURES: dict[str, object] = {}
REQUIRE_SERVICES = os.environ.get("CARDRANK_REQUIRE_SERVICES") == "1"
TEST_REDIS_URL = os.environ.get("CARDRANK_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
CHROMIUM = os.environ.get("CARDRANK_CHROMIUM", "/usr/bin/chromium")

# CI (or any run that requires the services) is derandomized: the same examples every run, and a
# failure there reproduces anywhere. HYPOTHESIS_PROFILE chooses explicitly.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("dev", print_blob=True)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") or REQUIRE_SERVICES else "dev")
)

# MD5 makes the thousands of factory users cheap; PBKDF2 stays available for a test whose user
# signs in at a real server (which runs the production settings and cannot check an MD5 hash).
FAST_PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


def service_missing(reason: str):
    """Skip on a laptop without the service; fail where services are required (CI)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"Required service missing: {reason}", pytrace=False)
    pytest.skip(reason)


def manage_on_production(*args: str, unset: tuple[str, ...] = (), **variables: str) -> subprocess.CompletedProcess:
    """``manage.py ARGS`` in a process of its own on production settings, as an operator runs it.

    DEBUG off, a fresh secret key and a real host name; ``variables`` add to or
    override the environment, ``unset`` removes variables (e.g. ``CACHE_URL``).
    """
    env = {
        **os.environ,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "ranks.example.org",
        **variables,
    }
    for name in ("DJANGO_ALLOW_ASYNC_UNSAFE", *unset):  # the former is set by the browser tests, for this process
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def api_for(user) -> APIClient:
    """An API client authenticated with ``user``'s token (made if missing)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    with override_settings(PASSWORD_HASHERS=FAST_PASSWORD_HASHERS):
        yield


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate limits count in the cache; every test starts with none used."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def require_postgres():
    if connection.vendor != "postgresql":
        service_missing("PostgreSQL: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardrank")


@pytest.fixture
def require_redis():
    from urllib.parse import urlparse

    url = urlparse(TEST_REDIS_URL)
    if not port_open(url.hostname or "127.0.0.1", url.port or 6379):
        service_missing(f"Redis at {TEST_REDIS_URL}")
    return TEST_REDIS_URL


@pytest.fixture
def production(settings, require_redis):
    """The production settings a request meets: DEBUG off and the Redis cache (the test Redis database).

    For tests through HTTP of what an attacker or a careless user can do on a
    deployment; the full stack (gunicorn, a worker) is ``tests/integration``.
    """
    from django.core.cache import cache

    settings.DEBUG = False
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": require_redis,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5, "RETRY_SECONDS": 5},
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"  # as config.settings with CACHE_URL
    cache.clear()
    yield settings
    cache.clear()


@pytest.fixture
def require_chromium():
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        service_missing(f"Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        service_missing("the playwright package")
    return CHROMIUM


@pytest.fixture
def reference_data(db):
    factories.reference_data_ensure()


@pytest.fixture
def slaps(reference_data):
    from leagues.models import Game

    return Game.objects.get(slug="slaps")


@pytest.fixture
def referee(reference_data):
    return factories.RefereeFactory()


@pytest.fixture
def admin_user(reference_data):
    return factories.AdminFactory()


@pytest.fixture
def referee_client(referee):
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=referee)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def anon_client():
    return APIClient()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not FIGURES:
        return
    terminalreporter.section("reliability figures")
    for name, value in FIGURES.items():
        shown = len(value) if isinstance(value, list) else value
        terminalreporter.write_line(f"{name}: {shown}")
