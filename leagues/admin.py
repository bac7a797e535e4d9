"""Admin for bots, the one leagues model whose admin touches nothing above leagues.

Games, leagues and players are registered by ``web.admin``: saving a
game's or a league's rules replays the game's ratings and refreshes due
dates (ratings and matches), and a player's page lists their ratings. Admin
groups pages by the model's app, so they still show under Leagues.
"""

from django.contrib import admin
from django.db.models import Q

from leagues.kinds import systems_with_bots
from leagues.models import Bot, Game
from leagues.names import name_key


class NameKeySearch:
    """Admin's search also finds people by their names' search keys (``leagues.names``: any case and script,
    ё as its undotted letter, on every database; SQLite's ``icontains`` folds only ASCII). Put before
    ``admin.ModelAdmin``; ``name_key_fields`` are paths to a ``search_name`` ("search_name",
    "player__search_name"). What ``search_fields`` find is found as well."""

    name_key_fields: tuple[str, ...] = ()

    def get_search_results(self, request, queryset, search_term):
        found, duplicates = super().get_search_results(request, queryset, search_term)
        key = name_key(search_term)
        if not key or not self.name_key_fields:
            return found, duplicates
        named = Q()
        for path in self.name_key_fields:
            named |= Q(**{f"{path}__contains": key})
        spanning = any("__" in path for path in self.name_key_fields)
        return found | queryset.filter(named), duplicates or spanning


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
