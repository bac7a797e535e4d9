"""The honours board, a season's table and the league feed's seasons (web.season_pages, web.feeds)."""

import datetime

import pytest
from django.urls import reverse

from games.seasons import season_close, season_table_refresh
from leagues.models import League, Season
from tests.games.test_seasons import FIRST, LAST, TODAY, club  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed(club):  # noqa: F811 - the fixture imported above
    league = club["league"]
    league.season_up, league.season_up_count = League.objects.get(slug="slaps-pro"), 1
    league.save()
    season_close(season_id=club["season"].pk)
    running = Season.objects.create(
        league=league, name="Winter", first_day=LAST + datetime.timedelta(days=1), last_day=TODAY
    )
    season_table_refresh(season_id=running.pk)
    return {**club, "running": running}


def test_the_honours_board_names_the_champion_podium_and_moves(client, closed):
    page = client.get(reverse("league-seasons", args=["slaps-amateur"]))
    assert page.status_code == 200
    html = page.content.decode()
    autumn = html[html.index(f'data-season="{closed["season"].pk}"') :]
    assert "Champion" in autumn
    assert "Ann" in autumn
    assert autumn.index("Ann") < autumn.index("Bob") < autumn.index("Cat")  # the podium in rank order
    assert "Promoted" in autumn
    assert "Slaps Pro" in autumn
    winter = html[
        html.index(f'data-season="{closed["running"].pk}"') : html.index(f'data-season="{closed["season"].pk}"')
    ]
    assert "in progress" in winter
    assert "Champion" not in winter
    assert "Ranked by points: 2 a win, 1 a draw, 0 a loss" in html


def test_a_seasons_table_is_paged_searchable_and_marks_the_moves(client, closed):
    url = reverse("league-season", args=["slaps-amateur", closed["season"].pk])
    html = client.get(url).content.decode()
    assert "Final table, frozen" in html
    rows = html[html.index("<tbody>") :]
    assert rows.index("Ann") < rows.index("Bob") < rows.index("Cat")
    assert 'class="moved-up"' in html
    assert "promoted" in html
    bob = rows[rows.index(f'data-player="{closed["bob"].pk}"') :]
    assert '<td class="num">1\u20131</td>' in bob[: bob.index("</tr>")]  # beat Cat, lost to Ann; Slaps has no draws
    found = client.get(url, {"q": "ca"}).content.decode()
    assert "Cat" in found[found.index("<tbody>") :]
    assert "Ann" not in found[found.index("<tbody>") :]
    running = client.get(reverse("league-season", args=["slaps-amateur", closed["running"].pk])).content.decode()
    assert "In progress: the table as of" in running


def test_unknown_leagues_and_seasons_are_404s(client, closed):
    assert client.get(reverse("league-seasons", args=["nope"])).status_code == 404
    assert client.get(reverse("league-season", args=["slaps-pro", closed["season"].pk])).status_code == 404
    assert client.get(reverse("league-season", args=["slaps-amateur", 99999])).status_code == 404


def test_the_pages_read_a_bounded_number_of_queries(client, closed, django_assert_max_num_queries):
    for number in range(30):
        Season.objects.create(
            league=closed["league"],
            name=f"Old {number}",
            first_day=FIRST - datetime.timedelta(days=10 * (number + 1)),
            last_day=FIRST - datetime.timedelta(days=10 * number + 2),
        )
    with django_assert_max_num_queries(12):
        second = client.get(reverse("league-seasons", args=["slaps-amateur"]), {"page": 2})
    assert second.status_code == 200
    pager = second.content.decode()
    assert 'rel="prev" href="?page=1"' in pager  # 32 seasons, 12 a page
    assert 'rel="next" href="?page=3"' in pager
    assert "Page 2 of 3" in pager
    with django_assert_max_num_queries(12):
        assert client.get(reverse("league-season", args=["slaps-amateur", closed["season"].pk])).status_code == 200


def test_the_league_feed_holds_the_closed_season(client, closed):
    feed = client.get(reverse("league-feed", args=["slaps-amateur"])).content.decode()
    assert "the Autumn season&#x27;s final table" in feed or "the Autumn season's final table" in feed
    assert "1. Ann" in feed
    assert "Ann (↑ Slaps Pro)" in feed


def test_the_leaderboard_links_the_honours_board(client, closed):
    html = client.get(reverse("league-leaderboard", args=["slaps-amateur"])).content.decode()
    assert reverse("league-seasons", args=["slaps-amateur"]) in html


def test_after_a_new_result_no_season_page_works_out_a_table_or_replays(
    client, closed, monkeypatch, django_capture_on_commit_callbacks
):
    """The pages read the stored lines: a result entered (its rating and the table's refresh queued, not run
    here) leaves every season page, feed and API answer without a table worked out or a replay."""
    import games.seasons
    import ratings.replay
    import ratings.services
    from tests.games.test_seasons import enter

    calls = []
    for module, name in (
        (games.seasons, "season_table"),
        (ratings.replay, "ledger_apply"),
        (ratings.services, "ratings_process_game"),
    ):
        original = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda *a, name=name, original=original, **k: calls.append(name) or original(*a, **k)
        )
    with django_capture_on_commit_callbacks(execute=False) as queued:
        enter(closed["referee"], closed["cat"], closed["bob"], TODAY)
    assert queued  # the rating waits for its task
    calls.clear()
    for url in (
        reverse("league-seasons", args=["slaps-amateur"]),
        reverse("league-season", args=["slaps-amateur", closed["running"].pk]),
        reverse("league-season", args=["slaps-amateur", closed["season"].pk]),
        reverse("league-feed", args=["slaps-amateur"]),
        reverse("api-league-seasons", args=["slaps-amateur"]),
        reverse("api-league-season", args=["slaps-amateur", closed["running"].pk]),
    ):
        assert client.get(url).status_code == 200, url
    assert calls == []
