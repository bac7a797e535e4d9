"""Shared fixtures.

Unit tests run on whatever ``DATABASE_URL`` names (SQLite by default) with
Celery tasks run eagerly. Tests of real services (PostgreSQL, Redis, a Celery
worker, gunicorn, Chromium) skip with a reason when a service is missing, and
fail instead when ``CARDRANK_REQUIRE_SERVICES=1`` (CI sets it).

Test-only settings live here, never in ``config.settings``: a fast password
hasher, and hypothesis profiles ("ci": derandomized, no example database, so a
CI run is repeatable; "dev": random, with the failing example's blob printed).
Every test also has a time limit (pytest-timeout, ``timeout`` in pyproject).

What a test needs beyond Python and SQLite it says with a marker (``REQUIREMENTS``):
``postgres``, ``redis``, ``services`` (a Celery worker and gunicorn of the test's
own, on PostgreSQL and Redis), ``browser`` (Chromium and Playwright), ``nginx``,
``shared_data("<folder>")`` (the real files of ``../shared/data``). They are
checked once per test before it runs: skipped with the reason where the thing
is missing, failed instead under ``CARDRANK_REQUIRE_SERVICES=1``. A
fixture that stands for a service is tagged ``@needs(marker)`` (``production``,
``stack``, ``page``...) and gives its marker to every test that uses it. ``serial``
marks a test that disturbs every other test running beside it (a PostgreSQL
restart): ``make test`` runs it after the parallel run, alone.
"""

import os
import secrets
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.db import connection
from django.test import override_settings
from hypothesis import settings as hypothesis_settings
from pytest_django.plugin import validate_django_db
from rest_framework.test import APIClient

from benchmarks.stack import port_open
from config.celery import app as celery_app
from tests import factories
from tests.factories import api_token_for
from tests.shared_data import REPO, shared_data

# The test process itself always runs tasks eagerly; integration tests start
# real worker processes that talk to Redis.
celery_app.conf.update(task_always_eager=True, task_eager_propagates=True)

# Figures the reliability tests report at the end of the run (see pytest_terminal_summary).
FIGURES: dict[str, object] = {}
REQUIRE_SERVICES = os.environ.get("CARDRANK_REQUIRE_SERVICES") == "1"
CHROMIUM = os.environ.get("CARDRANK_CHROMIUM", "/usr/bin/chromium")
# pytest-xdist's workers (make test runs at most MAX_WORKERS) each take a Redis database of their own, counting
# down from the configured one, so one worker's FLUSHDB or broker never meets another's keys.
MAX_WORKERS = 8


def worker_redis_url(url: str, worker: str) -> str:
    """``url`` for the xdist worker named ``worker`` (``gw0``, ``gw1``, ...; empty outside xdist): database N - i."""
    if not worker:
        return url
    index = int(worker.removeprefix("gw"))
    parsed = urlparse(url)
    base = int(parsed.path.strip("/") or 0)
    if index >= MAX_WORKERS or base - index < 0:
        raise pytest.UsageError(
            f"xdist worker {worker} has no Redis database of its own below {url}: "
            f"run at most {min(MAX_WORKERS, base + 1)} workers (-n) or raise the database number"
        )
    return parsed._replace(path=f"/{base - index}").geturl()


TEST_REDIS_URL = worker_redis_url(
    os.environ.get("CARDRANK_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"), os.environ.get("PYTEST_XDIST_WORKER", "")
)

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
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(user)}")
    return client


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    with override_settings(PASSWORD_HASHERS=FAST_PASSWORD_HASHERS):
        yield


@pytest.fixture(autouse=True, scope="session")
def _files_of_the_run(tmp_path_factory):
    """The files the site writes (``MEDIA_ROOT``: prepared downloads) go to the run's own folder, not the
    checkout's ``files/``."""
    with override_settings(MEDIA_ROOT=str(tmp_path_factory.mktemp("files"))):
        yield


@pytest.fixture(autouse=True)
def _the_sites_language():
    """Every test starts in the site's language. A request leaves its language active in the thread that
    served it (Django's LocaleMiddleware activates and never deactivates; a server's next request activates
    its own), so a test client's Russian request would otherwise make the next test's gettext Russian."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate limits count in the cache; every test starts with none used."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _heavy_read_turns_given_back(django_db_blocker):
    """After each test, the heavy reads' turns (``config.lanes``) its requests still hold are given back.

    A WSGI server closes every answer, and a streamed one gives its turn back when closed; Django's test
    client closes a streamed answer only when a test reads it to its end, so a test that checks a
    download's status alone left the turn held on the worker's database connection (and the next test
    that held the lane from another session waited for it forever). The lane's own tests check that
    turns are given back (``tests/test_lanes.py``)."""
    yield
    from config import lanes

    lanes._local.clear()  # the semaphores of a process without PostgreSQL, and this thread's turns of them
    lanes._held.__dict__.clear()
    if connection.vendor != "postgresql" or connection.connection is None:
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        for _ in range(100):
            cursor.execute(
                "SELECT pg_advisory_unlock(classid::int, objid::int) FROM pg_locks WHERE locktype = 'advisory'"
                " AND classid = %s AND objsubid = 2 AND pid = pg_backend_pid() AND granted",
                [lanes.LANE_KEY],
            )
            if not cursor.fetchall():
                break


@pytest.fixture
def heavy_reads_unlimited(settings):
    """No turns for the heavy reads (``CARDRANK_HEAVY_READS_AT_ONCE=0``), for tests that count a view's queries:
    on PostgreSQL a turn is two queries of its own (taken and given back), counted by tests/test_lanes.py."""
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 0


# --- what a test needs, said with a marker -----------------------------------------------------------------


def postgres_missing() -> str | None:
    if connection.vendor != "postgresql":
        return "PostgreSQL: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardrank"
    return None


@cache
def redis_missing() -> str | None:
    url = urlparse(TEST_REDIS_URL)
    if not port_open(url.hostname or "127.0.0.1", url.port or 6379):
        return f"Redis at {TEST_REDIS_URL} (CARDRANK_TEST_REDIS_URL)"
    if not shutil.which("redis-server"):
        return "the redis-server binary, for the Redis servers tests start of their own"
    return None


def services_missing() -> str | None:
    """A worker and gunicorn of the test's own reach the test's database (PostgreSQL: SQLite's is in memory)."""
    return postgres_missing() or redis_missing()


@cache
def chromium_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"Chromium at {CHROMIUM} (apt-get install -y chromium; CARDRANK_CHROMIUM names another)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package"
    return None


def nginx_path() -> str | None:
    """nginx's binary: on the PATH, or Debian's /usr/sbin/nginx, which a plain user's PATH leaves out."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


@cache
def nginx_missing() -> str | None:
    if not nginx_path():
        return "nginx (apt-get install -y nginx-light)"
    if not shutil.which("openssl"):
        return "openssl, for the proxy's test certificate"
    return None


def shared_data_missing(*folders: str) -> str | None:
    for folder in folders:
        path = shared_data(folder)
        if not path.exists():
            return f"the real data {path} (../shared/data beside the checkout, or CARDRANK_SHARED_DATA)"
    return None


def gettext_missing() -> str | None:
    if not (shutil.which("xgettext") and shutil.which("msgmerge")):
        return "GNU gettext's xgettext and msgmerge, which make messages runs (apt-get install -y gettext)"
    return None


# marker -> the check of what it needs (None: there); a marker's arguments are passed to its check.
REQUIREMENTS = {
    "postgres": postgres_missing,
    "redis": redis_missing,
    "services": services_missing,
    "browser": chromium_missing,
    "nginx": nginx_missing,
    "shared_data": shared_data_missing,
    "gettext": gettext_missing,
}


def needs(marker: str):
    """Tag a fixture that stands for a service: every test that uses it, directly or through another fixture,
    gets ``marker`` (a name of ``REQUIREMENTS``), so a test cannot use the service and forget to say so."""

    def tag(function):
        function.needs_marker = marker
        return function

    return tag


def fixture_needs(item, name: str) -> str | None:
    """The marker the fixture ``name`` that ``item`` uses stands for (its closest definition), if any."""
    definitions = item._fixtureinfo.name2fixturedefs.get(name)
    return getattr(definitions[-1].func, "needs_marker", None) if definitions else None


# pytest-xdist's --dist loadgroup runs each group on one worker: one Chromium at a time, and one stack of
# gunicorn and Celery processes at a time, beside the other worker's plain tests.
XDIST_GROUPS = ("browser", "services")


def requirement_missing(item) -> str | None:
    """The first thing ``item``'s markers name that is missing, as a reason; None when all are there."""
    for marker in item.iter_markers():
        check = REQUIREMENTS.get(marker.name)
        reason = check(*marker.args) if check else None
        if reason:
            return reason
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Each test gets the markers its fixtures imply and its xdist group (before xdist reads the groups); one
    that needs what is missing is marked skip with the reason (the summary lists it at the test's own line),
    unless services are required: then it fails as it starts (``pytest_runtest_setup``)."""
    for item in items:
        for fixture in item.fixturenames:
            need = fixture_needs(item, fixture)
            if need and not item.get_closest_marker(need):
                item.add_marker(need)
        groups = [group for group in XDIST_GROUPS if item.get_closest_marker(group)]
        if groups and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(groups[-1]))
        if not REQUIRE_SERVICES and (reason := requirement_missing(item)):
            item.add_marker(pytest.mark.skip(reason=reason))


class GroupsAfterTheDatabaseTests:
    """Orders the run for the xdist groups: the plain database tests, the services group, the other tests
    (transactional and without a database), the browser group.

    A transactional test (every browser and service test) ends by emptying the database, the rows the
    migrations wrote (the games, leagues and bots) with the rest. pytest-django orders a run so that no
    plain database test follows one on the same database; a group is scheduled as one unit at its first
    test's place, so a group early in the run would leave the rest of its worker an empty database. After
    the plain database tests, the longest group (the service stacks, about half the run's last part) starts
    on one worker while the other runs everything left, then the browser group. Registered in
    ``pytest_configure``: it sorts after pytest-django and xdist have read the items (trylast).
    """

    @staticmethod
    def place(item) -> int:
        group = item.get_closest_marker("xdist_group")
        if group:
            return 1 if group.args[0] == "services" else 3
        django_db = item.get_closest_marker("django_db")
        transaction, reset_sequences, *_ = validate_django_db(django_db) if django_db else (False, False)
        fixtures = set(item.fixturenames)
        transactional = transaction or reset_sequences or bool(fixtures & {"transactional_db", "live_server"})
        uses_db = bool(django_db) or "db" in fixtures
        return 0 if uses_db and not transactional else 2

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        items.sort(key=self.place)  # stable: each part keeps pytest-django's order


def pytest_configure(config):
    config.pluginmanager.register(GroupsAfterTheDatabaseTests(), "cardrank-groups-order")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Where services are required, a test whose markers name a missing one fails before its fixtures run."""
    if REQUIRE_SERVICES and (reason := requirement_missing(item)):
        service_missing(reason)


@pytest.fixture
@needs("postgres")
def require_postgres():
    """PostgreSQL (the ``postgres`` marker has checked it)."""


@pytest.fixture
@needs("redis")
def require_redis():
    """The test Redis's URL, this xdist worker's own database (the ``redis`` marker has checked it)."""
    return TEST_REDIS_URL


@pytest.fixture
@needs("redis")
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
    settings.SESSION_ENGINE = "config.sessions"  # as config.settings with CACHE_URL
    cache.clear()
    yield settings
    cache.clear()


@pytest.fixture
@needs("browser")
def require_chromium():
    """Chromium's path (the ``browser`` marker has checked it)."""
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
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
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
