"""A user's row and permissions are kept in the shared cache between requests (config/auth.py), and every
change of them is seen on the very next request: a referee who loses the role cannot enter one more result.

Each test signs a referee in through HTTP on the production settings (DEBUG off, the Redis cache), reads
an entry page once so the permissions are kept, changes them the way an admin or a shell would, and asks
again."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config.auth import PERMISSIONS_STAMP_KEY, permissions_changed
from tests.factories import AdminFactory, RefereeFactory

pytestmark = pytest.mark.django_db

ENTRY = "/results/slaps/"


def _signed_in(user) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _permission_queries(browser: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        page = browser.get(ENTRY, secure=True)
    assert page.status_code == 200, page.status_code
    return sum(' FROM "auth_permission"' in query["sql"] for query in queries.captured_queries)


def _refused(browser: Client) -> bool:
    answer = browser.get(ENTRY, secure=True)
    return answer.status_code in (302, 403)


def test_a_kept_answer_saves_the_query_on_the_next_request(production, reference_data):
    browser = _signed_in(RefereeFactory())
    assert _permission_queries(browser) == 1  # read once ...
    assert _permission_queries(browser) == 0  # ... then kept
    assert cache.get(PERMISSIONS_STAMP_KEY)


def test_leaving_the_referees_group_is_seen_at_once(production, reference_data):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    referee.groups.clear()
    assert _refused(browser)


def test_a_group_losing_the_permission_is_seen_at_once(production, reference_data):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    group = referee.groups.get()
    group.permissions.remove(Permission.objects.get(codename="submit_result"))
    assert _refused(browser)


def test_a_deleted_group_is_seen_at_once(production, reference_data):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    # A group's rows in the membership table go with it, with no m2m signal: post_delete renews the stamp.
    Group.objects.filter(pk=referee.groups.get().pk).delete()
    assert _refused(browser)


def test_a_removed_own_permission_and_an_added_group_are_seen_at_once(production, reference_data):
    referee = RefereeFactory()
    other = RefereeFactory()
    group = referee.groups.get()
    referee.groups.clear()
    referee.user_permissions.add(Permission.objects.get(codename="submit_result"))
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    referee.user_permissions.clear()
    assert _refused(browser)
    group.user_set.add(referee)  # from the group's side: the same through table, the same signal
    assert not _refused(browser)
    assert _permission_queries(_signed_in(other)) in (0, 1)


def test_a_demoted_or_deactivated_user_is_seen_at_once(production, reference_data):
    """The user's row is kept with their permissions: saving the user (admin's form, ``set_password``)
    renews the stamp, so a demotion, a deactivation or a new password is seen on the next request."""
    admin = AdminFactory()  # a superuser in no group: every permission comes from the flag
    browser = _signed_in(admin)
    assert not _refused(browser)
    with CaptureQueriesContext(connection) as queries:
        assert not _refused(browser)
    assert not any('FROM "auth_user"' in query["sql"] for query in queries.captured_queries)  # the row is kept
    for flag in ("is_superuser", "is_active"):  # each taken away, then given back
        setattr(admin, flag, False)
        admin.save()
        assert _refused(browser), flag
        setattr(admin, flag, True)
        admin.save()
        assert not _refused(browser), flag
    admin.set_password("a-new-password-for-the-test")
    admin.save()  # every other session of this user ends: its hash no longer matches the kept row's
    assert browser.get(ENTRY, secure=True).status_code == 302


def test_a_user_changed_around_the_signals_is_seen_after_permissions_changed(production, reference_data):
    """``QuerySet.update`` sends no signal: the kept row stands until ``permissions_changed()`` (or
    ``PERMISSIONS_SECONDS``), as config/auth.py says; a user read afresh never takes another row's answer."""
    admin = AdminFactory()
    User = type(admin)
    assert "matches.void_match" in User.objects.get(pk=admin.pk).get_all_permissions()  # kept, for a superuser
    browser = _signed_in(admin)
    assert not _refused(browser)
    User.objects.filter(pk=admin.pk).update(is_superuser=False)
    assert not _refused(browser)  # the kept row, until the stamp is renewed
    assert User.objects.get(pk=admin.pk).get_all_permissions() == set()  # its row differs from the kept one
    permissions_changed()
    assert _refused(browser)
    User.objects.filter(pk=admin.pk).update(is_superuser=True, is_active=False)
    permissions_changed()
    assert _refused(browser)


def test_a_change_around_the_signals_is_seen_after_permissions_changed(production, reference_data):
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    through = type(referee).groups.through
    through.objects.filter(user=referee).delete()  # a bulk delete of the rows: no m2m signal
    assert not _refused(browser)  # kept: at most PERMISSIONS_SECONDS, as config/auth.py says
    permissions_changed()
    assert _refused(browser)


def test_with_the_cache_down_every_request_reads_the_database(production, reference_data, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2, "RETRY_SECONDS": 5},
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    referee = RefereeFactory()
    browser = _signed_in(referee)
    assert _permission_queries(browser) == 1
    assert _permission_queries(browser) == 1
    referee.groups.clear()
    assert _refused(browser)
