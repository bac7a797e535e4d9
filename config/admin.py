"""Admin pieces every app shares."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows only their service writes (the ledger, the audit log): admin shows them and changes nothing."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
