"""``players_create``: many new players at once (an import's new people), with ``player_create``'s checks."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leagues.models import Player
from leagues.services import PlayerRefused, players_create
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_players_are_created_in_order_with_their_names_and_numbers_cleaned():
    players = players_create(people=[("  Ada   Novak ", "00123"), ("Ben Berg", ""), ("Cafe\u0301 Costa", " 7 ")])

    assert [(p.name, p.federation_id) for p in players] == [
        ("Ada Novak", "00123"),
        ("Ben Berg", ""),
        ("Caf\u00e9 Costa", "7"),
    ]
    assert [p.pk for p in players] == sorted(p.pk for p in players)
    assert list(Player.objects.order_by("pk").values_list("name", flat=True)) == [
        "Ada Novak",
        "Ben Berg",
        "Caf\u00e9 Costa",
    ]


@pytest.mark.parametrize(
    ("people", "index", "errors"),
    [
        ([("Ada", ""), ("", "")], 1, {"name": ["This field is required: the player's name."]}),
        (
            [("Ada", ""), ("Ben", "1 2")],
            1,
            {"federation_id": ["A federation number is printable text without spaces, at most 40."]},
        ),
        (
            [("Ada", "5"), ("Ben", "6"), ("Cleo", "5")],
            2,
            {"federation_id": ["Another player has federation number 5."]},
        ),
        ([("Ada", ""), ("Ben", "99")], 1, {"federation_id": ["Another player has federation number 99."]}),
    ],
    ids=["empty name", "a number with a space", "a number twice", "a number taken"],
)
def test_the_first_person_refused_is_named_with_player_creates_message(people, index, errors):
    PlayerFactory(name="Stored", federation_id="99")

    with pytest.raises(PlayerRefused) as refused:
        players_create(people=people)

    assert refused.value.index == index
    assert refused.value.message_dict == errors
    assert Player.objects.count() == 1  # nothing of the chunk was written


def test_many_people_are_checked_and_written_in_two_queries():
    # 150 people: within SQLite's 999 parameters a query (PostgreSQL takes PLAYERS_A_QUERY, 1,000, at once).
    with CaptureQueriesContext(connection) as captured:
        players_create(people=[(f"Player {n}", f"N{n}") for n in range(150)])

    assert len(captured) == 2  # the numbers already held, then one INSERT
    assert Player.objects.count() == 150
