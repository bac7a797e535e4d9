"""Claims in admin: read-mostly (decisions go through the /claims/ page and ``people.services``)."""

from django.contrib import admin

from people.models import PlayerClaim


@admin.register(PlayerClaim)
class PlayerClaimAdmin(admin.ModelAdmin):
    list_display = ["player", "user", "status", "created_at", "decided_at", "decided_by"]
    list_filter = ["status", "created_at", "decided_at"]
    search_fields = ["player__name", "user__username"]
    list_select_related = ["player", "user", "decided_by"]
    date_hierarchy = "created_at"
    readonly_fields = ["user", "player", "status", "message", "reason", "created_at", "decided_at", "decided_by"]
    fields = readonly_fields

    def has_add_permission(self, request) -> bool:
        return False  # a claim is a person's request, made on the player's page (people.services.claim_request)

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # decided on /claims/, where the rules are applied (people.services.claim_decide)
