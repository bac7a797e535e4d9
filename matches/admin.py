"""Matches in admin: read the result, void it. Results are entered on the referee
pages or through the API, which share one validating service."""

from django.contrib import admin, messages

from matches.models import Match, Seat
from matches.services import match_void, user_can_void


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ["position", "player", "result"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "played_at", "status", "rated", "referee"]
    list_filter = ["game", "status", "rated"]
    search_fields = ["seats__player__name"]
    date_hierarchy = "played_at"
    list_select_related = ["game", "referee"]
    inlines = [SeatInline]
    readonly_fields = ["game", "played_at", "rated", "status", "referee", "created_at", "voided_at", "voided_by"]
    actions = ["void_matches"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # Void instead: ratings must be replayed without the match.

    @admin.action(description="Void selected matches (ratings are replayed)")
    def void_matches(self, request, queryset):
        if not user_can_void(request.user):
            self.message_user(request, "You may not void matches.", messages.ERROR)
            return
        voided = 0
        for match_id in queryset.exclude(status=Match.Status.VOID).values_list("pk", flat=True):
            match_void(match_id=match_id, by=request.user)
            voided += 1
        self.message_user(request, f"Voided {voided} match(es); ratings are being replayed.", messages.SUCCESS)
