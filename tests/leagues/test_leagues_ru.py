# ruff: noqa: RUF001 (Russian words and a minus sign are what the pages show)
"""The leagues' strings in Russian (issue 28): the services' refusals, the models' labels and choices in admin,
and the signed changes' filters in the page's number format."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation

from leagues.models import League, SeasonMove
from leagues.services import player_create
from leagues.templatetags.cardrank import percent, shown_change, signed
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


def refusal(**fields) -> dict:
    with pytest.raises(ValidationError) as caught:
        player_create(**fields)
    return caught.value.message_dict


def test_a_players_refusals_are_in_russian(reference_data):
    player_create(name="Пётр", federation_id="042")
    with translation.override("ru"):
        assert refusal(name=" ") == {"name": ["Обязательное поле: имя игрока."]}
        assert refusal(name="я" * 101) == {"name": ["Не больше 100 символов."]}
        assert refusal(name="Анна", federation_id="042") == {
            "federation_id": ["Номер федерации 042 уже у другого игрока."]
        }
    assert refusal(name=" ") == {"name": ["This field is required: the player's name."]}  # English stays


def test_labels_and_choices_are_in_russian():
    with translation.override("ru"):
        assert str(League._meta.verbose_name_plural) == "лиги"
        assert str(League._meta.get_field("name").verbose_name) == "название"
        assert str(League._meta.get_field("season_up_count").verbose_name) == "сколько повысить"
        assert dict(League.Tier.choices)["amateur"] == "Любительская"
        assert dict(SeasonMove.Direction.choices)["up"] == "Повышение"
        assert "От 1 до 3660." in str(League._meta.get_field("inactive_after_days").help_text)
    assert str(League._meta.get_field("name").verbose_name) == "name"
    assert str(League._meta.get_field("inactive_after_days").help_text).endswith("From 1 to 3660.")


def test_the_league_admin_page_in_russian(reference_data):
    client = Client()
    client.force_login(AdminFactory())
    league = League.objects.get(slug="slaps-amateur")
    html = client.get(f"/admin/leagues/league/{league.pk}/change/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for label in ["Название:", "Порог перехода в высшую лигу:", "Дней до неактивности:", "Очки за победу:"]:
        assert label in html


def test_signed_changes_keep_their_sign_in_every_language():
    for language in ("en", "ru"):
        with translation.override(language):
            assert (signed(12.4), signed(-4), signed(0), signed(1500)) == ("+12", "\u22124", "\u00b10", "+1500")
            assert shown_change("2160.10", "2162.59") == "+3"
            assert percent(0.5) == "50%"
            assert percent("x") == ""
