"""Matches in admin: read the result, void it. Results are entered on the referee
pages or through the API, which share one validating service."""

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse

from config.admin import ReadOnlyAdmin
from config.jsonbody import JSONBodyError, json_body_loads
from config.permissions import user_can_void
from matches.models import AuditEntry, Match, Seat
from matches.selectors import match_as_body, match_detail
from matches.services import match_correct, match_void


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ["position", "player", "result"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class AuditInline(admin.TabularInline):
    model = AuditEntry
    extra = 0
    can_delete = False
    fields = ["at", "actor", "action", "data"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class DisputedFilter(admin.SimpleListFilter):
    """Results a second referee disputed (``matches.confirmation.match_dispute``): each waits for an admin
    to correct or void it, and its note is on its page."""

    title = "dispute"
    parameter_name = "disputed"

    def lookups(self, request, model_admin):
        return [("yes", "Disputed")]

    def queryset(self, request, queryset):
        return queryset.filter(disputed_at__isnull=False) if self.value() == "yes" else queryset


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """The audit log: visible to admins, editable by nobody."""

    list_display = ["at", "actor", "action", "match"]
    list_filter = ["action", "match__game"]
    search_fields = ["actor__username", "match__id"]
    list_select_related = ["actor", "match", "match__game"]
    date_hierarchy = "at"


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "played_at", "status", "rated", "referee"]
    list_filter = ["game", "status", "rated"]
    list_filter += [DisputedFilter]  # disputes wait for an admin: correct or void them
    search_fields = ["seats__player__name"]
    date_hierarchy = "played_at"
    list_select_related = ["game", "referee"]
    inlines = [SeatInline, AuditInline]
    change_form_template = "admin/matches/match/change_form.html"
    # batch_head too: editable, it would be a select listing every match of the site.
    readonly_fields = [
        "game",
        "played_at",
        "rated",
        "status",
        "referee",
        "created_at",
        "voided_at",
        "voided_by",
        "batch_head",
    ]
    readonly_fields += ["disputed_at", "disputed_by", "dispute_note"]  # a dispute ends by correcting or voiding
    actions = ["void_matches"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # Void instead: ratings must be replayed without the match.

    def get_urls(self):
        own = [path("<int:pk>/correct/", self.admin_site.admin_view(self.correct_view), name="matches_match_correct")]
        return own + super().get_urls()

    def correct_view(self, request, pk):
        """Correct a result: edit its body (the API's shape); the service validates and replays."""
        if not user_can_void(request.user):
            raise PermissionDenied
        match = get_object_or_404(Match, pk=pk)
        # Pre-filled with the stored body, league included: saved unchanged, it changes nothing.
        stored = match_as_body(match_detail(match_id=pk))
        errors, text = [], json.dumps(stored, indent=2)
        if request.method == "POST":
            text = request.POST.get("body", "")
            try:
                # As the API reads a body: strict JSON, nesting capped (a 5,000-deep body was a RecursionError).
                body = json_body_loads(text)
                match_correct(match_id=pk, by=request.user, data=body)
            except JSONBodyError as error:
                errors = [f"Not valid JSON: {error}"]
            except ValidationError as error:
                errors = [f"{field}: {' '.join(messages_)}" for field, messages_ in error.message_dict.items()]
            else:
                if match_as_body(match_detail(match_id=pk)) == stored:
                    self.message_user(request, "No change: the result is as stored; nothing was replayed.")
                else:
                    self.message_user(
                        request, "Result corrected; ratings are being replayed from it.", messages.SUCCESS
                    )
                return redirect(reverse("admin:matches_match_change", args=[pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Correct {match}",
            "match": match,
            "opts": self.model._meta,
            "body": text,
            "errors": errors,
        }
        return render(request, "admin/matches/match/correct.html", context, status=400 if errors else 200)

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
