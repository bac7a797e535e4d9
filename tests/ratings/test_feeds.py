"""Atom feeds of a league and of a player (issue 27): newest results with their rating changes, and the
game's official rating lists.

Slaps, everyone from 1000, K = 32 while provisional: Ann beats Bob on 10 November (E = 0.5: +16 and -16),
then Bob beats Cid on 20 November (984 against 1000: E(Bob) = 1 / (1 + 10^(16/400)) = 0.47699, so Bob
gains 32 * 0.52301 = 16.74, rounded to a whole point as the ISF's table is: +17, and Cid -17). At the
end of November: Ann 1016, Bob 984 + 17 = 1001, Cid 983.
"""

import datetime
from datetime import UTC

import defusedxml.ElementTree as ElementTree
import pytest

from leagues.models import League
from matches.models import Match
from ratings.lists import rating_list_publish
from ratings.people import erased_name, player_erase
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
AFTER = datetime.datetime(2027, 1, 2, tzinfo=UTC)


@pytest.fixture
def club(slaps):
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    first = slaps_match(winner=ann, loser=bob, played_at=datetime.datetime(2026, 11, 10, 19, tzinfo=UTC))
    second = slaps_match(winner=bob, loser=cid, played_at=datetime.datetime(2026, 11, 20, 19, tzinfo=UTC))
    slaps_match(winner=cid, loser=ann, played_at=datetime.datetime(2026, 11, 21, 19, tzinfo=UTC), rated=False)
    Match.objects.update(league=League.objects.get(slug="slaps-amateur"))  # filed as the write path files them
    ratings_process_game(game_id=slaps.pk)
    rating_list_publish(game=slaps, day=datetime.date(2026, 11, 30), now=AFTER)
    return {"ann": ann, "bob": bob, "cid": cid, "first": first, "second": second}


def entries(client, url) -> list[dict]:
    answer = client.get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/atom+xml")
    feed = ElementTree.fromstring(answer.content)
    return [
        {
            "title": entry.findtext(f"{ATOM}title"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "summary": entry.findtext(f"{ATOM}summary"),
            "updated": entry.findtext(f"{ATOM}updated"),
        }
        for entry in feed.findall(f"{ATOM}entry")
    ]


def test_a_leagues_feed_holds_its_rated_results_and_its_games_lists_newest_first(client, club):
    got = entries(client, "/leagues/slaps-amateur/feed.atom")
    assert [(entry["title"], entry["link"], entry["summary"]) for entry in got] == [
        ("The Slaps rating list of Nov. 30, 2026", "http://testserver/games/slaps/lists/2026-11-30/", "3 players."),
        (
            f"Slaps match #{club['second'].pk}",
            f"http://testserver/matches/{club['second'].pk}/",
            "Rating changes: Bob +17, Cid \u221217.",
        ),
        (
            f"Slaps match #{club['first'].pk}",
            f"http://testserver/matches/{club['first'].pk}/",
            "Rating changes: Ann +16, Bob \u221216.",
        ),
    ]  # fmt: skip  (the friendly of 21 November is no rated result)
    assert got[1]["updated"].startswith("2026-11-20T19:00:00")


def test_a_players_feed_holds_their_own_changes_and_their_list_lines(client, club):
    got = entries(client, f"/players/{club['bob'].pk}/feed.atom")
    assert [entry["summary"] for entry in got] == [
        "Rank 2, rating 1001.",
        "Rating changes: Bob +17.",
        "Rating changes: Bob \u221216.",
    ]


def test_an_erased_players_old_name_is_in_no_feed(client, club):
    player_erase(player=club["bob"], by=AdminFactory())
    for url in ("/leagues/slaps-amateur/feed.atom", f"/players/{club['bob'].pk}/feed.atom"):
        text = client.get(url).content.decode()
        assert "Bob" not in text
        assert erased_name(club["bob"].pk) in text


def test_feeds_of_what_does_not_exist_are_404s_and_a_feed_reads_a_bounded_number_of_queries(
    client, club, django_assert_max_num_queries
):
    assert client.get("/leagues/nope/feed.atom").status_code == 404
    assert client.get("/players/999999/feed.atom").status_code == 404
    league = League.objects.get(slug="slaps-amateur")
    start = datetime.datetime(2026, 12, 1, tzinfo=UTC)
    for n in range(40):  # more results than a feed holds: still the same few queries
        slaps_match(winner=club["ann"], loser=club["cid"], played_at=start + datetime.timedelta(hours=n))
    Match.objects.update(league=league)
    ratings_process_game(game_id=league.game_id)
    assert Match.objects.filter(status=Match.Status.RATED).count() == 42
    with django_assert_max_num_queries(8):
        got = entries(client, "/leagues/slaps-amateur/feed.atom")
    assert len(got) == 30 + 1  # the newest 30 results and the list
    assert Match.objects.count() == 43


def test_the_league_and_the_profile_link_their_feeds_for_readers_and_people(client, club):
    for page, feed in [
        ("/leagues/slaps-amateur/", "/leagues/slaps-amateur/feed.atom"),
        (f"/players/{club['bob'].pk}/", f"/players/{club['bob'].pk}/feed.atom"),
    ]:
        html = client.get(page).content.decode()
        assert f'<link rel="alternate" type="application/atom+xml" href="{feed}"' in html  # a reader finds it
        assert f'<a href="{feed}" type="application/atom+xml">Follow (Atom feed)</a>' in html
