"""A club's outgoing webhooks and what was sent to them.

Vocabulary:
    webhook    a receiver's URL, the secret that signs what it is sent, and the events it wants
               (``result.rated``, ``list.published``, ``season.closed``), for one league or for all
    event      one thing that happened, told once to each webhook that wants it: a JSON body
               (``hooks.events``) stored as a **delivery** before anything is sent
    delivery   one event for one webhook: its body, its attempts and their outcome. ``key`` names the
               event (the same rated results, list or season), so an event heard twice is stored once
               (unique per webhook). Due while ``next_attempt_at`` is set and has passed; delivered when
               ``delivered_at`` is set; given up when neither is (``hooks.services``)

Validation lives in ``hooks.validation`` (called by ``Webhook.clean``, so the admin's form and
``hooks.services.webhook_save`` refuse the same things); the database backs what it can.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from hooks import validation


def _secret_help_now() -> str:
    return gettext(
        "Signs every event (HMAC-SHA256, the X-Cardrank-Signature header); the receiver keeps a copy to "
        "check it. At least %(length)s characters."
    ) % {"length": validation.SECRET_MIN_LENGTH}


#: The secret's help, in the reader's language (``gettext_lazy("...") % {...}`` would be read at import time).
_secret_help = lazy(_secret_help_now, str)


class Event(models.TextChoices):
    RESULT_RATED = "result.rated", _("Results rated")
    LIST_PUBLISHED = "list.published", _("Rating list published")
    SEASON_CLOSED = "season.closed", _("Season closed")
    PING = "ping", _("Test event")


class Webhook(models.Model):
    name = models.CharField(_("name"), max_length=100, unique=True)
    url = models.CharField(
        _("URL"),
        max_length=validation.URL_MAX_LENGTH,
        help_text=_(
            "Where the events are posted: an http:// or https:// address of another site (a chat service's "
            "incoming-webhook URL works too). Never this site itself."
        ),
    )
    secret = models.CharField(
        _("secret"),
        max_length=validation.SECRET_MAX_LENGTH,
        help_text=_secret_help(),
    )
    on_result_rated = models.BooleanField(_("results rated"), default=True)
    on_list_published = models.BooleanField(_("rating list published"), default=True)
    on_season_closed = models.BooleanField(_("season closed"), default=True)
    league = models.ForeignKey(
        "leagues.League",
        verbose_name=_("league"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhooks",
        help_text=_("Only this league's results and seasons, and its game's rating lists; empty for every league."),
    )
    active = models.BooleanField(_("active"), default=True, help_text=_("An inactive webhook is sent nothing."))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        constraints = [
            models.CheckConstraint(
                condition=Q(url__startswith="http://") | Q(url__startswith="https://"), name="webhook_url_http"
            ),
            models.CheckConstraint(
                condition=GreaterThanOrEqual(Length("secret"), validation.SECRET_MIN_LENGTH),
                name="webhook_secret_long_enough",
            ),
            models.CheckConstraint(
                condition=Q(on_result_rated=True) | Q(on_list_published=True) | Q(on_season_closed=True),
                name="webhook_wants_an_event",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="webhook_named"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def events(self) -> list[str]:
        wanted = [
            (self.on_result_rated, Event.RESULT_RATED),
            (self.on_list_published, Event.LIST_PUBLISHED),
            (self.on_season_closed, Event.SEASON_CLOSED),
        ]
        return [str(event) for on, event in wanted if on]

    def clean(self):
        super().clean()
        validation.webhook_validate(self)

    def secret_masked(self) -> str:
        return validation.secret_masked(self.secret)


class WebhookDelivery(models.Model):
    webhook = models.ForeignKey(Webhook, verbose_name=_("webhook"), on_delete=models.CASCADE, related_name="deliveries")
    uuid = models.UUIDField(_("delivery id"), default=uuid.uuid4, unique=True, editable=False)
    event = models.CharField(_("event"), max_length=20, choices=Event.choices)
    key = models.CharField(_("key"), max_length=200, help_text=_("What makes the event one: stored once."))
    payload = models.JSONField(_("payload"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(
        _("next attempt at"), null=True, blank=True, help_text=_("Empty once delivered or given up.")
    )
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(_("last status code"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=300, blank=True, default="")
    history = models.JSONField(
        _("attempts' outcomes"), default=list, blank=True, help_text=_("Each attempt: when, status code, error.")
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.UniqueConstraint(fields=["webhook", "key"], name="webhook_delivery_once_per_event"),
            models.CheckConstraint(
                condition=Q(delivered_at__isnull=True) | Q(next_attempt_at__isnull=True),
                name="webhook_delivery_delivered_is_done",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_delivery_due_idx",
                condition=Q(next_attempt_at__isnull=False),
            ),
            models.Index(fields=["webhook", "-created_at"], name="webhook_delivery_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook} ({self.uuid})"

    @property
    def status(self) -> str:
        if self.delivered_at is not None:
            return str(_("delivered"))
        if self.next_attempt_at is None:
            return str(_("given up"))
        return str(_("waiting")) if self.attempts == 0 else str(_("retrying"))
