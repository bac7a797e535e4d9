"""A production-shaped stack for integration tests: gunicorn + a Celery worker on
Redis, both real processes, talking to the test's PostgreSQL database.

Vocabulary:
    ledger snapshot   every player rating, ledger row and promotion of the
                      database, as sorted tuples of exact values
                      (``ledger_snapshot``): rating, peak, count and league of
                      each player; rating before and after, delta, count after,
                      peak after and league after of each ledger row.
    expected ledger   the snapshot the rules give for what the test submitted
                      (``ledger_expected``): the independent oracle's replay of
                      the test's ``History``, never the service's own replay
                      nor the stored results.
    rows differing    the size of the multiset difference between two
                      snapshots (``ledger_rows_differing``): a lost update is
                      a row missing, a doubled one a row twice, a wrong value
                      a row on each side.

Helpers that every concurrent test uses, so that none can pass by accident:
``run_threads`` joins with a deadline and re-raises what any thread raised;
every wait loop has a deadline and fails when it passes.
"""

import datetime as dt
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from benchmarks.stack import Stack, free_port, port_open
from ratings.services import ratings_pending_games
from tests.conftest import needs
from tests.factories import reference_data_ensure


def run_threads(functions: list[Callable[[], Any]], *, timeout: float) -> list[Any]:
    """Run each function on a thread of its own and return their results, in order.

    Fails the test if any thread raised (all the exceptions, as one
    ``ExceptionGroup``) or is still running ``timeout`` seconds after the
    start. Each thread closes its own database connection when done.
    """
    results: list[Any] = [None] * len(functions)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(index: int, function: Callable[[], Any]) -> None:
        try:
            results[index] = function()
        except BaseException as error:
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in enumerate(functions)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    running = sum(thread.is_alive() for thread in threads)
    if errors:
        raise ExceptionGroup(f"{len(errors)} of {len(functions)} test threads raised", errors)
    assert not running, f"{running} of {len(functions)} test threads still running after {timeout} s"
    return results


def wait_until(condition: Callable[[], Any], *, timeout: float, what: str, every: float = 0.1) -> Any:
    """Poll ``condition`` until it returns something true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(every)
    return value


@dataclass
class History:
    """What a test did through the API, for the expected ledger: results as submitted, then voids and corrections.

    ``submitted`` maps each created match id to the body that created it;
    ``corrected`` to the body of its last correction; ``voided`` holds the
    voided ids. Only what the server answered 200/201 to is recorded.
    """

    submitted: dict[int, dict] = field(default_factory=dict)
    corrected: dict[int, dict] = field(default_factory=dict)
    voided: set[int] = field(default_factory=set)


Snapshot = tuple[list[tuple], list[tuple], list[tuple]]


def _exact(value) -> Fraction | None:
    """A stored decimal as an exact fraction, so it compares with the oracle's values without rounding."""
    return None if value is None else Fraction(Decimal(str(value)))


def ledger_snapshot() -> Snapshot:
    """Every player rating, ledger row and promotion stored, as exact values, sorted: (ratings, ledger, promotions).

    Row shapes (the expected ledger has the same):
        rating     (game slug, player, rating, peak, rated matches, league tier)
        ledger     (match, unit, player, rating before, rating after, delta, rated matches after, peak after,
                   league tier after)
        promotion  (game slug, player, match, rating reached)
    """
    from leagues.models import League
    from ratings.models import PlayerRating, Promotion, RatingChange

    tiers = dict(League.objects.values_list("pk", "tier"))
    ratings = sorted(
        (game, player, _exact(rating), _exact(peak), rated, tiers.get(league))
        for game, player, rating, peak, rated, league in PlayerRating.objects.values_list(
            "game__slug", "player_id", "rating", "peak_rating", "rated_matches", "league_id"
        )
    )
    ledger = sorted(
        (match, unit, player, _exact(before), _exact(after), _exact(delta), rated, _exact(peak), tiers.get(league))
        for match, unit, player, before, after, delta, rated, peak, league in RatingChange.objects.values_list(
            "match_id", "unit", "player_id", "rating_before", "rating_after", "delta", "rated_matches_after",
            "peak_after", "league_after_id",
        )
    )  # fmt: skip
    promotions = sorted(
        (game, player, match, _exact(rating))
        for game, player, match, rating in Promotion.objects.values_list(
            "game__slug", "player_id", "match_id", "rating"
        )
    )
    return ratings, ledger, promotions


def ledger_expected(*, history: History, now: dt.datetime | None = None) -> Snapshot:
    """The snapshot the rules give for what the test submitted: THE one place that defines "expected"
    for load and faults.

    The independent oracle (``tests/oracle``) replays the History: every
    submitted body, a correction's body in place of the original, voided ids
    void, a body with ``"rated": false`` a friendly. Neither the stored results
    nor ``ratings.services`` take part. From the database it reads only facts
    the History cannot know, as stored: each game's parameters, start rating
    and leagues (``oracle_game_spec``), the league a body that names none was
    filed under, and each bot seat's rating and maximum as played. A result the
    History has but the database lost keeps its rows in the expected ledger
    (filed under the amateur league, bots with their current values), so it is
    counted as rows missing, never skipped. Writes nothing.

    Awaiting confirmation is not modelled: these tests use no two-step league,
    so every submitted, unvoided, rated body is expected rated.
    """
    from leagues.models import Bot, Game, League
    from matches.models import Match, Seat
    from tests.oracle import oracle_replay
    from tests.oracle_db import oracle_game_spec, oracle_result_from_body

    now = now or timezone.now()
    bodies = {**history.submitted, **history.corrected}
    filed_under = dict(Match.objects.filter(pk__in=list(bodies)).values_list("pk", "league__slug"))
    as_played: dict[int, dict[str, tuple]] = {}
    for match_id, bot, rating, maximum in Seat.objects.filter(match_id__in=list(bodies), bot__isnull=False).values_list(
        "match_id", "bot__slug", "bot_rating", "bot_max_rating"
    ):
        as_played.setdefault(match_id, {})[bot] = (rating, maximum)
    ratings, ledger, promotions = [], [], []
    for game in Game.objects.order_by("pk"):
        bots_now = {bot.slug: (bot.rating, bot.max_rating) for bot in Bot.objects.filter(game=game)}
        amateur = League.objects.get(game=game, tier=League.Tier.AMATEUR).slug
        results = [
            oracle_result_from_body(
                match_id=match_id,
                body=body,
                bots={**bots_now, **as_played.get(match_id, {})},
                default_league=filed_under.get(match_id) or amateur,
                status="void" if match_id in history.voided else "rated",
            )
            for match_id, body in bodies.items()
            if body["game"] == game.slug
        ]
        outcome = oracle_replay(oracle_game_spec(game=game), results, now=now)
        ledger += [
            (row.match, row.unit, row.player, row.rating_before, row.rating_after, row.delta,
             row.rated_matches_after, row.peak_after, row.league_after)
            for row in outcome.rows.values()
        ]  # fmt: skip
        ratings += [
            (game.slug, player, standing.rating, standing.peak, standing.rated_matches, standing.league)
            for player, standing in outcome.standings.items()
        ]
        promotions += [(game.slug, row.player, row.match, row.rating) for row in outcome.promotions]
    return sorted(ratings), sorted(ledger), sorted(promotions)


def _multiset_difference(actual: Snapshot, expected: Snapshot) -> list[tuple[str, tuple]]:
    differences = []
    for mine, theirs in zip(actual, expected, strict=True):
        mine_counts, their_counts = Counter(mine), Counter(theirs)
        differences += [("stored", row) for row in (mine_counts - their_counts).elements()]
        differences += [("expected", row) for row in (their_counts - mine_counts).elements()]
    return differences


def ledger_rows_differing(actual: Snapshot, expected: Snapshot) -> int:
    """Rows (ratings, ledger, promotions) in one snapshot and not the other, counted with multiplicity."""
    return len(_multiset_difference(actual, expected))


def ledger_rows_shown(actual: Snapshot, expected: Snapshot, limit: int = 12) -> str:
    """The first rows that differ, one a line, for an assertion's message."""

    def shown(value):
        return f"{float(value):.2f}" if isinstance(value, Fraction) and 100 % value.denominator == 0 else str(value)

    lines = [f"{side}: ({', '.join(map(shown, row))})" for side, row in _multiset_difference(actual, expected)]
    return "\n".join(lines[:limit]) + (f"\n... {len(lines) - limit} more" if len(lines) > limit else "")


def wait_ratings_settled(timeout: float = 120) -> None:
    """Wait until no game has rating work left (``ratings_pending_games``).

    Not just "nothing submitted": a void that lands after the last result was
    rated leaves only its replay to do, and a snapshot must wait for that too.
    """
    deadline = time.monotonic() + timeout
    while pending := ratings_pending_games():
        assert time.monotonic() < deadline, f"rating work left in games {pending} after {timeout} s"
        time.sleep(0.5)


@pytest.fixture
@needs("services")
def stack(transactional_db, require_postgres, require_redis, tmp_path):
    """gunicorn (2 workers) and one Celery worker on Redis, on the test database."""
    import redis

    redis.Redis.from_url(require_redis).flushdb()
    reference_data_ensure()
    stack = Stack(require_redis, tmp_path)
    try:
        stack.start_worker()
        stack.start_web()
        yield stack
    finally:
        stack.stop()


class PrivateRedis:
    """A Redis server of the test's own, on a free port, that the test may stop and start."""

    def __init__(self, log_dir: Path):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.cache_url = f"redis://127.0.0.1:{self.port}/1"
        self.log_dir = log_dir
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import shutil

        binary = shutil.which("redis-server")
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not port_open("127.0.0.1", self.port):
            if time.monotonic() > deadline:
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
@needs("redis")
def private_redis(require_redis, tmp_path):
    """A Redis server of the test's own (the ``redis`` marker has checked redis-server is there)."""
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
@needs("services")
def fault_stack(transactional_db, require_postgres, private_redis, tmp_path):
    """Like ``stack``, on a Redis of the test's own; the test starts the workers it needs.

    The worst case (``check --deploy`` warns of it, config.W001): the broker
    (db 0) and ``CACHE_URL`` (db 1) on the same Redis, so stopping it takes the
    cache down with the broker.
    """
    reference_data_ensure()
    stack = Stack(private_redis.url, tmp_path, cache_url=private_redis.cache_url)
    try:
        stack.start_web()
        yield stack
    finally:
        stack.stop()
