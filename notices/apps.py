from django.apps import AppConfig


class NoticesConfig(AppConfig):
    """What people hear by email (issue 27): their choices, an evening's digest, a new rating list, a
    referee's disputed or waiting result; sent by Celery with retries, each with a one-click unsubscribe.

    Beside people and hooks, above the games (it asks a game's kind for its part of a digest) and below
    web; it hears the lower apps through their signals (ratings.signals, matches.signals, ratings.people).
    """

    name = "notices"
    verbose_name = "Notices"
