"""``manage.py check --deploy``: the cache's Redis apart from the broker's, capped and evicting (config/checks.py).

The Redis servers asked here are real: the shared test Redis, and servers of
the test's own started with the settings under test.
"""

import subprocess
import time

import pytest
from django.core.checks import Tags, run_checks

from benchmarks.stack import free_port
from tests.conftest import manage_on_production, needs
from tests.redis_servers import capped_cache_redis, redis_server

CACHE = "config.cache.FailOpenRedisCache"


@pytest.fixture
@needs("redis")
def cache_redis():
    with capped_cache_redis() as url:
        yield url


def cache_checks(settings, *, cache_url: str, broker_url: str = "memory://") -> dict[str, str]:
    settings.CACHES = {"default": {"BACKEND": CACHE, "LOCATION": cache_url}}
    settings.CELERY_BROKER_URL = broker_url
    messages = run_checks(tags=[Tags.caches], include_deployment_checks=True)
    return {message.id: message.msg for message in messages if message.id.startswith("config.")}


@pytest.mark.parametrize(
    ("cache_url", "broker_url"),
    [
        ("redis://127.0.0.1:6379/1", "redis://127.0.0.1:6379/0"),  # docs/operations.md's set-up before this check
        ("redis://localhost/9", "redis://127.0.0.1:6379/14"),  # the same loopback server, spelled two ways
        ("redis://10.0.0.5:6380/0,redis://10.0.0.6:6380/0", "redis://10.0.0.6:6380/3"),  # a replica's server
        ("unix:///run/redis.sock?db=1", "unix:///run/redis.sock"),
    ],
)
def test_cache_on_the_brokers_redis_server_warns(settings, cache_url, broker_url):
    messages = cache_checks(settings, cache_url=cache_url, broker_url=broker_url)
    assert "config.W001" in messages
    assert "same Redis server" in messages["config.W001"]


@pytest.mark.parametrize(
    ("cache_url", "broker_url"),
    [
        ("redis://127.0.0.1:6380/0", "redis://127.0.0.1:6379/0"),
        ("redis://cache.internal:6379/0", "redis://broker.internal:6379/0"),
        ("redis://127.0.0.1:6379/9", "memory://"),  # no broker: tasks run in-process
    ],
)
def test_cache_on_a_server_of_its_own_does_not_warn(settings, cache_url, broker_url):
    assert "config.W001" not in cache_checks(settings, cache_url=cache_url, broker_url=broker_url)


@pytest.mark.redis
def test_a_cache_redis_that_cannot_evict_warns(settings):
    with redis_server("--maxmemory", "0", "--maxmemory-policy", "noeviction") as url:
        messages = cache_checks(settings, cache_url=url)
    assert set(messages) == {"config.W002", "config.W003"}
    assert "maxmemory 0" in messages["config.W002"]
    assert "noeviction" in messages["config.W003"]

    with redis_server("--maxmemory", "64mb", "--maxmemory-policy", "noeviction") as url:
        assert set(cache_checks(settings, cache_url=url)) == {"config.W003"}


@pytest.mark.redis
def test_a_capped_evicting_cache_redis_passes(settings, cache_redis):
    assert cache_checks(settings, cache_url=cache_redis, broker_url="redis://127.0.0.1:6379/14") == {}


def test_the_check_fails_open_while_the_cache_redis_is_down(settings):
    started = time.monotonic()
    messages = cache_checks(settings, cache_url=f"redis://127.0.0.1:{free_port()}/0")
    assert time.monotonic() - started < 5
    assert set(messages) == {"config.I001"}  # an Info: check --deploy --fail-level WARNING still passes


@pytest.mark.redis
def test_a_managed_redis_that_hides_config_is_left_to_the_operator(settings):
    """Some managed services rename or forbid CONFIG: the check says it could not tell, and claims nothing."""
    with redis_server("--rename-command", "CONFIG", "") as url:
        messages = cache_checks(settings, cache_url=url)
    assert set(messages) == {"config.I001"}
    assert "unknown command" in messages["config.I001"]


def test_no_check_asks_a_cache_that_is_not_redis(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/14"
    messages = run_checks(tags=[Tags.caches], include_deployment_checks=True)
    assert [message.id for message in messages if message.id.startswith("config.")] == []


def check_deploy(**variables: str) -> subprocess.CompletedProcess:
    """``manage.py check --deploy --fail-level WARNING`` on production settings, as an operator runs it."""
    return manage_on_production("check", "--deploy", "--fail-level", "WARNING", **variables)


def test_check_deploy_fails_on_a_cache_sharing_the_brokers_redis(require_redis):
    result = check_deploy(CACHE_URL=require_redis, CELERY_BROKER_URL="redis://127.0.0.1:6379/14")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "config.W001" in result.stderr


def test_check_deploy_passes_with_the_cache_on_its_own_capped_redis(require_redis, cache_redis):
    result = check_deploy(CACHE_URL=cache_redis, CELERY_BROKER_URL="redis://127.0.0.1:6379/14")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
