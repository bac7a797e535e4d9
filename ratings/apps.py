from django.apps import AppConfig
from django.db.models.signals import post_save


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self):
        from leagues.models import Player
        from ratings.caching import player_saved

        # A rename re-orders ties on cached leaderboards: give the player's games a new version.
        post_save.connect(player_saved, sender=Player, dispatch_uid="ratings-player-saved")
