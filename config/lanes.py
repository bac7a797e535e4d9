"""Reads over a game's history take turns (``heavy_read``), so cheap requests always find the site free.

Issue 25's benchmark: twenty visitors asking, without pause, for the pages that read a game's history
(compare, quality, drift, crosstables, a player's history and profile, the downloads) kept both cores
busy, and ``/api/games/`` answered 259 times slower than alone, though each page costs only tens of
milliseconds since the figures are kept. However cheap each page, visitors who never pause keep every
core busy; what stays fast is what is not behind them.

Vocabulary:

- *a heavy read*: a view wrapped by ``heavy_read`` in ``config/urls.py``: it reads many rows of a game's
  or a player's history (paged or kept, but still tens or hundreds of milliseconds). Result entry,
  confirmations, the game and league lists, leaderboards, admin and sign-in are not heavy reads.
- *the lane*: at most ``CARDRANK_HEAVY_READS_AT_ONCE`` heavy reads make their answer at a time, across
  every process of the site (default 1: on a 2-core host, one core is always left to everything else;
  0 turns the lane off). A heavy read waits for its turn up to ``CARDRANK_HEAVY_READS_WAIT_SECONDS``
  (default 15), then is answered 503 with ``Retry-After`` (JSON under ``/api/``, the 503 page
  elsewhere). Nothing a heavy read does writes, so a refused one changed nothing.
- *a turn*: on PostgreSQL, a session-level advisory lock on the request's own database connection
  (``pg_advisory_lock``): waiters queue in PostgreSQL's lock manager, first come first served, without
  polling, and a process that dies mid-answer gives its turn back with its connection; a session that
  holds a turn enters again at once. Elsewhere (SQLite, ``make run``) a semaphore of the process, which a
  thread holding a turn likewise enters again.
- A turn lasts while the answer is made: a streamed answer (``history.csv``, a filtered ``results.csv``)
  keeps it until its last byte is made; a prepared file sent from disk (``FileResponse``, the public
  ``results.csv``) gives it back before sending, as reading a file is not the work the lane guards.

Threads: a heavy read waiting for its turn holds a gunicorn thread, not a core. So that cheap requests
always find a free thread, gunicorn runs more threads than there are turns (``benchmarks.stack``:
``--threads 16``), and nginx limits a client's connections (``docs/deploy/nginx.conf``).

Turns alone still leave a heavy read sharing a gunicorn process (and Python's lock) with cheap requests,
and the CPU with them as an equal. In production the proxy sends the heavy reads to a gunicorn of their own
at ``nice -n 10`` (docs/operations.md, "Heavy reads take turns"); its location's pattern must name exactly
the views wrapped here, which ``tests/test_lanes.py`` checks against every route of the site.
"""

from __future__ import annotations

import functools
import random
import threading
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import DatabaseError, OperationalError, connection, transaction
from django.http import FileResponse, HttpResponse, JsonResponse, StreamingHttpResponse
from django.template import loader
from django.template.response import SimpleTemplateResponse
from django.utils.translation import gettext

from config.bodies import API_PREFIX

#: The advisory locks' first key (``pg_advisory_lock(LANE_KEY, turn)``): "CRKL" read as a number.
LANE_KEY = 0x43524B4C
#: How long a refused client is told to wait before asking again.
RETRY_AFTER_SECONDS = 5


class LaneBusy(Exception):
    """No turn came within the wait."""


# The process's semaphore when the database is not PostgreSQL (rebuilt if the setting changes), and the turns
# each thread holds of it: a thread that holds one enters again at once, as a PostgreSQL session re-enters
# an advisory lock it holds (a thread is one database connection).
_local_lock = threading.Lock()
_local: dict[int, threading.BoundedSemaphore] = {}
_held = threading.local()


def _semaphore(size: int) -> threading.BoundedSemaphore:
    with _local_lock:
        if size not in _local:
            _local[size] = threading.BoundedSemaphore(size)
        return _local[size]


def _pg_try(turn: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LANE_KEY, turn])
        return bool(cursor.fetchone()[0])


def _pg_wait(turn: int, wait: float) -> bool:
    """Queue for ``turn`` at most ``wait`` seconds (PostgreSQL's ``lock_timeout``); False if it did not come."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            # SET LOCAL: only this (sub)transaction waits so long; the session's own setting is untouched.
            cursor.execute("SET LOCAL lock_timeout = %s", [f"{max(1, round(wait * 1000))}ms"])
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [LANE_KEY, turn])
    except OperationalError:  # 55P03 lock_not_available: the wait ran out
        return False
    return True


def _pg_release(turn: int) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LANE_KEY, turn])
    except DatabaseError:
        pass  # the connection is gone, and its session's locks with it


def lane_enter(wait: float | None = None) -> Callable[[], None]:
    """Take a turn in the lane, waiting at most ``wait`` seconds (the setting's by default).

    Returns the function that gives the turn back (call it once); raises ``LaneBusy`` if no turn came."""
    size = settings.CARDRANK_HEAVY_READS_AT_ONCE
    if size <= 0:
        return lambda: None
    wait = settings.CARDRANK_HEAVY_READS_WAIT_SECONDS if wait is None else wait
    if connection.vendor != "postgresql":
        return _local_enter(_semaphore(size), wait)
    turns = list(range(size))
    random.shuffle(turns)
    for turn in turns:
        if _pg_try(turn):
            return functools.partial(_pg_release, turn)
    turn = turns[0]
    if not _pg_wait(turn, wait):
        raise LaneBusy
    return functools.partial(_pg_release, turn)


def _local_enter(semaphore: threading.BoundedSemaphore, wait: float) -> Callable[[], None]:
    held: dict[threading.BoundedSemaphore, int] = getattr(_held, "turns", {})
    if held.get(semaphore, 0) == 0 and not semaphore.acquire(timeout=wait):
        raise LaneBusy
    held[semaphore] = held.get(semaphore, 0) + 1
    _held.turns = held

    def release() -> None:
        held[semaphore] -= 1
        if held[semaphore] == 0:
            semaphore.release()

    return release


def lane_busy_response(request) -> HttpResponse:
    """503 with Retry-After: JSON under /api/, the 503 page elsewhere."""
    detail = gettext("Many people are reading this site's longer pages right now. Please try again in a few seconds.")
    if request.path.startswith(API_PREFIX):
        answer = JsonResponse({"detail": detail}, status=503)
    else:
        answer = HttpResponse(loader.render_to_string("503.html", {"detail": detail}, request), status=503)
    answer["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return answer


def _released_after(content: Iterator[bytes], release: Callable[[], None]) -> Iterator[bytes]:
    try:
        yield from content
    finally:
        release()


def heavy_read(view):
    """Wrap a view so that it makes its answer in the lane (see the module's docstring)."""

    @functools.wraps(view)
    def in_lane(request, *args, **kwargs):
        try:
            release = lane_enter()
        except LaneBusy:
            return lane_busy_response(request)
        try:
            response = view(request, *args, **kwargs)
            if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
                response = response.render()  # DRF's and Django's template answers are made here, in the lane
        except BaseException:
            release()
            raise
        if isinstance(response, StreamingHttpResponse) and not isinstance(response, FileResponse):
            response.streaming_content = _released_after(response.streaming_content, release)
        else:
            release()
        return response

    in_lane.heavy_read = True
    return in_lane
