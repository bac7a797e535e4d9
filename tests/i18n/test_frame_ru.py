# ruff: noqa: RUF001 (Russian words are what the pages show)
"""The frame in Russian (issue 28): the shared templates' pages, the error pages and the API's messages read
by a person follow Accept-Language, while what a program reads (field names, keys) stays English.

The expectations are written by hand, not read from the catalogue: a test that only compared the page with
the catalogue would pass with any translation.
"""

import pytest
from django.template import Context, Template
from django.test import Client
from django.utils import translation

from tests.factories import PlayerFactory, slaps_match

RU = {"HTTP_ACCEPT_LANGUAGE": "ru-RU,ru;q=0.9,en;q=0.5"}


def page(path: str, **extra) -> str:
    response = Client().get(path, **RU, **extra)
    assert response["Content-Language"] == "ru"
    return response.content.decode()


@pytest.mark.django_db
def test_home_page_in_russian(reference_data):
    html = page("/")
    assert "<h1>Игры и лиги</h1>" in html
    assert "<h2>Последние результаты</h2>" in html
    assert "Все недавние матчи →" in html
    assert "Games and leagues" not in html
    # The same page still speaks English to an English reader.
    assert "<h1>Games and leagues</h1>" in Client().get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.django_db
def test_leaderboard_in_russian(reference_data):
    ann, bob = PlayerFactory(name="Анна"), PlayerFactory(name="Борис")
    slaps_match(winner=ann, loser=bob)
    html = page("/leagues/slaps-amateur/")
    assert "Slaps Amateur: таблица лидеров" in html  # the title
    assert "Скачать таблицу (CSV)" in html
    assert "<legend>Сортировка</legend>" in html
    assert 'placeholder="Имя"' in html
    assert "Сравнить двух игроков" in html


@pytest.mark.django_db
def test_match_page_in_russian(reference_data):
    match = slaps_match(winner=PlayerFactory(name="Анна"), loser=PlayerFactory(name="Борис"), rated=False)
    html = page(f"/matches/{match.pk}/")
    assert "Сыгран " in html
    assert "Товарищеский: записан, в рейтинге не учитывается." in html
    # The results table's headings.
    assert "<th>Игрок</th><th>Результат</th>" in html


@pytest.mark.django_db
def test_login_page_in_russian(reference_data):
    html = page("/accounts/login/")
    assert "<h1>Вход для судей</h1>" in html
    assert "Пароль" in html
    assert '<button type="submit">Войти</button>' in html


@pytest.mark.django_db
def test_404_page_in_russian(reference_data):
    response = Client().get("/no-such-page/", **RU)
    assert response.status_code == 404
    html = response.content.decode()
    assert '<html lang="ru">' in html
    assert "<h1>Страница не найдена</h1>" in html
    assert "По адресу <code>/no-such-page/</code> страницы нет." in html
    assert '<a class="skip-link" href="#content">К содержанию</a>' in html


@pytest.mark.django_db
def test_api_404_and_400_messages_in_russian_keys_in_english(reference_data):
    client = Client()
    missing = client.get("/api/no-such-thing/", **RU)
    assert missing.status_code == 404
    assert missing.json() == {"detail": "Страница не найдена."}  # the words of DRF's own 404s
    twice = client.get("/api/leagues/?game=slaps&game=bridge", **RU)
    assert twice.status_code == 400
    assert twice.json() == {"game": ["Укажите этот параметр один раз."]}  # the field's name stays English
    # English readers keep the English message.
    assert client.get("/api/no-such-thing/").json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_a_body_refused_before_the_language_is_read_is_refused_in_the_readers_language(reference_data, settings):
    """The body cap answers before the language middleware: it reads Accept-Language itself, and groups the
    byte count as Russian does (a no-break space)."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_048_576
    response = Client().generic(
        "POST", "/api/matches/", b"", content_type="application/json", CONTENT_LENGTH="2000000", **RU
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "Тело запроса слишком велико: не больше 1\xa0048\xa0576 байт."}


@pytest.mark.parametrize(
    ("count", "words"),
    [
        (1, "Найден 1 игрок."),
        (2, "Найдено 2 игрока."),
        (5, "Найдено 5 игроков."),
        (11, "Найдено 11 игроков."),
        (21, "Найден 21 игрок."),
    ],
)
def test_a_count_of_players_takes_the_russian_plural(count, words):
    template = Template(
        "{% load i18n %}{% blocktranslate count players=n %}{{ players }} player found.{% plural %}"
        "{{ players }} players found.{% endblocktranslate %}"
    )
    with translation.override("ru"):
        assert template.render(Context({"n": count})) == words


@pytest.mark.parametrize(
    ("count", "words"),
    [(1, "1 матч"), (2, "2 матча"), (5, "5 матчей"), (11, "11 матчей"), (21, "21 матч")],
)
def test_a_count_of_matches_takes_the_russian_plural(count, words):
    """The history pager's count of matches (leagues/player_history.html)."""
    template = Template(
        "{% load i18n %}{% blocktranslate with number=1 pages=1 count matches=n %}Page {{ number }} of {{ pages }}"
        " · {{ matches }} match{% plural %}Page {{ number }} of {{ pages }} · {{ matches }} matches"
        "{% endblocktranslate %}"
    )
    with translation.override("ru"):
        assert template.render(Context({"n": count})) == f"Страница 1 из 1 · {words}"


@pytest.mark.django_db
def test_the_find_page_counts_players_in_russian(reference_data):
    for name in ("Зоя Первая", "Зоя Вторая"):
        PlayerFactory(name=name)
    assert "Найдено 2 игрока." in page("/players/?q=Зоя")
    assert "Найден 1 игрок." in page("/players/?q=Зоя Вторая")


@pytest.mark.django_db
def test_a_number_a_form_posts_back_keeps_its_decimal_point_in_russian(reference_data):
    """Admin's tuning form: the split is a number input's value, read by the browser and posted back; in
    Russian the page's figures take a decimal comma, the value must not."""
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    from leagues.models import Game

    run = SimpleNamespace(
        pk=1, split=0.7, choose=0.15, budget=1500, status="done", in_progress=False, get_status_display="done"
    )
    context = {
        "game": Game.objects.get(slug="slaps"),
        "run": run,
        "defaults": {"split": 0.5, "choose": 0.25, "budget": 200},
        "results_count": 1234,
        "seconds_per_replay": 0.5,
    }
    with translation.override("ru"):
        html = render_to_string("admin/leagues/game/tuning.html", context)
    assert 'name="split" type="number" min="0.05" max="0.9" step="0.05" value="0.7"' in html
    assert 'name="choose" type="number" min="0.05" max="0.9" step="0.05" value="0.15"' in html
    assert 'name="budget" type="number" min="1" max="2000" step="1" value="1500"' in html
    assert "Каждая переигровка заново рассчитывает 1 234 сохранённых результата игры." in html.replace("\xa0", " ")
    assert "одна переигровка заняла 0,50 с." in html
    assert "Запустить настройку" in html
