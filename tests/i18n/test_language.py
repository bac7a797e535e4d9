"""Which language a page is in, and the switcher (issue 28; config/language.py, web/language_pages.py).

A signed-in person's stored choice first, then the switcher's cookie, then Accept-Language, then English.
"""

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.template import Context, Template
from django.test import Client
from django.utils import translation

from config.language import choose_language, language_for
from config.models import LanguageChoice
from ratings.caching import cached
from tests.factories import RefereeFactory, UserFactory

COOKIE = settings.LANGUAGE_COOKIE_NAME


def html_lang(response) -> str:
    text = response.content.decode()
    start = text.index("<html lang=") + len('<html lang="')
    return text[start : text.index('"', start)]


@pytest.mark.django_db
def test_the_browsers_language_chooses_the_page_and_html_lang_follows():
    client = Client()
    english = client.get("/matches/")
    russian = client.get("/matches/", HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5")
    assert html_lang(english) == "en"
    assert html_lang(russian) == "ru"
    assert russian["Content-Language"] == "ru"
    assert "Accept-Language" in russian["Vary"]
    # The menu, in the words of the Russian catalogue (a hand-written expectation, not the catalogue's).
    assert ">Матчи</a>" in russian.content.decode()
    assert ">Matches</a>" in english.content.decode()
    # A language the site does not offer falls back to English.
    assert html_lang(client.get("/matches/", HTTP_ACCEPT_LANGUAGE="xx")) == "en"


@pytest.mark.django_db
def test_the_switcher_sets_the_cookie_and_returns_to_the_page():
    client = Client()
    answer = client.post("/language/", {"language": "ru", "next": "/matches/?page=2"})
    assert answer.status_code == 302
    assert answer["Location"] == "/matches/?page=2"
    assert answer.cookies[COOKIE].value == "ru"
    # The cookie then beats the browser's own language.
    assert html_lang(client.get("/matches/", HTTP_ACCEPT_LANGUAGE="en")) == "ru"
    assert LanguageChoice.objects.count() == 0  # nobody signed in: nothing stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    "hostile",
    [
        {"language": "de", "next": "/"},
        {"language": "", "next": "/"},
        {"language": "ru<script>", "next": "/"},
        {"language": "r" * 10_000, "next": "/"},
    ],
)
def test_the_switcher_refuses_a_language_not_offered_and_changes_nothing(hostile):
    user = RefereeFactory()
    client = Client()
    client.force_login(user)
    answer = client.post("/language/", hostile)
    assert answer.status_code == 400
    assert COOKIE not in answer.cookies
    assert not LanguageChoice.objects.exists()


@pytest.mark.django_db
def test_the_switcher_never_sends_the_reader_to_another_site():
    client = Client()
    for elsewhere in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        answer = client.post("/language/", {"language": "ru", "next": elsewhere})
        assert answer.status_code == 302
        assert answer["Location"] == "/"


@pytest.mark.django_db
def test_the_switcher_is_a_post():
    assert Client().get("/language/?language=ru").status_code == 405
    assert not LanguageChoice.objects.exists()


@pytest.mark.django_db
def test_a_signed_in_persons_choice_follows_them_to_another_device():
    user = RefereeFactory()
    phone = Client()
    phone.force_login(user)
    phone.post("/language/", {"language": "ru", "next": "/"})
    assert LanguageChoice.objects.get(user=user).language == "ru"
    # Another browser, no cookie, an English browser: the stored choice wins once signed in.
    laptop = Client()
    assert html_lang(laptop.get("/matches/", HTTP_ACCEPT_LANGUAGE="en")) == "en"
    laptop.force_login(user)
    assert html_lang(laptop.get("/matches/", HTTP_ACCEPT_LANGUAGE="en")) == "ru"
    # Choosing again updates the one row.
    laptop.post("/language/", {"language": "en", "next": "/"})
    assert list(LanguageChoice.objects.values_list("language", flat=True)) == ["en"]
    assert html_lang(phone.get("/matches/")) == "en"


@pytest.mark.django_db
def test_the_stored_choice_costs_no_query(django_assert_num_queries):
    """The user's row is read with the choice joined (config.auth): a page costs the same with a choice."""
    without, with_choice = RefereeFactory(), RefereeFactory()
    choose_language(user=with_choice, language="ru")
    counts = []
    for user in (without, with_choice):
        client = Client()
        client.force_login(user)
        client.get("/matches/")  # warm the per-process parts
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            client.get("/matches/")
        counts.append(len(queries))
    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_a_code_no_longer_offered_is_ignored_and_mail_falls_back(settings):
    user = UserFactory()
    LanguageChoice.objects.create(user=user, language="fr")
    user.refresh_from_db()
    assert language_for(user) == settings.LANGUAGE_CODE
    client = Client()
    client.force_login(user)
    assert html_lang(client.get("/matches/", HTTP_ACCEPT_LANGUAGE="ru")) == "ru"  # the browser's, then


@pytest.mark.django_db
def test_the_database_refuses_a_choice_that_is_not_a_language_code():
    user = UserFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        LanguageChoice.objects.create(user=user, language="Russian please")


@pytest.mark.django_db
def test_a_cached_part_is_kept_per_language():
    calls = []

    def compute():
        calls.append(translation.get_language())
        return translation.gettext("Matches")

    key = ("i18n-test", 1)
    with translation.override("en"):
        assert cached(key, compute) == "Matches"
    with translation.override("ru"):
        assert cached(key, compute) == "Матчи"
    with translation.override("en"):
        assert cached(key, compute) == "Matches"
    assert calls == ["en", "ru"]


def test_once_keeps_its_text_per_language():
    template = Template('{% load once i18n %}{% once %}<b>{% translate "Matches" %}</b>{% endonce %}')
    with translation.override("ru"):
        assert template.render(Context()) == "<b>Матчи</b>"
    with translation.override("en"):
        assert template.render(Context()) == "<b>Matches</b>"
    with translation.override("ru"):
        assert template.render(Context()) == "<b>Матчи</b>"


def test_plural_forms_give_a_script_every_form_of_the_language():
    """What the profile chart's script reads (``unit_forms``, picked with ``pluralidx``): written out by hand."""
    from config.language import plural_forms
    from leagues.kinds import kind_of

    bridge = kind_of("bridge")
    with translation.override("en"):
        assert plural_forms(bridge.rated_units) == ["%s rated board", "%s rated boards"]
    with translation.override("ru"):
        # 1, 21 сдача; 2-4 сдачи; 0, 5-20 сдач (Django's Russian rule; the fourth form is for fractions).
        assert plural_forms(bridge.rated_units) == [
            "%s рейтинговая сдача",
            "%s рейтинговые сдачи",
            "%s рейтинговых сдач",
        ]
        assert bridge.rated_units(21) == "21 рейтинговая сдача"
        assert bridge.rated_units(12) == "12 рейтинговых сдач"


@pytest.mark.django_db
def test_dates_follow_the_language():
    """The short formats: ISO in English (config/formats/en), Django's day.month.year in Russian."""
    import datetime

    from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

    reference_data_ensure()
    when = datetime.datetime(2026, 12, 3, 18, 42, tzinfo=datetime.UTC)
    slaps_match(winner=PlayerFactory(name="Ann"), loser=PlayerFactory(name="Bob"), played_at=when)
    client = Client()
    assert "2026-12-03 18:42" in client.get("/matches/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    russian = client.get("/matches/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "03.12.2026 18:42" in russian
    assert "2026-12-03 18:42" not in russian
