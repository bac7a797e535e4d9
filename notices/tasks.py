"""The notices' Celery tasks: entry points that take ids and call ``notices.sending``.

Each send retries on SMTP and socket errors (``smtplib.SMTPException`` is an ``OSError``) with an
exponential back-off (30 s, 60 s, ... at most an hour, jittered), six times; the sent records make a retry
or a second delivery send nothing that already went (``notices.sending``). The hourly sweep
(``digests_send_due``, on the admin queue: it reads every claimed player's recent days) queues one task per
person and day.
"""

from __future__ import annotations

import datetime
import smtplib

from celery import shared_task

RETRY = {
    "autoretry_for": (smtplib.SMTPException, OSError),
    "retry_backoff": 30,
    "retry_backoff_max": 3600,
    "retry_jitter": True,
    "max_retries": 6,
}


@shared_task(ignore_result=True)
def digests_send_due() -> int:
    """Queue a digest for every person and day with an evening due; returns how many were queued."""
    from notices.digests import digests_due

    days = sorted({(evening.user_id, evening.day) for evening in digests_due()})
    for user_id, day in days:
        digest_send.delay(user_id, day.isoformat())
    return len(days)


@shared_task(ignore_result=True, **RETRY)
def digest_send(user_id: int, day: str) -> bool:
    from notices.sending import digest_send_now

    return digest_send_now(user_id=user_id, day=datetime.date.fromisoformat(day))


@shared_task(ignore_result=True, **RETRY)
def list_notices_send(rating_list_id: int) -> int:
    """A batch of a new list's notices; queues itself again while people are left."""
    from notices.sending import list_notices_send_now

    sent, more = list_notices_send_now(rating_list_id=rating_list_id)
    if more:
        list_notices_send.delay(rating_list_id)
    return sent


@shared_task(ignore_result=True, **RETRY)
def dispute_notice_send(match_id: int) -> bool:
    from notices.sending import dispute_notice_send_now

    return dispute_notice_send_now(match_id=match_id)


@shared_task(ignore_result=True, **RETRY)
def awaiting_notices_send(match_id: int) -> int:
    from notices.sending import awaiting_notices_send_now

    return awaiting_notices_send_now(match_id=match_id)
