"""Site-wide views: the answer to a client that exceeded a rate limit, and the throttled sign-in."""

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django_ratelimit.decorators import ratelimit


def rate_limited(request, exception=None):
    return HttpResponse("Too many requests. Please wait a minute and try again.", status=429, content_type="text/plain")


@method_decorator(
    ratelimit(key="ip", rate=lambda group, request: settings.CARDRANK_LOGIN_RATE, method="POST", block=True),
    name="post",
)
class LoginView(auth_views.LoginView):
    """Django's sign-in, with attempts limited per client address (brute force)."""
