from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ConfigConfig(AppConfig):
    """The project's own configuration as an app, so that its system checks are registered."""

    name = "config"
    verbose_name = _("Cardrank configuration")

    def ready(self):
        from config import checks  # noqa: F401 - registers the deployment checks
