"""Results and ratings in Russian (issue 28): the result service's refusals, a rating change's plain words, the
API's messages, the parameters' refusals with a decimal comma, and plural forms for 1, 2, 5, 11 and 21.

English stays the default: the same calls outside ``translation.override("ru")`` answer in English."""

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation

from leagues.models import Game
from matches.cleaning import match_clean
from matches.confirmation import DISPUTE_NOTE_MAX, dispute_note_clean
from matches.models import Match
from matches.services import match_submit
from ratings.engines import parameter_ranges
from ratings.engines.bridge import BridgeParameters
from ratings.models import RatingChange
from ratings.parameters import range_words, rating_parameters
from ratings.tuning_runs import tuning_figure
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

MINUS = "\u2212"


def refusal(**body) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        match_clean(data=body)
    return caught.value.message_dict


# --- the result service's refusals -----------------------------------------------------------------------


def test_a_refused_result_is_explained_in_russian_and_in_english_by_default(slaps):
    body = {"game": "slaps", "played_at": "yesterday", "players": [10**9, 10**9 + 1], "winner": 10**9}
    with translation.override("ru"):
        errors = refusal(**body)
    assert errors["played_at"] == ["Введите правильные дату и время (ISO 8601, например 2026-11-01T18:00:00Z)."]
    assert errors["players"] == [f"Неизвестные id игроков: {10**9}, {10**9 + 1}."]
    errors = refusal(**body)  # no override: the site's language
    assert errors["played_at"] == ["Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z)."]
    assert errors["players"] == [f"Unknown player ids: {10**9}, {10**9 + 1}."]


def test_the_write_path_refuses_in_the_active_language(referee, slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = {"game": "slaps", "played_at": "2999-01-01T18:00:00Z", "players": [ann.pk, bob.pk], "winner": ann.pk}
    with translation.override("ru"), pytest.raises(ValidationError) as caught:
        match_submit(referee=referee, data=body)
    assert caught.value.message_dict["played_at"] == ["Матч не может быть сыгран в будущем."]
    with pytest.raises(ValidationError) as caught:
        match_submit(referee=referee, data=body)
    assert caught.value.message_dict["played_at"] == ["The match cannot have been played in the future."]
    assert not Match.objects.exists()


def test_a_status_and_a_field_read_in_russian():
    with translation.override("ru"):
        assert str(Match.Status.VOID.label) == "Аннулирован"
        assert str(Match._meta.verbose_name_plural) == "матчи"
        assert str(RatingChange._meta.get_field("rating_before").verbose_name) == "рейтинг до"
    assert str(Match.Status.VOID.label) == "Void"


# --- the API: messages follow Accept-Language, field names and codes stay English ------------------------


def test_the_api_answers_a_bad_result_in_russian_with_english_field_names(referee_client, slaps):
    body = {"game": "slaps", "played_at": "nope", "players": [10**9, 10**9 + 1], "winner": 10**9}
    response = referee_client.post("/api/matches/", body, format="json", HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == 400
    assert response.json() == {
        "played_at": ["Введите правильные дату и время (ISO 8601, например 2026-11-01T18:00:00Z)."],
        "players": [f"Неизвестные id игроков: {10**9}, {10**9 + 1}."],
    }
    english = referee_client.post("/api/matches/", body, format="json")
    assert english.status_code == 400
    assert english.json()["played_at"] == ["Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z)."]


# --- a rating change in plain words: a decimal comma, and its sign ---------------------------------------


def test_a_rating_changes_words_read_in_russian_with_a_decimal_comma_and_signs(
    client, referee_client, reference_data, django_capture_on_commit_callbacks
):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = {
        "game": "preferans",
        "played_at": "2026-11-01T18:00:00Z",
        "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}],
        "deals": [[4.5, -2.25, -2.25], [-6, 3, 3]],  # Ann: 1.5 whists down in all
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body, format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    deal = {"kv": 61.5, "kd": 1.2, "smoothing": 1.0, "bot_cap": None, "floor_applied": False}
    rows = [
        ("2160.10", "2161.00", {**deal, "whists": 4.5, "table_rating": 1600, "expected_whists": 1.5}),
        ("2161.00", "2162.59", {**deal, "whists": -6.0, "table_rating": 1700, "expected_whists": -3.25}),
    ]
    for change, (before, after, details) in zip(
        RatingChange.objects.filter(match=match, player=ann).order_by("unit"), rows, strict=True
    ):
        RatingChange.objects.filter(pk=change.pk).update(
            rating_before=Decimal(before), rating_after=Decimal(after), delta=Decimal(after) - Decimal(before)
        )
        RatingChange.objects.filter(pk=change.pk).update(details=details)
    cache.clear()

    html = client.get(f"/players/{ann.pk}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    words = " ".join(html.split('<p class="change-words">')[1].split("</p>")[0].split())
    assert "Ended the game" not in words
    assert "1,5" in words  # the whists down, with a decimal comma
    assert f"{MINUS}2" in words  # the whists expected, with a true minus
    assert words.endswith("<strong>+3</strong>.")  # the change keeps its sign
    assert "2,49" in html  # the exact total under the words

    english = client.get(f"/players/{ann.pk}/").content.decode()
    words = " ".join(english.split('<p class="change-words">')[1].split("</p>")[0].split())
    assert words.startswith("Ended the game 1.5")


# --- numbers in refusals: the reader's decimal mark ------------------------------------------------------


def test_a_stored_parameter_out_of_range_is_refused_with_a_decimal_comma(slaps):
    Game.objects.filter(pk=slaps.pk).update(parameters={"scale": 99.5})
    slaps.refresh_from_db()
    with translation.override("ru"), pytest.raises(ValidationError) as caught:
        rating_parameters(game=slaps)
    (message,) = caught.value.message_dict["parameters"]
    assert "Параметр scale должен быть числом от 100 до 2000; получено 99,5." in message
    with pytest.raises(ValidationError) as caught:
        rating_parameters(game=slaps)
    (message,) = caught.value.message_dict["parameters"]
    assert "Parameter scale must be a number from 100 to 2000; got 99.5." in message


def test_a_parameters_range_is_said_in_the_readers_words_and_numbers():
    ranges = parameter_ranges(BridgeParameters)
    with translation.override("ru"):
        assert range_words(ranges["imps_per_goal"]) == "число от 0,5 до 24"
        assert range_words(ranges["k_base"]) == "число больше 0 и не больше 200"
    assert range_words(ranges["imps_per_goal"]) == ranges["imps_per_goal"].describe() == "a number from 0.5 to 24"


def test_a_tuning_figure_has_the_readers_decimal_mark():
    assert tuning_figure(0.225) == "0.225"
    assert tuning_figure(24.0) == "24"
    with translation.override("ru"):
        assert tuning_figure(0.225) == "0,225"
        assert tuning_figure(100000) == "100000"


# --- plural forms: 1, 2, 5, 11, 21 -----------------------------------------------------------------------

COUNTS = [1, 2, 5, 11, 21]


@pytest.mark.parametrize(
    ("count", "word"), list(zip(COUNTS, ["символ", "символа", "символов", "символов", "символ"], strict=True))
)
def test_a_note_too_long_counts_its_characters_in_russian(count, word):
    length = DISPUTE_NOTE_MAX + 100 + count  # 1101, 1102, 1105, 1111, 1121: the last two digits decide
    with translation.override("ru"), pytest.raises(ValidationError) as caught:
        dispute_note_clean("x" * length)
    expected = f"Не больше 1000 символов, а в пояснении {length} {word}."  # noqa: RUF001 - Russian words
    assert caught.value.message_dict["note"] == [expected]


@pytest.mark.parametrize(
    ("singular", "plural", "expected"),
    [
        (
            "Voided %(count)d match; ratings are being replayed.",
            "Voided %(count)d matches; ratings are being replayed.",
            [
                "Аннулирован 1 матч",
                "Аннулировано 2 матча",
                "Аннулировано 5 матчей",
                "Аннулировано 11 матчей",
                "Аннулирован 21 матч",
            ],
        ),
        (
            "%(count)s character",
            "%(count)s characters",
            ["1 символ", "2 символа", "5 символов", "11 символов", "21 символ"],
        ),
        (
            "At most %(max)d results in one request; this one has %(count)d.",
            "At most %(max)d results in one request; this one has %(count)d.",
            [
                "в этом 1 результат.",
                "в этом 2 результата.",
                "в этом 5 результатов.",
                "в этом 11 результатов.",
                "в этом 21 результат.",
            ],
        ),
        (
            "Both players sit in %(count)d match (%(listed)s): they are two people, or that result is wrong. "
            "Correct or void it first; nothing was merged.",
            "Both players sit in %(count)d matches (%(listed)s): they are two people, or those results are wrong. "
            "Correct or void them first; nothing was merged.",
            ["в 1 матче", "в 2 матчах", "в 5 матчах", "в 11 матчах", "в 21 матче"],
        ),
        (
            "%(count)d list will be published again as a new version in a moment.",
            "%(count)d lists will be published again as new versions in a moment.",
            [
                "1 рейтинг-лист сейчас будет",
                "2 рейтинг-листа сейчас будут",
                "5 рейтинг-листов сейчас будут",
                "11 рейтинг-листов сейчас будут",
                "21 рейтинг-лист сейчас будет",
            ],
        ),
    ],
)
def test_counted_words_take_russian_plural_forms(singular, plural, expected):
    with translation.override("ru"):
        for count, words in zip(COUNTS, expected, strict=True):
            text = translation.ngettext(singular, plural, count) % {"count": count, "max": 100, "listed": "#1"}
            assert words in text, (count, text)


# --- admin: columns, statuses, actions and messages ------------------------------------------------------


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


def test_the_matches_admin_reads_in_russian(admin_browser, slaps, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    match = slaps_match(winner=ann, loser=bob)
    html = admin_browser.get("/admin/matches/match/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for words in (
        "Сыгран",
        "Игроки",
        "Статус",
        "Внесён",
        "Аннулировать выбранные матчи",
        "ожидание подтверждения",
        "Не ждёт",  # noqa: RUF001 - Russian words
    ):
        assert words in html, words
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(
            "/admin/matches/match/",
            {"action": "void_matches", "_selected_action": [match.pk]},
            follow=True,
            HTTP_ACCEPT_LANGUAGE="ru",
        )
    assert "Аннулирован 1 матч; рейтинги пересчитываются." in response.content.decode()
    page = admin_browser.get(f"/admin/matches/match/{match.pk}/change/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for words in ("Подтверждение и рейтинг", "Служебное", "Аннулирован", "Журнал изменений"):
        assert words in page, words
