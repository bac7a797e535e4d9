"""A league's seasons in the API (web.season_apis): the list, a season's paged table, refusals."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from leagues.models import League
from tests.games.test_season_pages import closed  # noqa: F401 - the fixture
from tests.games.test_seasons import club  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


def test_a_leagues_seasons_latest_first_with_their_champions(closed):  # noqa: F811
    answer = APIClient().get(reverse("api-league-seasons", args=["slaps-amateur"]))
    assert answer.status_code == 200
    seasons = answer.json()
    assert [season["name"] for season in seasons] == ["Winter", "Autumn"]
    assert [season["closed"] for season in seasons] == [False, True]
    assert seasons[0]["champions"] == []
    assert seasons[1]["champions"] == [{"id": closed["ann"].pk, "name": "Ann"}]
    assert seasons[1]["url"].endswith(f"/api/leagues/slaps-amateur/seasons/{closed['season'].pk}/")


def test_a_seasons_table_a_page_at_a_time(closed):  # noqa: F811
    url = reverse("api-league-season", args=["slaps-amateur", closed["season"].pk])
    first = APIClient().get(url, {"page_size": 2}).json()
    assert (first["rule"], first["count"], first["previous"]) == ("points", 3, None)
    assert first["closed_at"] is not None
    # Ann 4 points (won 2 of 3), Bob and Cat 2 each, tied second: the hand count of test_seasons.
    assert [(line["rank"], line["player"]["name"], line["points"], line["moved"]) for line in first["lines"]] == [
        (1, "Ann", 4.0, "up"),
        (2, "Bob", 2.0, ""),
    ]
    assert first["lines"][1]["tied"] is True
    second = APIClient().get(first["next"]).json()
    assert [line["player"]["name"] for line in second["lines"]] == ["Cat"]
    assert second["next"] is None


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        (("nope", 1), {}, 404),
        (("slaps-pro", None), {}, 404),  # a season of another league
        (("slaps-amateur", None), {"page": 9}, 404),
        (("slaps-amateur", None), {"page": "x"}, 400),
        (("slaps-amateur", None), {"page_size": 0}, 400),
    ],
)
def test_refusals(closed, path, params, status):  # noqa: F811
    slug, pk = path
    url = reverse("api-league-season", args=[slug, pk or closed["season"].pk])
    assert APIClient().get(url, params).status_code == status
    assert League.objects.filter(slug="slaps-amateur").exists()
