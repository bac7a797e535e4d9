"""API plumbing shared by every app: error shape and permissions.

Services raise Django's ``ValidationError``/``PermissionDenied``; the handler
turns them into DRF-style responses: 400 ``{"field": ["message"]}``.
"""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django_ratelimit.core import get_usage
from rest_framework import exceptions, permissions, throttling
from rest_framework.views import exception_handler as drf_exception_handler

from matches.services import user_can_submit, user_can_void


def exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(detail=str(exc) or None)
    return drf_exception_handler(exc, context)


class IsReferee(permissions.BasePermission):
    message = "Only referees can submit results."

    def has_permission(self, request, view):
        return user_can_submit(request.user)


class IsMatchAdmin(permissions.BasePermission):
    message = "Only admins can void matches."

    def has_permission(self, request, view):
        return user_can_void(request.user)


class WriteThrottle(throttling.ScopedRateThrottle):
    """Writes per user (or address), at the ``writes`` rate of REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].

    Counted in fixed windows by django-ratelimit (an atomic ``add``/``incr`` of
    one cache counter), the same counting as the pages' limits. DRF's own
    throttle keeps, and pickles to and from the cache on every request, the
    time of every request in its window: at the rates of a busy federation
    that cost a submission more than validating it.
    """

    scope_attr = "throttle_scope"
    time_left = None

    def get_rate(self):
        # Read the rates now, not at import, so settings changes (and tests) take effect.
        from rest_framework.settings import api_settings

        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return None
        return super().get_cache_key(request, view)

    def allow_request(self, request, view):
        self.scope = getattr(view, self.scope_attr, None)
        rate = self.get_rate() if self.scope else None
        key = self.get_cache_key(request, view) if rate else None
        if key is None:
            return True
        usage = get_usage(request, group=f"api-{self.scope}", key=lambda group, request: key, rate=rate, increment=True)
        if usage is None:  # RATELIMIT_ENABLE is off, or the cache is down: fail open (config/cache.py)
            return True
        self.time_left = max(usage["time_left"], 0)
        return not usage["should_limit"]

    def wait(self):
        return self.time_left
