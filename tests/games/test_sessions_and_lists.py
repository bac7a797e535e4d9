"""A bridge session read as a club's evening (its page, its line in lists) and the paged, filtered ``/matches/``.

The session's figures are worked by hand: two tables, NS pair (Ann, Bob) against EW (Cy, Di) at table 1,
NS (Ed, Flo) against EW (Gus, Hal) at table 2; each board's NS scores compared across the tables (WBF scale).
"""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, bridge_session_body, slaps_match

pytestmark = pytest.mark.django_db

EVENING = datetime(2026, 11, 1, 19, 0, tzinfo=UTC)  # a Sunday
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
# Board 1: 420 v -50, 470 = 10 IMPs to table 1's NS; board 2: 100 v 100, 0; board 3: -600 v 620, 1220 = 15 IMPs
# to table 2's NS. Net: Ann & Bob 10 - 15 = -5, Gus & Hal (table 2's EW: table 1's NS's teammates) -5,
# Cy & Di +5, Ed & Flo +5.
SCORES = [(420, -50), (100, 100), (-600, 620)]
NOT_RATED = "\u2013\u2013"  # a dash for each player of a pair whose session is not rated yet


@pytest.fixture
def players(reference_data):
    return [PlayerFactory(name=name) for name in NAMES]


def session(referee_client, players, league="bridge-amateur"):
    body = bridge_session_body([p.pk for p in players], EVENING, SCORES, league=league)
    answer = referee_client.post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    return Match.objects.get(pk=answer.json()["id"])


def ledger(match, player, *spans):
    """Ledger rows of ``player`` in ``match``, one per board, as (before, after) ratings."""
    league = League.objects.get(slug="bridge-amateur")
    for unit, (before, after) in enumerate(spans, start=1):
        RatingChange.objects.create(
            game=match.game, match=match, player=player, unit=unit, played_at=match.played_at,
            rating_before=Decimal(before), rating_after=Decimal(after), delta=Decimal(after) - Decimal(before),
            peak_after=max(Decimal(before), Decimal(after)), rated_matches_after=unit, league_after=league,
        )  # fmt: skip


def main(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def ranking_rows(html: str) -> list[tuple[str, str, str, str]]:
    """(place, the pair's names, its score, the two changes) per row of the standings."""
    table = html[html.index('class="table pair-ranking"') :]
    table = table[: table.index("</table>")]
    rows = []
    for row in re.findall(r'<tr><td class="pair-place">.*?</tr>', table, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        names = " & ".join(re.findall(r">([^<]+)</a>", cells[2]))
        score = re.sub(r"<[^>]+>", "", cells[3])
        changes = " ".join(re.sub(r'<span class="visually-hidden">[^<]*</span>', "", cells[4]).split())
        rows.append((cells[0], names, score, re.sub(r"<[^>]+>", "", changes).replace(" ", "")))
    return rows


def test_a_session_is_titled_by_its_club_and_date_and_places_its_pairs(referee_client, players):
    match = session(referee_client, players)
    html = main(Client().get(match.get_absolute_url()).content.decode())
    assert "<h1>Bridge Amateur, Sunday 1 November 2026</h1>" in html
    # No scoring given and scores at every table: the club's standings are by cross-IMPs, as the evening was
    # always ranked here; the pairs are named by their players (no pair numbers were entered).
    assert "4 pairs · 3 boards · scored by cross-IMPs" in html
    assert ranking_rows(html) == [
        ("1=", "Cy & Di", "+5", NOT_RATED),
        ("1=", "Ed & Flo", "+5", NOT_RATED),
        ("3=", "Ann & Bob", "\u22125", NOT_RATED),  # not rated yet: no change
        ("3=", "Gus & Hal", "\u22125", NOT_RATED),
    ]
    assert "boards</td>" not in html  # no longer a row a player saying "3 boards"


def test_each_players_change_is_derived_from_the_whole_ratings_shown(referee_client, players):
    match = session(referee_client, players)
    ann, bob = players[0], players[1]
    # Ann: 1500.40 -> 1510.60, shown 1500 -> 1511: +11 (the exact 10.20 would round to +10).
    ledger(match, ann, ("1500.40", "1504.00"), ("1504.00", "1504.00"), ("1504.00", "1510.60"))
    # Bob: 1600.50 -> 1597.20, shown 1601 -> 1597: -4.
    ledger(match, bob, ("1600.50", "1599.00"), ("1599.00", "1597.20"))
    rows = ranking_rows(main(Client().get(match.get_absolute_url()).content.decode()))
    assert rows[2] == ("3=", "Ann & Bob", "\u22125", "+11\u22124")
    assert rows[0] == ("1=", "Cy & Di", "+5", NOT_RATED)


def test_the_boards_link_their_travellers(referee_client, players):
    match = session(referee_client, players)
    html = main(Client().get(match.get_absolute_url()).content.decode())
    links = re.findall(r'<a href="/matches/(\d+)/boards/(\d+)/">', html)
    assert links == [(str(match.pk), "1"), (str(match.pk), "2"), (str(match.pk), "3")]
    traveller = main(Client().get(f"/matches/{match.pk}/boards/3/").content.decode())
    # Board 3: -600 at table 1, +620 at table 2: 1220 is 15 IMPs to table 2's NS (WBF 1100-1290).
    assert '<td class="num"></td><td class="num">600</td>' in traveller  # EW's +600 at table 1
    assert '<td class="num">620</td><td class="num"></td>' in traveller
    assert re.findall(r'<td class="num points">([^<]*)</td>', traveller) == ["\u221215", "+15", "+15", "\u221215"]


def test_a_session_without_a_league_is_titled_by_its_game(referee_client, players):
    match = session(referee_client, players, league=None)
    match.league = None
    match.save(update_fields=["league"])
    html = Client().get(match.get_absolute_url()).content.decode()
    assert "<h1>Bridge, Sunday 1 November 2026</h1>" in html
    assert "<title>Bridge, Sunday 1 November 2026 · Cardrank</title>" in html


def test_other_games_keep_their_heading(slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    match = slaps_match(winner=ann, loser=bob)
    assert f"<h1>Slaps match #{match.pk}</h1>" in Client().get(match.get_absolute_url()).content.decode()


def test_lists_show_a_session_as_one_short_line(referee_client, players):
    match = session(referee_client, players)
    line = f'<a href="/matches/{match.pk}/">Bridge evening, 4 pairs, 3 boards</a>'
    for url in ["/", "/matches/", "/matches/?game=bridge"]:
        html = main(Client().get(url).content.decode())
        assert line in html, url
        assert ">Gus</a>" not in html  # no player names
    names = render_to_string("games/bridge/_seats_names.html", {"match": match})
    assert f'<a href="/matches/{match.pk}/">4 pairs, 3 boards</a>' in names


def test_a_one_board_session_says_board_not_boards(referee_client, players):
    body = bridge_session_body([p.pk for p in players], EVENING, SCORES[:1], league="bridge-amateur")
    referee_client.post("/api/matches/", body, format="json")
    assert "Bridge evening, 4 pairs, 1 board</a>" in Client().get("/matches/").content.decode()


# --- /matches/: pages of 25 and a filter by game ---------------------------------------------------------


def played(html: str) -> list[str]:
    return re.findall(r'<td><a href="/matches/(\d+)/">\d{4}-', html)  # the Played column's links


@pytest.fixture
def slaps_results(slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    now = timezone.now()
    return [slaps_match(winner=ann, loser=bob, played_at=now - timedelta(hours=n)) for n in range(1, 28)]


def test_matches_come_25_a_page_newest_first(slaps_results):
    newest_first = [str(match.pk) for match in slaps_results]  # played 1, 2, ... 27 hours ago
    first = Client().get("/matches/").content.decode()
    assert played(first) == newest_first[:25]
    assert "Page 1 of 2" in first
    assert '<a rel="next" href="?page=2">Older →</a>' in first
    assert 'rel="prev"' not in first
    second = Client().get("/matches/?page=2").content.decode()
    assert played(second) == newest_first[25:]
    assert '<a rel="prev" href="?page=1">← Newer</a>' in second
    assert 'rel="next"' not in second


@pytest.mark.parametrize(
    ("number", "shown"),
    [("abc", 1), ("", 1), ("0", 2), ("-1", 2), ("3", 2), ("99999999999999999999999", 2), ("1.5", 1), ("\x00", 1)],
)
def test_a_page_that_is_not_one_shows_the_first_or_the_last(slaps_results, number, shown):
    response = Client().get("/matches/", {"page": number})
    assert response.status_code == 200
    assert f"Page {shown} of 2" in response.content.decode()


def test_the_game_filter_lists_one_game_and_keeps_it_across_pages(slaps_results, referee_client, players):
    bridge = session(referee_client, players)
    only_bridge = Client().get("/matches/?game=bridge").content.decode()
    assert played(only_bridge) == [str(bridge.pk)]
    assert "<h1>Bridge results</h1>" in only_bridge
    assert '<option value="bridge" selected>Bridge</option>' in only_bridge
    assert "Page 1 of" not in only_bridge  # one page: no pager
    slaps_pages = Client().get("/matches/?game=slaps").content.decode()
    assert str(bridge.pk) not in played(slaps_pages)
    assert '<a rel="next" href="?game=slaps&amp;page=2">Older →</a>' in slaps_pages
    assert len(played(Client().get("/matches/?game=slaps&page=2").content.decode())) == 2


@pytest.mark.parametrize("wanted", ["nope", "", "<b>x</b>", "slaps' OR 1=1 --", "s" * 5000])
def test_an_unknown_game_lists_every_game(slaps_results, wanted):
    response = Client().get("/matches/", {"game": wanted})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Recent matches</h1>" in html
    assert '<option value="">All games</option>' in html
    assert " selected>" not in html
    assert len(played(html)) == 25
    assert "<b>x</b>" not in html


def test_a_game_with_no_results_says_so(slaps_results):
    html = Client().get("/matches/?game=preferans").content.decode()
    assert "No matches yet." in html


def test_a_page_of_one_games_matches_reads_no_other_games_parts(slaps, referee_client, players):
    """Issue 26: a match list reads the parts of the games on it only, however many games are registered (the
    test suite registers a fifth, with parts of its own): a page of Slaps matches reads no part table."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leagues.kinds import KINDS

    ann, bob = PlayerFactory(name="Ann3"), PlayerFactory(name="Bob3")
    session(referee_client, players)
    slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=1))
    part_tables = {
        getattr(Match, part).field.model._meta.db_table for kind in KINDS.values() for part in kind.parts
    }  # fmt: skip
    assert len(part_tables) >= 3  # deals, boards and the fifth game's rounds
    part_tables.add("bridge_boardtable")  # read with the boards
    with CaptureQueriesContext(connection) as slaps_page:
        assert len(played(Client().get("/matches/?game=slaps").content.decode())) == 1
    assert not [query["sql"] for query in slaps_page if any(table in query["sql"] for table in part_tables)]
    with CaptureQueriesContext(connection) as every_game:
        assert len(played(Client().get("/matches/").content.decode())) == 2
    read = {table for table in part_tables for query in every_game if table in query["sql"]}
    assert read == {"bridge_board", "bridge_boardtable"}  # the session's, and no other game's


def test_the_matches_page_costs_the_same_queries_for_3_or_25_results(
    slaps, referee_client, players, django_assert_num_queries
):
    """Games, the count, the page, and its prefetches: seats, and the parts of the games on the page only
    (boards, their tables and four players; no deals: no Preferans game is on it)."""
    ann, bob = PlayerFactory(name="Ann2"), PlayerFactory(name="Bob2")
    session(referee_client, players)
    for hours in range(1, 3):
        slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=hours))
    with django_assert_num_queries(10):
        assert len(played(Client().get("/matches/").content.decode())) == 3
    for hours in range(3, 40):
        slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=hours))
    session(referee_client, players)
    with django_assert_num_queries(10):
        assert len(played(Client().get("/matches/?page=2").content.decode())) == 16  # 41 results
    with django_assert_num_queries(10):
        assert len(played(Client().get("/matches/?game=bridge").content.decode())) == 2
    assert Game.objects.count() == 3
