"""Authentication backend: Django's ``ModelBackend``, reading a user's permissions in one query.

Every write checks a permission, and ``ModelBackend`` reads the user's own
permissions and their groups' in two queries. This one reads both at once;
what it answers, and its per-request cache on the user, are Django's.
"""

from django.contrib.auth import backends
from django.contrib.auth.models import Permission
from django.db.models import Q


class ModelBackend(backends.ModelBackend):
    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            permissions = Permission.objects.all()
            if not user_obj.is_superuser:
                permissions = permissions.filter(Q(user=user_obj) | Q(group__user=user_obj))
            rows = permissions.values_list("content_type__app_label", "codename").order_by().distinct()
            user_obj._perm_cache = {f"{app_label}.{codename}" for app_label, codename in rows}
        return user_obj._perm_cache
