"""A Redis cache that is never a dependency: when Redis fails, the site carries on without it.

Vocabulary:
    cache down   any error talking to Redis (refused, reset, timed out, out of
                 memory, read-only replica): a ``redis.exceptions.RedisError``.
    fail open    what each use of the cache does while it is down. A read is a
                 miss, a write is dropped, a counter is missing. So a cached
                 page (``ratings.caching``) is computed from the database, as
                 on a cold cache, and is always correct since its key holds a
                 version read from the database; a rate limit (django-ratelimit,
                 with ``RATELIMIT_FAIL_OPEN``; the API's ``WriteThrottle``)
                 finds no counter and lets the request through. Results are
                 accepted either way: nothing in the write path needs the cache.
    back-off     after an error, this cache object (Django keeps one per
                 thread) leaves Redis alone for ``RETRY_SECONDS`` (an
                 ``OPTIONS`` key, default 5) and logs one warning: a Redis
                 that hangs instead of refusing would otherwise cost every
                 request a connect timeout per cache call, and the log a line
                 per call.

Only the Redis client's errors are caught: a ``ValueError`` from ``incr`` of a
missing key, or a programming error, still raises. Configured in
``config.settings`` whenever ``CACHE_URL`` is set.

One client per connection pool: Django's ``RedisCacheClient`` builds a new
``redis.Redis`` object on every cache call, and building one copies its table
of some 170 reply callbacks, which cost more CPU than the call's round trip
(docs/performance.md). A ``redis.Redis`` object holds no connection of its
own (each command takes one from the pool and gives it back), so
``ReusingRedisCacheClient`` keeps the one it built; like its pools, it
belongs to the cache object of one thread (Django keeps one per thread).
"""

from __future__ import annotations

import functools
import logging
import threading
import time

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# The default answer of each guarded method while the cache is down (see "fail open").
_MISSING_COUNTER = object()
_FAIL_OPEN = {
    "get": None,  # replaced by the caller's default below
    "get_many": {},
    "has_key": False,
    "set": None,
    "set_many": [],
    "add": False,
    "touch": False,
    "delete": False,
    "delete_many": None,
    "clear": None,
    "incr": _MISSING_COUNTER,
}


class ReusingRedisCacheClient(RedisCacheClient):
    """Django's client, building one ``redis.Redis`` per connection pool instead of one per call."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class FailOpenRedisCache(RedisCache):
    """Django's ``RedisCache``; every call answers as a miss (and logs, once per back-off) while Redis is down."""

    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        self.retry_seconds = float(options.pop("RETRY_SECONDS", 5))
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = ReusingRedisCacheClient
        self._down_until = 0.0
        self._lock = threading.Lock()

    def _down(self) -> bool:
        return time.monotonic() < self._down_until

    def _failed(self, operation: str, error: RedisError) -> None:
        with self._lock:
            first = not self._down()
            self._down_until = time.monotonic() + self.retry_seconds
        if first:
            logger.warning(
                "Cache unavailable (%s: %s): rate limits fail open and pages are read from the database "
                "for the next %.0f s.",
                operation,
                error,
                self.retry_seconds,
            )


def _guarded(name: str):
    method = getattr(RedisCache, name)

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        fallback = _FAIL_OPEN[name]
        if name == "get":
            fallback = kwargs.get("default", args[1] if len(args) > 1 else None)
        if not self._down():
            try:
                return method(self, *args, **kwargs)
            except RedisError as error:
                self._failed(name, error)
        if fallback is _MISSING_COUNTER:
            # What ``incr`` says of a missing key; django-ratelimit then counts nothing and fails open.
            raise ValueError("Cache unavailable: no counter.")
        return fallback

    return guarded


for _name in _FAIL_OPEN:
    setattr(FailOpenRedisCache, _name, _guarded(_name))
