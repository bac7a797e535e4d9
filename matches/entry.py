"""What the referees' pages share: who may use them, how fast they may write, and reading their form fields.

The entry pages (``games/entry.py``, each game's in ``games/<game>/views.py``)
and the confirmations page (``web.confirm_pages``) use them.
"""

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from django_ratelimit.decorators import ratelimit

from config.permissions import user_can_submit


def _page_write_rate(group, request):
    return settings.CARDRANK_PAGE_WRITE_RATE


# Result-entry posts per signed-in user (live checks included: they are cheap but still writes' kin).
limit_writes = ratelimit(key="user_or_ip", rate=_page_write_rate, method="POST", block=True)


def referee_required(request):
    if not user_can_submit(request.user):
        raise PermissionDenied(_("Only referees can enter results."))


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
