"""Celery entry points of the games layer. Thin: they take ids and call ``games.import_runs`` (a bridge
session's hand records: ``games.bridge.analysis``).

Each is idempotent: a run moves from one status to the next in one UPDATE,
so a task delivered twice finds nothing left to do.
"""

from celery import shared_task

from games import import_runs
from games.bridge.analysis import hand_records_analyse


@shared_task
def import_run_check(run_id: int) -> None:
    import_runs.import_run_check(run_id)


@shared_task
def import_run_apply(run_id: int) -> None:
    import_runs.import_run_apply(run_id)


@shared_task
def import_runs_expire() -> int:
    return import_runs.import_runs_expire()


@shared_task
def bridge_hand_records(match_id: int) -> int:
    """A bridge session's double-dummy tables and par (``games.bridge.analysis``)."""
    return hand_records_analyse(match_id)


@shared_task
def season_table_refresh_task(season_id: int) -> bool:
    """A running season's table, worked out again (``games.seasons``)."""
    from games.seasons import season_table_refresh

    return season_table_refresh(season_id=season_id)


@shared_task
def seasons_close_due() -> int:
    """Close the seasons whose last day is over; refresh the running ones' tables (periodic, admin queue)."""
    from games.seasons import seasons_close_due

    return seasons_close_due()
