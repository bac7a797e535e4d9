"""Site-wide views: the answers to a client that exceeded a rate limit or the sign-in limits."""

import math

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, ngettext


def rate_limited(request, exception=None):
    return HttpResponse(
        gettext("Too many requests. Please wait a minute and try again."),
        status=429,
        content_type="text/plain; charset=utf-8",
    )


def sign_in_locked_out(request, original_response=None, credentials=None):
    """``AXES_LOCKOUT_CALLABLE``: a refused sign-in (config/signin.py), on the sign-in page or the admin's.

    429 with ``Retry-After``, and the sign-in page saying in words how long to
    wait. The answer is the same whatever password was sent: while locked, no
    password is checked, so a brute-forcer learns nothing from it.
    """
    seconds = AxesProxyHandler.get_implementation().seconds_until_allowed(request, credentials)
    minutes = math.ceil(seconds / 60)
    message = ngettext(
        "Too many failed sign-in attempts. Please wait %(minutes)d minute and try again.",
        "Too many failed sign-in attempts. Please wait %(minutes)d minutes and try again.",
        minutes,
    ) % {"minutes": minutes}
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "locked_out": message,
        "next": request.POST.get("next") or request.GET.get("next", ""),
    }
    response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response
