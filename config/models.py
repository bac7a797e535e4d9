"""API tokens: what the REST API's ``Authorization: Token <secret>`` is checked against.

Vocabulary:
    secret    the string a client sends. It is shown once, when the token is
              issued (``config.tokens``), and stored nowhere: a stolen
              database or backup holds no working token.
    digest    the SHA-256 of the secret, in hex: what is stored and looked
              up. A secret has 256 random bits (a token moved from DRF's
              table: 160), so an unsalted fast hash is enough; a password
              hasher would only slow every API request.
    prefix    the secret's first eight characters, kept so that admins and
              referees can tell their tokens apart ("the one starting
              ``3fa9c1b0``"); too short to help anyone guess the rest.
    expiry    every token has one (``CARDRANK_TOKEN_DAYS`` after it was
              issued); past it the token is refused.
    revoked   a token taken back (admin's action, a rotation): refused at
              once, kept for its dates.

Tokens are only written by ``config.tokens``; admin and commands call it.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("user")
    )
    name = models.CharField(
        _("name"), max_length=100, blank=True, help_text=_("What the token is for, e.g. the table's tablet.")
    )
    prefix = models.CharField(_("prefix"), max_length=8, db_index=True, editable=False)
    digest = models.CharField(_("digest"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(_("expires"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-pk"]
        constraints = [
            # A digest is 64 hex digits: never an empty or plain-text key by mistake.
            models.CheckConstraint(condition=Q(digest__regex=r"^[0-9a-f]{64}$"), name="apitoken_digest_sha256_hex"),
        ]

    def __str__(self):
        return f"{self.prefix}… ({self.user})"

    def live_at(self, moment) -> bool:
        """Neither revoked nor expired at ``moment``."""
        return self.revoked_at is None and self.expires_at > moment


class LanguageChoice(models.Model):
    """The language a signed-in person chose with the header's switcher (``config.language``): their pages
    on any device and the mail the site sends them are in it. No row: the browser's language for pages, the
    site's (``LANGUAGE_CODE``) for mail. A code no longer in ``LANGUAGES`` is ignored, never an error."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="language_choice",
        verbose_name=_("user"),
    )
    language = models.CharField(_("language"), max_length=15)
    changed_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        verbose_name = _("language choice")
        verbose_name_plural = _("language choices")
        constraints = [
            # A language code (en, ru, pt-br, zh-hans), never an empty string or free text.
            models.CheckConstraint(
                condition=Q(language__regex=r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$"), name="languagechoice_code"
            ),
        ]

    def __str__(self):
        return f"{self.user}: {self.language}"
