"""A game's own validation refuses the rating parameters admin's form refuses (issue 25, "Validation").

Admin's game form runs the model's check (``Game.parameters_validate`` through ``full_clean``), so a game
built in code, a shell or a data migration is held to the same rule as one saved in admin.
"""

import pytest
from django.core.exceptions import ValidationError

from leagues.models import Game


def _game(rating_system: str, parameters) -> Game:
    return Game(slug="a-game", name="A game", rating_system=rating_system, parameters=parameters)


@pytest.mark.parametrize(
    ("rating_system", "parameters", "named"),
    [
        ("elo", {"scale": 0}, "scale"),  # below its range
        ("elo", {"scale": 5000}, "scale"),  # above it
        ("elo", {"k_provisional": 0}, "k_provisional"),  # a strict lower bound
        ("elo", {"provisional_matches": 2.5}, "provisional_matches"),  # a count must be whole
        ("elo", {"scale": "400"}, "scale"),  # a number as text
        ("elo", {"scale": True}, "scale"),  # a boolean is no number
        ("elo", {"scale": None}, "scale"),
        ("elo", {"k_provisonal": 40}, "k_provisonal"),  # unknown: a misspelling
        ("preferans", {"kd_min": 3, "kd_max": 2}, "kd_min"),  # a pair out of order
        ("bridge", {"scale": 0}, "scale"),
    ],
)
@pytest.mark.django_db
def test_full_clean_refuses_a_parameter_the_engine_would_reject_naming_it(rating_system, parameters, named):
    game = _game(rating_system, parameters)
    with pytest.raises(ValidationError) as caught:
        game.full_clean()
    messages = caught.value.message_dict["parameters"]
    assert any(named in message for message in messages), messages
    assert not Game.objects.filter(slug="a-game").exists()


@pytest.mark.parametrize("parameters", [[], "scale=400", 400])
@pytest.mark.django_db
def test_full_clean_refuses_parameters_that_are_not_an_object(parameters):
    with pytest.raises(ValidationError) as caught:
        _game("elo", parameters).full_clean()
    assert caught.value.message_dict["parameters"] == ["Parameters must be a JSON object."]


@pytest.mark.parametrize(
    ("rating_system", "parameters"),
    [
        ("elo", {}),
        ("elo", {"scale": 100, "k_provisional": 40, "provisional_matches": 10}),
        ("elo", {"scale": 2000.0}),
        ("preferans", {"kd_min": 2, "kd_max": 2}),
        ("bridge", {"scale": 400}),
    ],
)
@pytest.mark.django_db
def test_full_clean_takes_parameters_in_range(rating_system, parameters):
    _game(rating_system, parameters).full_clean()


@pytest.mark.django_db
def test_admin_form_refuses_once_with_the_models_message(admin_client, slaps):
    """The form keeps no rule of its own: it shows the model's message, once, on the parameters field."""
    data = {
        "name": "Slaps",
        "slug": "slaps",
        "rating_system": "elo",
        "start_rating": "1000",
        "parameters": '{"scale": 0}',
        "leagues-TOTAL_FORMS": "0",
        "leagues-INITIAL_FORMS": "0",
    }
    response = admin_client.post(f"/admin/leagues/game/{slaps.pk}/change/", data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors == {"parameters": ["Parameter scale must be a number from 100 to 2000; got 0."]}
    slaps.refresh_from_db()
    assert slaps.parameters == {}
