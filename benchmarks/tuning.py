"""Tuning: pure engine replays of a synthetic Slaps history under the default grid (``ratings.evaluation``).

The history is built in memory (no database): ``results`` 1-v-1 results among ``players``
players with hidden strengths, one a minute, from a fixed seed. Measured: one replay under
the current parameters with its forecasts, then the tuning of the current parameters and
``candidates`` others from ``candidate_grid``; the ratio says how many single replays the
tuning costs.
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta

from ratings.engines.elo import SYSTEM, EloMatch, EloParameters
from ratings.evaluation import candidate_grid, evaluate, history_of, plain_unit, split_time, tune


def synthetic_history(*, results: int, players: int, seed: int = 16):
    rng = random.Random(seed)
    strength = [rng.gauss(0, 200) for _ in range(players)]
    start = datetime(2020, 1, 1, tzinfo=UTC)
    units = []
    for number in range(1, results + 1):
        a, b = rng.sample(range(1, players + 1), 2)
        chance = 1 / (1 + 10 ** ((strength[b - 1] - strength[a - 1]) / 400))
        winner = a if rng.random() < chance else b
        units.append(plain_unit(number, start + timedelta(minutes=number), (a, b), EloMatch((a, b), winner)))
    return history_of(SYSTEM, units)


def tuning_speed(*, results: int, candidates: int = 20, players: int = 1000) -> dict:
    history = synthetic_history(results=results, players=players)
    current = EloParameters()
    grid = candidate_grid(SYSTEM, current, max_candidates=candidates)
    started = time.perf_counter()
    evaluate(history, current, split_at=split_time(history, 0.5), current=True)
    one = time.perf_counter() - started
    started = time.perf_counter()
    tuning = tune(history, grid, split=0.5)
    seconds = time.perf_counter() - started
    return {
        "results": results,
        "players": players,
        "candidates": len(grid),
        "one_replay_s": round(one, 3),
        "tuning_s": round(seconds, 2),
        "ratio_to_one_replay": round(seconds / one, 1) if one else None,
        "results_per_s": round(results * len(grid) / seconds) if seconds else None,
        "chosen_log_loss": round(tuning.chosen.report.log_loss, 4),
        "current_log_loss": round(tuning.current.report.log_loss, 4),
    }
