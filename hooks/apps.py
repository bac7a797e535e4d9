from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HooksConfig(AppConfig):
    """A club's outgoing webhooks (issue 27): JSON events signed with HMAC-SHA256, delivered by Celery with
    back-off, never inside a request. Hears the lower apps through their signals; sits beside people,
    above the games and below web."""

    name = "hooks"
    verbose_name = _("Webhooks")

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from hooks import receivers, tasks  # noqa: F401 - tasks: registered for the services to queue
        from hooks.models import Webhook
        from hooks.selectors import HOOKS_STAMP
        from leagues.signals import season_closed
        from ratings.signals import rating_list_published, results_rated

        results_rated.connect(receivers.results_rated, dispatch_uid="hooks-results-rated")
        rating_list_published.connect(receivers.rating_list_published, dispatch_uid="hooks-list-published")
        season_closed.connect(receivers.season_closed, dispatch_uid="hooks-season-closed")
        # Which webhooks want what is kept in the shared cache: every change of a webhook renews it.
        post_save.connect(HOOKS_STAMP.changed, sender=Webhook, dispatch_uid="hooks-stamp-saved")
        post_delete.connect(HOOKS_STAMP.changed, sender=Webhook, dispatch_uid="hooks-stamp-deleted")
