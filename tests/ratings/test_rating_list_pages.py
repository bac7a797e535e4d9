"""The official rating lists' pages (issue 27): a game's archive, one list (sorted, searched, paged, by
version), its movers, its CSV, and the player's lines on their profile (``web/list_pages.py``).

The club's history, Slaps (ISF Elo, everyone from 1000, K = 32 while provisional), the site's zone UTC, as
in ``tests/ratings/test_rating_lists.py`` a month earlier:

- 10 October: Ann beats Bob; 20 October: Cid beats Dan (1000 against 1000: the winner gains 16). The
  October list: Ann and Cid 1016, Bob and Dan 984, all new.
- 5 November: Ann beats Cid (1016 against 1016: +16, -16): Ann 1032, Cid 1000; Eve beats Bob (1000
  against 984: Eve gains 15 after the ISF table's rounding, Bob loses 15): Eve 1015, Bob 969. On 30
  November Dan has played nothing for 41 days: inactive in a league that counts 30.

Both lists are published on 1 December, before any test runs, so a correction made by a test comes after
their publication, as a late correction does.
"""

import csv
import datetime
import io
import re
from datetime import UTC
from decimal import Decimal

import pytest
from django.test import Client

from leagues.models import Game, League
from matches.services import match_correct
from ratings.list_selectors import list_closes_at
from ratings.lists import rating_list_publish
from ratings.models import RatingList, RatingListRow
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

OCTOBER = datetime.date(2026, 10, 31)
NOVEMBER = datetime.date(2026, 11, 30)
PUBLISHED = datetime.datetime(2026, 12, 1, 6, tzinfo=UTC)
LIST = "/games/slaps/lists/2026-11-30/"


def at(day: int, month: int = 10, hour: int = 19) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=UTC)


@pytest.fixture
def club(slaps):
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 30
    league.save()
    people = {name: PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dan", "Eve")}
    slaps_match(winner=people["Ann"], loser=people["Bob"], played_at=at(10))
    slaps_match(winner=people["Cid"], loser=people["Dan"], played_at=at(20))
    slaps_match(winner=people["Ann"], loser=people["Cid"], played_at=at(5, 11))
    slaps_match(winner=people["Eve"], loser=people["Bob"], played_at=at(5, 11, 20))
    ratings_process_game(game_id=slaps.pk)
    return people


@pytest.fixture
def published(slaps, club):
    """The October and November lists."""
    return {day: rating_list_publish(game=slaps, day=day, now=PUBLISHED).rating_list for day in (OCTOBER, NOVEMBER)}


def table_rows(html: str) -> list[str]:
    """The list table's rows, each as its cells' text joined by ``|`` (tags dropped, spaces squeezed)."""
    body = html.split('<table class="table rating-list">', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = [
            " ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        rows.append("|".join(cells))
    return rows


def names(html: str) -> list[str]:
    return [row.split("|")[1].split(" ")[0] for row in table_rows(html)]


def a_long_list(game: Game, day: datetime.date, size: int) -> RatingList:
    """A list of ``size`` players written straight (what is tested is reading it): ranked 1.., 2000 down."""
    players = PlayerFactory.create_batch(size)
    rating_list = RatingList.objects.create(
        game=game, day=day, closes_at=list_closes_at(day), published_at=PUBLISHED, players=size
    )
    RatingListRow.objects.bulk_create(
        RatingListRow(
            rating_list=rating_list,
            rank=rank,
            player=player,
            name=player.name,
            rating=Decimal(2000 - rank),
            peak=Decimal(2000),
            units=40,
            change=Decimal(rank % 7 - 3),
        )
        for rank, player in enumerate(players, start=1)
    )
    return rating_list


# --- the archive ---------------------------------------------------------------------------------------------


def test_the_archive_lists_a_games_lists_newest_first(client, published, slaps):
    html = client.get("/games/slaps/lists/").content.decode()
    assert "<h1>Slaps rating lists</h1>" in html
    assert html.index('data-day="2026-11-30"') < html.index('data-day="2026-10-31"')
    assert '<a href="/games/slaps/lists/2026-11-30/">2026-11-30</a></td>\n      <td class="num">5</td>' in html
    assert '<a href="/games/slaps/lists/2026-10-31/">2026-10-31</a></td>\n      <td class="num">4</td>' in html
    assert "2026-12-01 06:00" in html  # published


def test_the_archive_says_when_nothing_is_published_and_404s_an_unknown_game(client, slaps):
    html = client.get("/games/slaps/lists/").content.decode()
    assert "No Slaps rating list has been published yet." in html
    assert client.get("/games/nope/lists/").status_code == 404


def test_the_archive_pages_24_lists_at_a_time(client, slaps, django_assert_max_num_queries):
    for week in range(30):
        day = datetime.date(2026, 5, 3) + datetime.timedelta(weeks=week)
        RatingList.objects.create(game=slaps, day=day, closes_at=list_closes_at(day), published_at=PUBLISHED, players=0)
    with django_assert_max_num_queries(3):  # the game, the count, the page
        first = client.get("/games/slaps/lists/").content.decode()
    assert first.count("data-day=") == 24
    assert "Page 1 of 2" in first
    assert 'data-day="2026-11-22"' in first  # the newest
    last = client.get("/games/slaps/lists/?page=2").content.decode()
    assert last.count("data-day=") == 6
    assert 'data-day="2026-05-03"' in last  # the oldest
    assert client.get("/games/slaps/lists/?page=nope").content.decode().count("data-day=") == 24  # the first
    assert client.get("/games/slaps/lists/?page=99").content.decode().count("data-day=") == 6  # the last


# --- a list --------------------------------------------------------------------------------------------------


def test_a_list_shows_ranks_ratings_changes_and_marks(client, published, club):
    html = client.get(LIST).content.decode()
    assert "<h1>Slaps rating list of 2026-11-30</h1>" in html
    assert "Published 2026-12-01 06:00; 5 players; version 1." in html
    assert table_rows(html) == [
        "1|Ann provisional|1032|+16|1032|2",
        "2|Eve provisional|1015|new|1015|1",
        "3|Cid provisional|1000|\u221216|1016|2",
        "4|Dan provisional inactive|984|\u00b10|1000|1",
        "5|Bob provisional|969|\u221215|1000|2",
    ]
    for name in ("Ann", "Eve", "Cid", "Dan", "Bob"):
        assert f'<a href="/players/{club[name].pk}/">{name}</a>' in html
    assert 'href="/games/slaps/lists/2026-11-30/movers/"' in html
    assert 'href="/games/slaps/lists/2026-11-30.csv"' in html
    assert "Versions of this day" not in html  # one version
    assert "later-corrections" not in html  # nothing entered after it was published


def test_a_player_merged_away_is_named_as_published_without_a_link(client, published, club):
    from ratings.people import players_merge

    players_merge(keep=club["Eve"], drop=club["Dan"], by=AdminFactory())  # Dan was Eve entered twice
    html = client.get(LIST).content.decode()
    assert "4|Dan provisional inactive|984|\u00b10|1000|1" in table_rows(html)
    assert f'href="/players/{club["Dan"].pk}/"' not in html
    assert f'<a href="/players/{club["Eve"].pk}/">Eve</a>' in html


def test_a_list_shows_the_games_decimals(client, reference_data):
    preferans = Game.objects.get(slug="preferans")
    player = PlayerFactory(name="Zoe")
    rating_list = RatingList.objects.create(
        game=preferans, day=NOVEMBER, closes_at=list_closes_at(NOVEMBER), published_at=PUBLISHED, players=1
    )
    RatingListRow.objects.create(
        rating_list=rating_list, rank=1, player=player, name="Zoe", rating=Decimal("1502.59"),
        peak=Decimal("1510.10"), units=12, change=Decimal("-2.40"),
    )  # fmt: skip
    html = client.get("/games/preferans/lists/2026-11-30/").content.decode()
    assert table_rows(html) == ["1|Zoe|1502.59|\u22122.40|1510.10|12"]
    rows = list(csv.reader(io.StringIO(b"".join(client.get("/games/preferans/lists/2026-11-30.csv")).decode())))
    assert rows[1] == ["1", str(player.pk), "Zoe", "1502.59", "1510.1", "12", "-2.4", "no", "no", "no"]


@pytest.mark.parametrize(
    ("sort", "order"),
    [
        ("rank", ["Ann", "Eve", "Cid", "Dan", "Bob"]),
        ("name", ["Ann", "Bob", "Cid", "Dan", "Eve"]),
        ("change", ["Ann", "Dan", "Bob", "Cid"]),  # biggest gain first (Eve, new, has no change)
        ("-change", ["Cid", "Bob", "Dan", "Ann"]),  # biggest fall first
        ("nonsense", ["Ann", "Eve", "Cid", "Dan", "Bob"]),  # by rank
    ],
)
def test_a_list_sorts_by_its_headers(client, published, sort, order):
    html = client.get(f"{LIST}?sort={sort}").content.decode()
    assert [name for name in names(html) if name != "Eve" or sort in ("rank", "name", "nonsense")] == order


def test_the_headers_link_each_sort_keeping_the_search(client, published):
    html = client.get(f"{LIST}?q=a&sort=change").content.decode()
    assert 'href="?q=a&amp;sort=name"' in html
    assert 'href="?q=a&amp;sort=rank"' in html
    assert 'href="?q=a&amp;sort=-change"' in html  # sorted by gains: the header now sorts by falls
    assert 'aria-sort="descending"' in html
    assert 'href="?q=a&amp;sort=change"' in client.get(f"{LIST}?q=a").content.decode()


def test_a_list_is_searched_by_name_without_javascript_and_by_htmx(client, published):
    html = client.get(f"{LIST}?q=AN").content.decode()
    assert names(html) == ["Ann", "Dan"]
    assert '<input type="search" name="q" value="AN"' in html
    assert "No player on this list matches “Zed”." in client.get(f"{LIST}?q=Zed").content.decode()
    partial = client.get(f"{LIST}?q=an&sort=name", HTTP_HX_REQUEST="true")
    text = partial.content.decode()
    assert "<html" not in text
    assert names(text) == ["Ann", "Dan"]
    assert '<input type="hidden" name="sort" id="list-sort" value="name" hx-swap-oob="true">' in text
    assert "HX-Request" in partial["Vary"]
    assert "HX-Request" in client.get(f"{LIST}?q=an&sort=name")["Vary"]  # the page says so too


def test_a_long_list_pages_50_rows_and_its_queries_do_not_grow(client, published, slaps, django_assert_num_queries):
    # The game, the list, its versions, the later-corrections check, the page of rows (its count is the list's).
    with django_assert_num_queries(5) as small:
        client.get(LIST)
    a_long_list(slaps, datetime.date(2026, 9, 30), 130)
    with django_assert_num_queries(len(small.captured_queries)):
        html = client.get("/games/slaps/lists/2026-09-30/").content.decode()
    ranks = [int(row.split("|")[0]) for row in table_rows(html)]
    assert ranks == list(range(1, 51))
    assert "Page 1 of 3 · 130 players" in html
    third = client.get("/games/slaps/lists/2026-09-30/?page=3").content.decode()
    assert [int(row.split("|")[0]) for row in table_rows(third)] == list(range(101, 131))
    # As every paged page: not a number is the first page, out of range the last.
    for page, first in [("nope", "1|"), ("", "1|"), ("0", "101|"), ("99", "101|")]:
        html = client.get(f"/games/slaps/lists/2026-09-30/?page={page}").content.decode()
        assert table_rows(html)[0].startswith(first), page
    # The pager keeps the search and the sort.
    searched = client.get("/games/slaps/lists/2026-09-30/?q=Player&sort=name").content.decode()
    assert 'href="?q=Player&amp;sort=name&amp;page=2"' in searched
    assert "Page 1 of 3 · 130 players" in searched


def test_an_older_version_stays_readable_and_the_versions_are_linked(client, published, slaps, club):
    slaps_match(winner=club["Dan"], loser=club["Ann"], played_at=at(25, 11))  # a late result, then a republish
    ratings_process_game(game_id=slaps.pk)
    rating_list_publish(game=slaps, day=NOVEMBER, republish=True, by="admin", now=PUBLISHED)
    current = client.get(LIST).content.decode()
    assert "version 2." in current
    assert "Versions of this day:" in current
    assert '<a href="/games/slaps/lists/2026-11-30/?version=1">1</a>' in current
    assert '<strong aria-current="page">2 (current)</strong>' in current
    older = client.get(f"{LIST}?version=1").content.decode()
    assert table_rows(older)[0] == "1|Ann provisional|1032|+16|1032|2"
    assert "This is version 1, replaced by version 2" in older
    assert '<a href="/games/slaps/lists/2026-11-30/">2 (current)</a>' in older
    assert 'href="/games/slaps/lists/2026-11-30.csv?version=1"' in older
    assert 'name="version" value="1"' in older  # the search stays on this version
    assert table_rows(current)[0] != table_rows(older)[0]


def test_a_correction_after_publication_is_noted_on_the_lists_it_touches(client, published, slaps, club):
    first = slaps.matches.order_by("played_at").first()  # 10 October: Bob really won
    match_correct(
        match_id=first.pk,
        by=AdminFactory(),
        data={"game": "slaps", "played_at": first.played_at.isoformat(), "players": [club["Bob"].pk, club["Ann"].pk],
              "winner": club["Bob"].pk},
    )  # fmt: skip
    note = (
        "Results played before this list closed were entered or corrected after it was published: current "
        "ratings differ; the next list shows the change."
    )
    for url in (LIST, "/games/slaps/lists/2026-10-31/"):
        html = client.get(url).content.decode()
        assert note in html, url
    # The list itself is as published.
    assert table_rows(client.get(LIST).content.decode())[0] == "1|Ann provisional|1032|+16|1032|2"


@pytest.mark.parametrize(
    "url",
    [
        "/games/nope/lists/2026-11-30/",
        "/games/slaps/lists/2026-11-29/",  # no list that day
        "/games/slaps/lists/30-11-2026/",
        "/games/slaps/lists/20261130/",
        "/games/slaps/lists/2026-02-30/",
        "/games/slaps/lists/2026-11-30/?version=2",
        "/games/slaps/lists/2026-11-30/?version=0",
        "/games/slaps/lists/2026-11-30/?version=x",
        "/games/slaps/lists/2026-11-30/movers/?version=2",
        "/games/slaps/lists/nope/movers/",
        "/games/slaps/lists/2026-11-29.csv",
        "/games/nope/lists/2026-11-30.csv",
        "/games/slaps/lists/2026-11-30.csv?version=9",
    ],
)
def test_what_is_not_there_is_a_404(client, published, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


# --- movers and the download ---------------------------------------------------------------------------------


def test_the_movers_page_shows_the_gains_the_falls_and_the_new(client, published, club):
    html = client.get(f"{LIST}movers/").content.decode()
    assert "<h1>Slaps rating list of 2026-11-30: movers</h1>" in html

    def section(key):
        part = html.split(f'id="movers-{key}"', 1)[1].split("</section>", 1)[0]
        return table_rows('<table class="table rating-list">' + part.split('<table class="table">', 1)[1])

    assert section("gains") == ["1|Ann|1032|+16"]
    assert section("falls") == ["3|Cid|1000|\u221216", "5|Bob|969|\u221215"]
    assert section("new") == ["2|Eve|1015"]
    assert f'<a href="/players/{club["Eve"].pk}/">Eve</a>' in html
    october = client.get("/games/slaps/lists/2026-10-31/movers/").content.decode()
    assert "Nobody gained since the previous list." in october
    assert "Nobody fell since the previous list." in october


def test_the_csv_is_the_whole_list_as_published(client, published, club):
    response = client.get("/games/slaps/lists/2026-11-30.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="slaps-rating-list-2026-11-30.csv"' in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")
    ids = {name: player.pk for name, player in club.items()}
    assert text[1:].splitlines() == [
        "rank,player_id,player,rating,peak,units,change,new,provisional,inactive",
        f"1,{ids['Ann']},Ann,1032,1032,2,16,no,yes,no",
        f"2,{ids['Eve']},Eve,1015,1015,1,,yes,yes,no",
        f"3,{ids['Cid']},Cid,1000,1016,2,-16,no,yes,no",
        f"4,{ids['Dan']},Dan,984,1000,1,0,no,yes,yes",
        f"5,{ids['Bob']},Bob,969,1000,2,-15,no,yes,no",
    ]


# --- the profile and the links -------------------------------------------------------------------------------


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_the_profile_shows_the_players_line_in_each_list_even_when_its_parts_are_cached(
    client, slaps, club, django_assert_num_queries
):
    ann = club["Ann"]
    client.get(f"/players/{ann.pk}/")  # the parts are cached now
    assert 'id="rating-lists"' not in client.get(f"/players/{ann.pk}/").content.decode()
    rating_list_publish(game=slaps, day=OCTOBER, now=PUBLISHED)
    rating_list_publish(game=slaps, day=NOVEMBER, now=PUBLISHED)
    with django_assert_num_queries(4):  # warm: the player, the two versions, the lines
        html = Client().get(f"/players/{ann.pk}/").content.decode()
    section = html.split('id="rating-lists"', 1)[1].split("</section>", 1)[0]
    assert '<a href="/games/slaps/lists/2026-11-30/">2026-11-30</a>' in section
    assert '<a href="/games/slaps/lists/2026-10-31/">2026-10-31</a>' in section
    assert section.index("2026-11-30") < section.index("2026-10-31")  # newest first
    assert table_rows('<table class="table rating-list">' + section.split('<table class="table">', 1)[1]) == [
        "Slaps|2026-11-30|1|1032|+16",
        "Slaps|2026-10-31|1|1016|new",
    ]


def test_the_leaderboard_and_the_home_page_link_the_archive(client, slaps):
    for url in ("/", "/leagues/slaps-amateur/"):
        assert 'href="/games/slaps/lists/"' in client.get(url).content.decode(), url
