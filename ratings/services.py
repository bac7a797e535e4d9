"""Rating a game: the entry points (tasks, match writes, admin) over load -> engine -> save.

Ratings are a pure function of the rated results of a game in
``(played_at, match id)`` order. ``ratings_process_game`` keeps the ledger
equal to that function:

* the *pending start* is the earliest of the game's ``submitted`` matches and
  the state's ``replay_from`` mark (set when a rated match is voided or
  corrected);
* if it lies after everything already applied, the pending matches are
  simply applied on top: a result that arrives in order costs one update;
* otherwise the ledger is rolled back to just before the start (rows at or
  after it are deleted, every affected player is restored from their last
  remaining row) and every rated match from the start on is applied again.
  Only that part of the history is recomputed.

Locking: all rating work for a game happens inside one transaction that holds
a row lock on the game's ``RatingState`` (``SELECT ... FOR UPDATE``), so two
workers, or a worker and a void, never interleave on the same game. Games are
independent rating pools and are processed concurrently. Processing a game
that has nothing pending changes nothing, which makes every task idempotent;
the ledger's unique (match, unit, player) constraint backs that up.

The work is split by concern: ``ratings.history`` (the ledger order and the
rows a replay reads), ``ratings.ledger`` (the lock, rollback and writing),
``ratings.loaders`` (what a replay hands each game's kind to load its engine's
input), ``ratings.periods`` (rating periods), ``ratings.replay`` (applying
matches) and ``ratings.parameters``. The calculators are the games' own reads
(``games/<x>/calculator.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from leagues.models import Game
from matches.models import Match, due_condition
from ratings.figures import figures_request
from ratings.history import LedgerKey
from ratings.ledger import ledger_end, ledger_rollback, rating_replay_mark, rating_state_lock, replays_asked
from ratings.models import RatingChange, RatingState
from ratings.periods import period_aligned
from ratings.replay import ledger_apply

logger = logging.getLogger(__name__)


def _process_games(game_ids: Iterable[int]) -> int:
    """``ratings_process_game`` for each game, in id order; a game whose stored parameters are invalid
    is logged as an error and skipped, so it holds up no other game's ratings (its results stay
    ``submitted`` and are rated once an admin corrects the parameters)."""
    applied = 0
    for game_id in sorted(game_ids):
        try:
            applied += ratings_process_game(game_id=game_id)
        except ValidationError as error:
            if "parameters" not in getattr(error, "error_dict", {}):
                raise
            logger.error("Game %s is not rated: %s", game_id, " ".join(error.message_dict["parameters"]))
    return applied


def _pending_start(state: RatingState, now: datetime) -> LedgerKey | None:
    candidates = []
    first_submitted = (
        Match.objects.filter(game_id=state.game_id, status=Match.Status.SUBMITTED)
        .filter(due_condition(now))
        .order_by("played_at", "id")
        .values_list("played_at", "id")
        .first()
    )
    if first_submitted:
        candidates.append(LedgerKey(*first_submitted))
    if state.replay_from_played_at is not None:
        candidates.append(LedgerKey(state.replay_from_played_at, state.replay_from_match_id))
    if not candidates:
        return None
    return period_aligned(state.game_id, min(candidates))


# --- processing ------------------------------------------------------------------------------


def ratings_process_game(*, game_id: int) -> int:
    """Bring the game's ratings up to date with its rated results.

    Returns the number of matches applied (0 when nothing was pending).
    Safe to call any number of times, from any number of processes.
    """
    now = timezone.now()
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)
        start = _pending_start(state, now)
        if start is None:
            return 0
        game = Game.objects.get(pk=game_id)
        applied_until = (
            LedgerKey(state.applied_until_played_at, state.applied_until_match_id)
            if state.applied_until_played_at is not None
            else None
        )
        if applied_until is not None and start <= applied_until:
            ledger_rollback(game=game, start=start)
        applied, last = ledger_apply(game=game, start=start, now=now)
        # The ledger now ends at the last match applied, or, if none was, where the rollback left it.
        end = last or ledger_end(game_id)
        state.applied_until_played_at = end.played_at if end else None
        state.applied_until_match_id = end.match_id if end else None
        state.replay_from_played_at = state.replay_from_match_id = None
        state.save()
    # The ratings changed: the kept figures (quality, drift, crosstables) are computed again, by a task.
    figures_request(game_id=game_id)
    return applied


def ratings_process_match(*, match_id: int) -> int:
    """``ratings_process_game`` for the game of a result just queued (the rating task's body).

    Under load one run rates many results; when this one was rated by an
    earlier run and no replay is asked for since, nothing is left to do and
    the game's lock is not taken.
    """
    row = Match.objects.filter(pk=match_id).values_list("game_id", "status").first()
    if row is None:
        return 0
    game_id, status = row
    if status == Match.Status.RATED and not replays_asked().filter(game_id=game_id).exists():
        return 0
    return ratings_process_game(game_id=game_id)


def ratings_replay_all(*, game_id: int) -> int:
    """Recompute a game's whole history from its first result, now (admin tool, tests, benchmarks)."""
    with transaction.atomic():
        ratings_request_full_replay(game_id=game_id)
        return ratings_process_game(game_id=game_id)


def ratings_request_full_replay(*, game_id: int) -> bool:
    """Mark the whole history of a game for replay and queue it (after a rule change).

    Used when admins change a game's parameters or a league's threshold or
    floor: every rating must then be recomputed under the new rules.
    Returns False when the game has no results yet.
    """
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)
        first = (
            Match.objects.filter(game_id=game_id, status__in=[Match.Status.SUBMITTED, Match.Status.RATED])
            .order_by("played_at", "id")
            .values_list("played_at", "id")
            .first()
        )
        first_change = RatingChange.objects.filter(game_id=game_id).order_by("played_at", "match_id").first()
        keys = [LedgerKey(*first)] if first else []
        if first_change is not None:
            keys.append(LedgerKey(first_change.played_at, first_change.match_id))
        if not keys:
            return False
        start = min(keys)
        rating_replay_mark(state=state, played_at=start.played_at, match_id=start.match_id)
        transaction.on_commit(lambda: ratings_enqueue_game(game_id=game_id))
    return True


# --- queueing -------------------------------------------------------------------------------


def _task(name: str):
    """The Celery task ``ratings.tasks.<name>``, looked up in the app's registry by name.

    ``ratings.tasks`` calls these services, so they do not import it: the
    registry (filled by the app's task autodiscovery) hands over the task
    itself, so ``.delay`` honours eager mode like a direct call would.
    """
    return current_app.tasks[f"ratings.tasks.{name}"]


def ratings_enqueue(*, match_id: int) -> None:
    """Queue the rating task for a committed match; never fail the caller.

    If the broker cannot be reached the match stays ``submitted`` and the
    periodic sweeper (``ratings_sweep``) rates it later.
    """
    try:
        _task("ratings_apply_match").delay(match_id)
    except Exception:
        logger.warning("Could not queue rating of match %s; the sweeper will pick it up.", match_id, exc_info=True)


def ratings_enqueue_game(*, game_id: int) -> None:
    """Queue processing of a whole game (replays); like ``ratings_enqueue``, never fails the caller."""
    try:
        _task("ratings_process").delay(game_id)
    except Exception:
        logger.warning("Could not queue rating of game %s; the sweeper will pick it up.", game_id, exc_info=True)


def ratings_close_periods() -> int:
    """Rate the results whose rating period has closed (a Celery beat task, every minute): those with a
    period (``due_at``) that the one due rule says are due."""
    now = timezone.now()
    closed = Match.objects.filter(status=Match.Status.SUBMITTED, due_at__isnull=False).filter(due_condition(now))
    game_ids = set(closed.values_list("game_id", flat=True))
    return _process_games(game_ids)


def ratings_pending_games(*, stored_before: datetime | None = None) -> set[int]:
    """The games with rating work left: a due ``submitted`` result, or a replay asked for.

    A void or a correction changes a match and asks for its replay in one
    transaction, so an empty answer means every rating is final: no result
    waits to be rated and no rated one waits to be taken out again.
    ``stored_before`` leaves out results stored after it (the sweeper's grace).
    """
    now = timezone.now()
    submitted = Match.objects.filter(status=Match.Status.SUBMITTED).filter(due_condition(now))
    if stored_before is not None:
        submitted = submitted.filter(created_at__lte=stored_before)
    game_ids = set(submitted.order_by().values_list("game_id", flat=True).distinct())
    game_ids |= set(replays_asked().values_list("game_id", flat=True))
    return game_ids


def ratings_sweep() -> int:
    """Process every game with results left ``submitted`` for a while, or a replay pending."""
    game_ids = ratings_pending_games(stored_before=timezone.now() - settings.CARDRANK_SWEEP_AFTER)
    return _process_games(game_ids)
