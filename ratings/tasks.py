"""Celery entry points. Thin: they take ids and call ``ratings.services``.

Every task is idempotent (processing a game with nothing pending changes
nothing), so late acknowledgement and redelivery are safe.
"""

from celery import shared_task
from django.db import OperationalError

from matches.models import Match
from ratings import services
from ratings.models import RatingState


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def ratings_apply_match(match_id: int) -> int:
    row = Match.objects.filter(pk=match_id).values_list("game_id", "status").first()
    if row is None:
        return 0
    game_id, status = row
    if (
        status == Match.Status.RATED
        and not RatingState.objects.filter(game_id=game_id, replay_from_played_at__isnull=False).exists()
    ):
        # Rated by an earlier run for its game (under load one run rates many results)
        # and no replay asked for since: nothing is left, so the game's lock is not taken.
        return 0
    return services.ratings_process_game(game_id=game_id)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def ratings_process(game_id: int) -> int:
    return services.ratings_process_game(game_id=game_id)


@shared_task
def ratings_sweep() -> int:
    return services.ratings_sweep()


@shared_task
def ratings_close_periods() -> int:
    return services.ratings_close_periods()
