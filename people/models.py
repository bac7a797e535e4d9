"""A person's claim of a player record: "this player is me".

Vocabulary: a *person* is a signed-in account (``AUTH_USER_MODEL``); a
*player* is a ``leagues.Player``, a name on the leaderboards. The link itself
is ``Player.user`` (one person per player, one player per person, a
``OneToOneField``); a ``PlayerClaim`` is the request that leads to it, and its
history. ``people.services`` is the one place that writes claims; the
database backs its rules (the constraints below) so that no other path can
break them.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

MESSAGE_MAX_LENGTH = 500
REASON_MAX_LENGTH = 200


class PlayerClaim(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for a referee")
        APPROVED = "approved", _("approved")
        REFUSED = "refused", _("refused")
        WITHDRAWN = "withdrawn", _("withdrawn")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_claims", verbose_name=_("person")
    )
    player = models.ForeignKey(
        "leagues.Player", on_delete=models.CASCADE, related_name="claims", verbose_name=_("player")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    message = models.CharField(
        _("message"),
        max_length=MESSAGE_MAX_LENGTH,
        blank=True,
        default="",
        help_text=_("What the person told the referee (optional), e.g. where they play."),
    )
    reason = models.CharField(
        _("reason"), max_length=REASON_MAX_LENGTH, blank=True, default="", help_text=_("Why it was refused.")
    )
    created_at = models.DateTimeField(_("asked at"), default=timezone.now)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    # RESTRICT, not PROTECT: a person's own withdrawn claims go with their account (CASCADE through ``user``),
    # while a referee who decided others' claims is deactivated rather than deleted, keeping the history.
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="player_claims_decided",
        verbose_name=_("decided by"),
    )

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("player claim")
        verbose_name_plural = _("player claims")
        constraints = [
            # A person asks for one player at a time ...
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="pending"), name="player_claim_one_pending_per_user"
            ),
            # ... and so never twice for the same one (implied by the above; kept as the rule's own name).
            models.UniqueConstraint(
                fields=["player", "user"], condition=Q(status="pending"), name="player_claim_one_pending_per_pair"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "approved", "refused", "withdrawn"]), name="player_claim_status"
            ),
            # Waiting: nobody decided yet. Decided (any other status): when, and by whom.
            models.CheckConstraint(
                condition=(
                    Q(status="pending", decided_at__isnull=True, decided_by__isnull=True)
                    | (~Q(status="pending") & Q(decided_at__isnull=False, decided_by__isnull=False))
                ),
                name="player_claim_decided_has_when_and_who",
            ),
            # SQLite ignores a varchar's length: the limits hold there too.
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("message"), MESSAGE_MAX_LENGTH), name="player_claim_message_length"
            ),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("reason"), REASON_MAX_LENGTH), name="player_claim_reason_length"
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="player_claim_status_idx")]

    def __str__(self) -> str:
        return f"{self.user} → {self.player} ({self.get_status_display()})"

    @property
    def decided(self) -> bool:
        return self.status != self.Status.PENDING
