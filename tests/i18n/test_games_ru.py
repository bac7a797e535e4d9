# ruff: noqa: RUF001 (Russian words, a minus sign and an en dash are what the pages show)
"""Games in Russian (issue 28): the Preferans entry page in the players' words, whists typed with a decimal
comma stored as with a point, the Slaps and Preferans calculators answering with decimal commas, and the
plural forms right for 1, 2, 5, 11 and 21. Expected values are written by hand."""

import re
from decimal import Decimal

import pytest
from django.template import engines
from django.test import Client
from django.utils import translation
from django.utils.translation import ngettext

from games.entry import entry_decimal_list
from games.preferans.models import Deal
from matches.models import Match
from tests.factories import PlayerFactory
from tests.ratings import test_profile_story as story

pytestmark = pytest.mark.django_db

#: A Preferans game of two deals posted through the API (the profile story's fixture).
preferans_game = story.preferans_game

RU = {"HTTP_ACCEPT_LANGUAGE": "ru-RU,ru;q=0.9,en;q=0.5"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def pages(referee):
    client = Client()
    client.force_login(referee)
    return client


@pytest.fixture
def ann_bob(reference_data):
    return PlayerFactory(name="Ann"), PlayerFactory(name="Bob")


def text(html: str) -> str:
    """The page's words, tags left out and spaces trimmed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def dd(html: str, dd_id: str) -> str:
    return text(re.search(rf'<dd id="{dd_id}">(.*?)</dd>', html, re.S)[1])


# --- the Preferans entry page --------------------------------------------------------------------------


def test_the_preferans_entry_page_speaks_the_players_words(pages, ann_bob):
    ann, bob = ann_bob
    page = text(pages.get("/results/preferans/", **RU).content.decode())
    assert "Записать партию: Preferans" in page
    assert "За столом игроки или боты (2–4). Введите висты каждой раздачи по местам" in page
    for words in ("Места", "Место 1: или бот", "Время игры", "Сыграно раздач", "Товарищеский (без рейтинга)"):
        assert words in page
    assert "Добавить раздачу" in page
    assert "Сохранить партию" in page
    for english in ("Deal", "Seats", "Save game", "Played at"):
        assert english not in page
    # Seats chosen: the deals' table is headed in Russian, each cell named by its deal and player.
    data = {
        "action": "refresh",
        "rows": "1",
        "seat-1-player": str(ann.pk),
        "seat-2-player": str(bob.pk),
        "seat-3-bot": "normal",
    }
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true", **RU).content.decode()
    for heading in ("Раздача", "Сумма", "Итого"):
        assert f"<th>{heading}</th>" in html
    assert 'aria-label="Раздача 1, Ann"' in html
    assert re.search(r"Normal bot \(\d+, макс\. \d+\)", html)


def test_a_refused_preferans_game_is_told_in_russian_with_a_decimal_comma(pages, ann_bob):
    ann, bob = ann_bob
    data = {
        "played_at": "2026-11-01T18:00",
        "rows": "1",
        "seat-1-player": str(ann.pk),
        "seat-2-player": str(bob.pk),
        "deal-1-1": "3,5",
        "deal-1-2": "-2",
    }
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true", **RU).content.decode()
    assert "Раздача 1: сумма вистов +1,50, а не 0 (в каждой раздаче сумма нулевая)." in html
    assert "Сумма не нулевая: раздача 1." in text(html)
    assert not Match.objects.exists()


def test_whists_typed_with_a_decimal_comma_are_stored_as_with_a_point(pages, ann_bob):
    ann, bob = ann_bob

    def game(played_at: str, cells: list[list[str]], language: dict) -> Match:
        data = {"played_at": played_at, "rows": str(len(cells)), "seat-1-player": str(ann.pk)}
        data |= {"seat-2-player": str(bob.pk), "seat-3-bot": "normal"}
        for row, deal in enumerate(cells, start=1):
            data |= {f"deal-{row}-{slot}": whists for slot, whists in enumerate(deal, start=1)}
        response = pages.post("/results/preferans/", data, **language)
        assert response.status_code == 302, response.content.decode()
        return Match.objects.order_by("-pk").first()

    comma = game("2026-11-01T18:00", [["12,5", "-10", "-2,5"], ["-0,25", "0,5", "-0,25"]], RU)
    point = game("2026-11-02T18:00", [["12.5", "-10", "-2.5"], ["-0.25", "0.5", "-0.25"]], EN)
    whists = [[deal.whists for deal in Deal.objects.filter(match=match).order_by("number")] for match in (comma, point)]
    assert whists[0] == whists[1] == [[12.5, -10, -2.5], [-0.25, 0.5, -0.25]]
    results = [[seat.result for seat in match.seats.order_by("position")] for match in (comma, point)]
    assert results[0] == results[1] == [Decimal("12.25"), Decimal("-9.50"), Decimal("-2.75")]
    # The live check reads the comma too, and answers the seats' totals in the page's format.
    data = {"action": "check", "rows": "1", "seat-1-player": str(ann.pk), "seat-2-player": str(bob.pk)}
    data |= {"deal-1-1": "1,5", "deal-1-2": "-1,5"}
    check = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true", **RU).content.decode()
    assert 'id="deal-sum-1" class="deal-sum zero-sum-ok" hx-swap-oob="true">0 ✓' in check
    assert 'id="total-1" class="seat-total" hx-swap-oob="true">1,50<' in check
    assert "Во всех заполненных раздачах сумма нулевая." in check


def test_a_correction_shows_whists_with_the_languages_separator():
    from games.preferans.views import _whists_field

    with translation.override("ru"):
        assert _whists_field(-2.5) == "-2,5"
        assert _whists_field(4.0) == "4"
    with translation.override("en"):
        assert _whists_field(-2.5) == "-2.5"


# --- the calculators -------------------------------------------------------------------------------------


def test_the_preferans_calculator_answers_in_russian_with_decimal_commas(client, reference_data):
    russian = client.get("/calculator/preferans/?rating=1500,5&opponents=1600,5; 1400&whists=2,5", **RU)
    html = russian.content.decode()
    # By hand (seed 001): Rt = (2 * 1600.5 + 1400) / 3 = 1533.667; below the table, Kv = 60 + 33.167/22 = 61.508,
    # Vf = -33.167/61.508 = -0.539, Kd = 2 / (1 + log10(1.33167)) = 1.7787; Vs 2.5 > Vf:
    # Rd = 1.7787 * sqrt(2.5 + 0.539) = 3.10; Rn = 1500.5 + 3.10 = 1503.60.
    assert "Калькулятор рейтинга преферанса" in html
    assert "<dt>Рейтинг стола Rt</dt>" in html
    assert "<dt>Ожидаемые висты Vf</dt>" in html
    assert dd(html, "calc-rt") == "1533,67"
    assert dd(html, "calc-rd") == "3,10"
    assert dd(html, "calc-rn") == "1503,60"
    assert "Изменение рейтинга, вистов: 2,5" in html
    # The fields show what was typed; a figure of the rules is written with a comma.
    assert 'name="rating" value="1500,5"' in html
    assert "|Rs − Rt|/100)); 0,3; 2)." in html  # Kd's bounds: 0.3 and 2, cut by semicolons
    # The same numbers with points, in English.
    english = client.get("/calculator/preferans/?rating=1500.5&opponents=1600.5,1400&whists=2.5", **EN)
    assert dd(english.content.decode(), "calc-rt") == "1533.67"


def test_a_preferans_calculator_error_is_said_against_its_field_in_russian(client, reference_data):
    html = client.get("/calculator/preferans/?rating=1500&opponents=&whists=1", **RU).content.decode()
    said = "Рейтинги соперников (1–3, через запятую или «;»): Обязательное поле: от одного до трёх рейтингов"
    assert said in text(html)


def test_the_slaps_calculator_answers_in_russian_with_decimal_commas(client, reference_data):
    html = client.get("/calculator/elo/?rating=1100,5&opponent=1000&score=1&rated_matches=0", **RU).content.decode()
    # By hand (seed 000): E = 1 / (1 + 10^((1000 - 1100.5)/400)) = 1 / 1.560725 = 0.6407; provisional K 32:
    # 1100.5 + 32 * (1 - 0.640728) = 1111.997, a whole number: 1112.
    assert "Калькулятор рейтинга Slaps (Эло ISF)" in html
    assert "<dt>Ожидаемый результат</dt>" in html
    assert "<dt>Изменение</dt>" in html
    assert "<dt>Новый рейтинг</dt>" in html
    assert dd(html, "calc-expected") == "0,6407"
    assert dd(html, "calc-new") == "1112"
    assert 'name="rating" value="1100,5"' in html


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("1600,1400", ["1600", "1400"]),  # as it always was
        ("1600, 1400", ["1600", "1400"]),
        ("1600,5; 1400", ["1600.5", "1400"]),
        ("1600,5 1400,25", ["1600.5", "1400.25"]),
        ("1600,5, 1400", ["1600.5", "1400"]),
        ("1600,5", ["1600.5"]),  # one rating with a decimal comma
        ("1600.5,1400", ["1600.5", "1400"]),
    ],
)
def test_opponents_ratings_are_read_with_either_separator(typed, read):
    assert entry_decimal_list(typed) == read


# --- plural forms ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "deals", "whists"),
    [
        (1, "Сохранить 1 раздачу", "1 вист"),
        (2, "Сохранить 2 раздачи", "2 виста"),
        (5, "Сохранить 5 раздач", "5 вистов"),
        (11, "Сохранить 11 раздач", "11 вистов"),
        (21, "Сохранить 21 раздачу", "21 вист"),
    ],
)
def test_plural_forms_for_1_2_5_11_21(count, deals, whists):
    with translation.override("ru"):
        assert ngettext("Save %(counter)s deal", "Save %(counter)s deals", count) % {"counter": count} == deals
        assert whists_words(count) == whists
        assert whists_words(-count) == "−" + whists  # a seat's loss counts as its size
    with translation.override("en"):
        assert ngettext("Save %(counter)s deal", "Save %(counter)s deals", count) % {"counter": count} == (
            "Save 1 deal" if count == 1 else f"Save {count} deals"
        )


def test_a_fraction_of_whists_takes_the_genitive_singular():
    with translation.override("ru"):
        assert whists_words(Decimal("1.5")) == "1,50 виста"  # floatformat:"-2": two decimals, or none
        assert whists_words(Decimal("-12.25")) == "−12,25 виста"
    with translation.override("en"):
        assert whists_words(Decimal("1.5")) == "1.50 whists"


def test_the_imports_problem_count_has_four_forms():
    with translation.override("ru"):
        said = [
            ngettext("and %(count)s more problem", "and %(count)s more problems", n) % {"count": n}
            for n in (1, 2, 5, 11, 21)
        ]
    assert said == [
        "и ещё 1 проблема",
        "и ещё 2 проблемы",
        "и ещё 5 проблем",
        "и ещё 11 проблем",
        "и ещё 21 проблема",
    ]


def whists_words(value) -> str:
    """A seat's whists as the match page and the profile say them (games/preferans/_profile_result.html)."""
    template = engines["django"].get_template("games/preferans/_profile_result.html")

    class Seat:
        result = value

    return " ".join(template.render({"item": {"seat": Seat()}}).split())


# --- the profile's plain words -----------------------------------------------------------------------------


def test_a_preferans_game_reads_in_plain_russian_on_the_profile(client, preferans_game):
    match, ann = preferans_game
    deal = {"whists": 4.0, "kv": 61.5, "kd": 1.2, "smoothing": 1.0, "bot_cap": None, "floor_applied": False}
    story.set_ledger(
        match,
        ann,
        [
            ("2160.10", "2161.00", {**deal, "table_rating": 1600, "expected_whists": 1.5}),
            ("2161.00", "2162.59", {**deal, "whists": -6.0, "table_rating": 1700, "expected_whists": -3.25}),
        ],
    )
    html = client.get(f"/players/{ann.pk}/", **RU).content.decode()
    words = " ".join(html.split('<p class="change-words">')[1].split("</p>")[0].split())
    assert words == (
        "Итог партии — в минусе на 2 виста за 2 раздачи против столов со средним рейтингом 1650 "
        "(ожидалось вистов: \u22122): <strong>+3</strong>."
    )
    assert "2 раздачи, всего 2,49 (точно)" in html
    assert '<td class="num">0,90</td>' in html


# --- an import's preview, in the uploader's language --------------------------------------------------------


def test_an_imports_problems_are_said_in_the_uploaders_language(reference_data, django_capture_on_commit_callbacks):
    from django.contrib.auth.models import Permission
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from games.models import ImportRun
    from leagues.models import Game
    from tests.factories import RefereeFactory

    importer = RefereeFactory(is_staff=True)
    importer.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    client = Client()
    client.force_login(importer)
    data = b"played_at,player_a,player_b,winner\n2026-11-01T18:00:00+01:00,Ada Novak,Ben Berg,c\n"
    body = {"game": Game.objects.get(slug="slaps").pk, "file": SimpleUploadedFile("history.csv", data)}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:games_importrun_add"), body, **RU)
    assert response.status_code == 302, response.content.decode()[:2000]
    run = ImportRun.objects.get()
    assert run.status == "refused"
    problems = [(problem["where"], problem["message"]) for problem in run.preview["problems"]]
    assert problems == [(["строка 2"], "winner 'c' — не a и не b (и не имя одного из игроков).")]
