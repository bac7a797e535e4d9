"""What each engine parameter does, in words (issue 29): every parameter a game may set has a label and a
sentence, a change is worded with which way it moves the ratings, and the quality page lists them with the
game's values, marking those that differ from the seed's defaults.

The parameters are read from the engines' ``RANGES``, not from the texts, so a parameter added to an engine
without words fails here; the expected sentences are typed out.
"""

import re

import pytest
from django.utils import translation

from leagues.kinds import kind_of, kind_register, kind_unregister
from leagues.models import Game
from ratings.engines import REGISTRY
from ratings.parameters import ParameterText, parameter_change, parameter_texts, parameters_explained
from tests.fourth_game.kind import RummyKind

pytestmark = pytest.mark.django_db

#: Every parameter a game may set, game by game, as the engines declare them.
RANGED = [
    (system, param.name)
    for system in ("elo", "preferans", "bridge")
    for param in REGISTRY[system].parameters_class.RANGES
]


@pytest.mark.parametrize(("system", "name"), RANGED, ids=[f"{system}-{name}" for system, name in RANGED])
def test_every_parameter_of_every_engine_has_a_label_a_sentence_and_both_effects(reference_data, system, name):
    text = parameter_texts(system)[name]
    assert isinstance(text, ParameterText)
    assert str(text.label)
    assert str(text.label) != name
    assert str(text.does).endswith(".")
    assert str(text.higher)
    assert str(text.lower)
    assert str(text.higher) != str(text.lower)


def test_the_three_games_word_their_engines_parameters_and_no_other():
    for system in ("elo", "preferans", "bridge"):
        declared = [param.name for param in REGISTRY[system].parameters_class.RANGES]
        assert sorted(kind_of(system).parameter_texts()) == sorted(declared)
        assert list(parameter_texts(system)) == declared


@pytest.mark.parametrize(
    ("system", "name", "old", "new", "sentence"),
    [
        ("elo", "k_established", 16, 24, "K for established players 16 → 24: ratings follow recent form faster"),
        ("elo", "k_established", 16, 12,
         "K for established players 16 → 12: ratings move less on each result and settle more"),
        ("elo", "k_provisional", 32, 40, "K for new players 32 → 40: new players reach their level in fewer matches"),
        ("preferans", "kd_base", 2.0, 0.5, "Deal coefficient (Kd) base 2 → 0.5: every deal moves ratings less"),
        ("preferans", "smoothing_scale", 1000, 1500,
         "Smoothing scale 1000 → 1500: gains above the smoothing start shrink more slowly"),
        ("bridge", "draw_margin_imps", 1, 1.5, "Draw margin (IMPs) 1 → 1.5: more duels count as draws"),
        ("bridge", "bonus_scale", 100, 75,
         "Partnership bonus pace (deals) 100 → 75: partnerships earn their bonus in fewer deals"),
        ("bridge", "scale", 400, 400, "Rating scale 400 → 400"),
    ],
)  # fmt: skip
def test_a_change_is_worded_with_the_way_it_moves_the_ratings(reference_data, system, name, old, new, sentence):
    assert parameter_change(game=system, name=name, old=old, new=new) == sentence


def test_a_change_in_russian_has_the_russian_words_and_decimal_comma(reference_data):
    with translation.override("ru"):
        assert (
            parameter_change(game="preferans", name="kd_base", old=2.0, new=0.5)
            == "База коэффициента раздачи (Kd) 2 → 0,5: каждая раздача меняет рейтинг меньше"
        )
        assert (
            parameter_change(game="elo", name="k_established", old=16, new=24)
            == "K-фактор опытных игроков 16 → 24: рейтинг быстрее следует за текущей формой"
        )


def test_the_game_s_values_are_listed_in_the_engine_s_order_with_the_defaults(reference_data):
    Game.objects.filter(slug="bridge").update(parameters={"draw_margin_imps": 1.5})
    explained = parameters_explained(game=Game.objects.get(slug="bridge"))
    assert [(row["name"], row["value"], row["default"], row["changed"]) for row in explained] == [
        ("k_base", "24", "24", False),
        ("scale", "400", "400", False),
        ("rating_difference_cap", "400", "400", False),
        ("draw_margin_imps", "1.5", "1", True),
        ("imps_per_goal", "3", "3", False),
        ("bonus_max", "50", "50", False),
        ("bonus_scale", "100", "100", False),
    ]
    assert explained[3]["label"] == "Draw margin (IMPs)"
    assert (
        explained[3]["does"]
        == "A duel won or lost by no more than this many IMPs is a draw, half a point to each side."
    )


@pytest.fixture
def rummy_kind():
    """A game plugin whose kind words none of its parameters (the fourth game of ``tests/fourth_game``)."""
    kind = kind_register(RummyKind())
    REGISTRY.setdefault(kind.slug, kind.engine)
    yield kind
    kind_unregister(kind.slug)
    REGISTRY.pop(kind.slug, None)


def test_a_plugin_without_texts_shows_its_parameters_by_name(reference_data, rummy_kind):
    rummy = Game.objects.create(slug="rummy", name="Rummy", rating_system=rummy_kind.slug, parameters={"k": 2})
    assert parameters_explained(game=rummy) == [
        {"name": "k", "label": "k", "does": "", "value": "2", "default": "0.5", "changed": True}
    ]
    assert parameter_change(game=rummy, name="k", old=0.5, new=2) == "k 0.5 → 2"


# --- the quality page -------------------------------------------------------------------------------------


def parameters_section(html: str) -> dict[str, str]:
    """The quality page's parameters, by name: the text of each one's label and the descriptions after it."""
    listing = re.search(r'<dl class="parameters" id="parameters">(.*?)</dl>', html, re.S)
    assert listing, "the page lists no parameters"
    entries = re.findall(r'<dt id="parameter-(\w+)">(.*?)(?=<dt |$)', listing.group(1), re.S)
    return {name: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for name, body in entries}


def test_the_quality_page_lists_each_parameter_with_its_value_and_marks_a_change(client, slaps):
    Game.objects.filter(pk=slaps.pk).update(parameters={"k_established": 24})
    html = client.get("/quality/slaps/").content.decode()
    shown = parameters_section(html)
    assert shown == {
        "k_provisional": "K for new players 32 The most one match can move the rating of a player still in their "
        "provisional matches.",
        "k_established": "K for established players 24 (changed; the default is 16) The most one match can move "
        "the rating of a player past their provisional matches.",
        "provisional_matches": "Provisional matches 32 How many rated matches a player plays with the K for new "
        "players, their rating marked provisional, before the K for established players applies.",
        "scale": "Rating scale 400 The rating gap at which the stronger player is expected to win 10 matches to 1.",
    }


def test_the_quality_page_in_russian(client, reference_data):
    Game.objects.filter(slug="bridge").update(parameters={"draw_margin_imps": 1.5})
    html = client.get("/quality/bridge/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    shown = parameters_section(html)
    assert shown["draw_margin_imps"].startswith("Граница ничьей (IMP) 1,5 (изменено; по умолчанию 1)")
    assert shown["k_base"].startswith("K-фактор при малом перевесе 24 ")
    assert "Параметры" in html


def test_parameters_the_engine_refuses_leave_the_page_up_and_say_so(client, slaps):
    Game.objects.filter(pk=slaps.pk).update(parameters={"k_established": 0})
    answer = client.get("/quality/slaps/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="parameters-problem"' in html
    assert "Parameter k_established must be a number above 0 and at most 200; got 0." in html
