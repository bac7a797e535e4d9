"""Ratings are derived data: admin shows them, only the rating services write them."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "league", "rating", "peak_rating", "rated_matches"]
    list_filter = ["game", "league"]
    search_fields = ["player__name"]
    list_select_related = ["player", "game", "league"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "match", "unit", "player", "rating_before", "rating_after", "delta"]
    list_filter = ["game"]
    search_fields = ["player__name"]
    list_select_related = ["player", "match", "match__game"]
    date_hierarchy = "played_at"


@admin.register(Promotion)
class PromotionAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "player", "from_league", "to_league", "rating"]
    list_select_related = ["player", "from_league", "to_league"]


@admin.register(RatingState)
class RatingStateAdmin(ReadOnlyAdmin):
    list_display = ["game", "applied_until_played_at", "replay_from_played_at", "updated_at"]
