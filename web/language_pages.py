"""The language switcher (header and phone menu): a POST of ``language`` and ``next``.

``config.language.choose_language`` checks the choice and stores it for a signed-in person (their pages on
any device, their mail); Django's ``set_language`` then sets the cookie that keeps it for everyone and sends
the reader back to the page they were on (only ever a page of this site).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpResponseBadRequest
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from config.language import choose_language


@require_POST
def switch_language(request):
    try:
        language = choose_language(user=request.user, language=request.POST.get("language", ""))
    except ValidationError as error:
        return HttpResponseBadRequest(" ".join(error.messages), content_type="text/plain; charset=utf-8")
    translation.activate(language)
    return set_language(request)
