"""Celery entry points of the games layer. Thin: they take ids and call ``games.import_runs`` (a bridge
session's hand records: ``games.bridge.analysis``).

Each is idempotent: a run moves from one status to the next in one UPDATE,
so a task delivered twice finds nothing left to do.
"""

from celery import shared_task
from django.conf import settings
from django.utils import translation

from games import import_runs, seasons
from games.bridge.analysis import hand_records_analyse
from matches.models import Match


@shared_task
def import_run_check(run_id: int, language: str | None = None) -> None:
    """The run's preview, said in ``language`` (the uploader's, when the upload queued it)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        import_runs.import_run_check(run_id)


@shared_task
def import_run_apply(run_id: int, language: str | None = None) -> None:
    """The run's import, its outcome said in ``language`` (the confirming user's)."""
    with translation.override(language or settings.LANGUAGE_CODE):
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
    return seasons.season_table_refresh(season_id=season_id)


@shared_task
def seasons_close_due() -> int:
    """Close the seasons whose last day is over; refresh the running ones' tables (periodic, admin queue)."""
    return seasons.seasons_close_due()


def seasons_heard_rated(*, sender=None, game_id: int, match_ids: list[int], **kwargs) -> None:
    """``ratings.signals.results_rated``: the running seasons of the leagues these results were filed under
    have their tables worked out again, by a task each (connected in ``games.apps``)."""
    league_ids = set(
        Match.objects.filter(pk__in=match_ids, league__isnull=False).values_list("league_id", flat=True).distinct()
    )
    for season_id in seasons.seasons_running(league_ids=league_ids) if league_ids else []:
        season_table_refresh_task.delay(season_id)
