from django.utils.translation import gettext_lazy as _

from games import plugin


class SlapsConfig(plugin.GameConfig):
    name = "games.slaps"
    label = "slaps"
    verbose_name = _("Slaps")
    kind = "games.slaps.kind.SlapsKind"
