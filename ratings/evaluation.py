"""A game's history replayed in memory under any parameters, and tuning on it.

``history_load`` reads a game's stored, rateable results once, through its
kind (``kind.load``, in chunks, as ``ratings.replay`` does), into a
``History``: the engine inputs in ledger order with the league rules and
rating periods they were rated under. ``history_replay`` rates it from empty
standings under a set of parameters with replay's own applier
(``ratings.replay.MatchApplier``: floors, promotions, rating periods, bots,
the kind's partnership history) writing into an in-memory sink instead of
the ledger, and reads each unit's forecasts (``system.forecasts``) from the
states the engine is about to rate it from.

``tune`` scores candidates on a time split: the units played before the
split time are the older part (where a system without its own scale has it
fitted), those at or after it the newer part, where each candidate's
forecasts are scored (``ratings.engines.quality.forecast_report``) and the
drift of the mean rating of active players is measured. The candidate with
the lowest log-loss on the newer part is chosen. ``candidate_grid`` builds
the candidates from the engine's parameter ranges (docs/ratings.md, "Tuning").
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import os
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

from django.db.models import Min
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match, ResultsVersion
from ratings.cents import CENT, decimal_cents
from ratings.drift import game_active_days
from ratings.engines import EngineInputError, get_rating_system, parameter_ranges, parameters_from_mapping
from ratings.engines.quality import QualityReport, fit_scale, forecast_report
from ratings.history import LedgerKey, MatchRow, match_chunks
from ratings.ledger import Standing
from ratings.loaders import ReplayContext
from ratings.parameters import rating_parameters
from ratings.periods import PeriodSnapshots
from ratings.replay import REPLAY_CHUNK, LeagueRules, MatchApplier, game_setup, league_rules

#: A player is active at a moment when they had a rated result within this many days before it.
ACTIVE_DAYS = 90
#: Candidates besides the current parameters, unless asked otherwise.
MAX_CANDIDATES = 20
#: At most this many candidates (each a full replay), and this many combinations of given values to choose from.
CANDIDATES_LIMIT = 200
GRID_LIMIT = 10_000
#: The default grid's values of a parameter: its current value times these, within its range.
GRID_FACTORS = (0.75, 1.5)


class Unit(NamedTuple):
    """One stored result as a replay rates it."""

    match: MatchRow
    players: tuple
    engine_input: Any
    window: tuple[datetime, datetime] | None


@dataclass
class History:
    """A game's rateable results in ledger order, with what a replay needs besides them."""

    system: Any
    units: list[Unit]
    rules: dict[int, LeagueRules]
    entry_league_id: int
    start_rating: int  # cents
    windows: set = field(default_factory=set)


_NO_LEAGUE = 0


def history_of(system, units: list[Unit], *, start_rating: float = 1500) -> History:
    """A history of plain engine inputs: one league without floor, promotion or rating period (pure engine data)."""
    rules = {_NO_LEAGUE: LeagueRules(pk=_NO_LEAGUE, floor=None, promote_at=None, promote_to=None, promoted_floor=None)}
    return History(
        system=system, units=units, rules=rules, entry_league_id=_NO_LEAGUE, start_rating=round(start_rating * 100)
    )


def plain_unit(match_id: int, played_at: datetime, players: tuple, engine_input) -> Unit:
    """A unit of pure engine data (no league, rated)."""
    return Unit(MatchRow(match_id, played_at, Match.Status.RATED, None, None, True), players, engine_input, None)


def history_load(*, game: Game, now: datetime | None = None) -> History:
    """Read a game's rateable, non-void results once, in ledger order, through its kind."""
    now = now or timezone.now()
    system, kind, leagues, by_tier, entry_league = game_setup(game)
    matches = Match.objects.filter(game=game, status__in=[Match.Status.SUBMITTED, Match.Status.RATED])
    first = matches.aggregate(first=Min("played_at"))["first"]
    units: list[Unit] = []
    windows = set()
    if first is not None:
        context = ReplayContext(game=game, start=LedgerKey(first, 0), state=kind.replay_state())
        for page in match_chunks(matches, REPLAY_CHUNK, now=now):
            chunk = [match for match in page if match.rateable()]
            if not chunk:
                continue
            for match, (players, engine_input) in zip(chunk, kind.load(chunk, context), strict=True):
                window = None
                if match.due_at and match.league_id:
                    window = leagues[match.league_id].period_bounds(match.played_at)
                    if window is not None:
                        windows.add(window)
                units.append(Unit(match, players, engine_input, window))
    return History(
        system=system,
        units=units,
        rules=league_rules(leagues, by_tier.get(League.Tier.PRO)),
        entry_league_id=entry_league.pk,
        start_rating=decimal_cents(Decimal(game.start_rating).quantize(CENT)),
        windows=windows,
    )


class _Sink:
    """Where the applier's ledger rows go when nothing is written: nowhere."""

    game_id = None
    wants_text = False

    def __init__(self) -> None:
        self.promotions: list = []
        self.rated_match_ids: list = []

    def add_change(self, *args) -> None:
        pass


def _applier(history: History, parameters, observe=None) -> MatchApplier:
    return MatchApplier(
        system=history.system,
        parameters=parameters,
        rules=history.rules,
        writer=_Sink(),
        snapshots=PeriodSnapshots(history.windows),
        observe=observe,
    )


def _run(history: History, apply: MatchApplier) -> MatchApplier:
    pool, start, entry = apply.pool, history.start_rating, history.entry_league_id
    promotions, rated = apply.writer.promotions, apply.writer.rated_match_ids
    for match, players, engine_input, window in history.units:
        for player in players:
            if player not in pool:
                pool[player] = Standing(None, start, start, 0, entry)
        apply(match, players, engine_input, window)
        promotions.clear()
        rated.clear()
    return apply


def history_replay(history: History, parameters, *, observe=None) -> MatchApplier:
    """Rate the whole history from empty standings under ``parameters``; returns the applier (its ``pool``)."""
    return _run(history, _applier(history, parameters, observe))


# --- tuning ------------------------------------------------------------------------------------


@dataclass
class Drift:
    """The mean rating of active players at the split and at the end of the history."""

    at_split: float | None
    at_end: float | None
    active_at_split: int
    active_at_end: int

    @property
    def drift(self) -> float | None:
        if self.at_split is None or self.at_end is None:
            return None
        return self.at_end - self.at_split


@dataclass
class Candidate:
    """One candidate's figures: fitted or own scale, its newer part's report and drift."""

    parameters: Any
    current: bool
    scale: float
    scale_fitted: bool
    older_units: int
    newer_units: int
    older_forecasts: int
    report: QualityReport
    drift: Drift
    chosen: bool = False

    def as_dict(self) -> dict:
        report = self.report.as_dict()
        return {
            "parameters": asdict(self.parameters),
            "current": self.current,
            "chosen": self.chosen,
            "scale": self.scale,
            "scale_fitted": self.scale_fitted,
            "older_units": self.older_units,
            "newer_units": self.newer_units,
            "older_forecasts": self.older_forecasts,
            "newer_forecasts": report["units"],
            "log_loss": report["log_loss"],
            "rmse": report["rmse"],
            "baseline_rmse": report["baseline_rmse"],
            "baseline_log_loss": math.log(2) if report["units"] else None,
            "calibration": report["calibration"],
            "mean_active_rating_at_split": self.drift.at_split,
            "mean_active_rating_at_end": self.drift.at_end,
            "drift": self.drift.drift,
            "active_at_split": self.drift.active_at_split,
            "active_at_end": self.drift.active_at_end,
        }


@dataclass
class Tuning:
    split: float
    split_at: datetime | None
    active_days: int
    candidates: list[Candidate]

    @property
    def chosen(self) -> Candidate | None:
        return next((c for c in self.candidates if c.chosen), None)

    @property
    def current(self) -> Candidate | None:
        return next((c for c in self.candidates if c.current), None)

    def as_dict(self) -> dict:
        candidates = [candidate.as_dict() for candidate in self.candidates]
        chosen = next((i for i, c in enumerate(self.candidates) if c.chosen), None)
        current = next((i for i, c in enumerate(self.candidates) if c.current), None)
        return {
            "split": self.split,
            "split_at": self.split_at.isoformat() if self.split_at else None,
            "active_days": self.active_days,
            "candidates": candidates,
            "chosen": chosen,
            "current": current,
        }


def split_time(history: History, split: float) -> datetime | None:
    """The time of the unit at ``split`` of the history (by count): the newer part starts there."""
    if not 0 < split < 1:
        raise ValueError("The split must be a fraction above 0 and below 1.")
    if not history.units:
        return None
    return history.units[min(int(len(history.units) * split), len(history.units) - 1)].match.played_at


def _mean_active(pool: dict, last_seen: dict, moment: datetime, active_days: int) -> tuple[float | None, int]:
    since = moment - timedelta(days=active_days)
    ratings = [pool[player].rating for player, seen in last_seen.items() if seen >= since]
    if not ratings:
        return None, 0
    return sum(ratings) / len(ratings) / 100, len(ratings)


def evaluate(
    history: History,
    parameters,
    *,
    split_at: datetime | None,
    active_days: int = ACTIVE_DAYS,
    current: bool = False,
    league_id: int | None = None,
) -> Candidate:
    """Replay the history under ``parameters`` and score its forecasts on the part at or after ``split_at``.

    With ``league_id``, only the forecasts of results filed under that league
    count (the whole history is still replayed: ratings are the game's).
    """
    return evaluate_leagues(
        history, parameters, split_at=split_at, active_days=active_days, current=current, leagues=[league_id]
    )[0]


def evaluate_leagues(
    history: History,
    parameters,
    *,
    split_at: datetime | None,
    leagues: list[int | None],
    active_days: int = ACTIVE_DAYS,
    current: bool = False,
) -> list[Candidate]:
    """``evaluate`` for several views of one replay: every result (None) or those filed under a league."""
    system = history.system
    own_scale = system.forecast_scale(parameters)
    # Per view: [older forecasts (kept only to fit a scale), newer forecasts,
    #            older results, newer results, older forecasts counted].
    views = {league: [[], [], 0, 0, 0] for league in leagues}
    everything = views.get(None)
    seen = {"split": False}
    last_seen: dict = {}
    drift = Drift(None, None, 0, 0)

    def observe(match, engine_input, states):
        played_at = match.played_at
        is_newer = split_at is not None and played_at >= split_at
        if is_newer and not seen["split"]:
            seen["split"] = True
            drift.at_split, drift.active_at_split = _mean_active(apply.pool, last_seen, split_at, active_days)
        for player in states:
            last_seen[player] = played_at
        league_view = views.get(match.league_id) if match.league_id is not None else None
        if everything is None and league_view is None:
            return
        forecasts = system.forecasts(engine_input, states, parameters)
        for view in (everything, league_view):
            if view is None:
                continue
            if is_newer:
                view[3] += 1
                view[1].extend(forecasts)
            else:
                view[2] += 1
                view[4] += len(forecasts)
                if own_scale is None:
                    view[0].extend(forecasts)

    apply = _applier(history, parameters, observe)
    _run(history, apply)
    if history.units and split_at is not None and history.units[-1].match.played_at >= split_at:
        drift.at_end, drift.active_at_end = _mean_active(
            apply.pool, last_seen, history.units[-1].match.played_at, active_days
        )
    candidates = []
    for league in leagues:
        older, newer, older_units, newer_units, older_forecasts = views[league]
        scale = own_scale if own_scale is not None else fit_scale(older)
        candidates.append(
            Candidate(
                parameters=parameters,
                current=current,
                scale=scale,
                scale_fitted=own_scale is None,
                older_units=older_units,
                newer_units=newer_units,
                older_forecasts=older_forecasts,
                report=forecast_report(newer, scale),
                drift=drift,
            )
        )
    return candidates


#: Below this many results replayed in all (results x candidates), candidates are replayed one after another.
PARALLEL_FROM = 200_000

# The history a forked worker replays: set before the fork, so it is inherited, never pickled.
_FORKED: dict = {}


def _evaluate_forked(job: tuple) -> Candidate:
    index, parameters = job
    history, split_at, active_days, current_index = _FORKED["job"]
    return evaluate(history, parameters, split_at=split_at, active_days=active_days, current=index == current_index)


def _workers(jobs: int, size: int) -> int:
    """How many processes replay the candidates: one per CPU; none in a daemon (a Celery prefork worker)
    or off the main thread."""
    if jobs < 2 or size < PARALLEL_FROM or multiprocessing.current_process().daemon:
        return 1
    if threading.current_thread() is not threading.main_thread():
        return 1  # a web server's thread (eager tasks): forking beside other threads may copy a held lock
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, jobs))


def tune(
    history: History, candidates: list, *, split: float = 0.5, current_index: int = 0, active_days: int = ACTIVE_DAYS
) -> Tuning:
    """Score every candidate on the newer part; the lowest log-loss there is chosen (the earlier one on a tie).

    Each candidate's replay is independent of the others: on a long history they run in forked
    processes, one per CPU (the history inherited, the figures sent back), in the candidates' order.
    """
    split_at = split_time(history, split)
    jobs = list(enumerate(candidates))
    workers = _workers(len(jobs), len(history.units) * len(jobs))
    if workers > 1:
        _FORKED["job"] = (history, split_at, active_days, current_index)
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                results = pool.map(_evaluate_forked, jobs, chunksize=1)
        finally:
            _FORKED.clear()
    else:
        results = [
            evaluate(history, parameters, split_at=split_at, active_days=active_days, current=index == current_index)
            for index, parameters in jobs
        ]
    scored = [c for c in results if c.report.log_loss is not None]
    if scored:
        min(scored, key=lambda c: c.report.log_loss).chosen = True
    return Tuning(split=split, split_at=split_at, active_days=active_days, candidates=results)


# --- the grid ----------------------------------------------------------------------------------


def _grid_values(param, current: float) -> list:
    values = []
    for factor in GRID_FACTORS:
        value = current * factor if current else factor
        if param.integer:
            value = round(value)
        value = min(max(value, param.minimum), param.maximum)
        try:
            value = param.clean(value)
        except EngineInputError:
            continue
        if value != current and value not in values:
            values.append(value)
    return values


def _spread(items: list, count: int) -> list:
    """``count`` of ``items``, evenly spaced and in order (all of them if they fit)."""
    if len(items) <= count:
        return list(items)
    return [items[(index * len(items)) // count] for index in range(count)]


def candidate_grid(system, current, *, values: dict[str, list] | None = None, max_candidates: int = MAX_CANDIDATES):
    """The candidates: the current parameters first, then at most ``max_candidates`` others.

    With ``values`` (a parameter's name -> the values to try), the product of
    those values, every other parameter at its current value. Without, each
    parameter of the engine's ranges alone at its current value times
    ``GRID_FACTORS`` (within its range; 1 and 2 when it is 0), then the pairs of
    parameters (both moved, in the ranges' order: Elo's K pair first) while
    room is left. Too many candidates are thinned evenly, so the grid is
    deterministic. Combinations the engine refuses (``ORDERED``) are left out.
    A value out of its range, or an unknown parameter, raises EngineInputError.
    """
    if not 1 <= max_candidates <= CANDIDATES_LIMIT:
        raise EngineInputError(
            f"The number of candidates besides the current parameters must be from 1 to {CANDIDATES_LIMIT}; "
            f"got {max_candidates}."
        )
    cls = system.parameters_class
    ranges = parameter_ranges(cls)
    base = asdict(current)
    if values:
        unknown = sorted(set(values) - set(ranges))
        if unknown:
            raise EngineInputError(
                f"Unknown parameter(s) for {system.slug}: {', '.join(unknown)}; known: {', '.join(ranges)}."
            )
        cleaned = {}
        for name, given in values.items():
            if not given:
                raise EngineInputError(f"Parameter {name} needs at least one value.")
            cleaned[name] = list(dict.fromkeys(ranges[name].clean(value) for value in given))
        if math.prod(len(given) for given in cleaned.values()) > GRID_LIMIT:
            raise EngineInputError(f"The values given make more than {GRID_LIMIT:,} combinations; give fewer values.")
        names = list(cleaned)
        changes = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*cleaned.values())]
        seen = {json.dumps(base, sort_keys=True)}
        valid, refused = _accepted(cls, base, changes, seen)
        if refused is not None and not valid:
            raise EngineInputError(f"No combination of the given values is one the engine accepts: {refused}")
        return [current, *_spread(valid, max_candidates)]
    single = {name: _grid_values(param, base[name]) for name, param in ranges.items()}
    seen = {json.dumps(base, sort_keys=True)}
    singles, _ = _accepted(cls, base, [{name: value} for name, options in single.items() for value in options], seen)
    if len(singles) >= max_candidates:
        return [current, *_spread(singles, max_candidates)]
    pairs = [
        {first: a, second: b}
        for first, second in itertools.combinations(single, 2)
        for a, b in itertools.product(single[first], single[second])
    ]
    paired, _ = _accepted(cls, base, pairs, seen)
    return [current, *singles, *paired[: max_candidates - len(singles)]]


def _accepted(cls, base: dict, changes: list[dict], seen: set) -> tuple[list, EngineInputError | None]:
    """The parameter sets the changes make that the engine accepts and ``seen`` does not hold yet (added to it),
    in order, and the last refusal."""
    valid, refused = [], None
    for change in changes:
        try:
            candidate = parameters_from_mapping(cls, {**base, **change})
        except EngineInputError as error:
            refused = error
            continue
        key = json.dumps(asdict(candidate), sort_keys=True)
        if key not in seen:
            seen.add(key)
            valid.append(candidate)
    return valid, refused


# --- a game's tuning ---------------------------------------------------------------------------


#: A league's rules a replay reads (web/admin.py's rule fields): a change replays the game.
LEAGUE_RULES = ("tier", "promotion_threshold", "rating_floor", "rating_period_days", "rating_period_anchor")


def game_fingerprint(game: Game) -> str:
    """What a tuning run was computed from: the results version, the game's and its leagues' rules.

    Any results write raises the results version, and a rule change sets the
    parameters, the start rating or a league's rules: a run whose fingerprint
    differs from the game's is stale.
    """
    version = ResultsVersion.objects.filter(game_id=game.pk).values_list("version", flat=True).first() or 0
    leagues = [
        [str(value) for value in row]
        for row in League.objects.filter(game_id=game.pk).order_by("pk").values_list("pk", *LEAGUE_RULES)
    ]
    text = json.dumps([version, game.rating_system, game.parameters, str(game.start_rating), leagues], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def game_tuning(
    *,
    game: Game,
    values: dict[str, list] | None = None,
    split: float = 0.5,
    max_candidates: int = MAX_CANDIDATES,
    active_days: int | None = None,
) -> Tuning:
    """Tune a game on its own stored history (``tune`` over ``candidate_grid``)."""
    current = rating_parameters(game=game)
    system = get_rating_system(game.rating_system)
    if not hasattr(system, "forecasts") or not hasattr(system, "forecast_scale"):
        raise EngineInputError(f"The {system.label} engine gives no forecasts: its parameters cannot be tuned.")
    candidates = candidate_grid(system, current, values=values, max_candidates=max_candidates)
    history = history_load(game=game)
    return tune(history, candidates, split=split, active_days=active_days or game_active_days(game))
