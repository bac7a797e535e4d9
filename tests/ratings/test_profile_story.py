"""The profile's story (issue 15): a chart a game, the delta rule, plain words, the trimmed head-to-head and
the paged, filtered history page. Numbers are written by hand: ledger rows are set to them where a page
only reads them."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache

from leagues.models import Player
from leagues.templatetags.cardrank import shown_change
from matches.models import Match
from ratings.models import RatingChange
from ratings.selectors import player_chart_series
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 10, 1, 18, 0, tzinfo=UTC)


# --- the delta rule: the change shown is the difference of the ratings shown --------------------


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [
        ("2160.10", "2162.59", "+3"),  # 2160 → 2163: +3, though 2.49 alone rounds to +2
        ("2160.49", "2160.51", "+1"),  # 2160 → 2161, a change of 0.02
        ("1000.50", "1000.49", "\u22121"),  # 1001 → 1000
        ("999.50", "1000.49", "\u00b10"),  # 1000 → 1000, a change of 0.99
        ("1016", "1000", "\u221216"),
        ("", "1000", ""),
    ],
)
def test_the_shown_change_is_the_difference_of_the_shown_ratings(before, after, shown):
    assert shown_change(Decimal(before) if before else None, Decimal(after)) == shown


def set_ledger(match: Match, player: Player, rows: list[tuple[str, str, dict]]) -> None:
    """Give the player's ledger rows of ``match`` these (rating before, after, details), in unit order."""
    for change, (before, after, details) in zip(
        RatingChange.objects.filter(match=match, player=player).order_by("unit"), rows, strict=True
    ):
        RatingChange.objects.filter(pk=change.pk).update(
            rating_before=Decimal(before),
            rating_after=Decimal(after),
            delta=Decimal(after) - Decimal(before),
            details=details,
        )
    cache.clear()  # the profile's parts are cached under versions that an update() does not move


@pytest.fixture
def preferans_game(referee_client, reference_data, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    body = {
        "game": "preferans",
        "played_at": "2026-11-01T18:00:00Z",
        "seats": [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}],
        "deals": [[4, -2, -2], [-6, 3, 3]],  # Ann: 2 whists down in all
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body, format="json")
    assert response.status_code == 201, response.content
    return Match.objects.get(pk=response.json()["id"]), ann


def test_a_preferans_game_reads_in_plain_words_with_a_delta_that_adds_up(client, preferans_game):
    match, ann = preferans_game
    deal = {"whists": 4.0, "kv": 61.5, "kd": 1.2, "smoothing": 1.0, "bot_cap": None, "floor_applied": False}
    set_ledger(
        match,
        ann,
        [
            ("2160.10", "2161.00", {**deal, "table_rating": 1600, "expected_whists": 1.5}),
            ("2161.00", "2162.59", {**deal, "whists": -6.0, "table_rating": 1700, "expected_whists": -3.25}),
        ],
    )
    html = client.get(f"/players/{ann.pk}/").content.decode()
    # Shown: 2160 → 2163, so +3 (the exact 2.49 is in the deals' table).
    assert '2160 → 2163 <strong class="delta">+3</strong>' in html
    words = " ".join(html.split('<p class="change-words">')[1].split("</p>")[0].split())
    assert words == (
        "Ended the game 2 whists down over 2 deals against tables rated 1650 on average, "
        "where \u22122 whists were expected: <strong>+3</strong>."
    )
    assert "2 deals, total 2.49 (exact)" in html
    assert '<td class="num">0.90</td>' in html
    assert '<td class="num">1.59</td>' in html
    assert 'title="' not in html.split('id="recent"')[1]  # nothing told by hover alone


def test_a_bridge_session_reads_in_plain_words(
    client, referee_client, reference_data, django_capture_on_commit_callbacks
):
    a, b, c, d, e, f, g, h = PlayerFactory.create_batch(8)
    played = (T0 + timedelta(days=30)).isoformat()
    boards = [
        {
            "number": 1,
            "tables": [
                {"ns": [a.pk, b.pk], "ew": [c.pk, d.pk], "ns_score": 420},
                {"ns": [e.pk, f.pk], "ew": [g.pk, h.pk], "ns_score": -50},
            ],
        },
        {
            "number": 2,
            "tables": [
                {"ns": [a.pk, b.pk], "ew": [c.pk, d.pk], "ns_score": -100},
                {"ns": [e.pk, f.pk], "ew": [g.pk, h.pk], "ns_score": 140},
            ],
        },
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post(
            "/api/matches/", {"game": "bridge", "played_at": played, "boards": boards}, format="json"
        )
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    set_ledger(
        match,
        a,
        [
            ("1000.00", "1010.40", {"duels": 1, "imps": 10.0, "expected": 0.4, "score": 1.0, "floor_applied": False}),
            ("1010.40", "1012.10", {"duels": 1, "imps": -2.0, "expected": 0.5, "score": 0.5, "floor_applied": False}),
        ],
    )
    html = client.get(f"/players/{a.pk}/").content.decode()
    assert '1000 → 1012 <strong class="delta">+12</strong>' in html
    words = " ".join(html.split('<p class="change-words">')[1].split("</p>")[0].split())
    assert words == (
        f"2 boards with {b.name} against 1 pair: won 1, drew 1, lost 0, net +8 IMPs; "
        "scored 75% of the points where 45% was expected: <strong>+12</strong>."
    )


# --- the charts ------------------------------------------------------------------------------


def test_one_chart_a_game_one_point_a_match_on_a_date_axis(client, preferans_game, slaps):
    _match, ann = preferans_game
    bob = PlayerFactory(name="Rob")
    slaps_match(winner=ann, loser=bob, played_at=T0)
    slaps_match(winner=ann, loser=bob, played_at=T0 + timedelta(days=2))
    ratings_process_game(game_id=slaps.pk)
    series = {one.slug: one for one in player_chart_series(player=ann)}
    assert list(series) == ["preferans", "slaps"]  # by game name, as the rating cards
    preferans = series["preferans"]
    assert (preferans.units, preferans.matches, preferans.unit, preferans.units_name) == (2, 1, "deal", "deals")
    assert len(preferans.points) == 2  # the start, then one point for the game's two deals
    assert preferans.points[1][0] == 1_793_556_000_000  # 2026-11-01T18:00Z in ms
    assert preferans.points[1][2] == 2
    slaps_series = series["slaps"]
    # Seed 000, from 1000 against 1000: +16; then against 984: E = 0.5459, 32 x 0.4541 = 14.53 -> 1031.
    assert [point[1] for point in slaps_series.points] == [1000.0, 1016.0, 1031.0]
    assert [(day.day.isoformat(), day.units, day.rating_after) for day in slaps_series.days] == [
        ("2026-10-01", 1, 1016.0),
        ("2026-10-03", 1, 1031.0),
    ]
    html = client.get(f"/players/{ann.pk}/").content.decode()
    # Right after the rating cards: before promotions, sections and the recent matches.
    assert html.index('id="charts-heading"') < html.index('id="recent"')
    for slug in ("preferans", "slaps"):
        assert f'role="tab" class="chart-tab" id="chart-tab-{slug}"' in html
        assert f'<script id="rating-series-{slug}" type="application/json">' in html
    assert "Slaps rating day by day, as a table" in html
    assert '<tr><td>2026-10-03</td><td class="num">1</td><td class="num">1031</td><td class="num">+15</td></tr>' in html


# --- the head-to-head, trimmed ---------------------------------------------------------------


def test_the_head_to_head_shows_the_8_pairs_met_most_and_links_to_all(
    client, referee_client, reference_data, django_capture_on_commit_callbacks
):
    ann, partner = PlayerFactory(name="Ann"), PlayerFactory(name="Pat")
    others = PlayerFactory.create_batch(4, name="Other")
    opponents = [(PlayerFactory(name=f"Opp {n:02d}a"), PlayerFactory(name=f"Opp {n:02d}b")) for n in range(1, 10)]
    for session, pair in enumerate([opponents[0], *opponents]):  # pair 01 twice: the most boards
        tables = [
            {"ns": [ann.pk, partner.pk], "ew": [pair[0].pk, pair[1].pk], "ns_score": 420},
            {"ns": [others[0].pk, others[1].pk], "ew": [others[2].pk, others[3].pk], "ns_score": 400},
        ]
        body = {
            "game": "bridge",
            "played_at": (T0 + timedelta(days=session)).isoformat(),
            "boards": [{"number": 1, "tables": tables}],
        }
        with django_capture_on_commit_callbacks(execute=True):
            assert referee_client.post("/api/matches/", body, format="json").status_code == 201
    html = client.get(f"/players/{ann.pk}/").content.decode()
    head = html.split('id="head-to-head"')[1].split("</table>")[0]
    assert "Head-to-head against pairs: the 8 met most" in html
    assert head.count("<tr>") == 1 + 8  # the header and 8 pairs
    assert head.index("Opp 01a") < head.index("Opp 02a")  # 2 boards before 1
    assert "Opp 08a" in head
    assert "Opp 09a" not in head
    assert f'href="/players/{ann.pk}/records/bridge/records/#head-to-head">All 9 opposing pairs' in html
    every = client.get(f"/players/{ann.pk}/records/bridge/records/").content.decode()
    assert "Opp 09a" in every
    assert "All 9 opposing pairs" not in every
    assert client.get(f"/players/{ann.pk}/records/bridge/nope/").status_code == 404
    assert client.get(f"/players/{ann.pk}/records/nope/records/").status_code == 404
    assert client.get("/players/999999/records/bridge/records/").status_code == 404


# --- the history page --------------------------------------------------------------------------


@pytest.fixture
def season(slaps):
    """Ann's 30 Slaps matches, one a day from T0, alternately against Bob and Cid; Cid wins every fifth."""
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid Vicious")
    for day in range(30):
        other = bob if day % 2 == 0 else cid
        winner, loser = (other, ann) if day % 5 == 4 else (ann, other)
        slaps_match(winner=winner, loser=loser, played_at=T0 + timedelta(days=day))
    ratings_process_game(game_id=slaps.pk)
    return ann


def rows(html: str) -> list[str]:
    """The days of the history's rows, in page order."""
    body = html.split('<table class="table player-matches')[1].split("</table>")[0]
    return [cell.split("</a>")[0].split(">")[-1][:10] for cell in body.split('<td data-label="Played">')[1:]]


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_the_history_pages_25_matches_at_a_time_newest_first(client, season, django_assert_num_queries):
    # the player, the games and leagues for the filters, the count, the page, its seats and ledger rows
    with django_assert_num_queries(7):
        first = client.get(f"/players/{season.pk}/history/")
    html = first.content.decode()
    assert first.status_code == 200
    assert rows(html)[:2] == ["2026-10-30", "2026-10-29"]
    assert len(rows(html)) == 25
    assert "Page 1 of 2 · 30 matches" in html
    second = client.get(f"/players/{season.pk}/history/?page=2").content.decode()
    assert rows(second) == ["2026-10-05", "2026-10-04", "2026-10-03", "2026-10-02", "2026-10-01"]
    # Out of range or not a number: the nearest page, never an error.
    assert rows(client.get(f"/players/{season.pk}/history/?page=99").content.decode())[0] == "2026-10-05"
    assert rows(client.get(f"/players/{season.pk}/history/?page=abc").content.decode())[0] == "2026-10-30"
    assert client.get("/players/999999/history/").status_code == 404


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_the_history_query_count_does_not_grow_with_the_history(client, season, slaps, django_assert_num_queries):
    with django_assert_num_queries(8) as small:  # + the game of the filter
        client.get(f"/players/{season.pk}/history/?game=slaps&page=2")
    small_queries = len(small.captured_queries)  # now: the connection's query log is a bounded window
    bob = Player.objects.get(name="Bob")
    for day in range(30, 130):
        slaps_match(winner=season, loser=bob, played_at=T0 + timedelta(days=day))
    ratings_process_game(game_id=slaps.pk)
    with django_assert_num_queries(small_queries):
        client.get(f"/players/{season.pk}/history/?game=slaps&page=2")


@pytest.mark.parametrize(
    ("query", "days"),
    [
        ("game=slaps&since=2026-10-03&until=2026-10-05", ["2026-10-05", "2026-10-04", "2026-10-03"]),
        ("opponent=vicious&until=2026-10-06", ["2026-10-06", "2026-10-04", "2026-10-02"]),
        ("opponent=CID&since=2026-10-28", ["2026-10-30", "2026-10-28"]),
        ("league=slaps-amateur&since=2026-10-30", ["2026-10-30"]),
        ("since=2026-10-10&until=2026-10-10&unknown=1", ["2026-10-10"]),  # what the page does not know is ignored
    ],
)
def test_the_history_filters(client, season, query, days):
    response = client.get(f"/players/{season.pk}/history/?{query}")
    assert response.status_code == 200
    assert rows(response.content.decode()) == days


def test_a_filter_nothing_fits_says_so(client, season):
    html = client.get(f"/players/{season.pk}/history/?game=preferans").content.decode()
    assert "No match of Ann fits these filters." in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("game=nope", "Select a valid choice."),
        ("game=%00", "Null characters are not allowed."),
        ("league=slaps-nowhere", "Select a valid choice."),
        ("game=preferans&league=slaps-amateur", "Slaps Amateur is a league of Slaps, not of Preferans."),
        ("since=yesterday", "Enter a valid date."),
        ("since=99999-01-01", "Enter a valid date."),
        ("since=2026-10-05&until=2026-10-01", "The first day comes after the last: swap them."),
        ("opponent=" + "x" * 101, "Ensure this value has at most 100 characters (it has 101)."),
        ("opponent=Ann%00", "Null characters are not allowed."),
        ("game=slaps&game=%3Cscript%3E", "Select a valid choice."),
    ],
)
def test_a_hostile_filter_is_a_400_that_says_why_and_shows_nothing(client, season, query, message):
    response = client.get(f"/players/{season.pk}/history/?{query}")
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html
    assert "Nothing shown: fix the filters above." in html
    assert "<table" not in html
    assert "<script>" not in html.split("<main", 1)[1]


def test_htmx_asks_for_the_history_alone(client, season):
    response = client.get(f"/players/{season.pk}/history/?game=slaps&page=2", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="history">')
    assert "<html" not in html
    assert rows(html)[-1] == "2026-10-01"
    assert "HX-Request" in response["Vary"]
    # The pager keeps the filters: the next link of page 1 asks for page 2 of the same game.
    first = client.get(f"/players/{season.pk}/history/?game=slaps").content.decode()
    assert 'href="?game=slaps&amp;page=2"' in first
    # An invalid filter still answers the partial (htmx swaps only a 2xx), with the form saying why.
    refused = client.get(f"/players/{season.pk}/history/?game=nope", HTTP_HX_REQUEST="true")
    assert refused.status_code == 200
    assert "Select a valid choice." in refused.content.decode()


def test_the_profile_links_to_the_history_not_to_the_json(client, season):
    html = client.get(f"/players/{season.pk}/").content.decode()
    assert f'<a href="/players/{season.pk}/history/">Every match, by game</a>' in html
    assert f'<form class="filters recent-filter" method="get" action="/players/{season.pk}/history/">' in html
    assert '<option value="slaps">Slaps</option>' in html
    assert f'href="/api/players/{season.pk}/history.csv" download' in html  # still there, not the main link


#: NS scores board 1 (nobody vulnerable) can have: 4♠ making with 10-13 tricks, 3NT with 9-12, 4♥ and 5♣ made.
BOARD_1_SCORES = [420, 450, 480, 510, 400, 430, 460, 490, 400, 420, 400]


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_a_bridge_players_profile_costs_the_same_queries_whatever_the_sessions(
    client, referee_client, reference_data, django_capture_on_commit_callbacks, django_assert_num_queries
):
    a, b, c, d, e, f, g, h = PlayerFactory.create_batch(8)

    def sessions(first: int, count: int) -> None:
        for day in range(first, first + count):
            tables = [
                # Board 1, nobody vulnerable: a score it can have, another each day.
                {"ns": [a.pk, b.pk], "ew": [c.pk, d.pk], "ns_score": BOARD_1_SCORES[day % len(BOARD_1_SCORES)]},
                {"ns": [e.pk, f.pk], "ew": [g.pk, h.pk], "ns_score": -50},
            ]
            body = {
                "game": "bridge",
                "played_at": (T0 + timedelta(days=day)).isoformat(),
                "boards": [{"number": 1, "tables": tables}],
            }
            with django_capture_on_commit_callbacks(execute=True):
                assert referee_client.post("/api/matches/", body, format="json").status_code == 201

    sessions(0, 2)
    cache.clear()
    # cold: the player, the two versions, ratings with ranks, the league's histogram, promotions,
    # bridge records (3), the chart, recent matches (3) and their partners and pairs (1), the rating lists' lines
    with django_assert_num_queries(15) as cold:
        client.get(f"/players/{a.pk}/")
    cold_queries = len(cold.captured_queries)  # now: the connection's query log is a bounded window
    with django_assert_num_queries(4):  # warm: the player, the two versions and the rating lists' lines
        client.get(f"/players/{a.pk}/")
    sessions(2, 30)
    cache.clear()
    with django_assert_num_queries(cold_queries):
        html = client.get(f"/players/{a.pk}/").content.decode()
    assert html.count('<p class="change-words">') == 20  # the 20 recent sessions, each in words
