"""The history API pages (issue 25): a player's ledger a page at a time, never the whole of it in one answer.

The data: Ann plays one Preferans game of 130 deals (one ledger row a deal) at a table with Bob and a
bot, then beats Bob at Slaps a day later: 131 rows, the Preferans deals first (oldest first), numbered
0 to 129, then the Slaps match's one unit.
"""

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
DEALS = 130
URL = "/api/players/{}/history/"


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


@pytest.fixture
def long_history(referee_client, slaps, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = {
        "game": "preferans",
        "played_at": START.isoformat(),
        "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}],
        "deals": [[2, -1, -1] if number % 2 else [-2, 1, 1] for number in range(DEALS)],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body, format="json")
    assert response.status_code == 201, response.content
    slaps_match(winner=ann, loser=bob, played_at=START + timedelta(days=1))
    ratings_process_game(game_id=slaps.pk)
    return ann, response.json()["id"]


def test_the_default_page_is_100_rows_with_a_link_to_the_rest(anon_client, long_history):
    ann, preferans_match = long_history
    first = anon_client.get(URL.format(ann.pk)).json()
    assert first["count"] == DEALS + 1
    assert len(first["results"]) == 100
    assert [row["unit"] for row in first["results"]] == list(range(100))
    assert {row["match"] for row in first["results"]} == {preferans_match}
    assert first["previous"] is None
    assert first["next"] == f"http://testserver{URL.format(ann.pk)}?page=2"
    second = anon_client.get(first["next"]).json()
    assert [(row["game"], row["unit"]) for row in second["results"]] == [
        *(("preferans", unit) for unit in range(100, DEALS)),
        ("slaps", 0),
    ]
    assert second["next"] is None
    assert second["previous"] == f"http://testserver{URL.format(ann.pk)}"  # page 1: no page parameter


def test_pages_of_a_size_asked_for_keep_the_filter_in_their_links(anon_client, long_history):
    ann, _ = long_history
    page = anon_client.get(URL.format(ann.pk), {"game": "preferans", "page_size": 40, "page": 2}).json()
    assert page["count"] == DEALS
    assert [row["unit"] for row in page["results"]] == list(range(40, 80))
    assert query_of(page["next"]) == {"game": ["preferans"], "page_size": ["40"], "page": ["3"]}
    assert query_of(page["previous"]) == {"game": ["preferans"], "page_size": ["40"]}  # page 1
    last = anon_client.get(URL.format(ann.pk), {"game": "preferans", "page_size": 40, "page": 4}).json()
    assert [row["unit"] for row in last["results"]] == list(range(120, DEALS))
    assert last["next"] is None


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_a_page_costs_the_same_few_queries_however_long_the_history(
    anon_client, long_history, django_assert_max_num_queries
):
    """The player, the count, the page's keys and its rows with their games (the game filter: one more)."""
    ann, _ = long_history
    with django_assert_max_num_queries(4):
        rows = anon_client.get(URL.format(ann.pk), {"page_size": 1000}).json()["results"]
    assert len(rows) == DEALS + 1
    with django_assert_max_num_queries(5):
        assert len(anon_client.get(URL.format(ann.pk), {"game": "slaps"}).json()["results"]) == 1


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ({"page": 3}, 404, None),  # past the last of two pages
        ({"page": 0}, 400, "page"),
        ({"page": "abc"}, 400, "page"),
        ({"page_size": 0}, 400, "page_size"),
        ({"page_size": "-5"}, 400, "page_size"),
        ({"game": "nope"}, 400, "game"),
    ],
)
def test_a_page_not_understood_is_refused(anon_client, long_history, query, status, field):
    ann, _ = long_history
    response = anon_client.get(URL.format(ann.pk), query)
    assert response.status_code == status
    if field:
        assert field in response.json()


def test_a_page_size_over_the_maximum_gets_the_maximum(
    anon_client, referee_client, reference_data, django_capture_on_commit_callbacks
):
    """At most 1,000 rows a page (docs/api.md): asked for more, a client gets 1,000 and the link to the rest.
    Three Preferans games of 350 deals: 1,050 rows."""
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    for game in range(3):
        body = {
            "game": "preferans",
            "played_at": (START + timedelta(days=game)).isoformat(),
            "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}],
            "deals": [[2, -1, -1]] * 350,
        }
        with django_capture_on_commit_callbacks(execute=True):
            assert referee_client.post("/api/matches/", body, format="json").status_code == 201
    page = anon_client.get(URL.format(ann.pk), {"page_size": 5000}).json()
    assert (page["count"], len(page["results"])) == (1050, 1000)
    rest = anon_client.get(page["next"]).json()
    assert [row["unit"] for row in rest["results"]] == list(range(300, 350))
    assert rest["next"] is None


def test_an_empty_history_is_one_empty_page(anon_client, reference_data):
    nobody = PlayerFactory(name="Nobody")
    assert anon_client.get(URL.format(nobody.pk)).json() == {"count": 0, "next": None, "previous": None, "results": []}
