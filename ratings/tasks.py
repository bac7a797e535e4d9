"""Celery entry points. Thin: they take ids and call ``ratings.services``.

Every task is idempotent (processing a game with nothing pending changes
nothing), so late acknowledgement and redelivery are safe.
"""

from celery import shared_task
from django.db import OperationalError

from ratings import figure_runs, figures, lists, services
from ratings.tuning_runs import tuning_run_execute


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def ratings_apply_match(match_id: int) -> int:
    return services.ratings_process_match(match_id=match_id)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def ratings_process(game_id: int) -> int:
    return services.ratings_process_game(game_id=game_id)


@shared_task
def ratings_sweep() -> int:
    return services.ratings_sweep()


@shared_task
def ratings_close_periods() -> int:
    return services.ratings_close_periods()


@shared_task
def ratings_tune(run_id: int) -> None:
    tuning_run_execute(run_id=run_id)


@shared_task
def figures_compute(game_id: int) -> bool:
    return figure_runs.figures_run(game_id=game_id)


@shared_task
def figures_refresh() -> int:
    return figures.figures_refresh()


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rating_lists_publish_due() -> int:
    return lists.rating_lists_publish_due()


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def rating_list_republish(game_id: int, day: str, by: str) -> int:
    """An admin's explicit republication of a day's list: a new version (returns it)."""
    import datetime

    from leagues.models import Game

    published = lists.rating_list_publish(
        game=Game.objects.get(pk=game_id), day=datetime.date.fromisoformat(day), republish=True, by=by
    )
    return published.rating_list.version
