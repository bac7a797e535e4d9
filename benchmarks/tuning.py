"""Tuning: pure engine replays of a synthetic Slaps history (``ratings.evaluation``).

The history is built in memory (no database): ``results`` 1-v-1 results among ``players``
players with hidden strengths, one a minute, from a fixed seed. Measured, each against one
replay under the current parameters with its forecasts (the ratio says how many single
replays it costs):

* ``tuning_speed``: the tuning of the current parameters and ``candidates`` others from
  ``candidate_grid`` (the grid).
* ``search_speed``: the search (``ratings.parameter_search``, issue 29) from the current
  parameters on the three parts, until it converges or spends its budget of replays.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

from ratings.engines.elo import SYSTEM, EloMatch, EloParameters
from ratings.evaluation import candidate_grid, evaluate, history_of, part_times, plain_unit, split_time, tune
from ratings.parameter_search import BUDGET, parameter_search


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


def search_speed(*, results: int = 100_000, players: int = 1000, budget: int = BUDGET) -> dict:
    """The search from the current Elo parameters, timed against one replay scored as each of its candidates is
    (three parts: fit, choose, report), on the same history."""
    history = synthetic_history(results=results, players=players)
    current = EloParameters()
    split_at, report_at = part_times(history, 0.5, 0.25)
    started = time.perf_counter()
    evaluate(history, current, split_at=split_at, report_at=report_at, current=True)
    one = time.perf_counter() - started
    started = time.perf_counter()
    tuning = parameter_search(history, current, budget=budget)
    seconds = time.perf_counter() - started
    search = tuning.search
    return {
        "results": results,
        "players": players,
        "budget": budget,
        "replays": search["replays"],
        "rounds": search["rounds"],
        "converged": search["converged"],
        "search_s": round(seconds, 2),
        "one_replay_s": round(one, 3),
        "ratio_to_one_replay": round(seconds / one, 1) if one else None,
        "verdict": tuning.verdict,
        "chosen": asdict(tuning.chosen.parameters),
        "current_report_log_loss": round(tuning.current.report_part.log_loss, 5),
        "chosen_report_log_loss": round(tuning.chosen.report_part.log_loss, 5),
    }
