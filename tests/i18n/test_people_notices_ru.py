# ruff: noqa: RUF001 (Russian words are what the mails and pages show)
"""Issue 28 for the web's pages and APIs, people, notices and webhooks: a mail is in its reader's own language
(their stored choice, else the site's), whoever's request or worker builds it, at a real SMTP server; the
notices' pages, the APIs' messages (Accept-Language), the feeds and the forms in Russian; a webhook's text
in the site's language; the decimals of lists and seasons in the locale's format."""

import datetime
from datetime import UTC, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from django.utils.translation import ngettext

from config.models import LanguageChoice
from hooks.events import ping_facts
from leagues.models import Game, League
from notices.models import NoticeChoices
from notices.sending import list_notices_send_now
from notices.services import notice_choices_set, unsubscribe_token
from notices.tasks import digests_send_due
from ratings.lists import rating_list_publish
from ratings.models import RatingList
from ratings.services import ratings_process_game
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, UserFactory, slaps_match
from tests.notices import conftest as notices_conftest
from tests.notices.conftest import html_of, text_of
from web.forms import HistoryFilterForm
from web.list_pages import shown_change, shown_rating
from web.season_pages import shown_points

pytestmark = pytest.mark.django_db
smtp = notices_conftest.smtp  # the notices' real SMTP server (aiosmtpd), a fixture
MINUS = "\u2212"


def choose(user, **choices):
    notice_choices_set(user=user, **{"evening_digest": False, "new_lists": False, "referee_notices": False, **choices})


def in_russian(user):
    LanguageChoice.objects.create(user=user, language="ru")
    return user


def claimed(name, *, russian=False, **choices):
    user = UserFactory(username=name.lower(), email=f"{name.lower()}@example.org")
    if russian:
        in_russian(user)
    player = PlayerFactory(name=name, user=user)
    if choices:
        choose(user, **choices)
    return player


def subject(mail) -> str:
    """A mail's subject; Python's parser reads the folding of an encoded (non-ASCII) one as a leading space."""
    return str(mail["Subject"]).strip()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- mails ------------------------------------------------------------------------------------------------


def local_day_at(days_ago: int, hour: int, minute: int = 0) -> datetime.datetime:
    zone = timezone.get_default_timezone()
    day = timezone.localtime(timezone.now(), zone).date() - timedelta(days=days_ago)
    return datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=zone)


def test_the_digest_is_in_each_readers_language(smtp, reference_data):
    ann, bob = claimed("Ann", russian=True), claimed("Bob")
    for player in (ann, bob):
        choose(player.user, evening_digest=True)
        NoticeChoices.objects.filter(user=player.user).update(evening_digest_since=timezone.now() - timedelta(days=5))
    played = local_day_at(1, 19)
    slaps_match(winner=ann, loser=bob, played_at=played)
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    digests_send_due.delay()
    day = played.date()

    (russian,) = smtp.inbox.to("ann@example.org")
    assert subject(russian) == f"Ваш вечер {day:%d.%m.%Y}: Slaps"
    text, html = text_of(russian), html_of(russian)
    assert "Вечер игрока Ann" in text
    assert "Почему:" in text
    assert "Ваш профиль:" in text
    assert "Отписаться от этих писем:" in text
    assert '<html lang="ru">' in html
    assert "Почему изменился" in html
    assert "Your evening" not in text

    (english,) = smtp.inbox.to("bob@example.org")
    assert subject(english) == f"Your evening of {day.isoformat()}: Slaps"
    assert "Bob's evening" in text_of(english)
    assert "Unsubscribe from these mails:" in text_of(english)
    assert '<html lang="en">' in html_of(english)


def test_a_list_notice_is_in_each_readers_language_and_their_choice_costs_no_query(smtp, reference_data):
    ann, bob = claimed("Ann", russian=True, new_lists=True), claimed("Bob", new_lists=True)
    cid = claimed("Cid", new_lists=True)
    slaps = Game.objects.get(slug="slaps")
    played = datetime.datetime(2026, 11, 10, 19, tzinfo=UTC)
    slaps_match(winner=ann, loser=bob, played_at=played)
    slaps_match(winner=cid, loser=ann, played_at=played + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    rating_list_publish(game=slaps, day=datetime.date(2026, 11, 30), now=datetime.datetime(2026, 12, 1, 6, tzinfo=UTC))
    rating_list = RatingList.objects.get()
    with CaptureQueriesContext(connection) as queries:
        sent, more = list_notices_send_now(rating_list_id=rating_list.pk)
    assert (sent, more) == (3, False)
    # The choices are joined to the rows read in bulk: never read one person at a time.
    assert not [query for query in queries.captured_queries if 'FROM "config_languagechoice"' in query["sql"]]

    (russian,) = smtp.inbox.to("ann@example.org")
    # Cid 1017, Ann 999 (by hand: tests/notices/test_notices.py), Bob 984.
    assert subject(russian) == "Рейтинг-лист игры «Slaps» на 30.11.2026: вы на 2-м месте"
    text = text_of(russian)
    assert "Рейтинг-лист игры «Slaps» на 30.11.2026" in text
    assert "Ann: 2-е место, рейтинг 999 (впервые в листе)." in text
    assert "Весь лист: https://ranks.example.org/games/slaps/lists/2026-11-30/" in text
    assert "Вы выбрали письмо о каждом новом рейтинг-листе." in text

    (english,) = smtp.inbox.to("bob@example.org")
    assert subject(english) == "The Slaps rating list of 2026-11-30: you are #3"
    assert "Bob: #3, rated 984 (new on the list)." in text_of(english)


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


def slaps_body(winner, loser):
    played = (timezone.now() - timedelta(days=1)).replace(microsecond=0)
    return {"game": "slaps", "played_at": played.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def test_referee_notices_are_in_each_readers_language_not_the_requests(
    smtp, two_step, django_capture_on_commit_callbacks
):
    # The author reads Russian: the request that queues the mails is answered in Russian, and the mails are
    # still each in their own reader's language.
    author = in_russian(RefereeFactory(username="author", email="author@example.org"))
    russian = in_russian(RefereeFactory(username="russian", email="russian@example.org"))
    english = RefereeFactory(username="english", email="english@example.org")
    for user in (author, russian, english):
        choose(user, referee_notices=True)
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_for(author).post("/api/matches/", slaps_body(ann, bob), format="json")
    match_id = answer.json()["id"]

    (waits_ru,) = smtp.inbox.to("russian@example.org")
    assert subject(waits_ru).startswith("Результат ждёт вашего подтверждения: ")
    text = text_of(waits_ru)
    assert "Результаты на подтверждение: https://ranks.example.org/results/confirm/" in text
    assert "Он не учитывается в рейтинге, пока другой судья" in text
    assert "сыгран" in text
    (waits_en,) = smtp.inbox.to("english@example.org")
    assert subject(waits_en) == f"A result waits for your confirmation: Slaps match #{match_id}"
    assert "The results to confirm: https://ranks.example.org/results/confirm/" in text_of(waits_en)

    # The English referee disputes: the author's mail is in Russian all the same.
    with django_capture_on_commit_callbacks(execute=True):
        api_for(english).post(f"/api/matches/{match_id}/dispute/", {"note": "Bob won."}, format="json")
    (disputed,) = smtp.inbox.to("author@example.org")
    assert subject(disputed).startswith("Внесённый вами результат оспорен: ")
    assert "Второй судья его оспорил. Его пояснение:" in text_of(disputed)
    assert "Bob won." in text_of(disputed)


# --- the notices' pages -----------------------------------------------------------------------------------


def test_the_unsubscribe_page_in_russian(reference_data):
    user = UserFactory()
    choose(user, evening_digest=True)
    token = unsubscribe_token(user_id=user.pk, notice="evening_digest")
    page = Client().get(f"/notices/unsubscribe/{token}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Больше не присылать письма после каждого вечера?" in page
    assert "Отписаться</button>" in page
    done = Client().post(f"/notices/unsubscribe/{token}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Готово: вы больше не будете получать письма после каждого вечера." in done
    bad = Client().get("/notices/unsubscribe/nonsense/", HTTP_ACCEPT_LANGUAGE="ru")
    assert bad.status_code == 400
    assert "Эта ссылка для отписки недействительна" in bad.content.decode()


def test_the_choices_page_in_the_persons_language(reference_data):
    user = in_russian(UserFactory(email="ann@example.org"))
    client = signed_in(user)
    page = client.get("/me/notices/").content.decode()
    assert "Ваши уведомления" in page
    assert "Сохранить выбор" in page
    answer = client.post("/me/notices/", {"action": "email", "email": "bad\naddress@example.org"})
    assert answer.status_code == 400
    assert "Введите правильный адрес электронной почты." in answer.content.decode()
    # Someone else, with no choice and an English browser: English.
    english = signed_in(UserFactory(email="bob@example.org")).get("/me/notices/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Your notices" in english.content.decode()


# --- APIs, feeds, forms -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "russian", "english"),
    [
        ("/api/players/999999/", {"detail": "Такого игрока нет."}, {"detail": "No Player matches the given query."}),
        (
            "/api/leagues/nowhere/leaderboard/",
            {"detail": "Такой лиги нет."},
            {"detail": "No League matches the given query."},
        ),
        (
            "/api/leagues/slaps-amateur/leaderboard/?sort=best",
            {"sort": ["Допустимо только 'current' или 'peak'."]},
            {"sort": ["Must be 'current' or 'peak'."]},
        ),
        (
            "/api/leagues/slaps-amateur/leaderboard/?page_size=none",
            {"page_size": ["Целое число от 1 (не больше 200 строк)."]},
            {"page_size": ["A whole number from 1 (at most 200 rows)."]},
        ),
    ],
)
def test_api_messages_follow_accept_language_and_codes_stay_english(reference_data, url, russian, english):
    answer = Client().get(url, HTTP_ACCEPT_LANGUAGE="ru")
    assert answer.json() == russian  # the field names stay English
    assert Client().get(url, HTTP_ACCEPT_LANGUAGE="en").json() == english
    assert Client().get(url).json() == english  # no Accept-Language: the site's language


def test_a_feed_title_in_russian(reference_data):
    feed = Client().get("/leagues/slaps-amateur/feed.atom", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    league = League.objects.get(slug="slaps-amateur")
    assert f"<title>{league.name}: результаты, рейтинг-листы и сезоны</title>" in feed
    english = Client().get("/leagues/slaps-amateur/feed.atom").content.decode()
    assert f"<title>{league.name}: results, rating lists and seasons</title>" in english


def test_the_history_filters_refuse_in_russian(reference_data):
    with translation.override("ru"):
        form = HistoryFilterForm({"since": "2026-11-30", "until": "2026-11-01"})
        assert not form.is_valid()
        assert form.non_field_errors() == ["Первый день позже последнего: поменяйте их местами."]
        assert str(form.fields["since"].label) == "С"
        assert str(form.fields["game"].empty_label) == "Все игры"


@pytest.mark.parametrize(
    ("count", "said"),
    [(1, "1 игрок."), (2, "2 игрока."), (5, "5 игроков."), (11, "11 игроков."), (21, "21 игрок."), (22, "22 игрока.")],
)
def test_a_feeds_player_count_has_russian_plural_forms(count, said):
    with translation.override("ru"):
        assert ngettext("%(players)d player.", "%(players)d players.", count) % {"players": count} == said


def test_lists_and_seasons_show_decimals_in_the_locales_format():
    with translation.override("ru"):
        assert shown_rating(Decimal("1502.586"), 2) == "1502,59"
        assert shown_change(Decimal("-3.5"), 1) == f"{MINUS}3,5"
        assert shown_points(Decimal("4.50")) == "4,5"
        assert shown_rating(Decimal("1502.4"), 0) == "1502"
    assert shown_rating(Decimal("1502.586"), 2) == "1502.59"
    assert shown_points(Decimal("4.50")) == "4.5"


# --- webhooks -----------------------------------------------------------------------------------------------


def test_a_webhooks_text_is_in_the_sites_language_whoever_builds_it(settings):
    with translation.override("ru"):  # an admin reading Russian sends a test event
        facts = ping_facts(webhook_name="club chat", by="admin")
    assert facts.text == "Cardrank test event for the webhook club chat: it reaches you."
    settings.LANGUAGE_CODE = "ru"
    assert ping_facts(webhook_name="club chat", by="admin").text == (
        "Тестовое событие Cardrank для вебхука «club chat»: оно до вас доходит."
    )
    assert list(ping_facts(webhook_name="x", by="y").data) == ["webhook", "by"]  # the keys stay English
