"""Authentication backend: Django's ``ModelBackend``, reading a user's permissions in one query.

``ModelBackend`` reads a user's own permissions and their groups' in two
queries; this backend reads both in one. Nothing is kept between requests:
the user's row is read by Django on every request (one indexed query) and the
permissions at most once per request (Django's ``_perm_cache`` on the user
object, which lives as long as the request). So a referee who loses the role
(admin's forms, a shell, a ``QuerySet.update``, raw SQL, a restored backup)
is refused on the next request, and no password hash or credential is ever
written to the cache (issue 26; ``tests/test_revocation.py``).
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Q


def _read_permissions(user_obj) -> set[str]:
    permissions = Permission.objects.all()
    if not user_obj.is_superuser:
        permissions = permissions.filter(Q(user=user_obj) | Q(group__user=user_obj))
    rows = permissions.values_list("content_type__app_label", "codename").order_by().distinct()
    return {f"{app_label}.{codename}" for app_label, codename in rows}


class ModelBackend(backends.ModelBackend):
    """Django's, with the user's own and their groups' permissions read together, once per request."""

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            user_obj._perm_cache = _read_permissions(user_obj)
        return user_obj._perm_cache

    def get_user(self, user_id):
        """The signed-in user's row, read on every request, with their player joined (``Player.user``'s
        reverse, ``player``): the header's "Me" link (people, issue 27) then costs no query of its own, nor
        does their stored language (``language_choice``, read by ``config.language``'s middleware). Only
        the relation's name is known here, as a string: config imports no app."""
        user_model = get_user_model()
        try:
            user = user_model._default_manager.select_related("player", "language_choice").get(pk=user_id)
        except user_model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
