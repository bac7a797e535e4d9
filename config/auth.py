"""Authentication backend: Django's ``ModelBackend``, with a user's permissions read in one query and
kept in the cache between requests until they change.

Every page a referee reads asks a permission (the menu's entry links, the
entry page itself), and ``ModelBackend`` reads the user's own permissions and
their groups' in two queries on every request. This backend reads both at
once and keeps the answer in the shared cache, under the **permissions
stamp**: every change that can alter anyone's permissions renews the stamp,
so a kept answer is only used while nothing has changed since it was read.

What renews the stamp (``permissions_changed``, connected by
``config.apps.ConfigConfig.ready`` in every process, web, worker or shell):

    m2m_changed   a user's groups, a user's own permissions, a group's
                  permissions (admin's forms, ``user.groups.add`` ...)
    post_delete   a group or a permission (their rows of those tables go with
                  them without an m2m signal)
    the commit    each renewal again once the transaction commits, so a
                  request that read the old rows in between cannot keep them
                  under the new stamp

A user's own flags need no stamp: the user row is read on every request,
``is_active`` is asked first, and the kept answer records ``is_superuser``.
A change made around Django's signals (``QuerySet.update``, raw SQL, a
restored backup) is seen when the kept answer expires
(``PERMISSIONS_SECONDS``), or at once after ``python manage.py
shell -c "from config.auth import permissions_changed; permissions_changed()"``.
With the cache down every request reads the database, as before.
"""

from __future__ import annotations

from uuid import uuid4

from django.contrib.auth import backends
from django.contrib.auth.models import Group, Permission
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.db.models.signals import m2m_changed, post_delete

PERMISSIONS_STAMP_KEY = "auth:permissions-stamp"
#: How long a user's permissions are kept at most: the bound on a change made around the signals.
PERMISSIONS_SECONDS = 300


def _stamp() -> str | None:
    stamp = cache.get(PERMISSIONS_STAMP_KEY)
    if stamp is None:
        cache.add(PERMISSIONS_STAMP_KEY, uuid4().hex, None)
        stamp = cache.get(PERMISSIONS_STAMP_KEY)  # None: the cache is down, nothing is kept
    return stamp


def _renew_stamp() -> None:
    cache.set(PERMISSIONS_STAMP_KEY, uuid4().hex, None)


def permissions_changed(**kwargs) -> None:
    """Forget every kept permission set: now, and again when the current transaction commits."""
    _renew_stamp()
    transaction.on_commit(_renew_stamp)


def _m2m_changed(sender, action, **kwargs) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        permissions_changed()


def connect_receivers() -> None:
    """Renew the stamp on every change the signals report (see the module's docstring)."""
    User = backends.UserModel
    for through in (User.groups.through, User.user_permissions.through, Group.permissions.through):
        m2m_changed.connect(_m2m_changed, sender=through, dispatch_uid=f"permissions-stamp-{through._meta.label}")
    for model in (Group, Permission):
        post_delete.connect(permissions_changed, sender=model, dispatch_uid=f"permissions-stamp-{model._meta.label}")


def _read_permissions(user_obj) -> set[str]:
    permissions = Permission.objects.all()
    if not user_obj.is_superuser:
        permissions = permissions.filter(Q(user=user_obj) | Q(group__user=user_obj))
    rows = permissions.values_list("content_type__app_label", "codename").order_by().distinct()
    return {f"{app_label}.{codename}" for app_label, codename in rows}


def _kept_permissions(user_obj) -> set[str]:
    key = f"auth:permissions:{user_obj.pk}"
    found = cache.get_many([PERMISSIONS_STAMP_KEY, key])
    stamp, kept = found.get(PERMISSIONS_STAMP_KEY), found.get(key)
    if stamp is not None and kept is not None and kept[0] == stamp and kept[1] == user_obj.is_superuser:
        return set(kept[2])
    # The stamp is read before the rows: a change committed after this read renews it, so what is read
    # below is kept under a stamp that is already old, never under the new one.
    stamp = stamp or _stamp()
    permissions = _read_permissions(user_obj)
    if stamp is not None:
        cache.set(key, (stamp, user_obj.is_superuser, sorted(permissions)), PERMISSIONS_SECONDS)
    return permissions


class ModelBackend(backends.ModelBackend):
    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            user_obj._perm_cache = _kept_permissions(user_obj)
        return user_obj._perm_cache
