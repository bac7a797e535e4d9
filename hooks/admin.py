"""Webhooks in admin: a club's admin adds, changes and tests them; deliveries are shown, never edited.

The secret is shown in clear only on the add form (a generated one is offered) and then masked; the change
form takes a new one, or keeps the old when left empty. Saving goes through ``hooks.services.webhook_save``.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from config.admin import ReadOnlyAdmin
from hooks import services
from hooks.models import Webhook, WebhookDelivery
from hooks.validation import secret_generate

#: Deliveries a webhook's page lists (the newest); the deliveries' own list has them all.
RECENT_DELIVERIES = 20


class WebhookForm(forms.ModelForm):
    class Meta:
        model = Webhook
        fields = list(services.WEBHOOK_FIELDS)  # what webhook_save takes
        widgets = {"url": forms.URLInput(attrs={"size": 60})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.fields["secret"].initial = secret_generate()
            self.fields["secret"].widget = forms.TextInput(attrs={"size": 50, "autocomplete": "off"})
        else:
            self.fields["secret"].required = False
            self.fields["secret"].widget = forms.PasswordInput(
                render_value=False, attrs={"autocomplete": "new-password"}
            )
            self.fields["secret"].help_text = _(
                "Now %(masked)s. Leave empty to keep it; enter a new one to replace it (tell the receiver)."
            ) % {"masked": self.instance.secret_masked()}
        self.initial_secret = self.instance.secret

    def clean_secret(self):
        secret = self.cleaned_data.get("secret")
        return secret or self.initial_secret


def _delivery_link(delivery: WebhookDelivery) -> str:
    url = reverse("admin:hooks_webhookdelivery_change", args=[delivery.pk])
    return format_html('<a href="{}">{}</a>', url, str(delivery.uuid)[:8])


class RecentDeliveries(admin.TabularInline):
    model = WebhookDelivery
    verbose_name_plural = _("Recent deliveries (the newest %(count)s)") % {"count": RECENT_DELIVERIES}
    fields = ["delivery", "event", "created_at", "state", "attempts", "last_status_code", "last_error"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        match = request.resolver_match
        object_id = match.kwargs.get("object_id") if match else None
        if not object_id or not str(object_id).isdigit():
            return queryset.none()
        recent = WebhookDelivery.objects.filter(webhook_id=int(object_id)).order_by("-created_at", "-id")
        return queryset.filter(pk__in=list(recent.values_list("pk", flat=True)[:RECENT_DELIVERIES]))

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("delivery"))
    def delivery(self, obj):
        return _delivery_link(obj)

    @admin.display(description=_("status"))
    def state(self, obj):
        return obj.status


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    form = WebhookForm
    list_display = ["name", "url_shown", "events_shown", "league", "active", "last_delivery"]
    list_filter = ["active", "league"]
    search_fields = ["name", "url"]
    list_select_related = ["league"]
    readonly_fields = ["created_by", "created_at", "all_deliveries"]
    inlines = [RecentDeliveries]
    actions = ["send_test_event"]

    def get_queryset(self, request):
        latest = WebhookDelivery.objects.filter(webhook=OuterRef("pk")).order_by("-created_at", "-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_delivered_at=Subquery(latest.values("delivered_at")[:1]),
                last_next_attempt_at=Subquery(latest.values("next_attempt_at")[:1]),
                last_attempts=Subquery(latest.values("attempts")[:1]),
                last_code=Subquery(latest.values("last_status_code")[:1]),
                last_created_at=Subquery(latest.values("created_at")[:1]),
            )
        )

    def save_model(self, request, obj, form, change):
        fields = {name: form.cleaned_data[name] for name in services.WEBHOOK_FIELDS if name in form.cleaned_data}
        services.webhook_save(webhook=obj, by=None if change else request.user, **fields)

    @admin.display(description=_("URL"), ordering="url")
    def url_shown(self, obj):
        return obj.url if len(obj.url) <= 60 else obj.url[:59] + "…"

    @admin.display(description=_("events"))
    def events_shown(self, obj):
        return ", ".join(obj.events)

    @admin.display(description=_("last delivery"))
    def last_delivery(self, obj):
        if obj.last_created_at is None:
            return _("none yet")
        if obj.last_delivered_at is not None:
            return _("delivered (%(code)s)") % {"code": obj.last_code}
        if obj.last_next_attempt_at is None:
            return _("given up (%(code)s)") % {"code": obj.last_code or "—"}
        if obj.last_attempts == 0:
            return _("waiting")
        return _("retrying (%(code)s)") % {"code": obj.last_code or "—"}

    @admin.display(description=_("deliveries"))
    def all_deliveries(self, obj):
        if obj.pk is None:
            return "—"
        url = reverse("admin:hooks_webhookdelivery_changelist") + f"?webhook__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, _("All deliveries of this webhook"))

    @admin.action(description=_("Send a test event"))
    def send_test_event(self, request, queryset):
        by = request.user.get_username()
        webhooks = list(queryset)
        for webhook in webhooks:
            services.webhook_ping(webhook=webhook, by=by)
        self.message_user(
            request,
            ngettext(
                "A test event is on its way to %(count)d webhook.",
                "A test event is on its way to %(count)d webhooks.",
                len(webhooks),
            )
            % {"count": len(webhooks)},
            messages.SUCCESS,
        )


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = [
        "uuid",
        "webhook",
        "event",
        "created_at",
        "state",
        "attempts",
        "last_status_code",
        "next_attempt_at",
    ]
    list_filter = ["event", "webhook"]
    list_select_related = ["webhook"]
    search_fields = ["uuid", "key"]
    date_hierarchy = "created_at"
    actions = ["retry_now"]
    fields = [
        "webhook",
        "uuid",
        "event",
        "key",
        "created_at",
        "state",
        "attempts",
        "next_attempt_at",
        "delivered_at",
        "last_status_code",
        "last_error",
        "history",
        "payload",
    ]
    readonly_fields = fields

    @admin.display(description=_("status"))
    def state(self, obj):
        return obj.status

    def has_retry_permission(self, request) -> bool:
        return request.user.has_perm("hooks.change_webhook")

    @admin.action(description=_("Retry now"), permissions=["retry"])
    def retry_now(self, request, queryset):
        count = services.deliveries_retry_now(delivery_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request,
            ngettext(
                "%(count)d delivery will be attempted again in a moment.",
                "%(count)d deliveries will be attempted again in a moment.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )
