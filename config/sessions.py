"""Sessions kept in the cache under a digest of their key, never the key itself.

Django's ``cached_db`` engine reads a signed-in page's session from the
cache (one PostgreSQL query fewer on every referee's page) and names the
cache entry after the session key: the value of the ``sessionid`` cookie, a
credential. Whoever could list the cache's Redis could then sign in as
anyone signed in. This engine is Django's, with the entry named after the
key's SHA-256 instead: what Redis holds cannot be sent back as a cookie. The
database stays the truth, as with ``cached_db`` (``tests/test_sessions.py``).

What the cache keeps: the session's data under ``sessions:<digest>``; renewed
by every save of the session and deleted with it (signing out), so it is
never older than the database's row.
"""

from __future__ import annotations

import hashlib

from django.contrib.sessions.backends import cached_db

KEY_PREFIX = "sessions:"


def _cache_key(session_key: str) -> str:
    return KEY_PREFIX + hashlib.sha256(session_key.encode()).hexdigest()


class SessionStore(cached_db.SessionStore):
    """Django's ``cached_db`` sessions, the cache's key a digest of the session key (see the module)."""

    @property
    def cache_key(self):
        return _cache_key(self._get_or_create_session_key())

    async def acache_key(self):
        return _cache_key(await self._aget_or_create_session_key())

    # ``exists`` is left as Django's: it misses in the cache (an undigested key) and asks the database, which
    # is the truth; it is asked only when a new session key is drawn.

    def delete(self, session_key=None):
        session_key = session_key or self.session_key
        super().delete(session_key)  # the database's row (and Django's undigested cache key, which is never set)
        if session_key is not None:
            self._cache.delete(_cache_key(session_key))

    async def adelete(self, session_key=None):
        session_key = session_key or self.session_key
        await super().adelete(session_key)
        if session_key is not None:
            await self._cache.adelete(_cache_key(session_key))
