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
import logging
import math
import os
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

import billiard
from django.db.models import Min
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match, ResultsVersion
from ratings.cents import CENT, decimal_cents
from ratings.engines import EngineInputError, parameter_ranges, parameters_from_mapping, tunable_ranges
from ratings.engines.quality import QualityReport, fit_scale, forecast_report
from ratings.history import LedgerKey, MatchRow, match_chunks
from ratings.ledger import Standing
from ratings.loaders import ReplayContext
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
    #: Three parts (``report_at`` given): the newest part's report, scored on the scale the choosing part gave,
    #: and its drift (the mean at the end minus at the report part's start). None with two parts.
    report_part: QualityReport | None = None
    report_drift: Drift | None = None

    @property
    def score(self) -> float | None:
        """What candidates are chosen by: the log-loss of the choosing part (the newer part with two parts)."""
        return self.report.log_loss

    def figures(self, part: str = "choose") -> dict:
        """One part's figures as the command's ``report`` and the tuning page show them: log-loss, RMSE,
        ECE (``QualityReport.ece``), drift, the forecasts counted, the scale read and the calibration."""
        report, drift = (self.report, self.drift) if part == "choose" else (self.report_part, self.report_drift)
        if report is None:
            report = QualityReport()
        return {
            "log_loss": report.log_loss,
            "rmse": report.rmse,
            "ece": report.ece,
            "drift": drift.drift if drift is not None else None,
            "forecasts": report.count,
            "scale": self.scale,
            "calibration": report.as_dict()["calibration"],
        }

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


#: The verdict on the chosen parameters, read on the report part (``Tuning.verdict``).
BETTER = "better"  # the chosen parameters forecast the report part better: recommended
NOT_BETTER = "not_better"  # chosen on the choosing part, but no better on the report part: nothing recommended
CURRENT_BEST = "current_best"  # no candidate beat the current parameters on the choosing part
NOTHING_SCORED = "nothing_scored"  # no forecasts to choose or report on


@dataclass
class Tuning:
    """A tuning's candidates and what was chosen among them.

    Two parts (``choose`` None; the quality page's reading): the older part
    fits, the newer is scored. Three parts (every tuning): the candidates are
    chosen on the middle part and the chosen and the current parameters are
    then read on the newest, which played no part in the choice: ``verdict``
    says whether the chosen ones are better there, and only then are they
    ``recommended``.
    """

    split: float
    split_at: datetime | None
    active_days: int
    candidates: list[Candidate]
    choose: float | None = None
    report_at: datetime | None = None
    #: How the candidates were found: "grid" (all given at once) or "search" (``ratings.parameter_search``),
    #: rounds, replays, whether it converged, the path of accepted moves and the search's settings.
    search: dict = field(default_factory=dict)

    @property
    def chosen(self) -> Candidate | None:
        return next((c for c in self.candidates if c.chosen), None)

    @property
    def current(self) -> Candidate | None:
        return next((c for c in self.candidates if c.current), None)

    @property
    def verdict(self) -> str:
        chosen, current = self.chosen, self.current
        if chosen is None:
            return NOTHING_SCORED
        if chosen is current:
            return CURRENT_BEST
        if self.choose is None:
            return BETTER  # two parts: the choice is the only reading there is
        if current is None or chosen.report_part is None or current.report_part is None:
            return NOTHING_SCORED
        if not chosen.report_part.count or chosen.report_part.log_loss is None:
            return NOTHING_SCORED
        return BETTER if chosen.report_part.log_loss < current.report_part.log_loss else NOT_BETTER

    @property
    def recommended(self) -> bool:
        return self.verdict == BETTER

    def as_dict(self) -> dict:
        candidates = [candidate.as_dict() for candidate in self.candidates]
        chosen = next((i for i, c in enumerate(self.candidates) if c.chosen), None)
        current = next((i for i, c in enumerate(self.candidates) if c.current), None)
        result = {
            "split": self.split,
            "split_at": self.split_at.isoformat() if self.split_at else None,
            "active_days": self.active_days,
            "candidates": candidates,
            "chosen": chosen,
            "current": current,
        }
        if self.choose is not None:
            named = {"current": self.current, "chosen": self.chosen}
            result |= {
                "parts": {"fit": self.split, "choose": self.choose, "report": round(1 - self.split - self.choose, 6)},
                "report_at": self.report_at.isoformat() if self.report_at else None,
                "choose_scores": {name: c.figures("choose") if c else None for name, c in named.items()},
                "report": {name: c.figures("report") if c else None for name, c in named.items()},
                "verdict": self.verdict,
                "recommended": self.recommended,
                "search": self.search,
            }
        return result


def split_time(history: History, split: float) -> datetime | None:
    """The time of the unit at ``split`` of the history (by count): the newer part starts there."""
    if not 0 < split < 1:
        raise ValueError("The split must be a fraction above 0 and below 1.")
    if not history.units:
        return None
    return history.units[min(int(len(history.units) * split), len(history.units) - 1)].match.played_at


#: The default parts of a tuning, by count of results in time order: fit, choose, report.
PARTS = (0.5, 0.25, 0.25)
#: Each part's least share.
PART_MIN = 0.05


def parts_check(fit: float, choose: float) -> None:
    """Refuse (ValueError) shares that leave a part under ``PART_MIN`` of the results."""
    for share in (fit, choose, 1 - fit - choose):
        if not (isinstance(share, int | float) and math.isfinite(share)) or share < PART_MIN - 1e-9:
            raise ValueError("Each part (fit, choose, report) must hold at least 5% of the results.")


def part_times(history: History, fit: float, choose: float) -> tuple[datetime | None, datetime | None]:
    """When the choosing and the report parts start (``split_time`` of ``fit`` and of ``fit + choose``)."""
    parts_check(fit, choose)
    return split_time(history, fit), split_time(history, fit + choose)


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
    report_at: datetime | None = None,
    active_days: int = ACTIVE_DAYS,
    current: bool = False,
    league_id: int | None = None,
) -> Candidate:
    """Replay the history under ``parameters`` and score its forecasts on the part at or after ``split_at``.

    With ``report_at``, three parts: the forecasts from ``split_at`` to before
    ``report_at`` are the choosing part (the candidate's ``report``, and where
    the engine sets no scale, the part the scale is fitted on: a scale is chosen
    with the parameters), those from ``report_at`` on the report part
    (``report_part``, read on that same scale). With ``league_id``, only the
    forecasts of results filed under that league count (the whole history is
    still replayed: ratings are the game's).
    """
    return evaluate_leagues(
        history,
        parameters,
        split_at=split_at,
        report_at=report_at,
        active_days=active_days,
        current=current,
        leagues=[league_id],
    )[0]


def evaluate_leagues(
    history: History,
    parameters,
    *,
    split_at: datetime | None,
    leagues: list[int | None],
    report_at: datetime | None = None,
    active_days: int = ACTIVE_DAYS,
    current: bool = False,
) -> list[Candidate]:
    """``evaluate`` for several views of one replay: every result (None) or those filed under a league."""
    system = history.system
    own_scale = system.forecast_scale(parameters)
    three = report_at is not None
    # Per view: [older forecasts (kept only to fit a scale with two parts), newer forecasts,
    #            older results, newer results, older forecasts counted, report forecasts, report results].
    views = {league: [[], [], 0, 0, 0, [], 0] for league in leagues}
    everything = views.get(None)
    # The mean rating of active players where each part starts and at the end.
    boundaries = [moment for moment in (split_at, report_at) if moment is not None]
    means: dict = {}
    last_seen: dict = {}

    def observe(match, engine_input, states):
        played_at = match.played_at
        while boundaries and played_at >= boundaries[0]:
            moment = boundaries.pop(0)
            means[moment] = _mean_active(apply.pool, last_seen, moment, active_days)
        part = 0 if split_at is None or played_at < split_at else 2 if three and played_at >= report_at else 1
        for player in states:
            last_seen[player] = played_at
        league_view = views.get(match.league_id) if match.league_id is not None else None
        if everything is None and league_view is None:
            return
        forecasts = system.forecasts(engine_input, states, parameters)
        for view in (everything, league_view):
            if view is None:
                continue
            if part == 1:
                view[3] += 1
                view[1].extend(forecasts)
            elif part == 2:
                view[6] += 1
                view[5].extend(forecasts)
            else:
                view[2] += 1
                view[4] += len(forecasts)
                if own_scale is None and not three:
                    view[0].extend(forecasts)

    apply = _applier(history, parameters, observe)
    _run(history, apply)
    end = history.units[-1].match.played_at if history.units else None
    at_end = _mean_active(apply.pool, last_seen, end, active_days) if end is not None else (None, 0)
    unset = (None, 0)
    # The choosing (or newer) part's drift: from its start to where the report part starts, or to the end.
    start = means.get(split_at, unset)
    choose_end = means[report_at] if three and report_at in means else at_end if split_at in means else unset
    drift = Drift(start[0], choose_end[0], start[1], choose_end[1])
    report_drift = None
    if three:
        start = means.get(report_at, unset)
        report_drift = Drift(start[0], at_end[0] if report_at in means else None, start[1], at_end[1])
    candidates = []
    for league in leagues:
        older, newer, older_units, newer_units, older_forecasts, newest, _report_units = views[league]
        scale = own_scale if own_scale is not None else fit_scale(newer if three else older)
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
                report_part=forecast_report(newest, scale) if three else None,
                report_drift=report_drift,
            )
        )
    return candidates


#: Below this many results replayed in all (results x candidates), candidates are replayed one after another.
PARALLEL_FROM = 10_000

logger = logging.getLogger(__name__)

# The history a forked worker replays: set before the fork, so it is inherited, never pickled.
_FORKED: dict = {}


def _evaluate_forked(job: tuple) -> Candidate:
    parameters, current = job
    history, split_at, report_at, active_days = _FORKED["job"]
    return evaluate(
        history, parameters, split_at=split_at, report_at=report_at, active_days=active_days, current=current
    )


def _workers(jobs: int, size: int) -> int:
    """How many processes replay the candidates: one per CPU; none off the main thread.

    The processes are billiard's (Celery's own fork of multiprocessing), which, unlike the standard
    library's, may be started from a daemon process: a Celery prefork worker's child, where tunings run.
    """
    if jobs < 2 or size < PARALLEL_FROM:
        return 1
    if threading.current_thread() is not threading.main_thread():
        return 1  # a web server's thread (eager tasks): forking beside other threads may copy a held lock
    if "fork" not in billiard.get_all_start_methods():
        return 1
    return max(1, min(_cpus(), jobs))


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Replays:
    """Replays candidates of one history, in forked processes where that pays (``_workers``), in order.

    A context manager: the pool (if any) is made once, on the first batch big enough to want one, and kept
    for the later batches of a search, whose children inherit the history at the fork.
    """

    def __init__(
        self, history: History, *, split_at, report_at=None, active_days: int = ACTIVE_DAYS, expected: int = 1
    ) -> None:
        self.history, self.split_at, self.report_at, self.active_days = history, split_at, report_at, active_days
        self.expected = expected  # replays the caller expects in all: decides whether a pool pays
        self.used = 0
        self._pool = None

    def __enter__(self) -> Replays:
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
            _FORKED.clear()

    def run(self, jobs: list[tuple]) -> list[Candidate]:
        """Each ``(parameters, current)`` job's candidate, in the jobs' order."""
        self.used += len(jobs)
        workers = _workers(min(len(jobs), self.expected), len(self.history.units) * max(len(jobs), self.expected))
        if workers > 1 and len(jobs) > 1:
            if self._pool is None:
                _FORKED["job"] = (self.history, self.split_at, self.report_at, self.active_days)
                self._pool = billiard.get_context("fork").Pool(workers)
                logger.info("Replaying candidates in %s forked processes", workers)
            return self._pool.map(_evaluate_forked, jobs, chunksize=1)
        return [
            evaluate(
                self.history,
                parameters,
                split_at=self.split_at,
                report_at=self.report_at,
                active_days=self.active_days,
                current=current,
            )
            for parameters, current in jobs
        ]


def choose_best(candidates: list[Candidate]) -> Candidate | None:
    """The candidate with the lowest choosing score (the earlier one on a tie), marked chosen; None if none
    was scored."""
    scored = [c for c in candidates if c.score is not None]
    if not scored:
        return None
    best = min(scored, key=lambda c: c.score)
    best.chosen = True
    return best


def tune(
    history: History,
    candidates: list,
    *,
    split: float = 0.5,
    choose: float | None = None,
    current_index: int = 0,
    active_days: int = ACTIVE_DAYS,
) -> Tuning:
    """Score every candidate; the lowest log-loss on the choosing part is chosen (the earlier one on a tie).

    ``choose`` None: two parts, the newer scored (as the quality page reads a game). With ``choose``, three:
    fit on the first ``split`` of the results, choose on the next ``choose``, report on the rest.
    Each candidate's replay is independent of the others: on a long history they run in forked
    processes, one per CPU (the history inherited, the figures sent back), in the candidates' order.
    """
    if choose is None:
        split_at, report_at = split_time(history, split), None
    else:
        split_at, report_at = part_times(history, split, choose)
    jobs = [(parameters, index == current_index) for index, parameters in enumerate(candidates)]
    with Replays(
        history, split_at=split_at, report_at=report_at, active_days=active_days, expected=len(jobs)
    ) as replays:
        results = replays.run(jobs)
    choose_best(results)
    search = {"method": "grid", "rounds": 1, "replays": len(jobs), "converged": None}
    return Tuning(
        split=split,
        split_at=split_at,
        active_days=active_days,
        candidates=results,
        choose=choose,
        report_at=report_at,
        search=search,
    )


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


def candidates_limit_check(max_candidates: int) -> None:
    """Refuse (EngineInputError) a number of candidates besides the current outside 1..``CANDIDATES_LIMIT``."""
    if not 1 <= max_candidates <= CANDIDATES_LIMIT:
        raise EngineInputError(
            f"The number of candidates besides the current parameters must be from 1 to {CANDIDATES_LIMIT}; "
            f"got {max_candidates}."
        )


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
    candidates_limit_check(max_candidates)
    cls = system.parameters_class
    ranges = parameter_ranges(cls)
    base = asdict(current)
    if values:
        unknown = sorted(set(values) - set(ranges))
        if unknown:
            raise EngineInputError(
                f"Unknown parameter(s) for {system.slug}: {', '.join(unknown)}; known: {', '.join(ranges)}."
            )
        fixed = sorted(set(values) - set(tunable_ranges(cls)))
        if fixed:
            raise EngineInputError(
                f"Parameter(s) {', '.join(fixed)} define what a forecast is scored against: forecasts under "
                "other values cannot be compared, so tuning keeps the game's."
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
    single = {name: _grid_values(param, base[name]) for name, param in tunable_ranges(cls).items()}
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
