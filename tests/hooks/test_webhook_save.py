"""A webhook's one write path refuses hostile input by field and stores nothing; the database refuses what
slips past the service."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from hooks.models import Webhook
from hooks.services import webhook_save
from leagues.models import League

pytestmark = pytest.mark.django_db

GOOD_SECRET = "0123456789abcdef-secret"


def refused(field: str, **fields) -> list[str]:
    values = {"name": "Club chat", "url": "https://hooks.example.org/in", "secret": GOOD_SECRET, **fields}
    with pytest.raises(ValidationError) as caught:
        webhook_save(**values)
    assert field in caught.value.message_dict, caught.value.message_dict
    assert not Webhook.objects.exists()
    return caught.value.message_dict[field]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("javascript:alert(1)", "Only http:// and https://"),
        ("JavaScript://example.org/%0aalert(1)", "Only http:// and https://"),
        ("file:///etc/passwd", "Only http:// and https://"),
        ("ftp://files.example.org/in", "Only http:// and https://"),
        ("data:text/plain,hello", "Only http:// and https://"),
        ("gopher://example.org:70/", "Only http:// and https://"),
        ("hooks.example.org/in", "Only http:// and https://"),
        ("//hooks.example.org/in", "Only http:// and https://"),
        ("http:///in", "names no host"),
        ("https://", "names no host"),
        ("http://user:pass@hooks.example.org/in", "user name or password"),
        ("http://token@hooks.example.org/in", "user name or password"),
        ("http://:pw@hooks.example.org/in", "user name or password"),
        ("http://127.0.0.1/in", "this site itself"),
        ("http://127.0.0.1:8000/admin/", "this site itself"),
        ("http://LOCALHOST./in", "this site itself"),
        ("http://testserver/in", "this site itself"),
        ("http://hooks.example.org:99999/in", "not a URL"),
        ("http://hooks.example.org/a b", "no spaces"),
        ("http://hooks.example.org/in\r\nX-Injected: 1", "no spaces"),
        ("https://hooks.example.org/" + "a" * 480, "at most 500 characters"),
        ("", "Enter the receiver's URL"),
        ("   ", "Enter the receiver's URL"),
    ],
)
def test_hostile_urls_are_refused_by_field(settings, url, says):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
    messages = refused("url", url=url)
    assert says in " ".join(messages)


def test_the_sites_own_names_are_refused_however_allowed_hosts_names_them(settings):
    settings.ALLOWED_HOSTS = [".cardrank.example", "*", "[::1]"]
    settings.CARDRANK_SITE_URL = "https://ranks.example.net:8443"
    for url in (
        "https://cardrank.example/hooks",
        "https://club.cardrank.example/hooks",
        "https://ranks.example.net/hooks",
        "http://RANKS.example.net:9000/",
        "http://[::1]:8000/",
    ):
        assert "this site itself" in " ".join(refused("url", url=url)), url
    # "*" names no host of its own, and a name that merely ends alike is another site.
    for url in ("https://notcardrank.example/in", "https://hooks.example.org/in"):
        webhook = webhook_save(name=url, url=url, secret=GOOD_SECRET)
        assert webhook.url == url


def test_without_a_site_url_setting_the_allowed_hosts_alone_say(settings):
    del settings.CARDRANK_SITE_URL
    settings.ALLOWED_HOSTS = ["ranks.example.org"]
    assert "this site itself" in " ".join(refused("url", url="https://ranks.example.org/"))
    assert webhook_save(name="Other", url="https://127.0.0.2/in", secret=GOOD_SECRET).pk


@pytest.mark.parametrize(
    ("secret", "says"),
    [
        ("", "Enter a secret"),
        ("fifteen-chars!!", "at least 16"),
        ("sixteen chars ok", "no spaces"),
        ("tab\tin-the-secret-here", "no spaces"),
        ("x" * 129, "at most 128"),
        (None, "Enter a secret"),
    ],
)
def test_weak_or_odd_secrets_are_refused(secret, says):
    assert says in " ".join(refused("secret", secret=secret))


def test_a_webhook_wants_at_least_one_event_and_a_name():
    assert "at least one event" in " ".join(
        refused("on_result_rated", on_result_rated=False, on_list_published=False, on_season_closed=False)
    )
    assert "Name the webhook" in " ".join(refused("name", name="   "))


def test_every_error_is_told_at_once():
    with pytest.raises(ValidationError) as caught:
        webhook_save(name="", url="file:///etc/passwd", secret="short")
    assert set(caught.value.message_dict) == {"name", "url", "secret"}
    assert not Webhook.objects.exists()


def test_an_unknown_field_is_refused():
    with pytest.raises(ValidationError) as caught:
        webhook_save(name="x", url="https://hooks.example.org/", secret=GOOD_SECRET, created_at="2020-01-01")
    assert "created_at" in caught.value.message_dict
    assert not Webhook.objects.exists()


def test_a_good_webhook_is_stored_with_its_scheme_and_host_in_lower_case(reference_data):
    league = League.objects.get(slug="slaps-pro")
    webhook = webhook_save(
        name=" Pro table ", url="HTTPS://Hooks.Example.ORG/Path?Token=AbC", secret=GOOD_SECRET, league=league
    )
    webhook.refresh_from_db()
    assert (webhook.name, webhook.url, webhook.league) == (
        "Pro table",
        "https://hooks.example.org/Path?Token=AbC",
        league,
    )
    assert webhook.events == ["result.rated", "list.published", "season.closed"]
    with pytest.raises(ValidationError) as caught:  # the same name twice
        webhook_save(name="Pro table", url="https://other.example.org/", secret=GOOD_SECRET)
    assert "name" in caught.value.message_dict
    assert Webhook.objects.count() == 1


@pytest.mark.parametrize(
    "fields",
    [
        {"url": "ftp://hooks.example.org/"},
        {"url": "javascript:alert(1)"},
        {"secret": "too-short"},
        {"on_result_rated": False, "on_list_published": False, "on_season_closed": False},
        {"name": ""},
    ],
)
def test_the_database_refuses_what_the_service_refuses(fields):
    values = {"name": "Raw", "url": "https://hooks.example.org/", "secret": GOOD_SECRET, **fields}
    with pytest.raises(IntegrityError), transaction.atomic():
        Webhook.objects.create(**values)
    assert not Webhook.objects.exists()
