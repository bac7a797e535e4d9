from django.apps import AppConfig
from django.conf import settings
from django.utils.module_loading import import_string


class GamesConfig(AppConfig):
    """The game kinds: one package per game (``games/slaps``, ``games/preferans``, ``games/bridge``)."""

    name = "games"
    verbose_name = "Games"

    def ready(self):
        from leagues.kinds import kind_register

        # A club can add a game without editing Cardrank: a kind class on the path, named in the setting.
        for path in settings.CARDRANK_GAME_KINDS:
            kind_register(import_string(path)())
