"""Import speed: a club's Slaps history from CSV, and a bridge evening from a scoring program's PBN file.

Each goes the way ``manage.py import_results`` goes (``games.importing``):
the file read into a plan, the people matched and created, every result
stored through the one write path (``match_record``) in one transaction,
and the game rated once at the end. The ratio is to a full replay of the same
stored results (``ratings_replay_all``), measured right after in the same
run: what an import costs beyond rating what it brought. The bridge evening
carries a hand record per board, analysed (double dummy, par) after the
import's commit as a task does: reported apart and in a second ratio.

The CSV is read from a file, a line at a time, as the command reads it.
Memory: the process's peak resident size (``ru_maxrss``) before and after
the import, and what reading 20 MB of junk lines adds to it (the Slaps
row's ``junk``, read first: the problems kept and counted).

Synthetic data lives in games of their own ("benchmark-import-slaps",
"benchmark-import-bridge") and players named "bench-import …", and is
deleted afterwards unless asked to keep it.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.test.utils import override_settings

from benchmarks.replay import cleanup, vacuum
from games.bridge.analysis import hand_records_analyse
from games.bridge.models import Board
from games.bridge.scoring import plausible_result, usual_contract
from games.importing import import_apply, import_plan_read
from leagues.models import Game, League
from ratings.models import FigureState, RatingChange
from ratings.services import ratings_replay_all

PREFIX = "bench-import"
REFEREE = "benchmark-import"
START = datetime(2020, 1, 6, 18, 0, tzinfo=UTC)


def _game(slug: str, name: str, system: str) -> Game:
    leftover = Game.objects.filter(slug=slug).first()
    if leftover is not None:
        _cleanup(leftover)  # an interrupted run (or --keep) left it: start from nothing
    game = Game.objects.create(slug=slug, name=name, rating_system=system)
    League.objects.create(game=game, tier="amateur", slug=f"{slug}-amateur", name=f"{name} amateur",
                          promotion_threshold=1800)  # fmt: skip
    League.objects.create(game=game, tier="pro", slug=f"{slug}-pro", name=f"{name} pro", rating_floor=1800)
    return game


def _cleanup(game: Game) -> None:
    """Delete a benchmark game and all it holds (``benchmarks.replay.cleanup``), with its players."""
    cleanup(game, player_prefix=PREFIX)


def slaps_csv(*, results: int, players: int, seed: int = 14) -> bytes:
    """A season of Slaps results as the club's spreadsheet gives them (docs/import.md's columns)."""
    rng = random.Random(seed)
    lines = ["played_at,player_a,player_a_id,player_b,player_b_id,winner"]
    for index in range(results):
        a, b = rng.sample(range(players), 2)
        at = START + timedelta(minutes=10 * index)
        lines.append(f"{at.isoformat()},{PREFIX} {a:06d},,{PREFIX} {b:06d},,{'a' if rng.random() < 0.5 else 'b'}")
    return ("\n".join(lines) + "\n").encode()


def _deal(rng) -> str:
    """A shuffled deal as PBN deal text, North first: each hand's spades, hearts, diamonds, clubs."""
    cards = [suit + rank for suit in "SHDC" for rank in "AKQJT98765432"]
    rng.shuffle(cards)
    hands = []
    for seat in range(4):
        held = set(cards[13 * seat : 13 * seat + 13])
        hands.append(".".join("".join(rank for rank in "AKQJT98765432" if suit + rank in held) for suit in "SHDC"))
    return "N:" + " ".join(hands)


def bridge_pbn(*, boards: int, tables: int, seed: int = 30) -> bytes:
    """One evening of ``boards`` boards at ``tables`` tables as a scoring program writes it: NS pairs 1..N
    stay at their tables, EW pairs N+1..2N move one table a round (every board played at every table)."""
    rng = random.Random(seed)
    names = ['[TotalScoreTable "PairId\\2R;Names\\40L"]']
    for pair in range(1, 2 * tables + 1):
        names.append(f'{pair} "{PREFIX} {2 * pair - 1:04d} - {PREFIX} {2 * pair:04d}"')
    out = ["% PBN 2.1", "% bench-import: a synthetic session", ""]
    for board in range(1, boards + 1):
        out += ['[Event "Benchmark pairs"]', '[Date "2024.03.05"]', f'[Board "{board}"]', f'[Deal "{_deal(rng)}"]']
        if board == 1:
            out += names
        out.append(
            '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R;Score_EW\\6R"]'
        )
        usual = usual_contract(rng)
        for table in range(1, tables + 1):
            ew = tables + 1 + (table - 1 + board) % tables
            # A result the board can have at its vulnerability: most tables reach the usual contract.
            reached = usual if rng.random() < 0.75 else usual_contract(rng)
            contract, declarer, tricks, score = plausible_result(rng, board, contract=reached[0], declarer=reached[1])
            play = f"{str(contract).replace('NT', 'N')} {declarer} {tricks}"
            out.append(f'{table} {ew} {play} "{score}" -' if score >= 0 else f'{table} {ew} {play} - "{-score}"')
        out.append("")
    return "\n".join(out).encode()


def _peak_rss_mb() -> float:
    """The process's peak resident size so far, in MB (Linux gives ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: The junk file's size: the import's limit, 20 MB, at the full size (100,000 results), less below it.
JUNK_BYTES_AT_MOST = 20 * 2**20
JUNK_BYTES_A_RESULT = 210


def junk_csv_read(*, size: int = JUNK_BYTES_AT_MOST) -> dict:
    """Reading a Slaps CSV of ``size`` bytes of junk lines (a header, then "x" a line, a problem each): how
    many problems are kept and counted, the time, and what the reading added to the process's peak
    resident size (run first, while that peak is low). Before the cap, 20 MB gave 10.5 million problems
    and 3.3 GB."""
    header = b"played_at,player_a,player_b,winner\n"
    lines = (size - len(header)) // 2
    game = Game(slug="benchmark-junk", name="Benchmark junk", rating_system="elo")
    with tempfile.TemporaryFile() as file:
        file.write(header)
        for start in range(0, lines, 2**19):
            file.write(b"x\n" * min(2**19, lines - start))  # in blocks: the file is never in memory
        file.seek(0)
        rss_before = _peak_rss_mb()
        started = time.perf_counter()
        plan = import_plan_read(game=game, format="csv", data=file, zone=UTC)
        read = time.perf_counter() - started
    return {
        "bytes": size,
        "lines": lines,
        "problems_kept": len(plan.problems),
        "problems_counted": plan.problems.more,
        "read_s": round(read, 2),
        "peak_rss_growth_mb": round(_peak_rss_mb() - rss_before, 1),
    }


def _import_and_replay(game: Game, *, format: str, data: bytes) -> dict:
    referee, _ = get_user_model().objects.get_or_create(username=REFEREE)
    rss_before = _peak_rss_mb()
    with tempfile.TemporaryFile() as file:  # read from a file as the command reads it: a CSV a line at a time
        file.write(data)
        file.seek(0)
        started = time.perf_counter()
        plan = import_plan_read(game=game, format=format, data=file, zone=UTC)
        read = time.perf_counter() - started
    assert not plan.blocking, plan.blocking[:3]
    stored_at: list[float] = []

    def progress(done: int, total: int) -> None:
        if done == total:
            stored_at.append(time.perf_counter())

    started = time.perf_counter()
    # As production runs it: with DEBUG, Django would keep the SQL of the last 9,000 queries, each INSERT
    # of a thousand rows among them, in the memory measured here.
    with override_settings(DEBUG=False), transaction.atomic():  # its commit runs what the import queued after
        summary = import_apply(plan=plan, game=game, referee=referee, progress=progress)
        imported = time.perf_counter() - started
        rss_after = _peak_rss_mb()  # before the commit runs the tasks it queued (analysis, figures)
    store = stored_at[0] - started
    # The hand records' analysis, a task after the commit: run here whether Celery ran it eagerly at the
    # commit or queued it to a worker (then it is done now, and the worker finds nothing left).
    with_deals = Board.objects.filter(match__game=game).exclude(deal="").values_list("match_id", flat=True)
    for match_id in set(with_deals):
        hand_records_analyse(match_id)
    analyse = time.perf_counter() - started - imported
    analysed = Board.objects.filter(match__game=game, double_dummy__isnull=False).count()
    rows = RatingChange.objects.filter(game=game).count()
    # The replay's commit would send the game's figures task (ratings.figures: quality, drift), run eagerly
    # here and timed with it, while the import's is sent after the time taken: marked as asked for already,
    # neither times it, and the ratio compares rating with rating.
    FigureState.objects.update_or_create(game=game, defaults={"wanted": True})
    started = time.perf_counter()
    ratings_replay_all(game_id=game.pk)
    replay = time.perf_counter() - started
    assert RatingChange.objects.filter(game=game).count() == rows
    figures = {
        "results": summary.results,
        "new_players": summary.new,
        "ledger_rows": rows,
        "read_s": round(read, 2),
        "store_s": round(store, 2),
        "rate_s": round(imported - store, 2),
        "import_s": round(read + imported, 2),
        "replay_s": round(replay, 2),
        "ratio_to_replay": round((read + imported) / replay, 1),
        "store_ms_per_result": round(1000 * store / max(summary.results, 1), 2),
        # The process's high-water mark before and after reading and storing: what the import added to it.
        "peak_rss_before_mb": round(rss_before, 1),
        "peak_rss_mb": round(rss_after, 1),
        "peak_rss_growth_mb": round(rss_after - rss_before, 1),
    }
    if analysed:
        figures["hand_records"] = analysed
        figures["analyse_s"] = round(analyse, 2)
        figures["with_analysis_ratio_to_replay"] = round((read + imported + analyse) / replay, 1)
    return figures


def import_speed(*, results: int, players: int, boards: int = 30, tables: int = 22, keep: bool = False) -> dict:
    """The two imports, each with its ratio to the replay of what it stored."""
    # First, while the process's peak resident size is low: what reading a file of junk adds to it.
    junk = junk_csv_read(size=min(JUNK_BYTES_AT_MOST, results * JUNK_BYTES_A_RESULT))
    out = {}
    for key, (slug, name, system, format, data) in {
        "slaps_csv": (
            "benchmark-import-slaps", "Benchmark import Slaps", "elo", "csv",
            slaps_csv(results=results, players=players),
        ),
        "bridge_pbn": (
            "benchmark-import-bridge", "Benchmark import Bridge", "bridge", "pbn",
            bridge_pbn(boards=boards, tables=tables),
        ),
    }.items():  # fmt: skip
        game = _game(slug, name, system)
        try:
            out[key] = _import_and_replay(game, format=format, data=data)
        finally:
            if not keep:
                _cleanup(game)
    out["slaps_csv"].update(players=players, junk=junk)
    out["bridge_pbn"].update(boards=boards, tables=tables)
    if not keep:
        vacuum()
    return out
