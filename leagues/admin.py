from django.contrib import admin

from leagues.models import Game, League, Player
from ratings.models import PlayerRating


class LeagueInline(admin.TabularInline):
    model = League
    extra = 0
    fields = ["slug", "name", "tier", "promotion_threshold", "rating_floor"]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "rating_system", "start_rating"]
    inlines = [LeagueInline]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "tier", "promotion_threshold", "rating_floor"]
    list_filter = ["game", "tier"]
    list_select_related = ["game"]


class PlayerRatingInline(admin.TabularInline):
    model = PlayerRating
    extra = 0
    can_delete = False
    fields = ["game", "league", "rating", "peak_rating", "rated_matches"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "created_at"]
    search_fields = ["name"]
    raw_id_fields = ["user"]
    inlines = [PlayerRatingInline]
