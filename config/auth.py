"""Authentication backend: Django's ``ModelBackend``, with the signed-in user's row and permissions kept in
the cache between requests until they change.

Every page a referee reads loads the user (Django reads the row on every
request) and asks a permission (the menu's entry links, the entry page
itself); ``ModelBackend`` reads the user's own permissions and their groups'
in two more queries. This backend reads the permissions in one query, and
keeps the user's row and permissions together in the shared cache under the
**auth stamp** (``config.stamps``): every change that can alter a user or
anyone's permissions renews it, so a kept answer is only used while nothing
has changed since it was read. A signed-in request then costs the session
and one round trip to the cache, no query.

What renews the stamp (``permissions_changed``, connected by
``config.apps.ConfigConfig.ready`` in every process, web, worker or shell):

    post_save     a user (a password, ``is_active``, ``is_staff``,
                  ``is_superuser``, a sign-in's ``last_login``: admin's
                  forms, ``set_password``, ``changepassword``)
    post_delete   a user, a group or a permission (their rows of the
                  membership tables go with them without an m2m signal)
    m2m_changed   a user's groups, a user's own permissions, a group's
                  permissions (admin's forms, ``user.groups.add`` ...)
    the commit    each renewal again once the transaction commits, so a
                  request that read the old rows in between cannot keep them
                  under the new stamp

A change made around Django's signals (``QuerySet.update``, raw SQL, a
restored backup) is seen when the kept answer expires
(``PERMISSIONS_SECONDS``), or at once after ``python manage.py
shell -c "from config.auth import permissions_changed; permissions_changed()"``.
With the cache down, or a per-process cache (no ``CACHE_URL``: a change made
in one process would not reach the others), every request reads the
database, as Django does.
The kept row holds what Django's row does, the password's hash too (the
session's check reads it): the cache is as private as the database
(``docs/operations.md``).
"""

from __future__ import annotations

from django.contrib.auth import backends
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.db import router
from django.db.models import Q
from django.db.models.signals import m2m_changed, post_delete, post_save

from config.stamps import MISSING, Stamp

PERMISSIONS_STAMP_KEY = "auth:permissions-stamp"
#: How long a user's row and permissions are kept at most: the bound on a change made around the signals.
PERMISSIONS_SECONDS = 300

STAMP = Stamp(PERMISSIONS_STAMP_KEY, shared_only=True)


def permissions_changed(**kwargs) -> None:
    """Forget every kept user and permission set: now, and again when the current transaction commits."""
    STAMP.changed()


def _m2m_changed(sender, action, **kwargs) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        permissions_changed()


def connect_receivers() -> None:
    """Renew the stamp on every change the signals report (see the module's docstring)."""
    User = backends.UserModel
    for through in (User.groups.through, User.user_permissions.through, Group.permissions.through):
        m2m_changed.connect(_m2m_changed, sender=through, dispatch_uid=f"permissions-stamp-{through._meta.label}")
    for model in (Group, Permission, User):
        post_delete.connect(permissions_changed, sender=model, dispatch_uid=f"permissions-stamp-{model._meta.label}")
    post_save.connect(permissions_changed, sender=User, dispatch_uid="permissions-stamp-user-saved")


def _read_permissions(user_obj) -> set[str]:
    permissions = Permission.objects.all()
    if not user_obj.is_superuser:
        permissions = permissions.filter(Q(user=user_obj) | Q(group__user=user_obj))
    rows = permissions.values_list("content_type__app_label", "codename").order_by().distinct()
    return {f"{app_label}.{codename}" for app_label, codename in rows}


def _key(pk) -> str:
    return f"auth:user:{pk}"


def _row(user) -> tuple:
    return tuple(getattr(user, field.attname) for field in user._meta.concrete_fields)


def _from_row(row: tuple):
    User = backends.UserModel
    names = [field.attname for field in User._meta.concrete_fields]
    return User.from_db(router.db_for_read(User), names, row)


class ModelBackend(backends.ModelBackend):
    """The user's row and permissions kept as ``(row, permissions or None)`` under ``auth:user:<pk>``."""

    def get_user(self, user_id):
        User = backends.UserModel
        try:
            pk = User._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        stamp, kept = STAMP.read(_key(pk))
        if kept is MISSING:
            # The stamp is read before the row: a change committed after this read renews it, so what is
            # read below is kept under a stamp that is already old, never under the new one.
            stamp = stamp or STAMP.current()
            try:
                user = User._default_manager.get(pk=pk)
            except User.DoesNotExist:
                return None
            STAMP.keep(_key(pk), stamp, (_row(user), None), PERMISSIONS_SECONDS)
        else:
            row, permissions = kept
            user = _from_row(row)
            if permissions is not None:
                user._perm_cache = set(permissions)
        user._auth_stamp = stamp  # what the permissions, read later in this request, are kept under
        return user if self.user_can_authenticate(user) else None

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            user_obj._perm_cache = self._kept_permissions(user_obj)
        return user_obj._perm_cache

    def _kept_permissions(self, user_obj) -> set[str]:
        stamp = getattr(user_obj, "_auth_stamp", None)
        if stamp is None:  # a user not loaded by ``get_user`` (a shell, a test, a token): read what is kept
            stamp, kept = STAMP.read(_key(user_obj.pk))
            if kept is not MISSING and kept[1] is not None and kept[0] == _row(user_obj):
                return set(kept[1])
            stamp = stamp or STAMP.current()
        permissions = _read_permissions(user_obj)
        STAMP.keep(_key(user_obj.pk), stamp, (_row(user_obj), sorted(permissions)), PERMISSIONS_SECONDS)
        return permissions
