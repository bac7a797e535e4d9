"""Ratings are derived data: admin shows them, only the rating services write them.

The admin of games, leagues and players, whose rules feed the ratings, is ``web.admin``'s.
"""

from django.contrib import admin
from django.utils import timezone

from config.admin import ReadOnlyAdmin
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "league", "rating", "peak_rating", "rated_matches", "last_played_at"]
    list_filter = ["game", "league"]
    search_fields = ["player__name"]
    list_select_related = ["player", "game", "league"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["played", "match", "unit", "player", "rating_before", "rating_after", "delta"]
    list_filter = ["game"]
    search_fields = ["player__name"]
    list_select_related = ["player", "match", "match__game"]
    date_hierarchy = "played_at"

    class Media:
        css = {"all": ["css/admin.css"]}

    @admin.display(description="Played at", ordering="played_at")
    def played(self, obj):
        # Short: "Oct. 6, 2026, 7 p.m." beside the match's own date pushed the table past a 1366 px screen.
        return timezone.localtime(obj.played_at).strftime("%Y-%m-%d %H:%M")


@admin.register(Promotion)
class PromotionAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "player", "from_league", "to_league", "rating"]
    list_select_related = ["player", "from_league", "to_league"]


@admin.register(RatingState)
class RatingStateAdmin(ReadOnlyAdmin):
    list_display = ["game", "applied_until_played_at", "replay_from_played_at", "updated_at"]
