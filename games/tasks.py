"""Celery entry points of the games layer. Thin: they take ids and call ``games.import_runs``.

Each is idempotent: a run moves from one status to the next in one UPDATE,
so a task delivered twice finds nothing left to do.
"""

from celery import shared_task

from games import import_runs


@shared_task
def import_run_check(run_id: int) -> None:
    import_runs.import_run_check(run_id)


@shared_task
def import_run_apply(run_id: int) -> None:
    import_runs.import_run_apply(run_id)


@shared_task
def import_runs_expire() -> int:
    return import_runs.import_runs_expire()
