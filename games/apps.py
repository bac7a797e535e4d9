from django.apps import AppConfig
from django.conf import settings
from django.utils.module_loading import import_string


class GamesConfig(AppConfig):
    """The game kinds: one package per game (``games/slaps``, ``games/preferans``, ``games/bridge``)."""

    name = "games"
    verbose_name = "Games"

    def ready(self):
        from games import (
            checks,  # noqa: F401 - registers the stored games' check
            tasks,  # noqa: F401 - registers the tasks ``import_runs`` looks up by name
        )
        from games.export_files import RESULTS_CSV, results_file_prepare
        from games.import_runs import connect_erasure
        from games.setup import connect_receivers
        from leagues.kinds import kind_register
        from ratings.engines import REGISTRY
        from ratings.figures import figure_provide

        figure_provide(RESULTS_CSV, results_file_prepare)  # the public results.csv, prepared with the figures
        from games.export_files import results_files_drop
        from ratings.people import player_erased

        player_erased.connect(results_files_drop, dispatch_uid="games.export_files.erasure")
        connect_receivers()  # saving a game, a league or a bot renews the kept setup's stamp
        connect_erasure()  # erasing a person reaches the import runs' previews and kept files

        # A club can add a game without editing Cardrank: a kind class on the path, named in the setting,
        # with the engine it brings (the three built-in games' engines are in the registry already).
        for path in settings.CARDRANK_GAME_KINDS:
            kind = kind_register(import_string(path)())
            if kind.engine is not None:
                REGISTRY.setdefault(kind.slug, kind.engine)
