"""Reads cached under a ratings version, so a cached page can never outlive a rating change.

Vocabulary:
    ratings version  a string naming one state of a game's ratings. It is read
                     from the game's ``RatingState`` row: ``ratings_process_game``
                     saves that row (``updated_at`` is ``auto_now``) in the same
                     transaction as every ledger and rating write (a new result,
                     a void, a correction, a replay), and ``rating_replay_mark``
                     saves it when a replay is requested. A reader that reads the
                     version first and the ratings after can therefore only store
                     data at least as new as its key: a rated result is never
                     hidden behind a cached page. One cheap query by the game's
                     unique key, and it is kept in the database rather than the
                     cache, so it is the same for every web process even with the
                     per-process memory cache of ``make run``.
    site version     the versions of every game at once, for pages that span
                     games (a profile).

Renaming a player changes leaderboards (names break ties) without touching the
ledger, so saving a player who has ratings bumps the versions of their games
(``ratings.receivers``, connected in ``ratings.apps``). Names of games,
leagues and bots are cached as well (profile cards, chart series, recent
matches): saving one bumps its game's versions too. These are rare admin edits.

    results version  ``matches.models.ResultsVersion``: a counter per game that
                     every result write raises (friendly, waiting and voided
                     results change a profile's recent matches without any
                     rating change). Parts of a page that show results are
                     keyed on it as well as on the ratings version.

Every key also carries the active language: a part is kept once per language it is read in.

Entries also expire after ``CACHE_SECONDS``: the version makes them correct,
the timeout only bounds memory.

    bounded keys     only what the site itself names is cached: leagues, sorts,
                     page numbers (normalised to a page that exists), players.
                     What a visitor can vary without bound, a search's text or
                     an API page size of their choosing, is computed and never
                     stored (``keep=False``): one cache entry per distinct query
                     string would let anonymous requests fill the cache, and
                     one-off searches are rarely read twice.

The cache is never needed for a correct page: with Redis down the configured
backend (``config.cache.FailOpenRedisCache``) answers every read as a miss and
drops every write, so ``cached`` and ``cached_many`` compute from the database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from django.utils import translation

from ratings.models import RatingState

CACHE_SECONDS = 600
PREFIX = "ratings:v1"

T = TypeVar("T")


def _state_version(row: tuple) -> str:
    return "/".join("-" if value is None else str(value) for value in row)


_STATE_FIELDS = (
    "updated_at",
    "applied_until_played_at",
    "applied_until_match_id",
    "replay_from_played_at",
    "replay_from_match_id",
)


def rating_version(*, game_id: int) -> str:
    """The version of one game's ratings (one query)."""
    row = RatingState.objects.filter(game_id=game_id).values_list(*_STATE_FIELDS).first()
    return "none" if row is None else _state_version(row)


def rating_version_of_state(state: RatingState | None) -> str:
    """``rating_version`` from a RatingState row already read (e.g. joined to its league: one query less)."""
    return "none" if state is None else _state_version(tuple(getattr(state, field) for field in _STATE_FIELDS))


def rating_version_site() -> str:
    """The versions of every game's ratings, in one string (one query over a row per game)."""
    rows = RatingState.objects.order_by("game_id").values_list("game_id", *_STATE_FIELDS)
    return ";".join(f"{row[0]}:{_state_version(row[1:])}" for row in rows) or "none"


def rating_version_of(site_version: str, *, game_id: int) -> str:
    """One game's version taken from the site version (equal to ``rating_version`` read at that moment)."""
    prefix = f"{game_id}:"
    for part in site_version.split(";"):
        if part.startswith(prefix):
            return part[len(prefix) :]
    return "none"


def _name(key: tuple) -> str:
    # Every entry is kept per language (issue 28): a cached part is HTML in the words and the number formats
    # of the language it was rendered in, and a Russian reader must never get the English one.
    name = ":".join([PREFIX, translation.get_language() or "-", *(str(part) for part in key)])
    if len(name) > 200 or any(ord(char) < 33 or char == "\x7f" for char in name):
        # Memcached-safe keys: search text may hold spaces or anything; hash it.
        name = f"{PREFIX}:h:{hashlib.sha256(name.encode()).hexdigest()}"
    return name


def cached(key: tuple, compute: Callable[[], T], *, keep: bool = True, timeout: int | None = None) -> T:
    """The value cached under ``key`` (which must contain a version), computed on a miss.

    ``keep=False``: computed, neither read from nor stored in the cache (a key a visitor chooses freely).
    ``timeout``: how long it is kept, ``CACHE_SECONDS`` by default.
    """
    if not keep:
        return compute()
    name = _name(key)
    value = cache.get(name)
    if value is None:
        value = compute()
        cache.set(name, value, CACHE_SECONDS if timeout is None else timeout)
    return value


def cached_many(computes: dict[str, tuple[tuple, Callable[[], T]]]) -> dict[str, T]:
    """Several cached values in one cache round trip: ``{label: (key, compute)}`` to ``{label: value}``."""
    names = {label: _name(key) for label, (key, _compute) in computes.items()}
    found = cache.get_many(list(names.values()))
    values, missing = {}, {}
    for label, (_key, compute) in computes.items():
        value = found.get(names[label])
        if value is None:
            value = missing[names[label]] = compute()
        values[label] = value
    if missing:
        cache.set_many(missing, CACHE_SECONDS)
    return values
