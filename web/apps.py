from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebConfig(AppConfig):
    """What people and clients reach: the pages, the REST API and the admin screens that span apps.

    The top layer: it may import every app below it (games, ratings, matches, leagues) and none of them
    imports it (docs/architecture.md). It has no models.
    """

    name = "web"
    verbose_name = _("Pages and APIs")
