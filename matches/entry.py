"""What every game's entry page shares: who may use it, how fast, and how a result is submitted and answered.

A kind's entry page (``games/<game>/views.py``) is reached through one route,
``results/<game>/`` (``matches.views.result_entry``), which signs in, checks
the referee and limits the writes; the page itself only turns its form into
the API's body and back, and hands the body to ``entry_submit``. Errors come
back inline, keyed by field, without a full reload (HTMX swaps the page's
``#entry-form`` partial); without JavaScript the form posts normally and
redirects to the new match (post/redirect/get).
"""

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils import timezone
from django_ratelimit.decorators import ratelimit

from config.permissions import user_can_submit
from matches.services import match_submit
from ratings.selectors import match_detail_rated_of


def _page_write_rate(group, request):
    return settings.CARDRANK_PAGE_WRITE_RATE


# Result-entry posts per signed-in user (live checks included: they are cheap but still writes' kin).
limit_writes = ratelimit(key="user_or_ip", rate=_page_write_rate, method="POST", block=True)


def referee_required(request):
    if not user_can_submit(request.user):
        raise PermissionDenied("Only referees can enter results.")


def bounded_int(value, default: int, low: int, high: int) -> int:
    """A form field as an integer within ``[low, high]``; ``default`` when it is not a number."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


def form_now() -> str:
    """Now, to the minute, as a ``datetime-local`` field's value: the default time of a new result."""
    return timezone.localtime().replace(second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M")


def entry_submit(request, *, body: dict, page: str, on_error, on_saved):
    """Submit an entry page's result through ``match_submit`` and answer as every entry page does.

    Errors come back inline in the form partial (HTMX) or as the whole page
    with status 400; a saved result gives a fresh form (HTMX, with an
    ``HX-Trigger: result-saved`` event) or a redirect to the new match.
    ``on_error(errors)`` and ``on_saved(match)`` build the template contexts.
    """
    try:
        match = match_submit(referee=request.user, data=body)
    except ValidationError as error:
        context = on_error(error.message_dict)
        if request.htmx:
            return render(request, f"{page}#entry-form", context)
        return render(request, page, context, status=400)
    if not request.htmx:
        return redirect(match)
    response = render(request, f"{page}#entry-form", on_saved(match_detail_rated_of(match)))
    response["HX-Trigger"] = "result-saved"
    return response
