"""A notice as an email: its language, its links, its one-click unsubscribe, its two alternatives.

Every mail of the app is made by ``notice_message`` and nowhere else, so every one carries what RFC 8058
asks (``List-Unsubscribe`` with the HTTPS link of a signed token, ``List-Unsubscribe-Post:
List-Unsubscribe=One-Click``) and a visible footer linking the person's choices and the same unsubscribe
link; and every one is written in the person's language (``in_language_of``: their own choice, else the
site's): its words, its dates and its numbers. Links are absolute, made from ``CARDRANK_SITE_URL``: a
task has no request.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from html import unescape

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format
from django.utils.html import strip_tags
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import pgettext

from config.language import language_for
from notices.services import unsubscribe_token


def site_url(path: str) -> str:
    """``path`` (from ``reverse``) as an absolute link on the site."""
    return settings.CARDRANK_SITE_URL + path


def links_absolute(html: str) -> SafeString:
    """The site's own links (``href="/..."``) in HTML rendered by our templates made absolute, for a mail
    read anywhere; still safe HTML (it was rendered, escaped, by a template)."""
    return mark_safe(re.sub(r'href="/(?!/)', f'href="{settings.CARDRANK_SITE_URL}/', html))  # noqa: S308


def words(html: str) -> str:
    """Rendered HTML as one line of plain text: the plain-text alternative of a page's partial (a cell, a
    paragraph or a line break becomes a space, so a table's cells do not run together)."""
    spaced = re.sub(r"(</?(?:td|th|tr|p|li|br|div|summary|table)\b[^>]*>)", r" \1", html)
    return re.sub(r"\s+", " ", unescape(strip_tags(spaced))).strip()


def language_of(user) -> str:
    """The language a person reads their mail in: their stored choice (``config.models.LanguageChoice``),
    else the site's (``LANGUAGE_CODE``). Read the users with ``select_related("language_choice")``: the
    choice then costs no query."""
    return language_for(user)


def mail_day(day) -> str:
    """A day as a mail shows it, in the active language's way (``2026-11-30``; ``30.11.2026`` in Russian)."""
    return date_format(day, pgettext("a date format in a mail (Django's date filter)", "Y-m-d"))


@contextmanager
def in_language_of(user):
    """Build a mail for ``user`` inside this block: its gettext and template words in their language."""
    with translation.override(language_of(user)):
        yield


def notice_message(*, user, notice: str, subject: str, template: str, context: dict) -> EmailMultiAlternatives:
    """The mail of ``template`` (``notices/<template>.txt`` and ``.html``) to ``user``'s own address, about
    ``notice`` (one of ``services.NOTICES``: what its unsubscribe link turns off). Call it inside
    ``in_language_of(user)``."""
    unsubscribe = site_url(reverse("notice-unsubscribe", args=[unsubscribe_token(user_id=user.pk, notice=notice)]))
    context = {
        **context,
        "site_url": settings.CARDRANK_SITE_URL,
        "choices_url": site_url(reverse("notice-choices")),
        "unsubscribe_url": unsubscribe,
        "notice": notice,
        "subject": subject,
    }
    text = render_to_string(f"notices/{template}.txt", context)
    html = links_absolute(render_to_string(f"notices/{template}.html", context))
    message = EmailMultiAlternatives(
        subject=" ".join(str(subject).split()),  # one line: a header never carries a line break
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.attach_alternative(html, "text/html")
    return message
