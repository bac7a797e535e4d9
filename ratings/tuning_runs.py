"""Admin's tuning of a game: a run queued, computed by a worker, and a candidate applied as a rule change.

``tuning_run_create`` keeps a ``TuningRun`` and queues ``ratings_tune``, which
computes ``ratings.evaluation.game_tuning`` with the game's fingerprint taken
first (``game_fingerprint``). ``tuning_run_candidate`` gives the parameters a
done, fresh run's candidate would store, or refuses with ``TuningRefused``:
a run whose game has had a result written or a rule changed since is stale.
Admin saves them through the game form, as any rule change (web/admin.py),
and only after a confirmation page: ``tuning_candidate_label`` names a
candidate on its Apply button ("K 24 / 16") and ``tuning_run_changes`` lists
what applying it changes (each parameter's current and candidate value).
"""

from __future__ import annotations

import logging
import math
from dataclasses import asdict
from datetime import timedelta
from typing import NamedTuple

from celery import current_app
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from leagues.models import Game
from matches.models import Match
from ratings.engines import REGISTRY, EngineInputError, get_rating_system, parameters_from_mapping
from ratings.evaluation import PARTS, game_fingerprint, parts_check
from ratings.models import TuningRun
from ratings.parameter_search import BUDGET, BUDGET_LIMIT, Progress, game_tuning
from ratings.parameters import figure, parameter_change, parameters_problem, rating_parameters

logger = logging.getLogger(__name__)

#: The candidates a run's calibration shows, as the chart's legend names them.
CANDIDATE_NAMES = {"chosen": gettext_lazy("chosen"), "current": gettext_lazy("current")}


class TuningRefused(Exception):
    """A candidate cannot be applied; the message says why."""


#: A tuning still queued or running after this long was lost (its worker died): a new one may start.
TUNING_ABANDONED_AFTER = timedelta(hours=6)
ACTIVE = (TuningRun.Status.QUEUED, TuningRun.Status.RUNNING)


def tuning_run_active(*, game: Game) -> TuningRun | None:
    """The game's tuning queued or running, if any (at most one: a partial unique constraint)."""
    return TuningRun.objects.filter(game=game, status__in=ACTIVE).first()


def tuning_settings_problem(*, split, choose, budget) -> str | None:
    """What is wrong with a run's settings, in the reader's language, or None: each part (fit ``split``,
    choose ``choose``, report the rest) at least ``PART_MIN`` of the results, the budget a whole number of replays
    from 1 to ``BUDGET_LIMIT``."""
    shares = (split, choose)
    if not all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in shares):
        return _("The parts must be numbers.")
    try:
        parts_check(split, choose)  # the evaluation's own rule, said here in the reader's language
    except ValueError:
        return _("Each part (fit, choose, report) must hold at least 5% of the results.")
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= BUDGET_LIMIT:
        return _("The budget must be a whole number of replays from 1 to %(limit)s.") % {"limit": BUDGET_LIMIT}
    return None


def tuning_run_create(
    *, game: Game, user, split: float = PARTS[0], choose: float = PARTS[1], budget: int = BUDGET
) -> tuple[TuningRun, bool]:
    """Keep a run and queue its computation once the transaction commits; (the run, whether it is new).

    Settings a run cannot use raise ValueError saying why (``tuning_settings_problem``), and nothing is kept.
    One tuning of a game at a time: while one is queued or running, asking again returns it and queues
    nothing (a replay of the whole history per click would hold the admin queue's worker for nothing). A
    run left queued or running for ``TUNING_ABANDONED_AFTER`` is marked failed first: its worker was lost.
    """
    problem = tuning_settings_problem(split=split, choose=choose, budget=budget)
    if problem:
        raise ValueError(problem)
    TuningRun.objects.filter(
        game=game, status__in=ACTIVE, created_at__lt=timezone.now() - TUNING_ABANDONED_AFTER
    ).update(status=TuningRun.Status.FAILED, error="Abandoned: it did not finish in time.", finished_at=timezone.now())
    active = tuning_run_active(game=game)
    if active is not None:
        return active, False
    try:
        with transaction.atomic():
            run = TuningRun.objects.create(game=game, user=user, split=split, choose=choose, budget=budget)
    except IntegrityError:  # a second click racing the first: the first's run stands
        active = tuning_run_active(game=game)
        if active is None:
            raise
        return active, False
    transaction.on_commit(lambda: _queue(run.pk))
    return run, True


def tuning_results_count(*, game: Game) -> int:
    """The results a replay of the game rates (and Apply replays): its submitted and rated ones (one count)."""
    return Match.objects.filter(game=game, status__in=[Match.Status.SUBMITTED, Match.Status.RATED]).count()


def tuning_estimate(*, game: Game) -> dict:
    """What the tuning form says before a start: how many results one replay rates, and how long a replay took
    in the game's last finished search (None before one)."""
    results = tuning_results_count(game=game)
    last = (
        TuningRun.objects.filter(game=game, status=TuningRun.Status.DONE, result__search__method="search")
        .values_list("result__search__seconds", "result__search__replays")
        .first()
    )
    per_replay = None
    if last and last[0] is not None and last[1]:
        per_replay = float(last[0]) / int(last[1])
    return {"results_count": results, "seconds_per_replay": per_replay}


def _queue(run_id: int) -> None:
    # By name, as ratings.services queues its tasks: ratings.tasks imports this module.
    current_app.tasks["ratings.tasks.ratings_tune"].delay(run_id)


def tuning_run_execute(*, run_id: int) -> None:
    """Compute a queued run (the worker's side); a failure is kept on the run, never raised."""
    updated = TuningRun.objects.filter(pk=run_id, status=TuningRun.Status.QUEUED).update(
        status=TuningRun.Status.RUNNING
    )
    if not updated:
        return
    run = TuningRun.objects.select_related("game").get(pk=run_id)

    def progress(where: Progress) -> None:
        TuningRun.objects.filter(pk=run_id).update(progress=progress_dict(where))

    try:
        fingerprint = game_fingerprint(run.game)
        tuning = game_tuning(game=run.game, split=run.split, choose=run.choose, budget=run.budget, progress=progress)
    except Exception as error:
        logger.exception("Tuning run %s failed", run_id)
        run.status, run.error = TuningRun.Status.FAILED, str(error) or error.__class__.__name__
    else:
        run.status, run.fingerprint, run.result = TuningRun.Status.DONE, fingerprint, tuning.as_dict()
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "fingerprint", "result", "finished_at"])


def progress_dict(where: Progress) -> dict:
    """A search's progress as a run keeps it (``TuningRun.progress``) and the command prints it."""
    return {
        "rounds": where.rounds,
        "replays": where.replays,
        "budget": where.budget,
        "step": round(where.step, 4),
        "best_log_loss": where.best_log_loss,
        "current_log_loss": where.current_log_loss,
    }


def tuning_run_candidate(*, run: TuningRun, index) -> dict:
    """The stored overrides that candidate ``index`` of a done, fresh run means: its values that differ
    from the engine's defaults. Refused (``TuningRefused``) if the run is not done, the index is not a
    candidate's, or the game changed since the run (a result written, a rule changed)."""
    if run.status != TuningRun.Status.DONE:
        raise TuningRefused(
            _("This tuning run is %(status)s: it has no candidates to apply.")
            % {"status": run.get_status_display().lower()}
        )
    candidates = run.result.get("candidates", [])
    if not isinstance(index, int) or not 0 <= index < len(candidates):
        raise TuningRefused(_("There is no such candidate in this tuning run."))
    game = Game.objects.get(pk=run.game_id)
    if game_fingerprint(game) != run.fingerprint:
        raise TuningRefused(
            _("This tuning run is stale: the game's results or rules changed after it ran. Run the tuning again.")
        )
    system = get_rating_system(game.rating_system)
    try:
        parameters = parameters_from_mapping(system.parameters_class, candidates[index]["parameters"])
    except (EngineInputError, TypeError) as error:
        problem = parameters_problem(error)
        raise TuningRefused(
            _("The candidate's parameters cannot be used: %(problem)s") % {"problem": problem}
        ) from error
    defaults = asdict(system.parameters_class())
    return {name: value for name, value in asdict(parameters).items() if defaults.get(name) != value}


def tuning_figure(value) -> str:
    """A parameter's value as the tuning page writes it: 24, 0.225, 100000 (never "24.0" or "1e+05"), with the
    reader's decimal mark (0,225 in Russian)."""
    return figure(value)


def _changed(parameters: dict, current: dict) -> str:
    return ", ".join(
        f"{name} = {tuning_figure(value)}" for name, value in parameters.items() if current.get(name) != value
    )


def tuning_candidate_label(*, rating_system: str, parameters: dict, current: dict) -> str:
    """A candidate's name on its Apply button: its K ("K 24 / 16") where its engine has one, then every other
    parameter it changes from ``current`` ("scale 600"); "" for a candidate that changes nothing."""
    # The K a candidate sets, named first: its engine's (the Elo's provisional / established pair, bridge's one).
    k_names = getattr(REGISTRY[rating_system].parameters_class, "K_NAMES", ()) if rating_system in REGISTRY else ()
    if all(current.get(name) == value for name, value in parameters.items()):
        return ""
    parts = []
    if k_names and all(name in parameters for name in k_names):
        parts.append(_("K %(values)s") % {"values": " / ".join(tuning_figure(parameters[name]) for name in k_names)})
    parts += [
        f"{name} {tuning_figure(value)}"
        for name, value in parameters.items()
        if name not in k_names and current.get(name) != value
    ]
    return ", ".join(parts)


class ParameterChange(NamedTuple):
    """One parameter a candidate changes: its name, the game's value now and the candidate's, as written, and the
    change in a sentence ("K for established players 16 → 24: ratings follow recent form faster")."""

    name: str
    current: str
    candidate: str
    said: str


def tuning_run_changes(*, game: Game, overrides: dict) -> list[ParameterChange]:
    """What storing ``overrides`` (``tuning_run_candidate``'s answer) as the game's parameters changes: each
    parameter whose value differs from the game's current one, in the engine's order."""
    system = get_rating_system(game.rating_system)
    current = asdict(rating_parameters(game=game))
    candidate = asdict(parameters_from_mapping(system.parameters_class, overrides))
    return [
        ParameterChange(
            name,
            tuning_figure(current[name]),
            tuning_figure(value),
            parameter_change(game=game, name=name, old=current[name], new=value),
        )
        for name, value in candidate.items()
        if current.get(name) != value
    ]


def _report_rows(result: dict) -> list[dict]:
    """The table of the current and the chosen parameters' figures: the choosing part's score, then the report
    part's log-loss, RMSE, ECE and drift (lower is better for each; drift nearer 0)."""
    choose, report = result.get("choose_scores") or {}, result.get("report") or {}
    current, chosen = report.get("current") or {}, report.get("chosen") or {}
    rows = [
        (_("Log-loss on the choosing part"), (choose.get("current") or {}), (choose.get("chosen") or {}), "log_loss"),
        (_("Log-loss on the report part"), current, chosen, "log_loss"),
        (_("RMSE on the report part"), current, chosen, "rmse"),
        (_("Calibration error (ECE) on the report part"), current, chosen, "ece"),
        (_("Drift on the report part (rating points)"), current, chosen, "drift"),
    ]
    return [
        {"label": label, "current": now.get(key), "chosen": after.get(key), "drift": key == "drift"}
        for label, now, after, key in rows
    ]


def tuning_run_view(run: TuningRun | None) -> dict:
    """What the tuning page shows of a run: its verdict, the current and chosen parameters' figures, what the
    search changed (a sentence a parameter), its path, every candidate's row, and the calibration of the
    chosen and the current parameters (tables, and the chart's data)."""
    view = {
        "rows": [],
        "path": [],
        "calibrations": [],
        "chart": None,
        "three_parts": False,
        "verdict": None,
        "report_rows": [],
        "changes": [],
        "search": None,
    }
    if run is None or run.status != TuningRun.Status.DONE or not run.result.get("candidates"):
        return view
    result = run.result
    candidates = result["candidates"]
    current = candidates[result["current"]] if result.get("current") is not None else candidates[0]
    rating_system = run.game.rating_system
    rows = [
        {
            "index": index,
            "changed": _changed(c["parameters"], current["parameters"]) or _("(current)"),
            "label": tuning_candidate_label(
                rating_system=rating_system, parameters=c["parameters"], current=current["parameters"]
            ),
            **c,
        }
        for index, c in enumerate(candidates)
    ]
    chosen_index = result.get("chosen")
    three_parts = "parts" in result
    view |= {"rows": rows, "three_parts": three_parts}
    if three_parts:
        search = result.get("search") or {}
        path = [index for index in search.get("path", []) if 0 <= index < len(rows)]
        if chosen_index is not None and chosen_index not in path:
            path.append(chosen_index)
        steps = []
        for place, index in enumerate(path):
            before = candidates[path[place - 1]]["parameters"] if place else None
            steps.append(
                {
                    **rows[index],
                    "sentences": [
                        parameter_change(game=run.game, name=name, old=before[name], new=value)
                        for name, value in rows[index]["parameters"].items()
                        if before is not None and before.get(name) != value
                    ],
                }
            )
        chosen = candidates[chosen_index] if chosen_index is not None else None
        view |= {
            "path": steps,
            "verdict": result.get("verdict"),
            "report_rows": _report_rows(result),
            "search": search,
            "changes": [
                parameter_change(game=run.game, name=name, old=current["parameters"][name], new=value)
                for name, value in (chosen["parameters"] if chosen else {}).items()
                if current["parameters"].get(name) != value
            ],
        }
        report = result.get("report") or {}
        shown = [
            ("chosen", chosen_index, report.get("chosen")),
            ("current", result.get("current"), report.get("current")),
        ]
    else:  # a run kept before the three parts: its candidates' calibration on the newer part
        shown = [(name, result.get(name), None) for name in ("chosen", "current")]
    calibrations = [
        {"name": name, "index": index, "rows": (figures or candidates[index])["calibration"]}
        for name, index, figures in shown
        if index is not None and (name == "chosen" or index != chosen_index)
    ]
    first = calibrations[0]["rows"] if calibrations else []
    chart = {
        "labels": [f"{number_format(b['from'], 1)}-{number_format(b['to'], 1)}" for b in first],
        "series": [
            {
                "label": _("%(candidate)s (#%(index)s) observed")
                % {"candidate": CANDIDATE_NAMES[c["name"]], "index": c["index"]},
                "data": [b["observed"] for b in c["rows"]],
            }
            for c in calibrations
        ],
        "predicted": [b["predicted"] for b in first],
    }
    return view | {"calibrations": calibrations, "chart": chart}
