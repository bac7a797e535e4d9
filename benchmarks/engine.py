"""Engine speed: each engine on a long stream against the same formula written inline.

The inline baselines produce what the engines produce (the new rating and the
same explanation of it for every player of every rated unit), so the ratio is
the cost of the engines' abstractions: the call, state mappings, Change
records, and the caller's bookkeeping of each player's state. Both loops read
a stream prepared before the clock starts: the engine's holds its input
records (as the replay's loaders build them from rows), the inline loop's the
same numbers as plain tuples.
"""

from __future__ import annotations

import gc
import math
import random
import time

from ratings.engines import PlayerState, get_rating_system
from ratings.engines.elo import EloMatch, EloParameters
from ratings.engines.preferans import PreferansGame, PreferansParameters


def _elo_stream(count: int, rng: random.Random, players: int) -> list[tuple[int, int]]:
    stream = []
    for _ in range(count):
        a, b = rng.randrange(players), rng.randrange(players - 1)
        stream.append((a, b + 1 if b >= a else b))
    return stream


def elo_engine(stream) -> tuple[float, list]:
    rate, parameters = get_rating_system("elo").rate, EloParameters()
    matches = [EloMatch((a, b), a) for a, b in stream]
    states = {player: PlayerState(1000.0) for match in stream for player in match}
    out = []
    started = time.process_time()
    for match in matches:
        changes = rate(match, states, parameters)
        for change in changes:
            player = change.player
            states[player] = states[player].after(change.rating_after)
        out.extend(changes)
    return time.process_time() - started, out


def elo_inline(stream) -> tuple[float, list]:
    rating: dict = {}
    played: dict = {}
    out = []
    started = time.process_time()
    for a, b in stream:
        ra, rb = rating.get(a, 1000.0), rating.get(b, 1000.0)
        ea = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
        for player, own, other, expected, score in ((a, ra, rb, ea, 1.0), (b, rb, ra, 1.0 - ea, 0.0)):
            k = 32.0 if played.get(player, 0) < 32 else 16.0
            after = own + k * (score - expected)
            after = math.copysign(math.floor(abs(after) + 0.5 + 1e-9), after)
            details = {"opponent_rating": other, "expected": round(expected, 4), "k": k, "score": score,
                       "floor_applied": False}  # fmt: skip
            out.append((0, player, own, after, details))
            rating[player] = after
            played[player] = played.get(player, 0) + 1
    return time.process_time() - started, out


def _preferans_stream(count: int, rng: random.Random, players: int) -> list[tuple[tuple[int, ...], tuple]]:
    games = []
    for _ in range(count // 4):
        seats = tuple(rng.sample(range(players), 4))
        deals = []
        for _deal in range(4):
            a, b, c = rng.randint(-8, 8), rng.randint(-8, 8), rng.randint(-8, 8)
            deals.append((a, b, c, -a - b - c))
        games.append((seats, tuple(deals)))
    return games


def preferans_engine(games) -> tuple[float, list]:
    rate, parameters = get_rating_system("preferans").rate, PreferansParameters()
    tables = [PreferansGame(seats, deals) for seats, deals in games]
    states = {seat: PlayerState(1000.0) for seats, _ in games for seat in seats}
    out = []
    started = time.process_time()
    for table in tables:
        changes = rate(table, states, parameters)
        # As the replay does: a player's state is rebuilt once per game, from their last deal.
        final = {change.player: change.rating_after for change in changes}
        for player, rating in final.items():
            states[player] = states[player].after(rating)
        out.extend(changes)
    return time.process_time() - started, out


def preferans_inline(games) -> tuple[float, list]:
    rating: dict = {}
    out = []
    log10, sqrt = math.log10, math.sqrt
    started = time.process_time()
    for seats, deals in games:
        for unit, whists in enumerate(deals):
            current = [rating.get(seat, 1000.0) for seat in seats]
            for index, seat in enumerate(seats):
                rs = current[index]
                others = sorted(current[:index] + current[index + 1 :], reverse=True)
                rt = (3 * others[0] + 2 * others[1] + others[2]) / 6
                kv = 60 + (rs - rt) / 6 if rs > rt else 60 + (rt - rs) / 22
                vf = min((rs - rt) / kv, 4.0)
                kd = min(max(2.0 / (1.0 + log10(1.0 + abs(rs - rt) / 100)), 0.3), 2.0)
                vs = whists[index]
                rd = kd * sqrt(vs - vf) if vs > vf else -kd * sqrt(vf - vs) if vs < vf else 0.0
                after = rs + rd
                after = math.copysign(math.floor(abs(after) * 100 + 0.5 + 1e-9) / 100, after)
                details = {"whists": float(vs), "table_rating": round(rt, 4), "kv": round(kv, 4),
                           "expected_whists": round(vf, 4), "kd": round(kd, 4), "smoothing": 1.0,
                           "bot_cap": None, "floor_applied": False}  # fmt: skip
                out.append((unit, seat, rs, after, details))
                rating[seat] = after
    return time.process_time() - started, out


REPEATS = 5


def timed(run, data) -> tuple[float, list]:
    """One run with the cyclic garbage collector paused, as ``timeit`` does: otherwise its passes
    over everything else alive in the process land on whichever loop happens to trigger them."""
    gc.collect()
    gc.disable()
    try:
        return run(data)
    finally:
        gc.enable()


def _best_pair(engine, inline, data) -> tuple[tuple[float, list], tuple[float, list]]:
    """The fastest of a few runs of each, alternated so both see the same moments of a noisy, shared machine.

    Only the first run's output is kept (to check the two agree); the others are dropped at once.
    """
    engine_time, engine_out = timed(engine, data)
    inline_time, inline_out = timed(inline, data)
    for _ in range(REPEATS - 1):
        engine_time = min(engine_time, timed(engine, data)[0])
        inline_time = min(inline_time, timed(inline, data)[0])
    return (engine_time, engine_out), (inline_time, inline_out)


def engine_speed(*, updates: int, seed: int = 11) -> list[dict]:
    """Rows of the benchmark table: updates/s of engine and inline loop, and their ratio (best of 5 each)."""
    rng = random.Random(seed)
    rows = []
    stream = _elo_stream(updates // 2, rng, 1000)
    (engine_time, engine_out), (inline_time, inline_out) = _best_pair(elo_engine, elo_inline, stream)
    assert [c.rating_after for c in engine_out] == [c[3] for c in inline_out], "elo: engine and inline disagree"
    rows.append(_row("elo", len(engine_out), engine_time, inline_time))
    del engine_out, inline_out
    games = _preferans_stream(updates // 4, rng, 1000)
    (engine_time, engine_out), (inline_time, inline_out) = _best_pair(preferans_engine, preferans_inline, games)
    assert [c.rating_after for c in engine_out] == [c[3] for c in inline_out], "preferans: engine and inline disagree"
    rows.append(_row("preferans", len(engine_out), engine_time, inline_time))
    return rows


def _row(name: str, count: int, engine_time: float, inline_time: float) -> dict:
    return {
        "engine": name,
        "updates": count,
        "engine_updates_per_s": round(count / engine_time),
        "inline_updates_per_s": round(count / inline_time),
        "ratio": round(engine_time / inline_time, 2),
    }
