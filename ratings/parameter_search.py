"""A search for a game's best rating parameters that goes on until it stops finding better ones (issue 29).

A pattern search (a compass search with Hooke and Jeeves' pattern moves), derivative-free and
deterministic, over the parameters the engine lets a game set (its ``RANGES``):

1. From the base (first the current parameters), each parameter alone (but those that define what a
   forecast is scored against, ``tunable_ranges``: bridge's draw margin) is moved up and down by the
   step: times and divided by it (a parameter at 0 moves to step - 1 instead); whole numbers move by
   at least 1; values are kept to three significant figures, within the range, and a combination the
   engine refuses (``ORDERED``) is left out.
2. After a move was taken, the round also tries the **pattern**: the same move again, twice as far
   (so a run of moves in one direction doubles its reach each round), and the **combination** of every
   other move of the last round that also improved on its base.
3. All of a round's candidates are replayed (in parallel where ``Replays`` forks) and the best, by
   log-loss on the choosing part, becomes the base if it beats the base by more than ``tolerance``.
   Otherwise the step shrinks to its square root (1.5, 1.22, 1.11, 1.05, 1.03 ...); below ``min_step``
   the search has **converged**. A parameter whose two moves score exactly as the base (it changes no
   forecast of this history) is left alone until the step shrinks.
4. It stops early, not converged, when the next round would pass ``budget`` replays (the current
   parameters' replay included): the best found so far is chosen.

Every candidate is scored on the choosing part only; the chosen and the current parameters are then
read on the report part (``Tuning.verdict``): recommended only if the chosen do better there.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from leagues.models import Game
from ratings.drift import game_active_days
from ratings.engines import EngineInputError, get_rating_system, parameters_from_mapping, tunable_ranges
from ratings.evaluation import (
    ACTIVE_DAYS,
    MAX_CANDIDATES,
    PARTS,
    Candidate,
    History,
    Replays,
    Tuning,
    candidate_grid,
    candidates_limit_check,
    history_load,
    part_times,
    tune,
)
from ratings.parameters import rating_parameters

#: Replays a search may use unless told otherwise (the current parameters' one included).
BUDGET = 200
BUDGET_LIMIT = 2000
#: An improvement of the choosing part's log-loss smaller than this is no improvement.
TOLERANCE = 1e-4
#: The first step (times and divided by), and the step below which the search has converged.
STEP = 1.5
MIN_STEP = 1.03
#: Significant figures a moved value keeps.
FIGURES = 3


@dataclass(frozen=True)
class Progress:
    """Where a search is, after each round: what the tuning page and the command show."""

    rounds: int
    replays: int
    budget: int
    step: float
    best_log_loss: float | None
    current_log_loss: float | None


def _significant(value: float) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, FIGURES - 1 - math.floor(math.log10(abs(value))))


def _key(values: dict) -> str:
    return json.dumps(values, sort_keys=True)


class _Space:
    """The engine's settable parameters, and the moves a base allows."""

    def __init__(self, system) -> None:
        self.cls = system.parameters_class
        self.ranges = tunable_ranges(self.cls)  # not those defining a forecast's outcome (bridge's draw margin)

    def value(self, name: str, value: float):
        """``value`` as the parameter takes it (kept in range, rounded), or None when it cannot be."""
        param = self.ranges[name]
        value = min(max(value, param.minimum), param.maximum)
        value = round(value) if param.integer else _significant(value)
        if param.minimum_excluded and value <= param.minimum:
            return None
        try:
            return param.clean(value)
        except EngineInputError:
            return None

    def moved(self, base: dict, name: str, step: float, up: bool):
        old = base[name]
        new = (step - 1 if up else -(step - 1)) if old == 0 else old * step if up == (old > 0) else old / step
        new = self.value(name, new)
        if new is not None and new == old and self.ranges[name].integer:
            new = self.value(name, old + (1 if up else -1))
        return None if new is None or new == old else new

    def parameters(self, values: dict):
        """The engine's parameters for ``values``, or None if the engine refuses them (``ORDERED``)."""
        try:
            return parameters_from_mapping(self.cls, values)
        except EngineInputError:
            return None

    def extended(self, base: dict, origin: dict, times: float) -> dict:
        """``base`` moved on from ``origin`` by ``times`` the move that led from one to the other (per
        parameter: as a ratio where both are positive, as a difference otherwise)."""
        values = dict(base)
        for name in self.ranges:
            old, new = origin[name], base[name]
            if old == new:
                continue
            target = new * (new / old) ** times if old > 0 and new > 0 else new + (new - old) * times
            moved = self.value(name, target)
            if moved is not None:
                values[name] = moved
        return values


def parameter_search(
    history: History,
    current,
    *,
    split: float = PARTS[0],
    choose: float = PARTS[1],
    budget: int = BUDGET,
    tolerance: float = TOLERANCE,
    active_days: int = ACTIVE_DAYS,
    progress: Callable[[Progress], None] | None = None,
) -> Tuning:
    """Search from ``current`` for the parameters with the lowest log-loss on the choosing part (module
    docstring); the chosen and the current parameters are read on the report part."""
    if not 1 <= budget <= BUDGET_LIMIT:
        raise EngineInputError(f"The budget must be from 1 to {BUDGET_LIMIT} replays; got {budget}.")
    started = time.perf_counter()
    system = history.system
    space = _Space(system)
    split_at, report_at = part_times(history, split, choose)
    candidates: list[Candidate] = []
    seen: dict[str, int] = {}
    base_values = asdict(current)
    step, rounds, converged = STEP, 0, False
    path = [0]
    last_move: tuple[dict, dict] | None = None  # (the base before, the base after) of the last move taken
    also_better: list[dict] = []  # the last round's other improving candidates' values
    frozen: set[str] = set()
    with Replays(
        history, split_at=split_at, report_at=report_at, active_days=active_days, expected=2 * len(space.ranges)
    ) as replays:
        (base,) = replays.run([(current, True)])
        candidates.append(base)
        seen[_key(base_values)] = 0
        base_index = 0

        def report() -> None:
            if progress is not None:
                progress(
                    Progress(
                        rounds=rounds,
                        replays=replays.used,
                        budget=budget,
                        step=step,
                        best_log_loss=candidates[base_index].score,
                        current_log_loss=candidates[0].score,
                    )
                )

        report()
        while base.score is not None:
            # This round's candidates: (values, which parameter a compass move moved, or None).
            wanted: list[tuple[dict, str | None]] = []
            if last_move is not None:
                wanted.append((space.extended(last_move[1], last_move[0], 2), None))
                if also_better:
                    combined = dict(base_values)
                    for values in also_better:
                        combined |= {k: v for k, v in values.items() if v != last_move[0][k]}
                    wanted.append((combined, None))
            for name in space.ranges:
                if name in frozen:
                    continue
                for up in (True, False):
                    new = space.moved(base_values, name, step, up)
                    if new is not None:
                        wanted.append(({**base_values, name: new}, name))
            fresh, fresh_keys, known = [], set(), []
            for values, name in wanted:
                key = _key(values)
                if key in seen:
                    known.append((seen[key], name))
                    continue
                if key in fresh_keys:
                    continue
                parameters = space.parameters(values)
                if parameters is None:
                    continue
                fresh_keys.add(key)
                fresh.append((values, name, parameters))
            room = budget - replays.used
            if len(fresh) > room:
                fresh = fresh[: max(room, 0)]
            if not fresh and not known:
                converged = not fresh_keys  # nothing left to try at any step: as far as it can go
                break
            results = replays.run([(parameters, False) for _, _, parameters in fresh])
            rounds += 1
            tried: list[tuple[int, str | None]] = list(known)
            for (values, name, _parameters), candidate in zip(fresh, results, strict=True):
                seen[_key(values)] = len(candidates)
                tried.append((len(candidates), name))
                candidates.append(candidate)
            # A parameter both of whose moves score exactly as the base changes nothing here: leave it.
            scores: dict[str, list] = {}
            for index, name in tried:
                if name is not None:
                    scores.setdefault(name, []).append(candidates[index].score)
            for name, values in scores.items():
                if len(values) == 2 and all(value == base.score for value in values):
                    frozen.add(name)
            better = [
                index
                for index, _name in tried
                if candidates[index].score is not None and candidates[index].score < base.score - tolerance
            ]
            exhausted = replays.used >= budget or len(fresh) < len(fresh_keys)
            if better:
                best = min(better, key=lambda index: (candidates[index].score, index))
                before = base_values
                base_index, base = best, candidates[best]
                base_values = asdict(base.parameters)
                last_move = (before, base_values)
                also_better = [asdict(candidates[i].parameters) for i in better if i != best]
                path.append(best)
            else:
                last_move, also_better = None, []
                step = math.sqrt(step)
                frozen.clear()  # at the new step, from a base that may have moved since: look again
                if step < MIN_STEP:
                    converged = True
            report()
            if converged or exhausted:
                break
    if base.score is not None:
        base.chosen = True
    return Tuning(
        split=split,
        split_at=split_at,
        active_days=active_days,
        candidates=candidates,
        choose=choose,
        report_at=report_at,
        search={
            "method": "search",
            "rounds": rounds,
            "replays": replays.used,
            "converged": converged,
            "budget": budget,
            "tolerance": tolerance,
            "step": round(step, 6),
            "path": path,
            "unchanged": sorted(frozen),
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


def game_tuning(
    *,
    game: Game,
    values: dict[str, list] | None = None,
    split: float = PARTS[0],
    choose: float = PARTS[1],
    budget: int = BUDGET,
    max_candidates: int = MAX_CANDIDATES,
    active_days: int | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> Tuning:
    """Tune a game on its own stored history: the search from its current parameters, or with ``values``
    (a parameter's name -> the values to try) the grid of their combinations (``candidate_grid``, at most
    ``max_candidates`` besides the current), all scored on the same three parts."""
    current = rating_parameters(game=game)
    system = get_rating_system(game.rating_system)
    if not hasattr(system, "forecasts") or not hasattr(system, "forecast_scale"):
        raise EngineInputError(f"The {system.label} engine gives no forecasts: its parameters cannot be tuned.")
    candidates_limit_check(max_candidates)
    candidates = candidate_grid(system, current, values=values, max_candidates=max_candidates) if values else None
    history = history_load(game=game)
    active_days = active_days or game_active_days(game)
    if candidates is not None:
        return tune(history, candidates, split=split, choose=choose, active_days=active_days)
    return parameter_search(
        history,
        current,
        split=split,
        choose=choose,
        budget=budget,
        active_days=active_days,
        progress=progress,
    )
