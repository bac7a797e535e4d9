"""Heavy reads take turns (``config.lanes``, issue 25): while one holds the lane, another waits for its turn and
is answered 503 with Retry-After when the wait runs out, changing nothing, and every cheap request is answered
at once. A turn is given back when the answer is made, after a streamed answer's last byte, and on an error.

The lane is held by another database session (PostgreSQL: a real advisory lock, as a second gunicorn process
holds it) or by the test itself (elsewhere: the process's semaphore, which the test client shares).
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import RequestFactory
from django.urls import resolve, reverse

from config import lanes
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

HEAVY = [
    ("compare", {}),
    ("quality", {}),
    ("quality-detail", {"slug": "slaps"}),
    ("league-crosstable", {"slug": "slaps-amateur"}),
    ("player-profile", {"pk": 1}),
    ("player-history", {"pk": 1}),
    ("player-records", {"pk": 1, "kind": "best", "name": "x"}),
    ("player-head-to-head", {"pk": 1}),
    ("rating-list-csv", {"slug": "slaps", "day": "2026-11-30"}),
    ("api-compare", {}),
    ("api-game-drift", {"slug": "slaps"}),
    ("api-game-results-csv", {"slug": "slaps"}),
    ("api-game-results-json", {"slug": "slaps"}),
    ("api-leaderboard-csv", {"slug": "slaps-amateur"}),
    ("api-player-history", {"pk": 1}),
    ("api-player-history-csv", {"pk": 1}),
    ("api-player-head-to-head", {"pk": 1}),
]
CHEAP = [
    ("home", {}),
    ("api-games", {}),
    ("api-leagues", {}),
    ("api-matches", {}),
    ("api-matches-batch", {}),
    ("api-player", {"pk": 1}),
    ("api-leaderboard", {"slug": "slaps-amateur"}),
    ("league-leaderboard", {"slug": "slaps-amateur"}),
    ("result-entry", {"game": "slaps"}),
    ("confirmations", {}),
    ("players-find", {}),
    ("login", {}),
]


def _is_heavy(name: str, kwargs: dict) -> bool:
    return getattr(resolve(reverse(name, kwargs=kwargs)).func, "heavy_read", False)


@pytest.mark.parametrize(("name", "kwargs"), HEAVY)
def test_the_pages_that_read_a_history_are_heavy_reads(name, kwargs):
    assert _is_heavy(name, kwargs)


@pytest.mark.parametrize(("name", "kwargs"), CHEAP)
def test_entry_lists_and_leaderboards_are_not(name, kwargs):
    assert not _is_heavy(name, kwargs)


def _lane_locks() -> int:
    """Turns held now in this test's database (PostgreSQL's advisory locks of the lane, any session; other
    test processes' databases have lanes of their own)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [lanes.LANE_KEY],
        )
        return cursor.fetchone()[0]


@contextmanager
def lane_held_elsewhere(turns=(0,)):
    """The lane's ``turns`` taken by someone else for the duration (all of it at size 1, the default): another
    database session on PostgreSQL; elsewhere, other threads (a thread holding a turn re-enters it)."""
    if connection.vendor != "postgresql":
        leave = threading.Event()
        holders = []
        for _ in turns:
            entered = threading.Event()

            def hold(entered=entered):
                release = lanes.lane_enter(wait=10)
                entered.set()
                leave.wait(60)
                release()

            holder = threading.Thread(target=hold, daemon=True)
            holder.start()
            assert entered.wait(10), "the lane's turn was not free to hold"
            holders.append(holder)
        try:
            yield
        finally:
            leave.set()
            for holder in holders:
                holder.join(10)
        return
    import psycopg

    config = connection.settings_dict
    other = psycopg.connect(
        dbname=config["NAME"],
        user=config.get("USER") or "postgres",
        password=config.get("PASSWORD") or None,
        host=config.get("HOST") or "127.0.0.1",
        port=config.get("PORT") or 5432,
        autocommit=True,
    )
    try:
        # A turn left held would make this wait forever: at most 10 s, then a clear failure.
        other.execute("SET lock_timeout = '10s'")
        for turn in turns:
            other.execute("SELECT pg_advisory_lock(%s, %s)", [lanes.LANE_KEY, turn])
        yield
    finally:
        other.close()  # its session's locks go with it


@pytest.fixture
def played(slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    for _ in range(3):
        slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    return ann, bob


@pytest.fixture
def short_wait(settings):
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 1
    settings.CARDRANK_HEAVY_READS_WAIT_SECONDS = 1
    return settings


def test_a_heavy_read_waits_then_is_refused_while_cheap_requests_are_answered(client, played, short_wait):
    ann, bob = played
    with lane_held_elsewhere():
        started = time.monotonic()
        answer = client.get(f"/api/compare/?game=slaps&a={ann.pk}&b={bob.pk}")
        waited = time.monotonic() - started
        assert answer.status_code == 503
        assert answer["Retry-After"] == str(lanes.RETRY_AFTER_SECONDS)
        assert "try again in a few seconds" in answer.json()["detail"]
        assert waited >= 0.9  # it waited for its turn (the setting's second), not refused at once
        page = client.get(f"/players/{ann.pk}/")
        assert page.status_code == 503
        assert "Busy for a moment" in page.content.decode()
        assert page["Content-Type"].startswith("text/html")
        # Cheap requests do not wait for the lane.
        assert client.get("/api/games/").status_code == 200
        assert client.get("/leagues/slaps-amateur/").status_code == 200
    # The turn is free again: the same reads are answered.
    assert client.get(f"/api/compare/?game=slaps&a={ann.pk}&b={bob.pk}").status_code == 200
    assert client.get(f"/players/{ann.pk}/").status_code == 200


def test_a_refused_read_changes_nothing(client, played, short_wait):
    """The first request for a never-computed figure asks for it; refused in the lane, it asks nothing."""
    from ratings.models import FigureState

    FigureState.objects.all().delete()
    with lane_held_elsewhere():
        assert client.get("/quality/slaps/").status_code == 503
    assert not FigureState.objects.exists()
    assert client.get("/quality/slaps/").status_code == 200
    assert FigureState.objects.filter(game__slug="slaps").exists()


def test_the_lane_off_lets_every_read_through(client, played, settings):
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 0
    settings.CARDRANK_HEAVY_READS_WAIT_SECONDS = 1
    ann, _ = played
    if connection.vendor != "postgresql":
        pytest.skip("held elsewhere means the process's semaphore, which size 0 does not make")
    with lane_held_elsewhere():
        assert client.get(f"/players/{ann.pk}/").status_code == 200


@pytest.mark.postgres
def test_a_streamed_download_keeps_its_turn_to_its_last_byte(client, played, short_wait):
    ann, _ = played
    assert _lane_locks() == 0
    answer = client.get(f"/api/players/{ann.pk}/history.csv")
    assert answer.status_code == 200
    assert answer.streaming
    assert _lane_locks() == 1  # made piece by piece: the turn is held until the last piece
    body = b"".join(answer.streaming_content)  # read to the end: the test client then closes the answer
    assert body.count(b"\n") >= 4  # the head and three results
    assert _lane_locks() == 0


def _close_as_the_server_would(answer) -> None:
    """``answer.close()``, without the test's database connection closed by request_finished (as the test
    client closes streamed answers read to their end)."""
    from django.core.signals import request_finished
    from django.db import close_old_connections

    request_finished.disconnect(close_old_connections)
    try:
        answer.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.mark.postgres
def test_a_download_closed_early_gives_its_turn_back(client, played, short_wait):
    ann, _ = played
    # Called as the WSGI handler calls it (the test client would close the answer itself when read).
    path = f"/api/players/{ann.pk}/history.csv"
    answer = resolve(path).func(RequestFactory().get(path), pk=str(ann.pk))
    next(iter(answer.streaming_content))
    assert _lane_locks() == 1
    _close_as_the_server_would(answer)  # the client went away: the WSGI server closes the answer
    assert _lane_locks() == 0


@pytest.mark.postgres
def test_pages_errors_and_refusals_give_their_turn_back(client, played, short_wait):
    ann, _ = played
    assert client.get(f"/players/{ann.pk}/").status_code == 200
    assert _lane_locks() == 0
    assert client.get("/players/987654/").status_code == 404  # raised inside the view
    assert _lane_locks() == 0
    assert client.get("/api/compare/?game=slaps&a=1").status_code == 400
    assert _lane_locks() == 0


def _enter_in_thread(wait: float) -> dict:
    """``lane_enter`` from another thread (another connection, as another request): what it got."""
    outcome: dict = {}

    def run():
        try:
            release = lanes.lane_enter(wait=wait)
            outcome["entered"] = True
            release()
        except lanes.LaneBusy:
            outcome["entered"] = False
        finally:
            connection.close()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=30)
    return outcome


def test_turns_are_counted_by_the_setting(settings):
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 2
    with lane_held_elsewhere(turns=(0,)):
        assert _enter_in_thread(0.3) == {"entered": True}  # the second turn is free
    with lane_held_elsewhere(turns=(0, 1)):
        assert _enter_in_thread(0.3) == {"entered": False}
    assert _enter_in_thread(0.2) == {"entered": True}


def test_who_holds_a_turn_enters_again_at_once(settings):
    """A session (PostgreSQL) or a thread (elsewhere) holding a turn is not kept waiting by itself: as a
    PostgreSQL session re-enters an advisory lock it holds."""
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 1
    first = lanes.lane_enter(wait=0.2)
    again = lanes.lane_enter(wait=0.2)
    assert _enter_in_thread(0.2) == {"entered": False}  # others still wait
    again()
    assert _enter_in_thread(0.2) == {"entered": False}  # held once more
    first()
    assert _enter_in_thread(0.2) == {"entered": True}


def test_a_waiting_read_gets_the_turn_when_it_is_given_back(settings):
    settings.CARDRANK_HEAVY_READS_AT_ONCE = 1
    release = lanes.lane_enter(wait=0.2)
    outcome: dict = {}

    def wait_for_turn():
        started = time.monotonic()
        try:
            lanes.lane_enter(wait=10)()
            outcome["waited"] = time.monotonic() - started
        finally:
            connection.close()

    waiter = threading.Thread(target=wait_for_turn)
    waiter.start()
    time.sleep(0.5)
    assert "waited" not in outcome  # still waiting while the turn is held
    release()
    waiter.join(timeout=10)
    assert 0.4 <= outcome["waited"] < 10


# --- the proxy sends exactly the heavy reads to their own gunicorn -----------------------------------------

SAMPLES = {"int": "12", "slug": "slaps-amateur", "str": "x1", "path": "a/b", "uuid": "0" * 32}


def _sample_paths(patterns, prefix: str = ""):
    """(path, view) for every route of the site, its parameters filled with a value their converter takes."""
    import re

    from django.urls import URLPattern, URLResolver
    from django.urls.resolvers import RoutePattern

    for entry in patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue  # regular expressions (admin's app index, the API's catch-all 404): not routes to sample
        route = re.sub(r"<(?:(\w+):)?\w+>", lambda m: SAMPLES[m.group(1) or "str"], str(entry.pattern))
        if isinstance(entry, URLResolver):
            yield from _sample_paths(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            yield "/" + prefix + route, entry.callback


def _heavy_location():
    """The regular expression of docs/deploy/nginx.conf's location for the heavy reads' gunicorn."""
    import re

    from benchmarks.proxy import EXAMPLE

    found = re.findall(r"location ~ (\S+) \{\s*proxy_pass http://cardrank_heavy_reads;", EXAMPLE.read_text())
    assert len(found) == 1, "docs/deploy/nginx.conf has no single location for cardrank_heavy_reads"
    return re.compile(found[0])


def test_the_proxy_sends_exactly_the_heavy_reads_to_their_own_gunicorn():
    from django.urls import get_resolver

    location = _heavy_location()
    routes = list(_sample_paths(get_resolver().url_patterns))
    assert len(routes) > 100  # the site's pages, its API and admin
    wrong = [
        (path, "heavy read" if getattr(view, "heavy_read", False) else "not one")
        for path, view in routes
        if bool(location.match(path)) != bool(getattr(view, "heavy_read", False))
    ]
    assert not wrong, f"nginx.conf's heavy-reads location and config/urls.py's heavy_read disagree: {wrong}"
    assert sum(bool(location.match(path)) for path, _ in routes) == len(HEAVY)


def test_the_heavy_reads_location_takes_each_parameter_as_django_does():
    location = _heavy_location()
    for path in ["/players/12/", "/api/players/12/history/", "/api/players/x-1/history.csv", "/quality/"]:
        assert location.match(path), path
    for path in ["/players/", "/players/search/", "/players/x/", "/api/players/12/", "/api/games/", "/quality"]:
        assert not location.match(path), path
