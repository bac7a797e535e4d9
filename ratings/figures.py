"""Kept figures: what needs a replay or a scan of a game's history is computed by a task, never by a request.

Vocabulary:
    figure        one of a game's heavy figures, by name: ``quality`` (the quality report of the game and of
                  each league: a replay in memory), ``pair-scale`` (the Preferans compare page's scale,
                  fitted by that replay), ``drift:<period>:<days>`` (the drift series: a scan of the
                  ledger) and ``crosstable:<league id>`` (the records among a league's best players: an
                  aggregate over their seats). The names are a bounded set: the periods, the activity
                  windows ``ratings.drift.DRIFT_WINDOWS`` offers plus the game's own, and the game's leagues.
    kept          a figure's last computed value, with when it was computed (``KeptFigure``). Pages and
                  APIs serve it as it is, saying when it is from ("as of 20:14"), however many results
                  came since; one asked for and never computed is answered "being computed".
    run           ``ratings.figure_runs.figures_run`` (the task's body): computes every figure of one
                  game the site offers, plus the extra windows visitors asked for, and keeps them.
                  Each figure's JSON is its own module's (``quality_row_value``, ``drift_value``,
                  ``crosstable_value``), read back by the same module.

When a run happens:
    after results   ``ratings.services.ratings_process_game`` asks for one once ratings changed;
    on a schedule   beat's ``figures_refresh`` every ``CARDRANK_FIGURES_EVERY_SECONDS`` (the drift's
                    activity window moves with the calendar even without results);
    on a read       a figure not kept yet is asked for by the request that wants it.

Coalesced: asking sets ``FigureState.wanted`` and sends a task only if it was not set, so one task waits
per game however many results or visitors ask. A run claims the game (``running_since``) and clears
``wanted``; a task that finds the game claimed ends at once, and the run, when it finishes, sends one more
task if something asked meanwhile. So at most one run per game computes at a time, and nothing asked for
is lost. The task runs on the admin queue (``CELERY_TASK_ROUTES``), beside imports and tunings, so results
are rated while it runs. With Celery eager (``make run``) the run happens in the process that asks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from leagues.models import Game
from ratings.models import FigureState, KeptFigure

logger = logging.getLogger(__name__)

QUALITY = "quality"
PAIR_SCALE = "pair-scale"
#: A run that has held its game this long is taken to have died with its worker.
FIGURES_LEASE = timedelta(hours=1)
TASK = "ratings.tasks.figures_compute"
#: How long a client is told to wait (``Retry-After``) before asking again for a figure being computed.
RETRY_AFTER_SECONDS = 30

#: Figures the apps above ratings compute in the same run (``figure_provide``): name -> compute(game), which
#: returns the figure's JSON value, or None for a game that has no such figure.
PROVIDED: dict[str, Callable[[Game], Any]] = {}


def figure_provide(name: str, compute: Callable[[Game], Any]) -> None:
    """Have every run compute and keep ``name`` too (an app's ``ready``: the games' whole-game downloads)."""
    PROVIDED[name] = compute


def drift_name(period: str, days: int) -> str:
    return f"drift:{period}:{days}"


def crosstable_name(league_id: int) -> str:
    return f"crosstable:{league_id}"


@dataclass(frozen=True)
class Kept:
    """A figure as a page shows it: its value (None while being computed) and when it was computed."""

    value: Any
    computed_at: datetime | None

    @property
    def computing(self) -> bool:
        return self.computed_at is None


# --- asking ---------------------------------------------------------------------------------------------


def figures_request(*, game_id: int) -> bool:
    """Ask for a run over the game's figures: a task is sent (after commit) unless one is already waiting.

    Returns whether a task was sent. Cheap (an upsert and an update by the game's key): safe in a request.
    """
    FigureState.objects.get_or_create(game_id=game_id)
    sent = FigureState.objects.filter(game_id=game_id, wanted=False).update(wanted=True)
    if sent:
        transaction.on_commit(lambda: _send(game_id))
    return bool(sent)


def _send(game_id: int) -> None:
    try:
        # By name, as ratings.services queues its tasks: ratings.tasks imports this module.
        current_app.tasks[TASK].delay(game_id)
    except Exception:
        logger.exception("Could not queue the figures of game %s; beat's figures_refresh will ask again", game_id)
        FigureState.objects.filter(game_id=game_id).update(wanted=False)


def figure_kept(*, game: Game, name: str) -> Kept:
    """The kept figure ``name`` of ``game``; when none is kept yet, asked for (and answered "being computed",
    unless the run happened at once: Celery eager)."""
    row = KeptFigure.objects.filter(game=game, name=name).values_list("value", "computed_at").first()
    if row is None or row[1] is None:
        if row is None:
            try:
                with transaction.atomic():
                    KeptFigure.objects.get_or_create(game=game, name=name)
            except IntegrityError:  # two first requests at once: the other one's row is as good
                pass
        figures_request(game_id=game.pk)
        row = KeptFigure.objects.filter(game=game, name=name).values_list("value", "computed_at").first()
    if row is None or row[1] is None:
        return Kept(value=None, computed_at=None)
    return Kept(value=row[0], computed_at=row[1])


def figure_kept_value(*, game: Game, name: str) -> Any:
    """The kept value of ``name`` as it is (None if none), without asking for anything."""
    return KeptFigure.objects.filter(game=game, name=name).values_list("value", flat=True).first()


def figures_refresh() -> int:
    """Beat's schedule: ask for a run over every game that has results. Returns how many runs were asked."""
    from ratings.models import RatingState

    return sum(
        figures_request(game_id=game_id)
        for game_id in RatingState.objects.filter(applied_until_match_id__isnull=False).values_list(
            "game_id", flat=True
        )
    )


# --- computing: claiming a game, keeping what a run computed ----------------------------------------------


def figures_compute(*, game_id: int, compute: Callable[[Game], None]) -> bool:
    """The task's body: claim the game, ``compute`` its figures (``ratings.figure_runs``), hand over to a task
    asked meanwhile.

    Returns whether this run computed (False: nothing was wanted, or another run holds the game).
    """
    now = timezone.now()
    claimed = (
        FigureState.objects.filter(game_id=game_id, wanted=True)
        .filter(Q(running_since__isnull=True) | Q(running_since__lt=now - FIGURES_LEASE))
        .update(wanted=False, running_since=now)
    )
    if not claimed:
        return False
    try:
        game = Game.objects.filter(pk=game_id).first()
        if game is not None:
            compute(game)
    finally:
        FigureState.objects.filter(game_id=game_id, running_since=now).update(
            running_since=None, finished_at=timezone.now()
        )
        # Asked while this run computed: its task found the game held and ended; this one sends another.
        if FigureState.objects.filter(game_id=game_id, wanted=True).exists():
            transaction.on_commit(lambda: _send(game_id))
    return True


def keep_figure(game: Game, name: str, value: Any) -> None:
    """Keep a figure just computed (a run's, ``ratings.figure_runs``)."""
    KeptFigure.objects.update_or_create(game=game, name=name, defaults={"value": value, "computed_at": timezone.now()})
