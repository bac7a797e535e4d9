"""Admin for bots, the one leagues model whose admin touches nothing above leagues.

Games, leagues and players are registered by ``web.admin``: saving a
game's or a league's rules replays the game's ratings and refreshes due
dates (ratings and matches), and a player's page lists their ratings. Admin
groups pages by the model's app, so they still show under Leagues.
"""

from django.contrib import admin

from leagues.kinds import systems_with_bots
from leagues.models import Bot, Game


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "game", "rating", "max_rating", "active"]
    list_filter = ["game", "active"]
    list_editable = ["active"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        # Only games whose kind seats bots (Preferans): a Slaps bot could never sit at a table.
        if db_field.name == "game":
            kwargs["queryset"] = Game.objects.filter(rating_system__in=systems_with_bots())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
