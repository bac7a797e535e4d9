"""Sign-in limits: django-axes' database handler, with a limit of its own for each count.

django-axes (``axes.backends.AxesStandaloneBackend``, first in
``AUTHENTICATION_BACKENDS``) sees every call to ``authenticate()``: the
sign-in page, the admin's, and any form added later. It records each failure
(username, client address, user agent) and refuses the next attempt while
a count of recent failures has reached its limit. Axes has one limit for all
its counts; a club needs three, so this handler gives each count its own
(``CARDRANK_SIGN_IN_LIMITS``, built in ``config.settings``):

- *account and address*: one client guessing one account. The lowest limit,
  so that one address can never fail often enough to lock the account for
  its owner elsewhere, nor for anyone else at that address.
- *account*: guessing one account from many addresses.
- *address*: one client trying many accounts.

Failures count for ``AXES_COOLOFF_TIME`` after the latest one of a record
(username, address, user agent); attempts refused while locked are not
counted, so a lockout ends a cool-off after the last failure it counted,
however long an attacker keeps trying. A successful sign-in clears the
account's failures (all addresses), never the address's failures on other
accounts: otherwise signing in to one's own account between guesses would
reset the count of the guesses.
"""

from datetime import timedelta

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

# The counts of CARDRANK_SIGN_IN_LIMITS, as axes' lockout parameters.
COUNTS = {
    "account_and_address": ["username", "ip_address"],
    "account": "username",
    "address": "ip_address",
}


def _limits() -> list[tuple[list[str] | str, int]]:
    """``(axes lockout parameter, limit)`` pairs, in the order of ``lockout_parameters``."""
    return [(COUNTS[name], limit) for name, limit in settings.CARDRANK_SIGN_IN_LIMITS.items()]


def lockout_parameters(request_or_attempt=None, credentials=None) -> list[list[str] | str]:
    """``AXES_LOCKOUT_PARAMETERS``: the counts named in ``CARDRANK_SIGN_IN_LIMITS``."""
    return [parameter for parameter, _ in _limits()]


class SignInAttemptHandler(AxesDatabaseHandler):
    def _counts(self, request, credentials=None) -> list[tuple[int, int, object]]:
        """``(failures, limit, queryset)`` for each count of this attempt, the cool-off applied."""
        querysets = self.get_user_attempts(request, credentials)
        counts = []
        for queryset, (_, limit) in zip(querysets, _limits(), strict=True):
            failures = queryset.aggregate(total=Sum("failures_since_start"))["total"] or 0
            counts.append((failures, limit, queryset))
        return counts

    def get_failures(self, request, credentials=None) -> int:
        """Failures in axes' units: ``AXES_FAILURE_LIMIT`` or more exactly when a count reached its limit.

        Axes compares this one number with ``AXES_FAILURE_LIMIT``; each count's
        distance to its own limit is shifted onto that scale.
        """
        counts = self._counts(request, credentials)
        return settings.AXES_FAILURE_LIMIT + max(failures - limit for failures, limit, _ in counts)

    def seconds_until_allowed(self, request, credentials=None) -> int:
        """How long until every count that reached its limit is below it again (at least one second)."""
        cool_off = get_cool_off(request) or timedelta(0)
        now = timezone.now()
        until = now
        for failures, limit, queryset in self._counts(request, credentials):
            remaining = failures
            # The oldest records leave the window first; the count is allowed once below its limit.
            for attempt_time, record_failures in queryset.order_by("attempt_time").values_list(
                "attempt_time", "failures_since_start"
            ):
                if remaining < limit:
                    break
                remaining -= record_failures
                until = max(until, attempt_time + cool_off)
        return max(1, int((until - now).total_seconds() + 0.999))

    def reset_user_attempts(self, request, credentials=None) -> int:
        """After a successful sign-in: the account's failures only (see the module's docstring)."""
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return count
