"""Faults: a worker killed mid-stream or holding a task, Redis (broker and cache) down,
PostgreSQL connections cut or the cluster restarted, the same task run four times at
once. In every case each result is rated exactly once and every ledger row, player
rating and promotion equals the oracle's (``ledger_expected`` in the integration
conftest: the independent oracle replaying the bodies the test submitted).

Every figure in ``FIGURES`` is measured (kills that happened, cuts that
terminated backends, deliveries that ran, results found rated) and written
before the assertion that checks it, so a failing run still reports it.
"""

import http.cookiejar
import json
import re
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.hashers import make_password
from django.db import DatabaseError, connection, transaction
from django.db.models import Count
from django.utils import timezone

from leagues.models import Game
from matches.models import Match
from ratings.models import RatingChange
from tests.conftest import FIGURES, service_missing
from tests.factories import PlayerFactory, RefereeFactory, api_token_for
from tests.integration.conftest import (
    History,
    ledger_expected,
    ledger_rows_differing,
    ledger_rows_shown,
    ledger_snapshot,
    run_threads,
    wait_ratings_settled,
    wait_until,
)

pytestmark = [pytest.mark.postgres, pytest.mark.services]

VISIBILITY_TIMEOUT = 5  # CELERY_VISIBILITY_TIMEOUT in the stack (benchmarks/stack.py)


def stream(
    stack, count: int, clients: int, *, history: History, on_progress=None, retries: int = 0
) -> tuple[list[int], list[int]]:
    """Submit ``count`` Slaps results from ``clients`` threads; returns (created ids, failed statuses).

    ``on_progress(created_so_far)`` runs after each answer, under the
    stream's lock; whatever it or a client raises fails the test.
    """
    players = [player.pk for player in PlayerFactory.create_batch(12)]
    tokens = [api_token_for(RefereeFactory()) for _ in range(clients)]
    base = timezone.now() - timedelta(days=1)
    created, failed = [], []
    lock = threading.Lock()

    def client(number: int) -> None:
        headers = {"Authorization": f"Token {tokens[number]}", "Content-Type": "application/json"}
        for index in range(number, count, clients):
            a, b = players[index % 12], players[(index * 5 + 1) % 12]
            if a == b:
                b = players[(index + 1) % 12]
            body = {"game": "slaps", "played_at": (base + timedelta(seconds=30 * index)).isoformat(),
                    "players": [a, b], "winner": a}  # fmt: skip
            # A retry carries the same Idempotency-Key: never a second copy of the result.
            keyed = {**headers, "Idempotency-Key": f"stream-{index}"}
            for _attempt in range(retries + 1):
                try:
                    status, response = stack.request("POST", "/api/matches/", json.dumps(body).encode(), keyed)
                except OSError:  # the connection itself failed (a restarting server): retried like a 5xx
                    status, response = 0, b""
                if status in (200, 201):
                    break
                time.sleep(0.5)
            with lock:
                if status in (200, 201):
                    match_id = json.loads(response)["id"]
                    created.append(match_id)
                    history.submitted[match_id] = body
                else:
                    failed.append(status)
                if on_progress:
                    on_progress(len(created))

    run_threads([lambda number=number: client(number) for number in range(clients)], timeout=300)
    return created, failed


def assert_equal_to_the_oracle(history: History, label: str) -> None:
    """Record the rows compared and differing between the ledger now and the oracle's, then assert none differ."""
    stored = ledger_snapshot()
    expected = ledger_expected(history=history)
    differing = ledger_rows_differing(stored, expected)
    compared = f"{len(expected[1])} ledger rows, {len(expected[0])} player ratings"
    FIGURES[f"faults: {label}: rows expected by the oracle"] = compared
    FIGURES[f"faults: {label}: rows differing from the oracle's ledger"] = differing
    assert differing == 0, ledger_rows_shown(stored, expected)


def rated_count(ids) -> int:
    return Match.objects.filter(pk__in=list(ids), status=Match.Status.RATED).count()


def test_a_worker_killed_mid_stream_loses_nothing(fault_stack):
    """No beat and no sweeper: what the dead worker held comes back by late acknowledgement, the rest by the queue."""
    fault_stack.start_worker("doomed", pool="solo")
    kills = []
    history = History()

    def progress(done: int) -> None:
        if done >= 100 and not kills:
            fault_stack.kill("doomed")
            kills.append(done)

    created, failed = stream(fault_stack, 300, 8, history=history, on_progress=progress)
    FIGURES["faults: workers SIGKILLed mid-stream"] = len(kills)
    assert kills == [100]
    assert not failed
    assert len(created) == 300
    fault_stack.start_worker("rescuer", pool="solo")
    wait_ratings_settled()
    FIGURES["faults: results rated after a worker was killed mid-stream"] = rated_count(created)
    assert rated_count(created) == 300
    assert RatingChange.objects.count() == 600
    assert "ratings_sweep[" not in fault_stack.log("rescuer"), "no sweeper ran"
    assert_equal_to_the_oracle(history, "worker killed mid-stream")


def _waiting_on_me() -> list[int]:
    """Backends blocked by this test's connection (live, not the statistics snapshot of the transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))")
        return [row[0] for row in cursor.fetchall()]


def test_a_killed_workers_task_is_redelivered_by_late_acknowledgement_alone(fault_stack):
    """The worker is SIGKILLed while it holds the task; a fresh worker without beat rates it.

    Deterministic hold: the test takes the game's rating lock (the row lock
    ``ratings_process_game`` waits for) before submitting, waits until the
    worker's database session is blocked on it, kills the worker, then lets
    the lock go. The task was delivered and never acknowledged, so only
    Redis's visibility timeout (5 s here) can bring it back: no beat, no
    sweeper runs anywhere.
    """
    from ratings.ledger import rating_state_lock

    fault_stack.start_worker("holder", pool="solo")
    ann, bob = PlayerFactory.create_batch(2)
    headers = {"Authorization": f"Token {api_token_for(RefereeFactory())}"}
    headers["Content-Type"] = "application/json"
    body = {"game": "slaps", "played_at": (timezone.now() - timedelta(hours=1)).isoformat(),
            "players": [ann.pk, bob.pk], "winner": ann.pk}  # fmt: skip
    slaps = Game.objects.get(slug="slaps")
    with transaction.atomic():
        rating_state_lock(game_id=slaps.pk)
        status, response = fault_stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
        assert status == 201, response
        match_id = json.loads(response)["id"]
        wait_until(_waiting_on_me, timeout=60, what="the worker to block on the game's lock")
        task = re.search(r"ratings_apply_match\[([0-9a-f-]+)\] received", fault_stack.log("holder"))
        assert task, fault_stack.log("holder")
        fault_stack.kill("holder")
        killed_at = time.monotonic()
    assert Match.objects.get(pk=match_id).status == Match.Status.SUBMITTED
    fault_stack.start_worker("rescuer", pool="solo")
    wait_until(lambda: rated_count([match_id]), timeout=VISIBILITY_TIMEOUT + 60, what="the redelivered task")
    redelivered_after = time.monotonic() - killed_at
    FIGURES["faults: a held task redelivered after its worker's SIGKILL, rated after (s)"] = round(redelivered_after, 1)
    rescuer = fault_stack.log("rescuer")
    assert f"ratings_apply_match[{task.group(1)}] received" in rescuer, "the same task, delivered again"
    assert "ratings_sweep[" not in rescuer, "no sweeper ran"
    # Delivered before the kill, so due again at most 5 s after it; the rest is a worker starting on a busy host.
    assert redelivered_after < VISIBILITY_TIMEOUT + 30
    assert RatingChange.objects.filter(match_id=match_id).count() == 2


class Browser:
    """A signed-in visitor of the stack: cookies kept, redirects not followed (a 302 is an answer)."""

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, stack):
        self.stack = stack
        self.cookies = http.cookiejar.CookieJar()
        handlers = [urllib.request.HTTPCookieProcessor(self.cookies), self._NoRedirect()]
        self.opener = urllib.request.build_opener(*handlers)

    def csrf(self) -> str:
        return next(cookie.value for cookie in self.cookies if cookie.name == "csrftoken")

    def open(self, path: str, form: dict | None = None) -> tuple[int, str]:
        data = None
        if form is not None:
            data = urllib.parse.urlencode({**form, "csrfmiddlewaretoken": self.csrf()}).encode()
        request = urllib.request.Request(self.stack.base_url + path, data=data)
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")


def test_results_are_accepted_while_redis_is_down_and_rated_when_it_returns(fault_stack, private_redis):
    """Broker and CACHE_URL on one Redis (the worst case: check --deploy warns, config.W001), which dies.

    Writes and reads carry on."""
    fault_stack.start_worker("worker", pool="solo", beat=True)
    history = History()
    # Signs in at gunicorn, which checks passwords with the production hashers.
    referee = RefereeFactory(username="table3")
    referee.password = make_password("correct horse battery", hasher="pbkdf2_sha256")
    referee.save()
    private_redis.stop()

    created, failed = stream(fault_stack, 60, 4, history=history)
    FIGURES["faults: results accepted (201) while Redis was down"] = len(created)
    assert not failed, f"submissions are accepted without the broker and the cache: {failed}"
    assert len(created) == 60
    assert set(Match.objects.filter(pk__in=created).values_list("status", flat=True)) == {"submitted"}

    some_player = Match.objects.get(pk=created[0]).seats.first().player_id
    reads = {
        path: fault_stack.request("GET", path)[0]
        for path in (
            f"/api/players/{some_player}/",
            "/api/leagues/slaps-amateur/leaderboard/",
            f"/players/{some_player}/",
            "/leagues/slaps-amateur/",
        )
    }
    assert reads == dict.fromkeys(reads, 200), reads

    browser = Browser(fault_stack)
    assert browser.open("/accounts/login/")[0] == 200
    status, _ = browser.open("/accounts/login/", {"username": "table3", "password": "correct horse battery"})
    assert status == 302, "signed in"
    ann, bob = PlayerFactory.create_batch(2)
    played_at = (timezone.localtime() - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    form = {"player_a": ann.pk, "player_b": bob.pk, "winner": "a", "played_at": played_at, "rated": "true"}
    status, page = browser.open("/results/slaps/", form)
    assert status == 302, page[:500]
    entered = Match.objects.filter(seats__player=ann).get()
    history.submitted[entered.pk] = {"game": "slaps", "played_at": entered.played_at.isoformat(),
                                     "players": [ann.pk, bob.pk], "winner": ann.pk}  # fmt: skip
    assert "Cache unavailable" in fault_stack.log("web"), "the outage is logged"

    private_redis.start()  # same port: the worker reconnects, beat's sweeper rates what was never queued
    wait_ratings_settled()
    everything = [*created, entered.pk]
    FIGURES["faults: results rated after Redis returned"] = rated_count(everything)
    assert rated_count(everything) == 61
    assert_equal_to_the_oracle(history, "Redis down")


def test_postgresql_connections_cut_under_load(fault_stack):
    fault_stack.start_worker("worker", pool="solo", beat=True)
    cuts = []
    history = History()

    def cut(done: int) -> None:
        """Cut every connection once the stream passes 50 and again past 120 results.

        With connections opened per request (``DATABASE_CONN_MAX_AGE=0``) an instant may
        find none open: a cut that terminated nothing is tried again at the next result.
        """
        due = [mark for mark in (50, 120) if done >= mark and mark not in [at for at, _ in cuts]]
        if not due:
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            [terminated] = cursor.fetchone()
        connection.close()  # this client thread's own connection
        if terminated:
            cuts.append((due[0], terminated))

    try:
        created, failed = stream(fault_stack, 200, 6, history=history, on_progress=cut, retries=3)
    finally:
        connection.close()  # the test's own connection was cut too: reconnect, as the site does
    FIGURES["faults: PostgreSQL connection cuts under load"] = len(cuts)
    FIGURES["faults: PostgreSQL backends terminated by the cuts"] = sum(terminated for _, terminated in cuts)
    assert [at for at, _ in cuts] == [50, 120], cuts
    assert not failed, failed
    assert len(set(created)) == 200
    wait_ratings_settled()
    # No result half-stored: every match has both its seats.
    seat_counts = Match.objects.annotate(n=Count("seats")).values_list("n", flat=True)
    assert set(seat_counts) == {2}
    assert Match.objects.count() == 200, "retries with the same Idempotency-Key stored nothing twice"
    assert_equal_to_the_oracle(history, "connections cut")


def test_the_same_task_four_times_at_once_applies_once(transactional_db, require_postgres, slaps_world):
    """Four deliveries of one task start together: one rates the four stored results, three find nothing to do."""
    from ratings.tasks import ratings_apply_match

    history = slaps_world
    match_ids = list(history.submitted)
    barrier = threading.Barrier(4, timeout=60)
    ran = []

    def delivery() -> int:
        barrier.wait()
        applied = ratings_apply_match(match_ids[-1])
        ran.append(applied)
        return applied

    try:
        applied = run_threads([delivery] * 4, timeout=120)
    finally:
        FIGURES["faults: duplicate concurrent deliveries run"] = len(ran)
    assert sorted(applied) == [0, 0, 0, 4]
    assert RatingChange.objects.count() == 2 * len(match_ids)
    assert_equal_to_the_oracle(history, "duplicate deliveries")


@pytest.fixture
def slaps_world(reference_data) -> History:
    """Four stored Slaps results, not yet rated (no task queued), as the History of their bodies."""
    from tests.factories import slaps_match

    ann, bob, cid = PlayerFactory.create_batch(3)
    base = timezone.now() - timedelta(hours=5)
    history = History()
    for i, (winner, loser) in enumerate([(ann, bob), (bob, cid), (cid, ann), (ann, cid)]):
        played_at = base + timedelta(minutes=i)
        match = slaps_match(winner=winner, loser=loser, played_at=played_at)
        history.submitted[match.pk] = {"game": "slaps", "played_at": played_at.isoformat(),
                                       "players": [winner.pk, loser.pk], "winner": winner.pk}  # fmt: skip
    return history


LOCAL_HOSTS = {"", "localhost", "127.0.0.1", "::1"}


def postmaster_pid(cluster: dict) -> int | None:
    """The PID of a pg_lsclusters cluster's postmaster, from its ``postmaster.pid`` (None if unreadable)."""
    paths = [
        Path(cluster.get("pgdata") or "/nonexistent") / "postmaster.pid",
        Path(cluster.get("socketdir") or "/var/run/postgresql")
        / f"{cluster.get('version')}-{cluster.get('cluster')}.pid",
    ]
    for path in paths:
        try:
            return int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return None


def parent_pid(pid: int) -> int | None:
    """The parent of a process of this machine (None if there is no such process here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state; the name may hold spaces


def clusters_serving(clusters: list[dict], *, port, data_directory: str | None, postmaster: int | None) -> list:
    """(version, name) of the clusters that are the server of the test's connection: the port the server
    reports, its data directory where it tells it, and, what a port cannot fake (a tunnel or a container
    forwarding a local port to another server), the postmaster whose child the connection's backend is.
    ``clusters`` are pg_lsclusters' entries, each with its ``postmaster_pid``."""
    return [
        (str(cluster["version"]), cluster["cluster"])
        for cluster in clusters
        if postmaster is not None
        and cluster.get("postmaster_pid") == postmaster
        and str(cluster.get("port")) == str(port)
        and data_directory in (None, cluster.get("pgdata"))
    ]


def postgresql_cluster_of_the_test_database() -> tuple[str, str]:
    """(version, name) of the one pg_ctlcluster cluster that serves this test's connection.

    Matched on the port the server itself reports, its data directory where
    the server tells it, and the postmaster that is the parent of this
    connection's backend process; the connection must be local. Anything
    else is a missing service, with the reason: restarting any other cluster
    would take down databases that are not the test's.
    """
    host = connection.settings_dict.get("HOST") or ""
    if host not in LOCAL_HOSTS and not host.startswith("/"):
        service_missing(f"a local PostgreSQL to restart (DATABASE_URL names host {host!r})")
    if not shutil.which("pg_lsclusters") or not shutil.which("pg_ctlcluster"):
        service_missing("pg_lsclusters and pg_ctlcluster, to restart PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('port'), pg_backend_pid()")
        [port, backend] = cursor.fetchone()
    data_directory = None
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('data_directory')")
            [data_directory] = cursor.fetchone()
    except DatabaseError:  # only superusers and pg_read_all_settings see it: the port and the process must do
        pass
    listing = subprocess.run(["pg_lsclusters", "--json"], capture_output=True, text=True, timeout=30, check=True)
    clusters = [{**cluster, "postmaster_pid": postmaster_pid(cluster)} for cluster in json.loads(listing.stdout)]
    postmaster = parent_pid(backend)
    matching = clusters_serving(clusters, port=port, data_directory=data_directory, postmaster=postmaster)
    if len(matching) != 1:
        service_missing(
            f"exactly one pg_ctlcluster cluster on port {port} (data directory {data_directory}) whose postmaster "
            f"is the parent ({postmaster}) of the test connection's backend ({backend}); found {matching}"
        )
    return matching[0]


def test_only_the_cluster_serving_the_test_connection_is_chosen():
    """Two clusters on one machine; a connection is served by the one on its port, with its data directory
    and its postmaster: a cluster on the same port whose postmaster is not the backend's parent (the
    port forwarded to another server) or another data directory is never chosen, nor any when the backend
    is no process of this machine."""
    clusters = [
        {"version": 15, "cluster": "main", "port": "5432", "pgdata": "/pg/15/main", "postmaster_pid": 100},
        {"version": 16, "cluster": "other", "port": "5433", "pgdata": "/pg/16/other", "postmaster_pid": 200},
    ]
    assert clusters_serving(clusters, port=5432, data_directory=None, postmaster=100) == [("15", "main")]
    assert clusters_serving(clusters, port="5432", data_directory="/pg/15/main", postmaster=100) == [("15", "main")]
    assert clusters_serving(clusters, port=5433, data_directory=None, postmaster=200) == [("16", "other")]
    assert clusters_serving(clusters, port=5432, data_directory=None, postmaster=200) == []
    assert clusters_serving(clusters, port=5432, data_directory="/pg/16/other", postmaster=100) == []
    assert clusters_serving(clusters, port=5432, data_directory=None, postmaster=None) == []
    assert clusters_serving(clusters, port=5434, data_directory=None, postmaster=300) == []


def test_postgresql_cluster_found_is_the_one_serving_the_test(require_postgres, db):
    """The finder names the cluster on the test connection's port whose postmaster is its backend's parent."""
    version, name = postgresql_cluster_of_the_test_database()
    status = subprocess.run(["pg_lsclusters", "--no-header", version, name], capture_output=True, text=True, timeout=30)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('port'), pg_backend_pid()")
        [port, backend] = cursor.fetchone()
    assert status.stdout.split()[2] == port, status.stdout
    [cluster] = [c for c in json.loads(subprocess.check_output(["pg_lsclusters", "--json"], timeout=30))
                 if (str(c["version"]), c["cluster"]) == (version, name)]  # fmt: skip
    assert postmaster_pid(cluster) == parent_pid(backend) is not None


@pytest.mark.serial  # every other test's connections go down with the cluster: make test runs it alone
def test_postgresql_restarted_under_load(fault_stack):
    """The real thing: the cluster serving the test database restarts while results arrive; clients retry."""
    version, name = postgresql_cluster_of_the_test_database()
    fault_stack.start_worker("worker", pool="solo", beat=True)
    restarts = []
    history = History()

    def restart(done: int) -> None:
        if done >= 60 and not restarts:
            subprocess.run(
                ["pg_ctlcluster", "--skip-systemctl-redirect", version, name, "restart"],
                check=True,
                timeout=120,
                capture_output=True,
            )
            restarts.append(done)

    created, failed = stream(fault_stack, 160, 6, history=history, on_progress=restart, retries=30)
    FIGURES["faults: PostgreSQL restarts under load"] = len(restarts)
    assert restarts
    assert not failed, failed
    assert len(set(created)) == 160
    connection.close()  # the test's own connection died with the server
    wait_ratings_settled()
    seat_counts = Match.objects.annotate(n=Count("seats")).values_list("n", flat=True)
    assert set(seat_counts) == {2}, "no result half-stored"
    assert Match.objects.count() == 160, "retries with the same Idempotency-Key stored nothing twice"
    assert_equal_to_the_oracle(history, "PostgreSQL restarted")
