from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NoticesConfig(AppConfig):
    """What people hear by email (issue 27): their choices, an evening's digest, a new rating list, a
    referee's disputed or waiting result; sent by Celery with retries, each with a one-click unsubscribe.

    Beside people and hooks, above the games (it asks a game's kind for its part of a digest) and below
    web; it hears the lower apps through their signals (ratings.signals, matches.signals, ratings.people).
    """

    name = "notices"
    verbose_name = _("Notices")

    def ready(self) -> None:
        from matches.signals import result_awaits_confirmation, result_disputed
        from notices import receivers
        from ratings.people import player_erased
        from ratings.signals import rating_list_published

        rating_list_published.connect(receivers.on_rating_list_published, dispatch_uid="notices-list-published")
        result_disputed.connect(receivers.on_result_disputed, dispatch_uid="notices-result-disputed")
        result_awaits_confirmation.connect(
            receivers.on_result_awaits_confirmation, dispatch_uid="notices-result-awaits"
        )
        player_erased.connect(receivers.on_player_erased, dispatch_uid="notices-player-erased")
