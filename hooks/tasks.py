"""Celery entry points of the webhooks, on the admin queue (``CELERY_TASK_ROUTES``): a delivery may wait
``hooks.sending.TIMEOUT`` on a slow receiver, and never in front of a rating.

Thin: they take ids and call ``hooks.services`` (imported inside each body: the services import these tasks
to queue them). Both are idempotent: an attempt claims its delivery first, so running one twice sends once.
"""

import datetime

from celery import shared_task


@shared_task
def webhook_deliver(delivery_id: int, due_by: str | None = None) -> bool:
    """One attempt at a delivery seen due at ``due_by`` (ISO 8601); True when it was delivered now."""
    from hooks.services import delivery_attempt

    outcome = delivery_attempt(
        delivery_id=delivery_id, due_by=datetime.datetime.fromisoformat(due_by) if due_by else None
    )
    return bool(outcome and outcome.delivered)


@shared_task
def webhook_deliveries_sweep() -> int:
    """Beat: queue every delivery whose next attempt is due (a retry, or a worker that died)."""
    from hooks.services import deliveries_sweep

    return deliveries_sweep()
