"""A person's notice choices (``/me/notices/``) and the one-click unsubscribe (``/notices/unsubscribe/TOKEN/``).

The rules are ``notices.services``' (the one place that validates); these views read a form and show what
they answer. The choices page is the signed-in person's own: it shows their address, to them only (no
other page or API answer carries an address). The unsubscribe URL is what every mail's
``List-Unsubscribe`` header names (RFC 8058): a mail reader POSTs ``List-Unsubscribe=One-Click`` to it
without a session or a CSRF token, so it is exempt from CSRF and needs no sign-in: the signed token is the
authority. A GET only shows a button (mail scanners follow links: a GET never unsubscribes); a bad or
tampered token is a 400 page that changes nothing.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from matches.entry import limit_writes
from notices.services import (
    notice_choices_of,
    notice_choices_set,
    notice_email_set,
    notice_unsubscribe,
    unsubscribe_read,
)

CHOICES = ("evening_digest", "new_lists", "referee_notices")


def _errors(error: ValidationError) -> dict[str, list[str]]:
    return error.message_dict if hasattr(error, "error_dict") else {"__all__": error.messages}


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def notice_choices_page(request):
    """The three choices, each a checkbox with a sentence, and the address mails go to."""
    user = request.user
    errors: dict[str, list[str]] = {}
    saved = None
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "email":
                notice_email_set(user=user, email=request.POST.get("email", ""))
                saved = "email"
            else:
                notice_choices_set(user=user, **{name: request.POST.get(name) == "on" for name in CHOICES})
                saved = "choices"
        except ValidationError as error:
            errors, status = _errors(error), 400
    context = {
        "choices": notice_choices_of(user),
        "errors": errors,
        "saved": saved,
        "email_value": request.POST.get("email", user.email) if errors.get("email") else user.email,
    }
    return render(request, "notices/choices.html", context, status=status)


@never_cache
@csrf_exempt  # RFC 8058: mail readers post without a session; the signed token is the authority
@require_http_methods(["GET", "POST"])
def notice_unsubscribe_page(request, token):
    """GET: what the link would turn off, and a button. POST (the button, or a mail reader's one-click):
    turn it off, 200."""
    try:
        if request.method == "POST":
            _user_id, notice = notice_unsubscribe(token=token)
        else:
            _user_id, notice = unsubscribe_read(token)
    except ValidationError as error:
        return render(request, "notices/unsubscribe.html", {"errors": _errors(error)}, status=400)
    context = {"notice": notice, "done": request.method == "POST", "token": token}
    return render(request, "notices/unsubscribe.html", context)
