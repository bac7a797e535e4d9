from django.apps import AppConfig


class HooksConfig(AppConfig):
    """A club's outgoing webhooks (issue 27): JSON events signed with HMAC-SHA256, delivered by Celery with
    back-off, never inside a request. Hears the lower apps through their signals; sits beside people,
    above the games and below web."""

    name = "hooks"
    verbose_name = "Webhooks"
