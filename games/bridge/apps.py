from django.utils.translation import gettext_lazy as _

from games import plugin


class BridgeConfig(plugin.GameConfig):
    name = "games.bridge"
    label = "bridge"
    verbose_name = _("Bridge")
    kind = "games.bridge.kind.BridgeKind"
