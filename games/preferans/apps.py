from django.utils.translation import gettext_lazy as _

from games import plugin


class PreferansConfig(plugin.GameConfig):
    name = "games.preferans"
    label = "preferans"
    verbose_name = _("Preferans")
    kind = "games.preferans.kind.PreferansKind"
