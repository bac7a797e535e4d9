"""Stamps: what is kept in the shared cache is used only while the stamp it was read under is current.

A **stamp** is a random string under one cache key. Whatever is kept under
it is stored beside the stamp that was current *before* the database was
read, and used only while the stamp is still that one. There are two:

    the setup stamp    (``games.setup``) the games, a game's leagues and bots;
                       ``changed`` by every save or delete of a game, a league
                       or a bot (signal receivers connected in ``games.apps``)
    the results stamp  (``matches.versions``) each referee's count of results
                       to confirm; ``renew``ed by every results write, once,
                       before it commits

``changed`` renews the stamp at once and again when the transaction commits:
a request that read the old rows in between stores them under a stamp the
commit makes old, never under the new one (``tests/test_stamps.py``).

The stamp and the kept value are read in one round trip (``Stamp.read``).
With the cache down nothing is kept and every read goes to the database.
A stamp made ``shared_only`` keeps nothing in a per-process cache (``make
run``'s memory cache, without ``CACHE_URL``): a change made in one process
renews only that process's stamp, and another process would go on using
what it kept. A change made around the signals (``QuerySet.update``, raw
SQL, a restored backup) is seen when the kept value expires, or at once
after the stamp is renewed by hand (``renew``).
"""

from __future__ import annotations

from uuid import uuid4

from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import transaction

#: What ``Stamp.read`` gives when nothing is kept under the current stamp.
MISSING = object()


def _shared() -> bool:
    """Whether the cache is one every process reads (Redis), not each process's own memory."""
    return not isinstance(caches["default"], LocMemCache)


class Stamp:
    def __init__(self, key: str, *, shared_only: bool = False):
        self.key = key
        self.shared_only = shared_only

    def off(self) -> bool:
        return self.shared_only and not _shared()

    def current(self) -> str | None:
        """The stamp now (a new one if the cache has none: cold or evicted); None with the cache down, or
        where this stamp keeps nothing."""
        if self.off():
            return None
        stamp = cache.get(self.key)
        if stamp is None:
            cache.add(self.key, uuid4().hex, None)
            stamp = cache.get(self.key)
        return stamp

    def renew(self) -> None:
        cache.set(self.key, uuid4().hex, None)

    def changed(self, **kwargs) -> None:
        """Forget everything kept under this stamp: now, and again when the current transaction commits.
        Takes a signal's arguments, so it can be a receiver itself."""
        self.renew()
        transaction.on_commit(self.renew)

    def read(self, key: str):
        """``(stamp, value)``: the current stamp (None: none yet, or the cache down) and what ``key`` keeps
        under it, or ``MISSING`` when nothing is kept under the current stamp. One round trip."""
        if self.off():
            return None, MISSING
        found = cache.get_many([self.key, key])
        stamp, kept = found.get(self.key), found.get(key)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return stamp, kept[1]
        return stamp, MISSING

    def keep(self, key: str, stamp: str | None, value, seconds: int) -> None:
        """Keep ``value`` under ``stamp``, the one read *before* the database (``read`` or ``current``)."""
        if stamp is not None and not self.off():
            cache.set(key, (stamp, value), seconds)

    def kept(self, key: str, compute, seconds: int):
        """What ``key`` keeps under the current stamp, else ``compute()``, kept for next time."""
        stamp, value = self.read(key)
        if value is MISSING:
            stamp = stamp or self.current()  # read before the database: a write after it renews the stamp
            value = compute()
            self.keep(key, stamp, value, seconds)
        return value
