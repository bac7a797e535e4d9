"""What a person chose to hear by email, and what was sent to them (issue 27).

Vocabulary:
    choices      a person's three opt-ins (``NoticeChoices``), all off until they turn one on: an evening's
                 digest, a new rating list, and (for referees) a result of theirs disputed or waiting for
                 their confirmation.
    evening      the rated results of one player in one game on one day in the site's time zone; its
                 *digest* is the email that tells the player's person about it (``notices.digests``).
    sent record  a row saying a mail went out (``DigestSent``, ``ListNoticeSent``, ``RefereeNoticeSent``).
                 Written in the transaction that sends the mail: a send that fails rolls the row back (the
                 retry sends again); a second run after a success finds it and sends nothing. The unique
                 constraints make "sent once" the database's rule, not only the code's.

A person is a user (``settings.AUTH_USER_MODEL``); their player is ``Player.user`` (set by an approved claim);
the address is ``user.email``, shown to nobody but the person.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class NoticeChoices(models.Model):
    """A person's opt-ins; no row is the same as every choice off."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_choices", verbose_name=_("person")
    )
    evening_digest = models.BooleanField(
        _("evening digest"), default=False, help_text=_("An email after each evening the person's player was rated.")
    )
    evening_digest_since = models.DateTimeField(
        _("evening digest since"),
        null=True,
        blank=True,
        help_text=_("When the digest was last turned on: evenings before that day are not sent."),
    )
    new_lists = models.BooleanField(
        _("new rating lists"), default=False, help_text=_("An email with the player's line of each new list.")
    )
    referee_notices = models.BooleanField(
        _("referee notices"),
        default=False,
        help_text=_("An email when a result the referee entered is disputed, or one waits for their confirmation."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("notice choices")
        verbose_name_plural = _("notice choices")

    def __str__(self) -> str:
        return str(self.user)


class DigestSent(models.Model):
    """An evening's digest sent: one per person, player, game and day, whatever retries or sweeps run."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey("leagues.Player", on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("leagues.Game", on_delete=models.CASCADE, related_name="+")
    day = models.DateField(help_text=_("The evening's day in the site's time zone."))
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("digest sent")
        verbose_name_plural = _("digests sent")
        constraints = [
            models.UniqueConstraint(fields=["user", "player", "game", "day"], name="notice_digest_once_an_evening")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.day.isoformat()}"


class ListNoticeSent(models.Model):
    """A new rating list's notice sent to a person: once per list (a republished version is a list of its own)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rating_list = models.ForeignKey("ratings.RatingList", on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("list notice sent")
        verbose_name_plural = _("list notices sent")
        constraints = [models.UniqueConstraint(fields=["user", "rating_list"], name="notice_list_once_a_person")]

    def __str__(self) -> str:
        return f"{self.user} {self.rating_list_id}"


class RefereeNoticeSent(models.Model):
    """A referee's notice sent: once per referee, result, kind and version of the result (a corrected result
    that waits again, or is disputed again, is news again)."""

    class Kind(models.TextChoices):
        DISPUTED = "disputed", _("Disputed")
        AWAITS = "awaits", _("Waits for confirmation")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    version = models.PositiveBigIntegerField(
        default=0, help_text=_("The result's version (the audit entry that wrote it); 0 for none.")
    )
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("referee notice sent")
        verbose_name_plural = _("referee notices sent")
        constraints = [
            models.UniqueConstraint(fields=["user", "match", "kind", "version"], name="notice_referee_once_a_version"),
            models.CheckConstraint(condition=models.Q(kind__in=["disputed", "awaits"]), name="notice_referee_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.kind} {self.match_id}"
