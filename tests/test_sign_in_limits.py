"""Sign-in limits (issue 12, items 1 and 2), through HTTP on the production settings.

Every sign-in form is limited (the admin's too); failures are counted per
account and address, per account and per address, each with its own limit
(``CARDRANK_SIGN_IN_LIMITS``), for a cool-off (``AXES_COOLOFF_TIME``); the
client's address is read behind ``CARDRANK_TRUSTED_PROXY_COUNT`` proxies.
"""

import base64
import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.utils import timezone
from django_ratelimit.core import get_usage

from config.clientip import client_ip, sign_in_client_ip
from tests.factories import AdminFactory, RefereeFactory

pytestmark = pytest.mark.django_db

RIGHT = "correct horse battery"
SIGN_IN = "/accounts/login/"
ADMIN_SIGN_IN = "/admin/login/?next=/admin/"


def _limits(settings, *, account_and_address: int, account: int, address: int) -> None:
    settings.CARDRANK_SIGN_IN_LIMITS = {
        "account_and_address": account_and_address,
        "account": account,
        "address": address,
    }


def _sign_in(username: str, password: str, *, address: str = "127.0.0.1", path: str = SIGN_IN, forwarded=None):
    """One sign-in from a fresh browser at ``address`` (REMOTE_ADDR), optionally with X-Forwarded-For."""
    extra = {"REMOTE_ADDR": address}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return Client(**extra).post(path, {"username": username, "password": password})


def _signed_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.client.session


def test_admin_sign_in_is_limited(production, reference_data):
    """Item 1: wrong passwords at /admin/login/ lock the account; then even the right one is refused."""
    admin = AdminFactory(username="boss")
    limit = production.CARDRANK_SIGN_IN_LIMITS["account_and_address"]
    statuses = [_sign_in("boss", f"guess {n}", path=ADMIN_SIGN_IN).status_code for n in range(limit + 3)]
    assert statuses == [200] * (limit - 1) + [429] * 4
    right = _sign_in("boss", RIGHT, path=ADMIN_SIGN_IN)
    assert right.status_code == 429
    assert not _signed_in(right)
    assert 1 <= int(right["Retry-After"]) <= 15 * 60
    assert right.client.get("/admin/").status_code == 302  # still sent to sign in
    # The failures were counted as failures of this account from this address (any sign-in form).
    assert AccessAttempt.objects.get().username == admin.username


def test_sign_in_page_is_limited_and_says_how_long_to_wait(production, reference_data):
    RefereeFactory(username="table9")
    limit = production.CARDRANK_SIGN_IN_LIMITS["account_and_address"]
    statuses = [_sign_in("table9", f"guess {n}").status_code for n in range(limit)]
    assert statuses == [200] * (limit - 1) + [429]
    wrong = _sign_in("table9", "guess again")
    right = _sign_in("table9", RIGHT)
    assert (wrong.status_code, right.status_code) == (429, 429)
    assert not _signed_in(right)
    # The same answer whatever the password: a brute-forcer learns nothing while locked.
    without_csrf = [re.sub(rb"[A-Za-z0-9]{64}", b"", response.content) for response in (wrong, right)]  # tokens
    assert without_csrf[0] == without_csrf[1]
    assert wrong["Retry-After"] == right["Retry-After"]
    # The sign-in page, saying in words how long to wait, with the form to try again later.
    assert right["Content-Type"].startswith("text/html")
    page = right.content.decode()
    assert "Too many failed sign-in attempts. Please wait 15 minutes and try again." in page
    assert 'name="password"' in page
    assert 14 * 60 < int(right["Retry-After"]) <= 15 * 60
    # The admin's sign-in refuses the same account from the same address.
    assert _sign_in("table9", RIGHT, path=ADMIN_SIGN_IN).status_code == 429


def test_the_account_limit_counts_failures_from_every_address(production, reference_data):
    _limits(production, account_and_address=3, account=4, address=100)
    RefereeFactory(username="table9")
    RefereeFactory(username="table3")
    statuses = [_sign_in("table9", "guess", address=f"10.0.0.{n // 2 + 1}").status_code for n in range(4)]
    assert statuses == [200, 200, 200, 429]  # two from each of two addresses: the account's limit
    # From an address that never failed, the right password waits too.
    assert _sign_in("table9", RIGHT, address="10.0.0.99").status_code == 429
    # Other accounts, from the very addresses that failed, are not locked.
    assert _signed_in(_sign_in("table3", RIGHT, address="10.0.0.1"))


def test_the_address_limit_counts_failures_on_every_account(production, reference_data):
    _limits(production, account_and_address=100, account=100, address=4)
    for n in range(5):
        RefereeFactory(username=f"table{n}")
    statuses = [_sign_in(f"table{n}", "guess", address="10.0.0.1").status_code for n in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert _sign_in("table4", RIGHT, address="10.0.0.1").status_code == 429
    # The accounts are not locked: their owners sign in from their own addresses.
    assert all(_signed_in(_sign_in(f"table{n}", RIGHT, address=f"10.0.1.{n}")) for n in range(5))


def test_one_address_can_lock_no_referee_out(production, reference_data):
    """With the default limits, an attacker at one address, trying every referee until refused, locks only itself."""
    referees = [RefereeFactory(username=f"table{n}").username for n in range(6)]
    refused = []
    for username in referees:
        for n in range(10):
            if _sign_in(username, f"guess {n}", address="203.0.113.66").status_code == 429:
                refused.append(username)
                break
    assert refused == referees  # every further attempt from there waits
    assert _sign_in(referees[-1], RIGHT, address="203.0.113.66").status_code == 429
    assert all(_signed_in(_sign_in(username, RIGHT, address="198.51.100.7")) for username in referees)


def test_behind_the_proxy_each_client_has_its_own_address(production, reference_data):
    """Item 2: behind one proxy every request comes from its address; the client is X-Forwarded-For's last entry."""
    production.CARDRANK_TRUSTED_PROXY_COUNT = 1
    _limits(production, account_and_address=2, account=100, address=4)
    for n in range(5):
        RefereeFactory(username=f"table{n}")
    attacker = "203.0.113.66"
    statuses = [
        _sign_in(f"table{n}", "guess", forwarded=attacker).status_code
        for n in range(4)  # REMOTE_ADDR is the proxy's, 127.0.0.1
    ]
    assert statuses == [200, 200, 200, 429]
    # The attacker's own leftmost entries are ignored: it cannot move to another client's count.
    assert _sign_in("table4", RIGHT, forwarded=f"198.51.100.7, {attacker}").status_code == 429
    # Another client, behind the same proxy, is not locked out.
    assert _signed_in(_sign_in("table4", RIGHT, forwarded="198.51.100.7"))
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {attacker}


def test_without_a_trusted_proxy_a_forged_forwarded_for_is_ignored(production, reference_data):
    assert production.CARDRANK_TRUSTED_PROXY_COUNT == 0  # the default
    _limits(production, account_and_address=100, account=100, address=3)
    for n in range(4):
        RefereeFactory(username=f"table{n}")
    statuses = [
        _sign_in(f"table{n}", "guess", address="203.0.113.66", forwarded=f"198.51.100.{n}").status_code
        for n in range(3)
    ]
    assert statuses == [200, 200, 429]
    assert _sign_in("table3", RIGHT, address="203.0.113.66", forwarded="198.51.100.99").status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.66"}


def test_the_lockout_ends_after_the_cool_off(production, reference_data):
    RefereeFactory(username="table9")
    limit = production.CARDRANK_SIGN_IN_LIMITS["account_and_address"]
    assert timedelta(minutes=15) == production.AXES_COOLOFF_TIME  # the default
    assert [_sign_in("table9", "guess").status_code for _ in range(limit)][-1] == 429
    # Trying on while locked does not extend the lockout: those attempts are not counted.
    assert [_sign_in("table9", "guess").status_code for _ in range(3)] == [429] * 3
    assert AccessAttempt.objects.get().failures_since_start == limit
    # A minute before the end of the cool-off: still refused, and told to wait about that minute.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=14))
    waiting = _sign_in("table9", RIGHT)
    assert waiting.status_code == 429
    assert 50 <= int(waiting["Retry-After"]) <= 60
    assert "Please wait 1 minute and try again." in waiting.content.decode()
    # The cool-off is over: the right password signs in.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert _signed_in(_sign_in("table9", RIGHT))


def test_a_short_cool_off_is_configurable(production, reference_data):
    production.AXES_COOLOFF_TIME = timedelta(minutes=1)
    _limits(production, account_and_address=1, account=100, address=100)
    RefereeFactory(username="table9")
    locked = _sign_in("table9", "guess")
    assert locked.status_code == 429
    assert 1 <= int(locked["Retry-After"]) <= 60
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(seconds=61))
    assert _signed_in(_sign_in("table9", RIGHT))


def test_a_successful_sign_in_clears_the_accounts_failures(production, reference_data):
    RefereeFactory(username="table9")
    below = production.CARDRANK_SIGN_IN_LIMITS["account_and_address"] - 1
    for _ in range(3):
        assert [_sign_in("table9", "typo").status_code for _ in range(below)] == [200] * below
        assert _signed_in(_sign_in("table9", RIGHT))
        assert not AccessAttempt.objects.exists()
    assert [_sign_in("table9", "typo").status_code for _ in range(below)] == [200] * below


def test_signing_in_to_ones_own_account_does_not_clear_guesses_at_others(production, reference_data):
    """The address's failures on other accounts stay: else a referee could guess between own sign-ins."""
    _limits(production, account_and_address=100, account=100, address=4)
    RefereeFactory(username="victim")
    RefereeFactory(username="insider")
    assert [_sign_in("victim", "guess").status_code for _ in range(3)] == [200] * 3
    assert _signed_in(_sign_in("insider", RIGHT))
    assert _sign_in("victim", "guess").status_code == 429


def test_an_admin_unlocks_an_account_on_the_admin_pages(production, admin_user):
    _limits(production, account_and_address=2, account=3, address=100)
    RefereeFactory(username="table9")
    for n in range(3):
        _sign_in("table9", "guess", address=f"10.0.0.{n}")
    assert _sign_in("table9", RIGHT, address="10.0.0.50").status_code == 429
    admin = Client()
    admin.force_login(admin_user)
    listing = admin.get("/admin/axes/accessattempt/?q=table9")
    assert listing.status_code == 200
    assert "table9" in listing.content.decode()
    ids = list(AccessAttempt.objects.filter(username="table9").values_list("pk", flat=True))
    deleted = admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert deleted.status_code == 302
    assert not AccessAttempt.objects.exists()
    assert _signed_in(_sign_in("table9", RIGHT, address="10.0.0.50"))


def test_an_admin_unlocks_an_account_with_a_command(production, reference_data):
    _limits(production, account_and_address=2, account=100, address=100)
    RefereeFactory(username="table9")
    RefereeFactory(username="table3")
    for username in ("table9", "table9", "table3", "table3"):
        _sign_in(username, "guess")
    assert _sign_in("table9", RIGHT).status_code == 429
    call_command("axes_reset_username", "table9")
    assert _signed_in(_sign_in("table9", RIGHT))
    assert _sign_in("table3", RIGHT).status_code == 429  # only the account named


@pytest.mark.parametrize(
    ("count", "remote", "forwarded", "expected"),
    [
        (0, "203.0.113.5", None, "203.0.113.5"),
        (0, "203.0.113.5", "198.51.100.1", "203.0.113.5"),
        (1, "127.0.0.1", "198.51.100.1", "198.51.100.1"),
        (1, "127.0.0.1", "10.6.6.6, 198.51.100.1", "198.51.100.1"),
        (1, "127.0.0.1", " 2001:db8::1 ", "2001:db8::1"),
        (2, "127.0.0.1", "10.6.6.6, 198.51.100.1, 192.0.2.9", "198.51.100.1"),
        # Fewer entries than proxies, or garbage where the client should be: not through the proxies.
        (2, "203.0.113.5", "198.51.100.1", "203.0.113.5"),
        (1, "203.0.113.5", None, "203.0.113.5"),
        (1, "127.0.0.1", "198.51.100.1, not-an-address", "127.0.0.1"),
    ],
)
def test_the_client_address(settings, count, remote, forwarded, expected):
    settings.CARDRANK_TRUSTED_PROXY_COUNT = count
    extra = {"REMOTE_ADDR": remote} | ({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {})
    assert client_ip(RequestFactory().get("/", **extra)) == expected


def test_sign_in_limits_count_an_ipv6_client_by_its_64():
    request = RequestFactory().get("/", REMOTE_ADDR="2001:db8:1:2:aaaa::1")
    assert sign_in_client_ip(request) == "2001:db8:1:2::"
    assert sign_in_client_ip(RequestFactory().get("/", REMOTE_ADDR="::ffff:192.0.2.1")) == "192.0.2.1"


def test_rate_limits_keyed_on_the_address_read_it_the_same_way(production):
    """django-ratelimit's key="ip" (RATELIMIT_IP_META_KEY) follows CARDRANK_TRUSTED_PROXY_COUNT."""
    production.CARDRANK_TRUSTED_PROXY_COUNT = 1

    def usage(forwarded):
        request = RequestFactory().post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
        return get_usage(request, group="test-ip", key="ip", rate="2/h", increment=True)

    assert [usage("203.0.113.5")["should_limit"] for _ in range(3)] == [False, False, True]
    assert usage("10.0.0.1, 198.51.100.7")["should_limit"] is False  # another client: its own count
    assert usage("198.51.100.7, 203.0.113.5")["should_limit"] is True  # a forged entry changes nothing


def test_the_log_names_the_locked_address_but_not_what_was_typed(production, reference_data, caplog):
    _limits(production, account_and_address=1, account=100, address=100)
    with caplog.at_level("WARNING", logger="axes"):
        assert _sign_in("hunter2-typed-as-username", "guess", address="203.0.113.66").status_code == 429
    logged = "\n".join(record.getMessage() for record in caplog.records if record.name.startswith("axes"))
    assert "Locking out" in logged
    assert "203.0.113.66" in logged
    assert "hunter2" not in logged
    assert "hunter2" not in AccessAttempt.objects.get().post_data


def test_the_api_takes_no_password(production, reference_data):
    """No path but the two sign-in forms checks a password: the API takes a token or a session, never Basic auth."""
    RefereeFactory(username="table9")
    basic = base64.b64encode(f"table9:{RIGHT}".encode()).decode()
    response = Client().post(
        "/api/players/", {"name": "Via Basic"}, content_type="application/json", HTTP_AUTHORIZATION=f"Basic {basic}"
    )
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert not AccessAttempt.objects.exists()  # no password was even tried
