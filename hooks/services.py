"""Webhooks' writes: saving a webhook, recording an event's deliveries, an attempt, the sweep, a retry.

- ``webhook_save``: the one write path of a webhook (the admin's form calls it too); refuses by field what
  ``hooks.validation`` refuses, and stores nothing then.
- ``results_rated_record``, ``list_published_record``, ``season_closed_record``, ``webhook_ping``: an event's
  deliveries, one per webhook that wants it (``result.rated``: one per ``events.RESULTS_PER_EVENT`` results
  of a send), each stored once (unique key per webhook: an event heard twice stores nothing more), and
  their first attempt queued after the commit. Nothing is sent here: the receivers of the lower apps'
  signals call these inside a rating run or a request, so the HTTP is always a task's.
- ``delivery_attempt`` (the task ``hooks.tasks.webhook_deliver``): claims a due delivery by a conditional
  update (``attempts`` + 1, ``next_attempt_at`` pushed ``LEASE`` ahead), so two tasks never send it at once;
  posts it; records the outcome. A failure waits ``BACKOFF[n]`` after the n-th attempt; after
  ``MAX_ATTEMPTS`` the delivery is given up (``next_attempt_at`` empty, not delivered).
- ``deliveries_sweep`` (beat, every minute): queues every delivery that is due, whether its retry time
  came or the worker that held it died (its lease passed). Retries are the sweep's, never a task's
  countdown: a broker keeps no task for hours, and nothing is lost with a worker.

The cycle with ``hooks.tasks`` runs one way: this module imports the task to queue it; the task imports
this module inside its body.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import time
from uuid import uuid4

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from hooks import events, sending
from hooks.models import Webhook, WebhookDelivery
from hooks.selectors import webhooks_active, webhooks_wanting
from hooks.validation import url_clean
from leagues.models import Season
from ratings.models import RatingList

logger = logging.getLogger(__name__)

#: How long after the n-th failed attempt the next one is due (n = 1 … 5); the sixth is the last.
BACKOFF = (
    datetime.timedelta(minutes=1),
    datetime.timedelta(minutes=5),
    datetime.timedelta(minutes=30),
    datetime.timedelta(hours=2),
    datetime.timedelta(hours=12),
)
MAX_ATTEMPTS = len(BACKOFF) + 1
#: A claimed delivery is due again after this long: the sweep sends it again if its worker died mid-send.
LEASE = datetime.timedelta(minutes=2)
#: Deliveries one sweep queues at most (the next sweep takes the rest).
SWEEP_BATCH = 500
#: Attempts' outcomes a delivery keeps (the latest).
HISTORY_KEPT = 20
WEBHOOK_FIELDS = (
    "name",
    "url",
    "secret",
    "on_result_rated",
    "on_list_published",
    "on_season_closed",
    "league",
    "active",
)


def webhook_save(*, webhook: Webhook | None = None, by=None, **fields) -> Webhook:
    """Create (``webhook`` None) or change a webhook from ``fields`` (names of ``WEBHOOK_FIELDS``). Refuses
    with a ValidationError by field, storing nothing; ``by`` is recorded as who created it."""
    unknown = sorted(set(fields) - set(WEBHOOK_FIELDS))
    if unknown:
        raise ValidationError({name: [_("Not a webhook's field.")] for name in unknown})
    webhook = webhook or Webhook()
    if webhook.pk is None and by is not None:
        webhook.created_by = by
    for name, value in fields.items():
        setattr(webhook, name, value)
    webhook.full_clean()
    with transaction.atomic():
        webhook.save()
    return webhook


# --- events -----------------------------------------------------------------------------------------------


def _queue(delivery_ids: list[int], due_by: datetime.datetime) -> None:
    """The deliveries' first attempts, after the commit; a broker that refuses leaves them to the sweep."""
    from hooks.tasks import webhook_deliver

    def send() -> None:
        for delivery_id in delivery_ids:
            try:
                webhook_deliver.delay(delivery_id, due_by.isoformat())
            except Exception:  # the broker is down: the sweep queues it when the broker is back
                logger.warning("webhook delivery %s not queued; the sweep will", delivery_id, exc_info=True)

    if delivery_ids:
        transaction.on_commit(send, robust=True)


def _record(entries: list[tuple[int, str, events.Facts]]) -> list[int]:
    """Store a delivery per ``(webhook id, key, facts)`` unless that webhook has the key already; queue the
    new ones. Returns their ids."""
    if not entries:
        return []
    now = timezone.now()
    rows = []
    for webhook_id, key, facts in entries:
        delivery_uuid = uuid4()
        rows.append(
            WebhookDelivery(
                webhook_id=webhook_id,
                uuid=delivery_uuid,
                event=facts.event,
                key=key,
                payload=events.body(facts=facts, delivery_id=str(delivery_uuid), created=now),
                next_attempt_at=now,
            )
        )
    created: list[int] = []
    with transaction.atomic():
        WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
        uuids = [row.uuid for row in rows]
        for start in range(0, len(uuids), 500):  # those stored now: a key already there kept its own uuid
            created += WebhookDelivery.objects.filter(uuid__in=uuids[start : start + 500]).values_list("pk", flat=True)
        _queue(sorted(created), now)
    return created


def _results_key(game_id: int, chunk: list[events.RatedResult]) -> str:
    """The same results in the same version give the same key: each result's id and its newest ledger row
    (a correction rated again writes new rows, so it is a new event)."""
    digest = hashlib.sha256(",".join(f"{r.match_id}.{r.last_change_id}" for r in chunk).encode()).hexdigest()
    return f"result.rated:{game_id}:{chunk[0].match_id}:{len(chunk)}:{digest[:32]}"


def results_rated_record(*, game_id: int, match_ids: list[int]) -> int:
    """``ratings.signals.results_rated``: one event per ``RESULTS_PER_EVENT`` results for each webhook that
    wants them (a league's webhook: its league's results only). Without such a webhook, one small query or
    none (``hooks.selectors``)."""
    wanting = webhooks_wanting("result.rated", game_id=game_id)
    if not wanting or not match_ids:
        return 0
    game, results = events.results_read(game_id=game_id, match_ids=list(match_ids))
    entries = []
    size = events.RESULTS_PER_EVENT
    for webhook in wanting:
        mine = results if webhook.league_id is None else [r for r in results if r.league_id == webhook.league_id]
        chunks = [mine[start : start + size] for start in range(0, len(mine), size)]
        for part, chunk in enumerate(chunks, start=1):
            facts = events.results_facts(game=game, results=chunk, part=part, parts=len(chunks))
            entries.append((webhook.id, _results_key(game_id, chunk), facts))
    return len(_record(entries))


def _anyone_wants(event: str) -> list:
    """The active webhooks, if any of them wants ``event`` at all (else empty): no query for the event's
    own rows until someone does."""
    active = webhooks_active()
    return active if any(event in webhook.events for webhook in active) else []


def list_published_record(*, rating_list_id: int) -> int:
    """``ratings.signals.rating_list_published``: the list's event for each webhook of its game (or of all)."""
    active = _anyone_wants("list.published")
    rating_list = RatingList.objects.select_related("game").filter(pk=rating_list_id).first() if active else None
    if rating_list is None:
        return 0
    wanting = [webhook for webhook in active if webhook.wants("list.published", game_id=rating_list.game_id)]
    if not wanting:
        return 0
    facts = events.list_facts(rating_list=rating_list)
    return len(_record([(webhook.id, f"list.published:{rating_list_id}", facts) for webhook in wanting]))


def season_closed_record(*, season_id: int) -> int:
    """``leagues.signals.season_closed``: the season's event for each webhook of its league (or of all)."""
    active = _anyone_wants("season.closed")
    season = Season.objects.select_related("league__game").filter(pk=season_id).first() if active else None
    if season is None:
        return 0
    wanting = [
        webhook
        for webhook in active
        if webhook.wants("season.closed", game_id=season.league.game_id, league_id=season.league_id, per_league=True)
    ]
    if not wanting:
        return 0
    facts = events.season_facts(season=season)
    return len(_record([(webhook.id, f"season.closed:{season_id}", facts) for webhook in wanting]))


def webhook_ping(*, webhook: Webhook, by: str = "") -> WebhookDelivery:
    """A test event (``ping``) for ``webhook``, queued like any other (also to an inactive one: the admin
    asked for it)."""
    facts = events.ping_facts(webhook_name=webhook.name, by=by)
    (delivery_id,) = _record([(webhook.pk, f"ping:{uuid4()}", facts)])
    return WebhookDelivery.objects.get(pk=delivery_id)


# --- delivery -------------------------------------------------------------------------------------------


def delivery_claim(*, delivery_id: int, due_by: datetime.datetime | None = None) -> WebhookDelivery | None:
    """Take ``delivery_id`` for one attempt if it is due by ``due_by`` (now by default) and not delivered:
    one conditional update, so of two tasks only one gets it. None when not due, done or taken."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, delivered_at__isnull=True, next_attempt_at__lte=due_by or now
    ).update(attempts=F("attempts") + 1, next_attempt_at=now + LEASE)
    if not claimed:
        return None
    return WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)


def delivery_headers(*, delivery: WebhookDelivery, body: bytes, timestamp: str) -> dict[str, str]:
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": sending.USER_AGENT,
        "X-Cardrank-Event": delivery.event,
        "X-Cardrank-Delivery": str(delivery.uuid),
        "X-Cardrank-Timestamp": timestamp,
        "X-Cardrank-Signature": sending.signature(secret=delivery.webhook.secret, timestamp=timestamp, body=body),
    }


def delivery_attempt(*, delivery_id: int, due_by: datetime.datetime | None = None) -> sending.Outcome | None:
    """One attempt at ``delivery_id`` (see the module); None when it was not this call's to make."""
    delivery = delivery_claim(delivery_id=delivery_id, due_by=due_by)
    if delivery is None:
        return None
    webhook = delivery.webhook
    refused = None
    if not webhook.active and delivery.event != "ping":
        refused = _("The webhook is inactive.")
    else:
        try:
            url_clean(webhook.url)  # the site's own names may have changed since the webhook was saved
        except ValidationError as error:
            refused = error.messages[0]
    if refused is not None:
        outcome = sending.Outcome(False, None, refused)
        give_up = True
    else:
        body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        timestamp = str(int(time.time()))
        outcome = sending.post(
            url=webhook.url, body=body, headers=delivery_headers(delivery=delivery, body=body, timestamp=timestamp)
        )
        give_up = delivery.attempts >= MAX_ATTEMPTS
    finished = timezone.now()
    history = [
        *delivery.history,
        {"at": finished.isoformat(), "status": outcome.status_code, "error": outcome.error},
    ][-HISTORY_KEPT:]
    changes = {"last_status_code": outcome.status_code, "last_error": outcome.error, "history": history}
    if outcome.delivered:
        changes |= {"delivered_at": finished, "next_attempt_at": None}
    elif give_up:
        changes |= {"next_attempt_at": None}
    else:
        changes |= {"next_attempt_at": finished + BACKOFF[min(delivery.attempts, len(BACKOFF)) - 1]}
    WebhookDelivery.objects.filter(pk=delivery.pk).update(**changes)
    return outcome


def deliveries_sweep(*, now: datetime.datetime | None = None) -> int:
    """Queue every delivery due by ``now`` (at most ``SWEEP_BATCH``, the longest waiting first)."""
    from hooks.tasks import webhook_deliver

    now = now or timezone.now()
    due = list(
        WebhookDelivery.objects.filter(delivered_at__isnull=True, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for delivery_id in due:
        webhook_deliver.delay(delivery_id, now.isoformat())
    return len(due)


def deliveries_retry_now(*, delivery_ids: list[int]) -> int:
    """An admin's "retry now": the deliveries not delivered are due at once (a given-up one gets one more
    attempt) and queued after the commit."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(
            WebhookDelivery.objects.filter(pk__in=delivery_ids, delivered_at__isnull=True).values_list("pk", flat=True)
        )
        WebhookDelivery.objects.filter(pk__in=ids).update(next_attempt_at=now)
        _queue(ids, now)
    return len(ids)
