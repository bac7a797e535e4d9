"""Ratings are derived data: admin shows them, only the rating services write them.

The admin of games, leagues and players, whose rules feed the ratings, is ``web.admin``'s.
"""

from django.contrib import admin, messages
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy, ngettext

from config.admin import ReadOnlyAdmin
from leagues.admin import NameKeySearch
from ratings.models import PlayerRating, Promotion, RatingChange, RatingList, RatingState
from ratings.tasks import rating_list_republish


@admin.register(PlayerRating)
class PlayerRatingAdmin(NameKeySearch, ReadOnlyAdmin):
    list_display = ["player", "game", "league", "rating", "peak_rating", "rated_matches", "last_played_at"]
    list_filter = ["game", "league"]
    search_fields = ["player__name"]
    name_key_fields = ("player__search_name",)
    list_select_related = ["player", "game", "league"]


@admin.register(RatingChange)
class RatingChangeAdmin(NameKeySearch, ReadOnlyAdmin):
    list_display = ["played", "match", "unit", "player", "rating_before", "rating_after", "delta"]
    list_filter = ["game"]
    search_fields = ["player__name"]
    name_key_fields = ("player__search_name",)
    list_select_related = ["player", "match", "match__game"]
    date_hierarchy = "played_at"

    class Media:
        css = {"all": ["css/admin.css"]}

    @admin.display(description=gettext_lazy("Played at"), ordering="played_at")
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


@admin.register(RatingList)
class RatingListAdmin(ReadOnlyAdmin):
    """Published lists: shown, never edited. Republishing a day is explicit: a new version, by a task (a scan of
    the game's ledger), the old version kept and still readable."""

    list_display = ["game", "day", "version", "players", "published_at", "published_by"]
    list_filter = ["game"]
    date_hierarchy = "day"
    actions = ["republish"]

    def has_republish_permission(self, request) -> bool:
        return request.user.has_perm("ratings.add_ratinglist")

    @admin.action(
        description=gettext_lazy("Republish as a new version (the old one is kept)"), permissions=["republish"]
    )
    def republish(self, request, queryset):
        days = sorted({(rating_list.game_id, rating_list.day) for rating_list in queryset})
        by = request.user.get_username()
        for game_id, day in days:
            transaction.on_commit(
                lambda game_id=game_id, day=day: rating_list_republish.delay(game_id, day.isoformat(), by)
            )
        self.message_user(
            request,
            ngettext(
                "%(count)d list will be published again as a new version in a moment.",
                "%(count)d lists will be published again as new versions in a moment.",
                len(days),
            )
            % {"count": len(days)},
            messages.SUCCESS,
        )
