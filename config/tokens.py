"""API tokens: issuing (the secret shown once), revoking, rotating, and checking a request's token.

The vocabulary (secret, digest, prefix, expiry, revoked) is ``config.models``'.
These services are the only writers of ``ApiToken``: ``manage.py createreferee``,
admin and the tests call them. ``ApiTokenAuthentication`` is the REST API's
token check (``REST_FRAMEWORK`` in ``config/settings.py``); the header stays
DRF's ``Authorization: Token <secret>``, so clients change nothing.

The lookup is by the digest of what the client sent: the database compares
digests, never secrets, so how long a comparison takes tells an attacker
nothing about a secret (the point of a constant-time comparison).

Rotation issues a new token with the old one's user and name and revokes the
old one at once: a rotation is asked for when a secret may be known to someone
else (a lost tablet, a referee leaving), so a grace period would serve them too.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from config.models import ApiToken

PREFIX_LENGTH = 8
#: A token's last use is written at most this often, so that a busy client costs one write a minute, not one a request.
LAST_USED_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedToken:
    """A token just issued and its secret: the only moment the secret exists outside the client."""

    token: ApiToken
    secret: str


def api_token_digest(secret: str) -> str:
    """What is stored for ``secret``: its SHA-256 in hex (the migration of DRF's keys computes the same)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def api_token_lifetime() -> timedelta:
    return timedelta(days=settings.CARDRANK_TOKEN_DAYS)


def api_token_issue(*, token: ApiToken) -> str:
    """Give the unsaved ``token`` (its user and name set) a new secret and an expiry if it has none, save it,
    and return the secret. Admin's add form calls this; everything else calls ``api_token_create``."""
    if token.pk is not None:
        raise ValueError("A token is issued once: rotate it for a new secret.")
    secret = secrets.token_urlsafe(32)  # 256 random bits, 43 characters of [A-Za-z0-9_-]
    token.prefix = secret[:PREFIX_LENGTH]
    token.digest = api_token_digest(secret)
    token.created_at = timezone.now()
    if token.expires_at is None:
        token.expires_at = token.created_at + api_token_lifetime()
    token.full_clean(exclude=["user"])  # the user is the caller's (a form or a command has checked it)
    token.save()
    return secret


def api_token_create(*, user, name: str = "", expires_at=None) -> IssuedToken:
    """A new token for ``user``, valid until ``expires_at`` (default: ``CARDRANK_TOKEN_DAYS`` from now)."""
    token = ApiToken(user=user, name=name, expires_at=expires_at)
    secret = api_token_issue(token=token)
    return IssuedToken(token=token, secret=secret)


def api_token_revoke(*, tokens) -> int:
    """Revoke every token of the queryset ``tokens`` not revoked yet; return how many were. Refused at once."""
    return tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


@transaction.atomic
def api_token_rotate(*, token: ApiToken) -> IssuedToken:
    """Revoke ``token`` at once and issue its successor: same user and name, a full lifetime from now."""
    locked = ApiToken.objects.select_for_update().get(pk=token.pk)
    if locked.revoked_at is not None:
        # Rotating a revoked token would hand out a working secret for a token someone took back on purpose.
        raise ValidationError(
            _("The token %(prefix)s… is revoked: issue a new one instead.") % {"prefix": locked.prefix}
        )
    api_token_revoke(tokens=ApiToken.objects.filter(pk=locked.pk))
    token.refresh_from_db(fields=["revoked_at"])
    return api_token_create(user=locked.user, name=locked.name)


class ApiTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token <secret>``, checked against the stored digests.

    A missing, revoked or expired token, or one whose user is inactive, is a 401 saying which (with
    ``WWW-Authenticate: Token``, from DRF). The user's row comes with the token, in one query; the last
    use is written at most once a minute (``LAST_USED_EVERY``).
    """

    model = ApiToken

    def authenticate_credentials(self, key):
        token = ApiToken.objects.select_related("user").filter(digest=api_token_digest(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        now = timezone.now()
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("This token was revoked; ask an admin for a new one."))
        if token.expires_at <= now:
            expired = formats.date_format(timezone.localtime(token.expires_at), "DATETIME_FORMAT")
            raise exceptions.AuthenticationFailed(
                _("This token expired on %(date)s; ask an admin for a new one.") % {"date": expired}
            )
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
            # An update, not a save: two requests at once both write a time, and nothing else of the row.
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return (token.user, token)
