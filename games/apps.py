from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    """What the games share: entry, imports, exports and the kinds' base; each game is an app of its own."""

    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from games import (
            checks,  # noqa: F401 - registers the stored games' check
            tasks,  # noqa: F401 - registers the tasks ``import_runs`` looks up by name
        )
        from games.export_files import RESULTS_CSV, results_file_prepare
        from games.import_runs import connect_erasure
        from games.plugin import kind_install
        from games.setup import connect_receivers
        from ratings.figures import figure_provide

        figure_provide(RESULTS_CSV, results_file_prepare)  # the public results.csv, prepared with the figures
        from games.export_files import results_files_drop
        from ratings.people import player_erased

        player_erased.connect(results_files_drop, dispatch_uid="games.export_files.erasure")
        connect_receivers()  # saving a game, a league or a bot renews the kept setup's stamp
        connect_erasure()  # erasing a person reaches the import runs' previews and kept files
        from games.tasks import seasons_heard_rated
        from ratings.signals import results_rated

        results_rated.connect(
            seasons_heard_rated, dispatch_uid="games.tasks.seasons_heard_rated"
        )  # running seasons' tables

        # The games are apps of their own (games/plugin.py), registering their kinds when ready; a kind with
        # no models may instead be named in the setting (a club's game added without editing Cardrank).
        for path in settings.CARDRANK_GAME_KINDS:
            kind_install(path)
