# ruff: noqa: RUF001, RUF002, RUF003 (Russian words and seat letters are what the pages show)
"""Bridge in Russian (issue 28): the session's standings, a board's traveller and hand record, a pair's
scorecard, the entry page, the digest's part and the importers' problems in a club player's words (сдача,
протокол сдачи, расклад, зональность, МП, IMP, пар, С/В/Ю/З, СЮ/ВЗ), percentages with a decimal comma, and
the plural forms of boards right for 1, 2, 5, 11 and 21.

The evening is the matchpoint evening of tests/games/test_bridge_session_pages.py (its figures are worked by
hand there): pair 1 (Ann & Bob) 75 %, pair 6 (Kim & Lu) 66.67 %, pair 4 58.33 %, board 1 dealt by North with
nobody vulnerable, a top of 4 MP."""

import re
from html import unescape

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import ngettext

from games.bridge.digest import session_digest
from games.bridge.importing import parse_pbn
from games.bridge.models import Board
from games.bridge.session import points_text
from games.bridge.views import BridgeForm, Reading, cleaner_cells, cleaner_place
from tests.factories import PlayerFactory
from tests.games.test_bridge_session_pages import DEAL, NAMES, matchpoint_body, store

pytestmark = pytest.mark.django_db

RU = {"HTTP_ACCEPT_LANGUAGE": "ru-RU,ru;q=0.9,en;q=0.5"}


@pytest.fixture
def twelve(reference_data):
    return [PlayerFactory(name=name) for name in NAMES]


@pytest.fixture
def evening(referee_client, twelve):
    return store(referee_client, matchpoint_body(twelve))


def text(html: str) -> str:
    """The page's words, tags left out and spaces trimmed."""
    return unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def main(url: str, client: Client | None = None) -> str:
    response = (client or Client()).get(url, **RU)
    assert response.status_code == 200, (url, response.status_code)
    html = response.content.decode()
    return html[html.index("<main") : html.index("</main>")]


def test_the_session_page_ranks_the_pairs_in_russian_with_decimal_commas(evening):
    html = main(evening.get_absolute_url())
    words = text(html)
    assert "6 пар · 3 сдачи · подсчёт: МП" in words
    assert "Итоги — результат клуба." in words
    for percentage in ("75%", "66,67%", "58,33%", "41,67%", "33,33%", "25%"):
        assert percentage in words
    assert "66.67" not in words
    assert "58.33" not in words
    assert "Протокол каждой сдачи" in words
    for english in ("Standings", "Boards", "Place", "scorecard", "matchpoints"):
        assert english not in words


def test_a_boards_traveller_and_hand_record_speak_the_club_players_words(evening):
    board = Board.objects.get(match=evening, number=1)
    board.deal = DEAL
    board.double_dummy = {seat: dict.fromkeys(("C", "D", "H", "S", "NT"), 13 if seat in "NS" else 0) for seat in "NESW"}
    board.par = {"score": 1520, "contracts": ["7NT NS"]}
    board.save(update_fields=["deal", "double_dummy", "par"])
    html = main(f"/matches/{evening.pk}/boards/1/")
    words = text(html)
    assert "<h1>Сдача 1</h1>" in html
    assert "Сдаёт Север · Все до зоны · подсчёт: МП · топ 4 МП" in words
    assert "Протокол сдачи" in words
    # The traveller's head and its declarers in Russian letters; a suit keeps its symbol and says its name.
    head = re.findall(r'<th scope="col"[^>]*>(.*?)</th>', html[html.index('class="table traveller"') :])[:10]
    assert head == ["СЮ", "ВЗ", "Контракт", "Разыгр.", "Взятки", "Первый ход", "Счёт СЮ", "Счёт ВЗ", "МП СЮ", "МП ВЗ"]
    traveller = html[html.index('class="table traveller"') : html.index("</table>")]
    assert re.findall(r'<td class="contract">.*?</td><td>(\w)</td>', traveller) == ["С", "С", "Ю"]
    assert '<span class="visually-hidden">пики</span>' in traveller
    # The hand record: the compass in С/З/В/Ю, the dealer, the double-dummy table and the par.
    assert re.search(
        r'<span class="compass-n">С</span><span class="compass-w">З</span>'
        r'<span class="compass-e">В</span><span class="compass-s">Ю</span>',
        html,
    )
    assert "Север (сдающий)" in words
    assert "Анализ «в открытую»" in words
    assert re.findall(r'<th scope="row">(\w+)</th>', html) == ["Север", "Юг", "Восток", "Запад"]
    assert "Пар: СЮ +1520 (7 БК СЮ)" in words
    assert '<abbr class="strain-nt" title="без козыря">БК</abbr>' in html
    for english in ("Dealer", "Traveller", "Hand record", "North", "Par:", "vulnerable"):
        assert english not in words


def test_a_pairs_scorecard_in_russian(evening):
    html = main(f"/matches/{evening.pk}/pairs/1/")
    words = text(html)
    assert "<h1>Пара 1</h1>" in html
    assert "Счёт 75% (9 из 12 МП)" in words
    for words_shown in ("По сдачам", "Соперники", "Итого"):
        assert words_shown in words


def test_the_scorecard_of_a_pair_with_a_fractional_score_has_a_decimal_comma(evening):
    words = text(main(f"/matches/{evening.pk}/pairs/6/"))
    assert "Счёт 66,67% (8 из 12 МП)" in words


def test_the_entry_page_speaks_russian(referee):
    client = Client()
    client.force_login(referee)
    html = main("/results/bridge/", client)
    words = text(html)
    for phrase in (
        "1. Турнир",
        "Движение Митчелл Хауэлл Свободное",
        "Подсчёт МП Кросс-IMP Батлер",
        "2. Пары",
        "3. Протоколы сдач",
        "Сдача 1 сдаёт С, все до зоны",
        "Сдача 5 сдаёт С, СЮ в зоне",
        "Добавить сдачу",
        "Сохранить турнир",
    ):
        assert phrase in words, phrase
    assert 'aria-label="Сдача 1, стол 1, Счёт СЮ"' in html
    assert 'aria-label="Сдача 1, стол 1, Пара СЮ"' in html
    # What is read back is not translated: the seat letters of the fields' values, the field names.
    for attribute in ('name="movement"', 'value="mitchell"', 'name="b1-t1-score"'):
        assert attribute in html
    for english in ("Movement", "Board 1", "Save evening", "Tables"):
        assert english not in words


def test_the_cleaners_russian_messages_find_their_cells():
    with translation.override("ru"):
        place = cleaner_place().match("Сдача 7, стол 2, NS: в паре должны быть два разных игрока.")
        assert place.groups() == ("7", "2", "NS")
        form = BridgeForm.from_post({})  # 3 tables, 6 boards
        reading = Reading(body={}, cells={}, filled=[1], places={(1, 1): 2})
        message = "Сдача 1, стол 1: игрок(и) 5 сидят на двух местах в сдаче."
        assert cleaner_cells([message], reading, form) == {
            "b1-t2-ns": "Сдача 1, стол 2: игрок(и) 5 сидят на двух местах в сдаче."
        }
        score = "Сдача 1, стол 1: сдача, в которой все спасовали, даёт 0."
        assert cleaner_cells([score], reading, form) == {"b1-t2-score": "Сдача 1, стол 2: " + score[17:]}


@pytest.mark.parametrize(
    ("count", "boards", "pairs"),
    [
        (1, "1 сдача", "против 1 пары"),
        (2, "2 сдачи", "против 2 пар"),
        (5, "5 сдач", "против 5 пар"),
        (11, "11 сдач", "против 11 пар"),
        (21, "21 сдача", "против 21 пары"),
    ],
)
def test_boards_and_pairs_take_the_russian_plural_forms(count, boards, pairs):
    with translation.override("ru"):
        assert ngettext("%(counter)s board", "%(counter)s boards", count) % {"counter": count} == boards
        assert ngettext("against %(counter)s pair", "against %(counter)s pairs", count) % {"counter": count} == pairs


def test_points_have_a_decimal_comma_in_russian_and_a_point_in_english():
    from fractions import Fraction

    with translation.override("ru"):
        assert points_text(Fraction(175, 3)) == "58,33"
        assert points_text(Fraction(-7, 2), signed=True) == "\u22123,5"
    with translation.override("en"):
        assert points_text(Fraction(175, 3)) == "58.33"


def test_the_digests_bridge_part_in_russian(evening, twelve):
    kim = twelve[10]  # pair 6, 66.67 %
    with translation.override("ru"):
        html, plain = session_digest([evening], kim)
    words = text(html)
    assert "Место вашей пары: 2, результат 66,67% (МП, итог клуба)." in words
    assert "Ваша карточка по сдачам" in words
    assert "Карточка на сайте" in words
    assert "Место вашей пары: 2, результат 66,67% (МП, итог клуба)." in plain
    assert "Your" not in words
    assert "Board" not in plain


def test_an_importers_problem_is_told_in_russian():
    with translation.override("ru"):
        plan = parse_pbn(b"[Event \x00]")
    assert [(problem.where, problem.message) for problem in plan.problems] == [
        ("файл", "В файле есть байты NUL: это двоичный файл или UTF-16 без метки порядка байтов, а не текст PBN.")
    ]
