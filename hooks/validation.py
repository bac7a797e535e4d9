"""What a webhook may be: the one place that says so (``Webhook.clean`` calls ``webhook_validate``; the admin's
form and ``hooks.services.webhook_save`` both go through it).

A URL is refused unless it is ``http://`` or ``https://`` with a host, no user name or password in it, no
space or control character, at most ``URL_MAX_LENGTH`` characters, and not this site itself: a host named by
``ALLOWED_HOSTS`` (``.example.com`` covers example.com and its subdomains; ``*``, "any host", names none) or
the host of ``CARDRANK_SITE_URL``. A secret has ``SECRET_MIN_LENGTH`` to ``SECRET_MAX_LENGTH`` characters,
without spaces. No database access here.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

URL_MAX_LENGTH = 500
SECRET_MIN_LENGTH = 16
SECRET_MAX_LENGTH = 128
SCHEMES = ("http", "https")


def secret_generate() -> str:
    """A fresh secret (43 URL-safe characters), offered by the admin's add form."""
    return secrets.token_urlsafe(32)


def secret_masked(secret: str) -> str:
    """A secret as pages show it after creation: its last four characters only."""
    return "•" * 8 + secret[-4:] if len(secret) >= SECRET_MIN_LENGTH else "•" * 8


def _host_normal(host: str) -> str:
    return host.strip().lower().rstrip(".")


def site_hosts() -> tuple[set[str], set[str]]:
    """This site's host names: ``(exact, suffixes)``; a suffix ``.example.com`` covers example.com too."""
    exact, suffixes = set(), set()
    for entry in settings.ALLOWED_HOSTS:
        entry = _host_normal(entry)
        if not entry or entry == "*":
            continue  # "any host" says nothing about which name is this site's
        if entry.startswith("."):
            suffixes.add(entry)
            exact.add(entry[1:])
        else:
            exact.add(entry.strip("[]"))
    site_url = getattr(settings, "CARDRANK_SITE_URL", "")
    if site_url:
        host = urlsplit(site_url).hostname
        if host:
            exact.add(_host_normal(host))
    return exact, suffixes


def is_site_host(host: str) -> bool:
    host = _host_normal(host)
    exact, suffixes = site_hosts()
    return host in exact or any(host.endswith(suffix) for suffix in suffixes)


def url_clean(value: object) -> str:
    """The URL as stored (its scheme and host in lower case), or a ValidationError naming what is wrong."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(_("Enter the receiver's URL."))
    url = value.strip()
    if len(url) > URL_MAX_LENGTH:
        raise ValidationError(
            _("A URL has at most %(max)s characters (this one has %(length)s).")
            % {"max": URL_MAX_LENGTH, "length": len(url)}
        )
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise ValidationError(_("A URL has no spaces or control characters."))
    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is not a number between 0 and 65535 raises here
    except ValueError as error:
        raise ValidationError(_("This is not a URL a webhook can be sent to.")) from error
    if parts.scheme.lower() not in SCHEMES:
        raise ValidationError(_("Only http:// and https:// URLs can receive webhooks."))
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValidationError(
            _("A URL with a user name or password in it is refused: put a token in the path instead.")
        )
    host = parts.hostname
    if not host:
        raise ValidationError(_("The URL names no host."))
    if port == 0:
        raise ValidationError(_("This is not a URL a webhook can be sent to."))
    if is_site_host(host):
        raise ValidationError(
            _("%(host)s is this site itself: a webhook goes to another service.") % {"host": _host_normal(host)}
        )
    return parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()).geturl()


def secret_clean(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(_("Enter a secret (a generated one is offered)."))
    if any(ch.isspace() or ord(ch) < 32 for ch in value):
        raise ValidationError(_("A secret has no spaces or control characters."))
    if len(value) < SECRET_MIN_LENGTH:
        raise ValidationError(_("A secret has at least %(min)s characters.") % {"min": SECRET_MIN_LENGTH})
    if len(value) > SECRET_MAX_LENGTH:
        raise ValidationError(_("A secret has at most %(max)s characters.") % {"max": SECRET_MAX_LENGTH})
    return value


def webhook_validate(webhook) -> None:
    """Check (and normalise) ``webhook``'s own fields; every error by its field, together."""
    errors: dict[str, list[str]] = {}
    for field, clean in (("url", url_clean), ("secret", secret_clean)):
        try:
            setattr(webhook, field, clean(getattr(webhook, field)))
        except ValidationError as error:
            errors[field] = error.messages
    name = webhook.name.strip() if isinstance(webhook.name, str) else ""
    if not name:
        errors["name"] = [_("Name the webhook (for example the channel it posts to).")]
    else:
        webhook.name = name
    if not (webhook.on_result_rated or webhook.on_list_published or webhook.on_season_closed):
        errors["on_result_rated"] = [_("Choose at least one event.")]
    if errors:
        raise ValidationError(errors)
