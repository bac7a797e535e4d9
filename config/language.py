"""The language of every answer and every mail (issue 28, ``docs/translation.md``).

Which language a request is answered in, first match wins:

1. a signed-in person's stored choice (``LanguageChoice``), so it follows them to any device;
2. the switcher's cookie (``LANGUAGE_COOKIE_NAME``), for people who are not signed in;
3. the browser's ``Accept-Language``;
4. ``LANGUAGE_CODE``.

Steps 2 to 4 are Django's ``LocaleMiddleware``; this module adds step 1 and the one write path of a
choice (``choose_language``). The user's row is read with its choice joined (``config.auth``), so step 1
costs no query. A mail is in its reader's ``language_for(user)`` (``notices.mail``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.translation import gettext as _

from config.models import LanguageChoice


def languages() -> set[str]:
    return {code for code, _name in settings.LANGUAGES}


def stored_language(user) -> str | None:
    """A signed-in person's stored choice when the site still offers it, else None (no query when the user
    was read by ``config.auth``, which joins the choice)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    try:
        choice = user.language_choice
    except LanguageChoice.DoesNotExist:
        return None
    return choice.language if choice.language in languages() else None


def language_for(user) -> str:
    """The language of what the site sends ``user`` (a mail, a notice): their choice, else the site's."""
    return stored_language(user) or settings.LANGUAGE_CODE


def choose_language(*, user, language: str) -> str:
    """Store a signed-in person's choice (the switcher's one write path); a code the site does not offer is
    refused with a ValidationError and nothing changes. Choosing again only updates the row."""
    language = (language or "").strip().lower()
    if language not in languages():
        raise ValidationError(_("Choose one of the languages offered."), code="language")
    if user is not None and user.is_authenticated:
        LanguageChoice.objects.update_or_create(user=user, defaults={"language": language})
        # The request's user object keeps the new choice (the row was joined when it was read).
        user.language_choice = LanguageChoice(user=user, language=language)
    return language


class LanguageMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` with a signed-in person's stored choice first. After
    ``AuthenticationMiddleware`` (it reads ``request.user``)."""

    def process_request(self, request):
        language = stored_language(getattr(request, "user", None))
        if language is None:
            return super().process_request(request)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        return None


def plural_forms(phrase) -> list[str]:
    """``phrase(count)`` in each plural form of the active language, by the form's index, with the count as
    ``%s``: what a script needs to word any count as the server would (Django's JavaScript catalogue picks
    the index with ``pluralidx(count)``, then ``interpolate(forms[index], [count])``). English has two forms,
    Russian three for whole numbers (1, 21...; 2 to 4, 22 to 24...; 0, 5 to 20...)."""
    from django.utils.translation import trans_real

    plural = getattr(trans_real.translation(translation.get_language() or settings.LANGUAGE_CODE), "plural", None)
    index_of = plural if callable(plural) else (lambda count: int(count != 1))
    forms: dict[int, str] = {}
    for count in range(200):  # every form a whole number can take shows up among the first hundred or so
        index = int(index_of(count))
        if index not in forms:
            forms[index] = phrase(count).replace(str(count), "%s", 1)
    return [forms[index] for index in sorted(forms)]
