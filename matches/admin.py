"""Matches in admin: the list, a match as stored, correct it, void it. Results are entered on the
referee pages or through the API, which share one validating service; admin writes a match only
through the services too (``match_correct``, ``match_void``)."""

import json

from django.contrib import admin, messages
from django.contrib.humanize.templatetags.humanize import intcomma
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from config.admin import ReadOnlyAdmin
from config.jsonbody import JSONBodyError, json_body_loads
from config.permissions import user_can_void
from leagues.admin import NameKeySearch
from leagues.kinds import kind_of
from matches.models import AuditEntry, Match, Seat
from matches.selectors import match_as_body, match_detail
from matches.services import match_correct, match_void

#: The folded section of a match's page: its services' bookkeeping.
INTERNAL = gettext_lazy("Internal")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ["position", "player", "bot", "result"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class AuditInline(admin.TabularInline):
    model = AuditEntry
    extra = 0
    can_delete = False
    fields = ["at", "actor", "action", "data_shown"]
    readonly_fields = fields

    @admin.display(description=gettext_lazy("Data"))
    def data_shown(self, obj):
        # Folded: a bridge session's body is thousands of characters, a column 5,000 px tall on a phone.
        text = json.dumps(obj.data, indent=1, ensure_ascii=False)
        characters = ngettext("%(count)s character", "%(count)s characters", len(text)) % {"count": intcomma(len(text))}
        return format_html(
            '<details><summary>{} ({})</summary><pre class="audit-data">{}</pre></details>',
            obj.get_action_display(),
            characters,
            text,
        )

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class WaitingFilter(admin.SimpleListFilter):
    """Results a two-step league holds until a second referee confirms them."""

    title = gettext_lazy("waiting for confirmation")
    parameter_name = "waiting"

    def lookups(self, request, model_admin):
        return [("yes", _("Waiting")), ("no", _("Not waiting"))]

    def queryset(self, request, queryset):
        waiting = Q(awaiting_confirmation=True, status=Match.Status.SUBMITTED)
        if self.value() == "yes":
            return queryset.filter(waiting)
        if self.value() == "no":
            return queryset.exclude(waiting)
        return queryset


class DisputedFilter(admin.SimpleListFilter):
    """Results a second referee disputed (``matches.confirmation.match_dispute``): each waits for an admin
    to correct or void it, and its note is on its page."""

    title = gettext_lazy("dispute")
    parameter_name = "disputed"

    def lookups(self, request, model_admin):
        return [("yes", _("Disputed"))]

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
class MatchAdmin(NameKeySearch, admin.ModelAdmin):
    """Matches: the list, each match as stored, *Correct result* (the game's entry form) and *Void*.

    Nothing on a match's page is a form field: every column is written by a
    service that validates it (``matches.services``: submit, correct, confirm,
    void; the rating task sets the status), so the page shows the match and a
    post to it is refused (403). The list reads a page of matches with their
    seats in a fixed number of queries; each game's kind says how its players
    read in a column (``admin_players``).
    """

    # No game column: the league names its game ("Slaps Pro"), and the list filters by game.
    list_display = [
        "id",
        "played",
        "players",
        "league",
        "status_shown",
        "rated",
    ]
    list_filter = [
        "game",
        "league",
        "status",
        WaitingFilter,
        DisputedFilter,  # disputes wait for an admin: correct or void them
        "rated",
    ]
    search_fields = ["seats__player__name"]
    # A player's name in any case and script, yo as ye (leagues.names), on every database.
    name_key_fields = ("seats__player__search_name",)
    date_hierarchy = "played_at"
    list_select_related = ["game", "league"]
    list_per_page = 50
    inlines = [SeatInline, AuditInline]
    change_form_template = "admin/matches/match/change_form.html"
    # Every field, one a line; the page is read-only anyway (has_change_permission), this says what it shows.
    readonly_fields = [
        "game",
        "played_at",
        "rated",
        "status",
        "league",
        "referee",
        "created_at",
        "awaiting_confirmation",
        "confirmed_by",
        "due_at",
        "voided_at",
        "voided_by",
        "idempotency_key",
        "idempotency_fingerprint",
        "batch_head",
    ]
    readonly_fields += ["disputed_at", "disputed_by", "dispute_note"]  # a dispute ends by correcting or voiding
    actions = ["void_matches"]
    # The page in sections: what was played first, the bookkeeping of services last and folded.
    sections = [
        (None, ["game", "played_at", "league", "rated", "status"]),
        (
            gettext_lazy("Confirmation and rating"),
            ["awaiting_confirmation", "confirmed_by", "disputed_at", "disputed_by", "dispute_note", "due_at"],
        ),
        (gettext_lazy("Record"), ["referee", "created_at", "voided_at", "voided_by"]),
        (INTERNAL, ["idempotency_key", "idempotency_fingerprint", "batch_head"]),
    ]

    class Media:
        css = {"all": ["css/admin.css"]}

    def get_fieldsets(self, request, obj=None):
        placed = {name for _, names in self.sections for name in names}
        # A column or a shown value added later and not placed yet shows in the first section, not nowhere.
        shown = [field.name for field in self.model._meta.concrete_fields if not field.primary_key]
        shown += [name for name in self.get_readonly_fields(request, obj) if name not in shown]
        rest = [name for name in shown if name not in placed]
        first, *others = self.sections
        fieldsets = [(first[0], {"fields": first[1] + rest})]
        for title, names in others:
            fieldsets.append((title, {"fields": names, "classes": ["collapse"] if title is INTERNAL else []}))
        return fieldsets

    def get_queryset(self, request):
        seats = Prefetch("seats", queryset=Seat.objects.select_related("player", "bot").order_by("position"))
        return super().get_queryset(request).prefetch_related(seats)

    def has_change_permission(self, request, obj=None):
        # A match is changed only by its services: its page is a view (a post to it is refused) while the
        # list keeps the model's permission for its actions.
        if obj is not None:
            return False
        return super().has_change_permission(request, obj)

    @admin.display(description=gettext_lazy("Played at"), ordering="played_at")
    def played(self, obj):
        # Short, in the site's zone: "Nov. 30, 2026, 8 p.m." took a column's width from the players'.
        return timezone.localtime(obj.played_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description=gettext_lazy("Players"))
    def players(self, obj):
        kind = kind_of(obj.game)
        if kind is None:  # a game whose kind is not loaded: its seats, as stored
            return ", ".join(str(seat.occupant) for seat in obj.seats.all())
        return kind.admin_players(obj)

    @admin.display(description=gettext_lazy("Status"), ordering="status")
    def status_shown(self, obj):
        if obj.status == Match.Status.SUBMITTED and obj.awaiting_confirmation:
            return _("Waiting for confirmation")
        return obj.get_status_display()

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # Void instead: ratings must be replayed without the match.

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The match as stored, with *Correct result*: the game's entry form pre-filled (``games.entry``),
        or the JSON form for a game without an entry page."""
        match = Match.objects.select_related("game").filter(pk=object_id).first() if str(object_id).isdigit() else None
        extra = {}
        if match is not None and match.status != Match.Status.VOID:
            kind = kind_of(match.game)
            if kind is not None and kind.has_entry_page:
                extra["correct_url"] = reverse("result-entry", args=[match.game.slug]) + f"?correct={match.pk}"
                extra["correct_json_url"] = reverse("admin:matches_match_correct", args=[match.pk])
            else:
                extra["correct_url"] = reverse("admin:matches_match_correct", args=[match.pk])
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        own = [path("<int:pk>/correct/", self.admin_site.admin_view(self.correct_view), name="matches_match_correct")]
        return own + super().get_urls()

    def correct_view(self, request, pk):
        """Correct a result as JSON, the advanced way (what a game's entry page cannot show): its body in
        the API's shape; the service validates and replays. *Correct result* opens the game's entry
        form instead where the game has one (``games.entry``)."""
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
                errors = [_("Not valid JSON: %(error)s") % {"error": error}]
            except ValidationError as error:
                errors = [f"{field}: {' '.join(messages_)}" for field, messages_ in error.message_dict.items()]
            else:
                if match_as_body(match_detail(match_id=pk)) == stored:
                    self.message_user(request, _("No change: the result is as stored; nothing was replayed."))
                else:
                    self.message_user(
                        request, _("Result corrected; ratings are being replayed from it."), messages.SUCCESS
                    )
                return redirect(reverse("admin:matches_match_change", args=[pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Correct %(match)s") % {"match": match},
            "match": match,
            "opts": self.model._meta,
            "body": text,
            "errors": errors,
        }
        return render(request, "admin/matches/match/correct.html", context, status=400 if errors else 200)

    @admin.action(description=gettext_lazy("Void selected matches (ratings are replayed)"))
    def void_matches(self, request, queryset):
        if not user_can_void(request.user):
            self.message_user(request, _("You may not void matches."), messages.ERROR)
            return
        voided = 0
        for match_id in queryset.exclude(status=Match.Status.VOID).values_list("pk", flat=True):
            match_void(match_id=match_id, by=request.user)
            voided += 1
        done = ngettext(
            "Voided %(count)d match; ratings are being replayed.",
            "Voided %(count)d matches; ratings are being replayed.",
            voided,
        )
        self.message_user(request, done % {"count": voided}, messages.SUCCESS)
