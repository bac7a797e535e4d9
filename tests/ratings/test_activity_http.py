"""Inactive players over HTTP: the leaderboard page and its toggle, the leaderboard API and CSV, the player
API and profile, and the league's setting in admin.

The history is placed relative to today (pages read the clock; the selectors' tests fix the day):
Slaps, everyone at 1000, K = 32 while provisional. 40 days ago Ann beat Bob, 2 days ago Cid beat Dan,
each at 1000 against 1000 (E = 0.5, winner +16): Ann and Cid 1016, Bob and Dan 984. The league counts a
player inactive after 10 days: Ann and Bob are inactive since (today - 40) + 10 + 1 = today - 29; Cid and
Dan are active, ranked 1 and 2 among the active; with everyone, Ann 1, Cid 2 (the tie on 1016 broken by
name), Bob 3, Dan 4.
"""

import csv
import io
from datetime import UTC, datetime, time, timedelta

import pytest
from django.test import Client

from leagues.models import League
from ratings.services import ratings_process_game
from tests.factories import LEAGUE_SEASON_FORM, PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

URL = "/api/leagues/slaps-amateur/leaderboard/"


def today():
    """Today in UTC, the test settings' site zone (read from the clock, not from the code under test)."""
    return datetime.now(UTC).date()


def noon(days_ago: int) -> datetime:
    return datetime.combine(today() - timedelta(days=days_ago), time(12), tzinfo=UTC)


@pytest.fixture
def club(slaps):
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 10
    league.save()
    ann, bob, cid, dan = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dan"))
    slaps_match(winner=ann, loser=bob, played_at=noon(40))
    slaps_match(winner=cid, loser=dan, played_at=noon(2))
    ratings_process_game(game_id=slaps.pk)
    return {"ann": ann, "bob": bob, "cid": cid, "dan": dan}


def since() -> str:
    return (today() - timedelta(days=29)).isoformat()


def api_rows(response) -> list[tuple]:
    assert response.status_code == 200, response.content
    return [
        (row["rank"], row["player"]["name"], row["rating"], row["active"], row["inactive_since"])
        for row in response.json()["results"]
    ]


def test_leaderboard_api_lists_active_players_by_default_and_everyone_on_request(club):
    client = Client()
    default = client.get(URL)
    assert default.json()["count"] == 2
    assert api_rows(default) == [(1, "Cid", 1016, True, None), (2, "Dan", 984, True, None)]
    assert api_rows(client.get(URL, {"include_inactive": "false"})) == api_rows(default)
    everyone = client.get(URL, {"include_inactive": "true"})
    assert everyone.json()["count"] == 4
    assert api_rows(everyone) == [
        (1, "Ann", 1016, False, since()),
        (2, "Cid", 1016, True, None),
        (3, "Bob", 984, False, since()),
        (4, "Dan", 984, True, None),
    ]
    # Peak sort and search follow the toggle: Dan's peak is 1000 (the start), his rank 2 or 4.
    peak = client.get(URL, {"sort": "peak"}).json()["results"]
    assert [(row["rank"], row["player"]["name"], row["peak_rating"]) for row in peak] == [
        (1, "Cid", 1016),
        (2, "Dan", 1000),
    ]
    assert [row["rank"] for row in client.get(URL, {"search": "Dan"}).json()["results"]] == [2]
    assert [
        row["rank"] for row in client.get(URL, {"search": "Dan", "include_inactive": "true"}).json()["results"]
    ] == [4]


def test_leaderboard_api_links_keep_the_toggle(club):
    page = Client().get(URL, {"include_inactive": "true", "page_size": 1, "page": 2}).json()
    assert [row["player"]["name"] for row in page["results"]] == ["Cid"]
    assert "include_inactive=true" in page["next"]
    assert "page=3" in page["next"]
    assert "include_inactive=true" in page["previous"]
    assert Client().get(URL, {"page_size": 1, "page": 3}).status_code == 404  # two active players: two pages


@pytest.mark.parametrize("value", ["yes", "TRUE", "1", "on", "true ", "x" * 500])
def test_leaderboard_api_refuses_a_toggle_it_does_not_understand(club, value):
    response = Client().get(URL, {"include_inactive": value})
    assert response.status_code == 400
    assert "include_inactive" in response.json()
    assert League.objects.get(slug="slaps-amateur").inactive_after_days == 10


def test_leaderboard_api_refuses_the_toggle_given_twice(club):
    response = Client().get(f"{URL}?include_inactive=true&include_inactive=false")
    assert response.status_code == 400
    assert "include_inactive" in response.json()


def test_leaderboard_csv_follows_the_toggle(club):
    def rows(query=""):
        response = Client().get(f"/api/leagues/slaps-amateur/leaderboard.csv{query}")
        assert response.status_code == 200
        data = b"".join(response.streaming_content).decode("utf-8-sig")
        return [
            (row["rank"], row["player"], row["active"], row["inactive_since"])
            for row in csv.DictReader(io.StringIO(data))
        ]

    assert rows() == [("1", "Cid", "yes", ""), ("2", "Dan", "yes", "")]
    assert rows("?include_inactive=true") == [
        ("1", "Ann", "no", since()),
        ("2", "Cid", "yes", ""),
        ("3", "Bob", "no", since()),
        ("4", "Dan", "yes", ""),
    ]
    assert Client().get("/api/leagues/slaps-amateur/leaderboard.csv?include_inactive=maybe").status_code == 400


def test_leaderboard_page_hides_inactive_players_and_the_toggle_shows_them_marked(club):
    client = Client()
    html = client.get("/leagues/slaps-amateur/").content.decode()
    assert 'name="include_inactive" value="true"' in html
    assert [name for name in ("Ann", "Bob", "Cid", "Dan") if f">{name}</a>" in html] == ["Cid", "Dan"]
    assert "Active players only; ranks among them." in html

    everyone = client.get("/leagues/slaps-amateur/?include_inactive=true").content.decode()
    assert 'name="include_inactive" value="true" checked' in everyone
    assert ">Ann</a>" in everyone
    assert f"inactive since {since()}" in everyone
    assert everyone.count('data-inactive="true"') == 2
    assert "leaderboard.csv?include_inactive=true" in everyone
    # The board alone (HTMX), ranked among everyone: Ann first.
    partial = client.get("/leagues/slaps-amateur/?include_inactive=true", HTTP_HX_REQUEST="true").content.decode()
    # ... with the CSV link outside the board swapped out of band to follow the toggle.
    assert 'id="table-csv" href="/api/leagues/slaps-amateur/leaderboard.csv?include_inactive=true"' in partial
    assert 'hx-swap-oob="true"' in partial
    assert partial.index(">Ann</a>") < partial.index(">Cid</a>") < partial.index(">Bob</a>") < partial.index(">Dan</a>")
    # Anything but "true" is the default view, as an unknown sort is the current one.
    assert ">Ann</a>" not in client.get("/leagues/slaps-amateur/?include_inactive=maybe").content.decode()


def test_leaderboard_page_pager_keeps_the_toggle(club, slaps):
    """26 more players, 13 results 40 days ago: 30 players in all, 2 active. With everyone shown the board has
    two pages of 25, and its links keep the toggle; the default board has one page."""
    others = PlayerFactory.create_batch(26)
    for index in range(13):
        slaps_match(winner=others[2 * index], loser=others[2 * index + 1], played_at=noon(40))
    ratings_process_game(game_id=slaps.pk)
    client = Client()
    everyone = client.get("/leagues/slaps-amateur/?include_inactive=true").content.decode()
    assert "Page 1 of 2 · 30 players" in everyone
    assert "include_inactive=true&amp;page=2" in everyone
    assert "Page 1 of" not in client.get("/leagues/slaps-amateur/").content.decode()


def test_a_league_without_the_setting_shows_no_toggle_and_everyone_active(club):
    League.objects.filter(slug="slaps-amateur").update(inactive_after_days=None)
    html = Client().get("/leagues/slaps-amateur/").content.decode()
    assert "include_inactive" not in html
    assert ">Ann</a>" in html
    assert api_rows(Client().get(URL))[0] == (1, "Ann", 1016, True, None)


def test_player_api_and_profile_say_inactive_since(club):
    client = Client()
    ann = client.get(f"/api/players/{club['ann'].pk}/").json()["ratings"]
    assert [(r["league"], r["rank"], r["active"], r["inactive_since"]) for r in ann] == [
        ("slaps-amateur", 1, False, since())
    ]
    dan = client.get(f"/api/players/{club['dan'].pk}/").json()["ratings"]
    assert [(r["rank"], r["active"], r["inactive_since"]) for r in dan] == [(2, True, None)]

    profile = client.get(f"/players/{club['ann'].pk}/").content.decode()
    assert f"Inactive since {since()}" in profile
    assert "#1 in" in profile
    assert "(among everyone)" in profile
    assert "Inactive since" not in client.get(f"/players/{club['dan'].pk}/").content.decode()


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


def league_form(league, **changes) -> dict:
    data = {
        "game": league.game_id,
        "slug": league.slug,
        "name": league.name,
        "tier": league.tier,
        "promotion_threshold": str(league.promotion_threshold or ""),
        "rating_floor": str(league.rating_floor or ""),
        "rating_period_days": str(league.rating_period_days),
        "rating_period_anchor": league.rating_period_anchor.isoformat(),
        "inactive_after_days": "",
        **LEAGUE_SEASON_FORM,
        "seasons-TOTAL_FORMS": "0",  # the league's seasons, an inline on its page
        "seasons-INITIAL_FORMS": "0",
    }
    return data | changes


@pytest.mark.parametrize("value", ["0", "-3", "3661", "40000", "abc", "1.5", "1e3", " "])
def test_admin_refuses_hostile_settings_and_changes_nothing(admin_browser, reference_data, value):
    league = League.objects.get(slug="slaps-amateur")
    response = admin_browser.post(
        f"/admin/leagues/league/{league.pk}/change/", league_form(league, inactive_after_days=value)
    )
    assert response.status_code == 200
    assert "inactive_after_days" in response.context["adminform"].form.errors
    assert League.objects.get(pk=league.pk).inactive_after_days is None


def test_admin_sets_and_clears_the_setting(admin_browser, club):
    league = League.objects.get(slug="slaps-amateur")
    response = admin_browser.post(
        f"/admin/leagues/league/{league.pk}/change/", league_form(league, inactive_after_days="60")
    )
    assert response.status_code == 302
    assert League.objects.get(pk=league.pk).inactive_after_days == 60
    # 60 days: Ann's result 40 days ago counts again, and the cached board shows it at once.
    assert Client().get(URL).json()["count"] == 4
    admin_browser.post(f"/admin/leagues/league/{league.pk}/change/", league_form(league, inactive_after_days=""))
    assert League.objects.get(pk=league.pk).inactive_after_days is None
    assert Client().get(URL, {"include_inactive": "true"}).json()["results"][0]["active"] is True
