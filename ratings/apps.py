from django.apps import AppConfig
from django.db.models.signals import post_save
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self):
        from leagues.models import Bot, Game, League, Player
        from ratings import (
            checks,  # noqa: F401 - registers the stored parameters' check
            tasks,  # noqa: F401 - registers the tasks ``services.ratings_enqueue`` looks up by name
        )
        from ratings.receivers import named_saved, player_saved

        # A rename re-orders ties on cached leaderboards: give the player's games a new version.
        post_save.connect(player_saved, sender=Player, dispatch_uid="ratings-player-saved")
        # Names of games, leagues and bots are cached too (profile cards, charts, recent matches).
        for model in (Game, League, Bot):
            post_save.connect(named_saved, sender=model, dispatch_uid=f"ratings-{model._meta.model_name}-saved")
