"""Deployment checks (``manage.py check --deploy``): the cache's Redis must evict, the broker's must not.

Redis applies ``maxmemory`` and ``maxmemory-policy`` to a whole server, not to
one of its numbered databases. The Celery broker's Redis must never evict (a
queued task would be lost: ``noeviction``, its default), while the cache's
Redis must (anonymous visitors choose which pages are read, and a full
``noeviction`` Redis refuses every write: the broker's too when they share it).
So the cache needs a Redis server of its own, with a memory cap and an evicting
policy, e.g. ``maxmemory 256mb`` and ``maxmemory-policy allkeys-lru``.

    config.W001  CACHE_URL and CELERY_BROKER_URL name the same Redis server.
    config.W002  The cache's Redis has no memory cap (``maxmemory 0``).
    config.W003  The cache's Redis does not evict (``maxmemory-policy noeviction``).
    config.I001  The cache's Redis could not be asked (down, or CONFIG not allowed,
                 as on some managed services): nothing is claimed, check by hand.

W002 and W003 ask the cache's Redis (``CONFIG GET``, half a second at most):
they fail open, as the cache does, so a check never fails because Redis is down.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.core.cache.backends.redis import RedisCache
from django.core.checks import Info, Tags, register
from django.core.checks import Warning as CheckWarning
from django.utils.module_loading import import_string

LOOPBACK = {"localhost", "127.0.0.1", "::1"}
TIMEOUT_SECONDS = 0.5
ADVICE = (
    "Run a Redis server of its own for CACHE_URL (e.g. redis://127.0.0.1:6380/0) with maxmemory set "
    "(e.g. 256mb) and maxmemory-policy allkeys-lru; keep the broker's Redis at noeviction. See docs/security.md."
)
SETTINGS_ADVICE = (
    "In the cache Redis's configuration: maxmemory 256mb (or what the host can spare) and "
    "maxmemory-policy allkeys-lru. If it is the broker's Redis too, give the cache a server of its own instead."
)


def redis_server(url: str) -> tuple[str, str | int] | None:
    """The Redis server a URL names: (host, port), ("unix", path), or None for anything but Redis."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme in ("redis", "rediss"):
        host = (parts.hostname or "localhost").lower()
        return ("localhost" if host in LOOPBACK else host, port or 6379)
    if parts.scheme == "unix":
        return ("unix", parts.path)
    return None


def cache_redis_urls() -> list[str]:
    """The Redis URLs of the default cache (empty when it is not a Redis cache)."""
    cache = settings.CACHES.get("default", {})
    try:
        backend = import_string(cache.get("BACKEND", ""))
    except ImportError:
        return []
    if not (isinstance(backend, type) and issubclass(backend, RedisCache)):
        return []
    location = cache.get("LOCATION") or []
    # Django's RedisCache takes a list, or one string of URLs separated by ";" or ",".
    urls = re.split("[;,]", location) if isinstance(location, str) else list(location)
    return [url.strip() for url in urls if url.strip()]


@register(Tags.caches, deploy=True)
def check_cache_apart_from_broker(app_configs=None, **kwargs):
    broker = str(getattr(settings, "CELERY_BROKER_URL", "") or "")
    brokers = {redis_server(url) for url in broker.split(";")} - {None}
    shared = sorted({server for url in cache_redis_urls() if (server := redis_server(url)) in brokers}, key=str)
    return [
        CheckWarning(
            f"CACHE_URL and CELERY_BROKER_URL name the same Redis server ({_shown(server)}). Redis caps memory and "
            "evicts per server, not per database: a cache that fills it makes the broker refuse tasks, and a "
            "policy that lets the cache evict would let the broker lose them.",
            hint=ADVICE,
            id="config.W001",
        )
        for server in shared
    ]


@register(Tags.caches, deploy=True)
def check_cache_evicts(app_configs=None, **kwargs):
    messages = []
    for url in cache_redis_urls():
        shown = _shown(redis_server(url))
        try:
            client = redis.Redis.from_url(
                url,
                socket_connect_timeout=TIMEOUT_SECONDS,
                socket_timeout=TIMEOUT_SECONDS,
                retry_on_timeout=False,
                decode_responses=True,
            )
            try:
                config = client.config_get("maxmemory*")
            finally:
                client.close()
            if "maxmemory" not in config:
                raise redis.ResponseError("CONFIG GET maxmemory* answered nothing")
        except (redis.RedisError, OSError, ValueError) as error:
            messages.append(
                Info(
                    f"Could not read the memory settings of the cache's Redis ({shown}): {error}",
                    hint="Make sure by hand that it has maxmemory set and an evicting maxmemory-policy.",
                    id="config.I001",
                )
            )
            continue
        if config.get("maxmemory", "0") == "0":
            messages.append(
                CheckWarning(
                    f"The cache's Redis ({shown}) has no memory cap (maxmemory 0): visitors can fill it.",
                    hint=SETTINGS_ADVICE,
                    id="config.W002",
                )
            )
        if config.get("maxmemory-policy") == "noeviction":
            messages.append(
                CheckWarning(
                    f"The cache's Redis ({shown}) never evicts (maxmemory-policy noeviction): once full it refuses "
                    "every write.",
                    hint=SETTINGS_ADVICE,
                    id="config.W003",
                )
            )
    return messages


def _shown(server) -> str:
    if server is None:
        return "?"
    host, port = server
    return f"unix:{port}" if host == "unix" else f"{host}:{port}"
