"""Admin pieces every app shares, and the API tokens' admin (config.tokens)."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework.authtoken.models import TokenProxy

from config.models import ApiToken
from config.tokens import api_token_issue, api_token_revoke


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows only their service writes (the ledger, the audit log): admin shows them and changes nothing."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ApiTokenForm(forms.ModelForm):
    """The add form: a user, a name, and an expiry that may be left blank (``CARDRANK_TOKEN_DAYS`` from now)."""

    class Meta:
        model = ApiToken
        fields = ["user", "name", "expires_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "expires_at" not in self.fields:  # the change form: the expiry is read-only there
            return
        self.fields["expires_at"].required = False
        self.fields["expires_at"].help_text = ngettext(
            "Leave blank for %(days)s day from now.",
            "Leave blank for %(days)s days from now.",
            settings.CARDRANK_TOKEN_DAYS,
        ) % {"days": settings.CARDRANK_TOKEN_DAYS}

    def clean_expires_at(self):
        expires_at = self.cleaned_data["expires_at"]
        if expires_at is not None and expires_at <= timezone.now():
            raise forms.ValidationError(_("A new token must expire in the future."))
        return expires_at


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens by their prefix and dates; the secret is never stored, so never shown but once, on the page
    that answers the add form (``issued.html``), an answer no browser or proxy keeps.

    Only superusers add tokens: a token acts as its user, so whoever may add one for any user could act as
    any superuser. Changing a token changes only its name; revoking is the list's action (or deleting it).
    """

    form = ApiTokenForm
    list_display = ["user", "prefix_shown", "name", "created_at", "expires_at", "last_used_at", "revoked_at"]
    list_select_related = ["user"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter), "expires_at"]
    search_fields = ["user__username", "prefix", "name"]
    autocomplete_fields = ["user"]
    actions = ["revoke"]

    @admin.display(description=_("prefix"), ordering="prefix")
    def prefix_shown(self, token):
        return f"{token.prefix}…"

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["user", "name", "expires_at"]
        return ["user", "prefix_shown", "name", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["user", "prefix_shown", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def has_add_permission(self, request):
        return request.user.is_superuser

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
        else:
            request.api_token_secret = api_token_issue(token=obj)

    def response_add(self, request, obj, post_url_continue=None):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("API token issued"),
            "token": obj,
            "secret": request.api_token_secret,
        }
        response = render(request, "admin/config/apitoken/issued.html", context)
        add_never_cache_headers(response)  # Cache-Control: no-store, so the secret stays on this one page
        return response

    @admin.action(description=_("Revoke the selected tokens (refused at once)"), permissions=["change"])
    def revoke(self, request, queryset):
        count = api_token_revoke(tokens=queryset)
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count) % {"count": count},
            messages.SUCCESS,
        )


if admin.site.is_registered(TokenProxy):
    # DRF's plain-text tokens are no longer read (config.tokens): its page would only show a table the
    # migration emptied, and adding there would make keys that never work.
    admin.site.unregister(TokenProxy)
