"""The calculators' index and tabs list what the registered kinds offer, by label."""

import pytest

from games.base import BaseKind
from leagues.kinds import kind_register, kind_unregister
from ratings.calculators import CalculatorLink, calculator_links


def test_the_kinds_offer_two_calculators_by_label():
    assert calculator_links() == [
        CalculatorLink("Preferans", "calculator-preferans"),
        CalculatorLink("Slaps (Elo)", "calculator-elo"),
    ]


class ClubKind(BaseKind):
    slug = "club-game"
    calculator_url_name = "calculators"  # any page: what matters is that it is listed
    calculator_label = "A club's game"


@pytest.fixture
def club_kind():
    kind_register(ClubKind())
    yield
    kind_unregister(ClubKind.slug)


def test_a_kind_with_a_calculator_is_listed_without_editing_ratings(club_kind):
    assert CalculatorLink("A club's game", "calculators") in calculator_links()


@pytest.mark.django_db
def test_the_index_page_links_each_calculator(client):
    html = client.get("/calculator/").content.decode()
    assert '<a href="/calculator/preferans/">Preferans</a><a href="/calculator/elo/">Slaps (Elo)</a>' in html


@pytest.mark.django_db
def test_a_calculator_page_marks_its_own_tab(client, reference_data):
    html = client.get("/calculator/elo/").content.decode()
    assert '<a href="/calculator/elo/" aria-current="page">Slaps (Elo)</a>' in html
    assert '<a href="/calculator/preferans/">Preferans</a>' in html
