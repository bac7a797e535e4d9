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
from ratings.engines import REGISTRY, EngineInputError, get_rating_system, parameters_from_mapping
from ratings.evaluation import MAX_CANDIDATES, game_fingerprint, game_tuning
from ratings.models import TuningRun
from ratings.parameters import figure, parameters_problem, rating_parameters

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


def tuning_run_create(*, game: Game, user, split: float = 0.5) -> tuple[TuningRun, bool]:
    """Keep a run and queue its computation once the transaction commits; (the run, whether it is new).

    One tuning of a game at a time: while one is queued or running, asking again returns it and queues
    nothing (a replay of the whole history per click would hold the admin queue's worker for nothing). A
    run left queued or running for ``TUNING_ABANDONED_AFTER`` is marked failed first: its worker was lost.
    """
    if not 0 < split < 1:
        raise ValueError("The split must be above 0 and below 1.")
    TuningRun.objects.filter(
        game=game, status__in=ACTIVE, created_at__lt=timezone.now() - TUNING_ABANDONED_AFTER
    ).update(status=TuningRun.Status.FAILED, error="Abandoned: it did not finish in time.", finished_at=timezone.now())
    active = tuning_run_active(game=game)
    if active is not None:
        return active, False
    try:
        with transaction.atomic():
            run = TuningRun.objects.create(game=game, user=user, split=split)
    except IntegrityError:  # a second click racing the first: the first's run stands
        active = tuning_run_active(game=game)
        if active is None:
            raise
        return active, False
    transaction.on_commit(lambda: _queue(run.pk))
    return run, True


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
    try:
        fingerprint = game_fingerprint(run.game)
        tuning = game_tuning(game=run.game, split=run.split, max_candidates=MAX_CANDIDATES)
    except Exception as error:
        logger.exception("Tuning run %s failed", run_id)
        run.status, run.error = TuningRun.Status.FAILED, str(error) or error.__class__.__name__
    else:
        run.status, run.fingerprint, run.result = TuningRun.Status.DONE, fingerprint, tuning.as_dict()
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "fingerprint", "result", "finished_at"])


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
    """One parameter a candidate changes: its name, the game's value now and the candidate's, as written."""

    name: str
    current: str
    candidate: str


def tuning_run_changes(*, game: Game, overrides: dict) -> list[ParameterChange]:
    """What storing ``overrides`` (``tuning_run_candidate``'s answer) as the game's parameters changes: each
    parameter whose value differs from the game's current one, in the engine's order."""
    system = get_rating_system(game.rating_system)
    current = asdict(rating_parameters(game=game))
    candidate = asdict(parameters_from_mapping(system.parameters_class, overrides))
    return [
        ParameterChange(name, tuning_figure(current[name]), tuning_figure(value))
        for name, value in candidate.items()
        if current.get(name) != value
    ]


def tuning_run_view(run: TuningRun | None) -> dict:
    """What the tuning page shows of a run: its candidates' rows, and the chosen and current candidates'
    calibration (tables, and the chart's data)."""
    if run is None or run.status != TuningRun.Status.DONE or not run.result.get("candidates"):
        return {"rows": [], "calibrations": [], "chart": None}
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
    shown = [("chosen", result.get("chosen")), ("current", result.get("current"))]
    calibrations = [
        {"name": name, "index": index, "rows": candidates[index]["calibration"]}
        for name, index in shown
        if index is not None and (name == "chosen" or index != result.get("chosen"))
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
    return {"rows": rows, "calibrations": calibrations, "chart": chart}
