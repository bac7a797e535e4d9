"""Admin for bots, the one leagues model whose admin touches nothing above leagues.

Games, leagues and players are registered by ``ratings.admin``: saving a
game's or a league's rules replays the game's ratings and refreshes due
dates (ratings and matches), and a player's page lists their ratings. Admin
groups pages by the model's app, so they still show under Leagues.
"""

from django.contrib import admin

from leagues.models import Bot


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "game", "rating", "max_rating", "active"]
    list_filter = ["game", "active"]
    list_editable = ["active"]
