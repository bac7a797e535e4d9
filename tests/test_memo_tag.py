"""``{% memo %}`` (leagues/templatetags/once.py): a part of a page rendered once for each set of the values it is
given and kept as text; it sees nothing else, so a kept text can never be another request's or stale."""

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Engine, TemplateSyntaxError
from django.test import Client
from django.utils import timezone
from django.utils.safestring import mark_safe

from leagues.models import Bot
from leagues.templatetags.once import MEMO_SIZE
from tests.factories import RefereeFactory

ENGINE = Engine(libraries={"once": "leagues.templatetags.once"})

SHOWN: list[str] = []


@dataclass
class Seat:
    name: str

    @property
    def shown(self) -> str:  # read only when the body is rendered, never by the key
        SHOWN.append(self.name)
        return self.name.upper()


def _template(source: str):
    return ENGINE.from_string("{% load once %}" + source)


def _node(template):
    return next(node for node in template.nodelist if type(node).__name__ == "MemoNode")


def test_the_same_values_are_rendered_once():
    SHOWN.clear()
    template = _template("{% memo seat=seat n=n %}{{ seat.shown }} {{ n }}{% endmemo %}")
    assert template.render(Context({"seat": Seat("ann"), "n": 1})) == "ANN 1"
    assert template.render(Context({"seat": Seat("ann"), "n": 1})) == "ANN 1"  # equal values: the kept text
    assert SHOWN == ["ann"]
    assert template.render(Context({"seat": Seat("bob"), "n": 1})) == "BOB 1"
    assert template.render(Context({"seat": Seat("ann"), "n": 2})) == "ANN 2"
    assert SHOWN == ["ann", "bob", "ann"]


# What a page's context holds beside the memo's values (context processors: the request, the user, perms, the
# CSRF token).
OUTER = {
    "n": 3,
    "secret": "s3cret",
    "request": {"path": "/x/"},
    "user": "ann",
    "perms": {"matches": {}},
    "csrf_token": "t",
}


def test_the_body_sees_only_its_values():
    template = _template("{% memo n=n %}[{{ n }}]{% endmemo %}")
    assert template.render(Context(OUTER)) == "[3]"


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("{{ user }}", "user"),
        ("{{ request.path }}", "request"),
        ("{% if perms %}referee{% endif %}", "perms"),
        ("{% if perms.matches.submit_result %}referee{% endif %}", "perms"),
        ("{% if n and perms.matches %}referee{% endif %}", "perms"),  # Django's {% if %} swallows this error
        ("{% if not user %}anonymous{% endif %}", "user"),
        ("{{ csrf_token }}", "csrf_token"),
        ('{{ secret|default:"none" }}', "secret"),
        ("{% for letter in secret %}{{ letter }}{% endfor %}", "secret"),
        ("{% blocktranslate %}Hello {{ user }}{% endblocktranslate %}", "user"),
        ("{% include 'memo_inner.html' %}", "user"),
    ],
)
def test_a_name_it_was_not_given_is_refused_loudly_and_named(body, name):
    """What the page has and the body cannot see was rendered empty before issue 26, silently; now it is an
    error naming it."""
    engine = Engine(
        libraries={"once": "leagues.templatetags.once", "i18n": "django.templatetags.i18n"},
        loaders=[("django.template.loaders.locmem.Loader", {"memo_inner.html": "[{{ n }} {{ user }}]"})],
    )
    template = engine.from_string("{% load once i18n %}{% memo n=n %}" + body + "{% endmemo %}")
    with pytest.raises(TemplateSyntaxError, match=rf"the page's {name} is not one of them \(given: n\)"):
        template.render(Context(OUTER))


def test_a_name_the_page_has_is_refused_though_the_text_was_kept_without_it():
    """An include's optional argument no one gives renders empty, as without the memo; the kept text is
    refused on a later page that has that name, which the body could not have shown."""
    template = _template("{% memo n=n %}[{{ n }}{{ hint }}]{% endmemo %}")
    assert template.render(Context({"n": 1})) == "[1]"
    assert template.render(Context({"n": 1})) == "[1]"  # kept
    with pytest.raises(TemplateSyntaxError, match="the page's hint is not one of them"):
        template.render(Context({"n": 1, "hint": "shown outside the memo only"}))


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("{% for item in items %}{{ forloop.counter }}{{ item }}{% endfor %}", "1a2b"),
        ("{% for item in items %}{% for x in items %}{{ forloop.parentloop.counter }}{% endfor %}{% endfor %}", "1122"),
        ("{% with first=items.0 %}{{ first }}{% endwith %}", "a"),
        ("{{ items.9|default:'-' }} {{ none|default:'-' }}", "- -"),  # a given value's missing part, a given None
        ("{% if none or items %}yes{% endif %}", "yes"),
    ],
)
def test_names_it_was_given_or_binds_itself_are_seen(body, shown):
    template = _template("{% memo items=items none=none %}" + body + "{% endmemo %}")
    assert template.render(Context({"items": ["a", "b"], "none": None})) == shown


def test_text_and_safe_text_are_not_confused():
    template = _template("{% memo html=html %}{{ html }}{% endmemo %}")
    assert template.render(Context({"html": mark_safe("<b>x</b>")})) == "<b>x</b>"
    assert template.render(Context({"html": "<b>x</b>"})) == "&lt;b&gt;x&lt;/b&gt;"


def test_equal_values_shown_apart_are_kept_apart():
    template = _template("{% memo v=v %}{{ v }}{% endmemo %}")
    assert template.render(Context({"v": Decimal("1.0")})) == "1.0"
    assert template.render(Context({"v": Decimal("1.00")})) == "1.00"
    assert template.render(Context({"v": 1})) == "1"
    assert template.render(Context({"v": True})) == "True"
    zone = _template("{% memo at=at %}{{ at.tzinfo }}{% endmemo %}")
    at = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert zone.render(Context({"at": at})) == "UTC"
    assert zone.render(Context({"at": at.astimezone(ZoneInfo("Asia/Tokyo"))})) == "Asia/Tokyo"  # the same instant


def test_the_time_zone_is_part_of_the_key():
    template = _template('{% memo at=at %}{{ at|date:"H:i" }}{% endmemo %}')
    at = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    with timezone.override("Europe/Berlin"):
        assert template.render(Context({"at": at})) == "14:00"
    with timezone.override("America/New_York"):
        assert template.render(Context({"at": at})) == "08:00"


def test_it_keeps_the_last_ones_only():
    template = _template("{% memo n=n %}{{ n }}{% endmemo %}")
    for n in range(MEMO_SIZE + 10):
        assert template.render(Context({"n": n})) == str(n)
    assert len(_node(template).kept) == MEMO_SIZE


@pytest.mark.django_db
def test_a_model_instance_is_refused(reference_data):
    template = _template("{% memo bot=bot %}{{ bot.name }}{% endmemo %}")
    with pytest.raises(TemplateSyntaxError, match="plain data"):
        template.render(Context({"bot": Bot.objects.first()}))


@pytest.mark.parametrize(
    "source",
    [
        "{% memo %}x{% endmemo %}",
        "{% memo n %}x{% endmemo %}",
        "{% memo n=n m %}x{% endmemo %}",
    ],
)
def test_it_takes_named_values(source):
    with pytest.raises(TemplateSyntaxError, match="name=value"):
        _template(source)


def test_a_csrf_token_cannot_be_kept():
    with pytest.raises(TemplateSyntaxError, match="csrf_token"):
        _template("{% memo n=n %}<form>{% csrf_token %}</form>{% endmemo %}")


@pytest.mark.django_db
def test_a_bot_changed_in_admin_shows_on_the_next_entry_page(production, reference_data):
    """The Preferans page's fields are kept, and its bots are kept under the setup stamp (games/setup.py):
    a bot saved or deleted through the models is on the very next page, a new one and a renamed one."""
    browser = Client()
    browser.force_login(RefereeFactory())
    page = browser.get("/results/preferans/", secure=True).content.decode()
    assert "Rookie bot" not in page
    bot = Bot.objects.filter(game__slug="preferans").first()
    Bot.objects.create(game=bot.game, slug="rookie", name="Rookie bot", rating=1000, max_rating=1200)
    page = browser.get("/results/preferans/", secure=True).content.decode()
    assert page.count("Rookie bot (1000, max 1200)") == 4  # one option in each seat's list
    bot.name = "Renamed bot"
    bot.save()
    page = browser.get("/results/preferans/", secure=True).content.decode()
    assert page.count("Renamed bot (") == 4
    bot.active = False
    bot.save()
    assert "Renamed bot" not in browser.get("/results/preferans/", secure=True).content.decode()


@pytest.mark.django_db
def test_a_game_renamed_in_admin_shows_on_the_next_page(production, reference_data):
    browser = Client()
    browser.force_login(RefereeFactory())
    assert "Enter a Slaps result" in browser.get("/results/slaps/", secure=True).content.decode()
    from leagues.models import Game

    game = Game.objects.get(slug="slaps")
    game.name = "Hand slaps"
    game.save()
    page = browser.get("/results/slaps/", secure=True).content.decode()
    assert "Enter a Hand slaps result" in page


@pytest.mark.django_db
def test_a_game_the_kept_list_misses_is_read_from_the_database(production, reference_data):
    """A game written around the setup stamp (``bulk_create`` sends no signal; or a process on another
    cache) is not in the kept list until it expires: its entry page reads it from the database instead of
    answering 404. A slug no game has is still 404."""
    from leagues.models import Game

    browser = Client()
    browser.force_login(RefereeFactory())
    assert browser.get("/results/slaps/", secure=True).status_code == 200  # the games are kept now
    Game.objects.bulk_create([Game(slug="quick-slaps", name="Quick slaps", rating_system="elo")])
    page = browser.get("/results/quick-slaps/", secure=True)
    assert page.status_code == 200
    assert "Enter a Quick slaps result" in page.content.decode()
    assert browser.get("/results/no-such-game/", secure=True).status_code == 404
