"""Full replay: a Preferans history of 4-seat games rebuilt from the stored results.

Synthetic data lives in a game of its own ("benchmark-preferans", its
leagues, players named "bench …") so a real database is not disturbed, and
is deleted afterwards unless asked to keep it.

The history does not go through the write path (``matches.services``): that
validates and stores one result per transaction, about a dozen queries each,
and ``--full`` builds 250,000 games of 1,000,000 deals, which would take the
benchmark's build from seconds to hours while measuring nothing it reports.
So ``build_history`` writes what that path would leave, in bulk: the matches,
seats and deals, one ``submitted`` audit entry per match holding its body
(``match_as_body``'s shape; no actor: no referee entered it), and the game's
results version raised once at the end, as after any write.
"""

from __future__ import annotations

import random
import resource
import time
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from benchmarks.engine import preferans_engine, timed
from games.bridge.models import Board, BoardTable
from games.preferans.models import Deal
from leagues.models import Game, League, Player
from matches.models import AuditEntry, Match, Seat
from matches.versions import results_version_bump
from ratings.list_selectors import list_closes_at
from ratings.lists import rating_list_publish
from ratings.models import PlayerRating, Promotion, RatingChange, RatingList, RatingListRow, RatingState
from ratings.services import ratings_replay_all

SLUG = "benchmark-preferans"
DEALS_PER_GAME = 4
BATCH = 5000


def benchmark_game() -> Game:
    game, _ = Game.objects.get_or_create(
        slug=SLUG, defaults={"name": "Benchmark Preferans", "rating_system": "preferans"}
    )
    League.objects.get_or_create(
        game=game,
        tier="amateur",
        defaults={"slug": f"{SLUG}-amateur", "name": "Bench amateur", "promotion_threshold": 1800},
    )
    League.objects.get_or_create(
        game=game, tier="pro", defaults={"slug": f"{SLUG}-pro", "name": "Bench pro", "rating_floor": 1800}
    )
    return game


def cleanup(game: Game, *, player_prefix: str = "bench ") -> None:
    """Delete a benchmark game and everything in it, fastest first (no per-row signals).

    The audit log is append-only; only the entries of the benchmark's own
    synthetic game are removed, with PostgreSQL's guard lifted for this
    transaction alone.
    """
    with transaction.atomic():
        for model in (RatingChange, Promotion, PlayerRating):
            model.objects.filter(game=game)._raw_delete(connection.alias)
        RatingState.objects.filter(game=game).delete()
        matches = Match.objects.filter(game=game)
        audit = AuditEntry.objects.filter(match__in=matches)
        if audit.exists():
            guarded = connection.vendor == "postgresql"
            with connection.cursor() as cursor:
                if guarded:
                    cursor.execute("ALTER TABLE matches_auditentry DISABLE TRIGGER matches_auditentry_append_only")
                audit._raw_delete(connection.alias)
                if guarded:
                    cursor.execute("ALTER TABLE matches_auditentry ENABLE TRIGGER matches_auditentry_append_only")
        # Published lists never change: PostgreSQL's guard is lifted for the benchmark's own game alone.
        lists = RatingList.objects.filter(game=game)
        if lists.exists():
            guarded = connection.vendor == "postgresql"
            with connection.cursor() as cursor:
                if guarded:
                    cursor.execute("ALTER TABLE ratings_ratinglistrow DISABLE TRIGGER ratings_ratinglistrow_kept")
                    cursor.execute("ALTER TABLE ratings_ratinglist DISABLE TRIGGER ratings_ratinglist_kept")
                RatingListRow.objects.filter(rating_list__in=lists)._raw_delete(connection.alias)
                lists._raw_delete(connection.alias)
                if guarded:
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the rows' foreign keys, checked before ALTER
                    cursor.execute("ALTER TABLE ratings_ratinglistrow ENABLE TRIGGER ratings_ratinglistrow_kept")
                    cursor.execute("ALTER TABLE ratings_ratinglist ENABLE TRIGGER ratings_ratinglist_kept")
        # Every game's parts: Preferans deals, bridge boards and their tables (benchmarks.importing).
        Deal.objects.filter(match__in=matches)._raw_delete(connection.alias)
        BoardTable.objects.filter(board__match__in=matches)._raw_delete(connection.alias)
        Board.objects.filter(match__in=matches)._raw_delete(connection.alias)
        Seat.objects.filter(match__in=matches)._raw_delete(connection.alias)
        matches._raw_delete(connection.alias)
        League.objects.filter(game=game).delete()
        game.delete()
        Player.objects.filter(name__startswith=player_prefix)._raw_delete(connection.alias)


def audit_in_bulk(bodies: list[tuple[Match, dict]]) -> None:
    """The ``submitted`` audit entry the write path gives each result, for results stored in bulk."""
    AuditEntry.objects.bulk_create(
        (AuditEntry(action=AuditEntry.Action.SUBMITTED, match=match, data=body) for match, body in bodies),
        batch_size=BATCH,
    )


def submitted_body(match: Match, game: Game, **parts) -> dict:
    """A result's body as the audit log keeps it (``matches.selectors.match_as_body``'s shape)."""
    return {"game": game.slug, "played_at": match.played_at.isoformat(), "rated": match.rated, **parts}


def build_history(game: Game, *, deals: int, players: int, seed: int = 3) -> list:
    """Store ``deals`` deals in games of 4 seats, audited; returns the same games as engine input."""
    rng = random.Random(seed)
    roster = Player.objects.bulk_create((Player(name=f"bench {n:06d}") for n in range(players)), batch_size=BATCH)
    ids = [player.pk for player in roster]
    start = timezone.now() - timedelta(days=365)
    games = []
    pending_matches: list[Match] = []
    plans: list[tuple[tuple[int, ...], tuple]] = []

    def flush() -> None:
        created = Match.objects.bulk_create(pending_matches, batch_size=BATCH)
        seats, stored, bodies = [], [], []
        for match, (seated, game_deals) in zip(created, plans, strict=True):
            totals = [sum(deal[i] for deal in game_deals) for i in range(4)]
            seats += [Seat(match=match, position=i + 1, player_id=seated[i], result=totals[i]) for i in range(4)]
            stored += [Deal(match=match, number=n + 1, whists=list(deal)) for n, deal in enumerate(game_deals)]
            body = submitted_body(
                match, game, seats=[{"player": pid} for pid in seated], deals=[list(deal) for deal in game_deals]
            )
            bodies.append((match, body))
        Seat.objects.bulk_create(seats, batch_size=BATCH)
        Deal.objects.bulk_create(stored, batch_size=BATCH)
        audit_in_bulk(bodies)
        pending_matches.clear()
        plans.clear()

    for index in range(deals // DEALS_PER_GAME):
        seated = tuple(rng.sample(ids, 4))
        game_deals = []
        for _ in range(DEALS_PER_GAME):
            a, b, c = rng.randint(-8, 8), rng.randint(-8, 8), rng.randint(-8, 8)
            game_deals.append((a, b, c, -a - b - c))
        game_deals = tuple(game_deals)
        games.append((seated, game_deals))
        pending_matches.append(
            Match(game=game, played_at=start + timedelta(seconds=index * 30), rated=True, status=Match.Status.RATED)
        )
        plans.append((seated, game_deals))
        if len(pending_matches) >= BATCH:
            flush()
    if pending_matches:
        flush()
    results_version_bump(game_ids=[game.pk])
    return games


def full_replay(*, deals: int, players: int, keep: bool = False) -> dict:
    leftover = Game.objects.filter(slug=SLUG).first()
    if leftover is not None:
        cleanup(leftover)  # An interrupted run (or --keep) left its data; start from nothing.
    game = benchmark_game()
    try:
        started = time.perf_counter()
        games = build_history(game, deals=deals, players=players)
        built = time.perf_counter() - started
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        ratings_replay_all(game_id=game.pk)
        replay_time = time.perf_counter() - started
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # As after a rule change: the whole ledger is deleted and written again.
        started = time.perf_counter()
        ratings_replay_all(game_id=game.pk)
        again_time = time.perf_counter() - started
        rows = RatingChange.objects.filter(game=game).count()
        # The official list at the end of the history: every player, read from the ledger and written once.
        closing = timezone.localdate() + timedelta(days=1)
        rss_before_list = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        published = rating_list_publish(game=game, day=closing, now=list_closes_at(closing)).rating_list
        list_time = time.perf_counter() - started
        rss_after_list = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        engine_time, engine_out = timed(preferans_engine, games)
        assert rows == len(engine_out), f"replay wrote {rows} rows, the engine {len(engine_out)}"
        expected = {f"bench {index:06d}": 1000.0 for index in range(players)}
        names = dict(Player.objects.filter(name__startswith="bench ").values_list("pk", "name"))
        for change in engine_out:
            expected[names[change.player]] = change.rating_after
        del engine_out
        stored = {
            name: float(rating)
            for name, rating in PlayerRating.objects.filter(game=game).values_list("player__name", "rating")
        }
        differing = sum(1 for name, rating in stored.items() if abs(rating - expected[name]) > 0.005)
        assert not differing, f"{differing} players' replayed ratings differ from the engine's"
        return {
            "deals": deals,
            "players": players,
            "ledger_rows": rows,
            "build_s": round(built, 1),
            "replay_s": round(replay_time, 1),
            "rows_per_s": round(rows / replay_time),
            "ratio_to_engine": round(replay_time / engine_time, 2),
            "replay_over_ledger_s": round(again_time, 1),
            # The replay streams: the process grows by its chunk and the players met, not by the history.
            "rss_before_replay_mb": round(rss_before / 1024, 1),
            "rss_growth_during_replay_mb": round((rss_after - rss_before) / 1024, 1),
            "list_players": published.players,
            "list_s": round(list_time, 2),
            "list_ratio_to_replay": round(list_time / replay_time, 3),
            "rss_growth_during_list_mb": round((rss_after_list - rss_before_list) / 1024, 1),
        }
    finally:
        if not keep:
            cleanup(game)
            vacuum()


def vacuum() -> None:
    """Reclaim what the cleanup deleted now, so autovacuum does not compete with the next measures."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in (RatingChange, PlayerRating, Deal, Seat, Match, Player):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
