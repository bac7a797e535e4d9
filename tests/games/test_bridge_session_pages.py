"""A bridge session's pages as club players read them: the standings by the session's scoring, each board's
traveller, each pair's scorecard, the hand records (games/bridge/session.py, games/bridge/pages.py).

Every figure is worked by hand in the comments. The matchpoint evening: three tables, pairs 1, 3 and 5 sit
North-South against 2, 4 and 6; the top is 4 (2 x (3 - 1)), 12 over three boards.

- Board 1 (none vulnerable): 450 (4♠+1 by N), 420, 420. NS MP 4, 1, 1; EW 0, 3, 3.
- Board 2 (NS vulnerable): 690 (3NT+3), 1440 (6NT=), 690. NS MP 1, 4, 1; EW 3, 0, 3.
- Board 3 (EW vulnerable): 430 (3NT+1), 400 (3NT=), 420 (4♠=). NS MP 4, 0, 2; EW 0, 4, 2.

Matchpoints: pair 1 4+1+4 = 9 of 12, 75%; 6 3+3+2 = 8, 66.67%; 4 3+0+4 = 7, 58.33%; 3 1+4+0 = 5,
41.67%; 5 1+1+2 = 4, 33.33%; 2 0+3+0 = 3, 25%.
By net IMPs (each table against the other two, WBF scale) the order is another: board 1 +2 (30: 1 IMP
each), -1, -1; board 2 -13 (750: 13), +26, -13; board 3 +1 (30: 1, 10: 0), -2, +1. Pair 3 +23, 6 +13, 2 +10,
1 -10, 5 -13, 4 -23: the evening's winner on matchpoints, pair 1, would show 4th.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from html import unescape

import pytest
from django.test import Client

from games.bridge.importing import parse_pbn, parse_usebio
from games.bridge.models import Board
from games.bridge.session import adjusted_text, points_text, result_text
from games.bridge.standings import decimal_round, session_board_points, session_standings, standing_pair_key
from games.importing import import_apply, import_plan_read
from leagues.models import Game, League
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, slaps_match
from tests.shared_data import shared_data

pytestmark = pytest.mark.django_db

EVENING = datetime(2026, 11, 3, 19, 0, tzinfo=UTC)  # a Tuesday
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu"]
# (NS pair, EW pair) at each table, the same every board.
SEATING = [("1", "2"), ("3", "4"), ("5", "6")]
# Per board: (contract, declarer, tricks, lead, NS score) at each table.
PLAY = {
    1: [("4S", "N", 11, "HK", 450), ("4S", "N", 10, "DA", 420), ("4S", "S", 10, "", 420)],
    2: [("3NT", "S", 12, "S4", 690), ("6NT", "N", 12, "", 1440), ("3NT", "N", 12, "", 690)],
    3: [("3NT", "N", 10, "CQ", 430), ("3NT", "N", 9, "", 400), ("4S", "N", 10, "", 420)],
}
DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 65432.8765.8.876 .432.765432.5432"


@pytest.fixture
def twelve(reference_data):
    return [PlayerFactory(name=name) for name in NAMES]


def pairs_of(players) -> dict[str, list[int]]:
    """Pair number -> its two player ids: pair 1 is Ann & Bob, 2 Cy & Di, ... 6 Kim & Lu."""
    return {str(n + 1): [players[2 * n].pk, players[2 * n + 1].pk] for n in range(6)}


def matchpoint_body(players, **extra) -> dict:
    pairs = pairs_of(players)
    boards = []
    for number, plays in PLAY.items():
        tables = []
        for (ns, ew), (contract, declarer, tricks, lead, score) in zip(SEATING, plays, strict=True):
            table = {"ns": pairs[ns], "ew": pairs[ew], "ns_pair": ns, "ew_pair": ew, "ns_score": score}
            table |= {"contract": contract, "declarer": declarer, "tricks": tricks}
            if lead:
                table["lead"] = lead
            tables.append(table)
        boards.append({"number": number, "tables": tables})
    body = {
        "game": "bridge",
        "played_at": EVENING.isoformat(),
        "league": "bridge-amateur",
        "scoring": "matchpoints",
        "event": "Tuesday Pairs",
        "boards": boards,
    }
    return body | extra


def store(referee_client, body) -> Match:
    answer = referee_client.post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.content
    return Match.objects.get(pk=answer.json()["id"])


@pytest.fixture
def evening(referee_client, twelve):
    return store(referee_client, matchpoint_body(twelve))


def main(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def text(html: str) -> str:
    """The cell's words: tags out (a suit symbol's hidden name stays, as a screen reader reads it)."""
    return unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def rows(html: str, table_class: str) -> list[list[str]]:
    """Each body row of the first table of ``table_class``, as its cells' words."""
    table = html[html.index(f'class="table {table_class}"') :]
    table = table[table.index("<tbody>") : table.index("</table>")]
    return [
        [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    ]


def page(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200, (url, response.status_code)
    return main(response.content.decode())


# --- the standings ----------------------------------------------------------------------------------------------


def test_a_matchpoint_evening_is_placed_by_matchpoints_not_by_imps(evening):
    html = page(evening.get_absolute_url())
    placed = [(row[0], row[1].split()[0], row[2], row[3]) for row in rows(html, "pair-ranking")]
    assert placed == [
        ("1", "1", "Ann & Bob", "75%"),
        ("2", "6", "Kim & Lu", "66.67%"),
        ("3", "4", "Gus & Hal", "58.33%"),
        ("4", "3", "Ed & Flo", "41.67%"),
        ("5", "5", "Ida & Jo", "33.33%"),
        ("6", "2", "Cy & Di", "25%"),
    ]
    assert "Tuesday Pairs" in html
    assert "6 pairs · 3 boards · scored by matchpoints" in text(html)
    # Both results named, and why they can disagree.
    assert "Standings: the club's result." in html
    assert "Rating: Cardrank's." in html
    assert "a small overtrick beats the field on a board as fully as a slam does" in html


def test_each_standings_row_links_its_scorecard_and_its_players(evening, twelve):
    html = page(evening.get_absolute_url())
    assert f'<a href="/matches/{evening.pk}/pairs/1/">1<span class="visually-hidden"> scorecard</span></a>' in html
    assert f'<a href="/matches/{evening.pk}/pairs/1/">75%</a>' in html
    assert f'<a href="{twelve[0].get_absolute_url()}">Ann</a>' in html


def test_a_mitchell_places_each_direction_apart_with_shared_places(referee_client, twelve):
    # Board 1 only, at the three tables: NS 450, 420, 420 -> NS MP 4, 1, 1: NS 1 100%, NS 3 and 5 25% ("2=");
    # EW 0, 3, 3: EW 4 and 6 75% ("1="), EW 2 0%.
    body = matchpoint_body(twelve, movement="mitchell")
    body["boards"] = body["boards"][:1]
    html = page(store(referee_client, body).get_absolute_url())
    assert '<h2 id="standings-NS">North-South</h2>' in html
    assert '<h2 id="standings-EW">East-West</h2>' in html
    ns = html[html.index('id="standings-NS"') : html.index('id="standings-EW"')]
    ew = html[html.index('id="standings-EW"') :]
    assert [(row[0], row[1].split()[0], row[3]) for row in rows(ns, "pair-ranking")] == [
        ("1", "1", "100%"),
        ("2=", "3", "25%"),
        ("2=", "5", "25%"),
    ]
    assert [(row[0], row[1].split()[0], row[3]) for row in rows(ew, "pair-ranking")] == [
        ("1=", "4", "75%"),
        ("1=", "6", "75%"),
        ("3", "2", "0%"),
    ]
    assert f'href="/matches/{Match.objects.get().pk}/pairs/NS1/"' in ns


def test_each_players_rating_change_stays_beside_the_standing(evening, twelve):
    league = League.objects.get(slug="bridge-amateur")
    ann = twelve[0]
    for unit, (before, after) in enumerate([("1500.40", "1504.00"), ("1504.00", "1510.60")], start=1):
        RatingChange.objects.create(
            game=evening.game, match=evening, player=ann, unit=unit, played_at=evening.played_at,
            rating_before=Decimal(before), rating_after=Decimal(after), delta=Decimal(after) - Decimal(before),
            peak_after=Decimal(after), rated_matches_after=unit, league_after=league,
        )  # fmt: skip
    first = rows(page(evening.get_absolute_url()), "pair-ranking")[0]
    # Ann 1500 -> 1511 as shown: +11; Bob not rated yet: a dash.
    assert first[4] == "Ann: +11 \u2013"
    card = text(page(f"/matches/{evening.pk}/pairs/1/"))
    assert "Rating Ann +11, Bob not rated yet (Cardrank's, from IMP duels)" in card
    assert "Kim +" not in card  # only the pair's own players


# --- a traveller -------------------------------------------------------------------------------------------------


def test_a_boards_traveller_has_every_table_its_play_and_each_sides_matchpoints(evening):
    html = page(f"/matches/{evening.pk}/boards/1/")
    assert "<h1>Board 1</h1>" in html
    assert "Dealer North · None vulnerable · scored by matchpoints · top 4 MP" in text(html)
    assert rows(html, "traveller") == [
        # NS pair, EW pair, contract, by, tricks, lead, NS score, EW score, NS MP, EW MP
        ["1 scorecard Ann & Bob", "2 scorecard Cy & Di", "4 ♠ spades", "N", "+1", "♥ hearts K", "450", "", "4", "0"],
        ["3 scorecard Ed & Flo", "4 scorecard Gus & Hal", "4 ♠ spades", "N", "=", "♦ diamonds A", "420", "", "1", "3"],
        ["5 scorecard Ida & Jo", "6 scorecard Kim & Lu", "4 ♠ spades", "S", "=", "", "420", "", "1", "3"],
    ]
    assert '<span class="suit suit-s" aria-hidden="true">♠</span><span class="visually-hidden">spades</span>' in html
    board_2 = page(f"/matches/{evening.pk}/boards/2/")
    assert "Dealer East · North-South vulnerable" in text(board_2)
    assert [row[-2:] for row in rows(board_2, "traveller")] == [["1", "3"], ["4", "0"], ["1", "3"]]
    assert [row[4] for row in rows(board_2, "traveller")] == ["+3", "=", "+3"]


def test_the_session_page_links_each_board_to_its_traveller(evening):
    html = page(evening.get_absolute_url())
    for number in (1, 2, 3):
        assert f'href="/matches/{evening.pk}/boards/{number}/"' in html


def test_an_adjusted_table_and_the_byes_show_as_such_with_their_points(referee_client, twelve):
    # Cross-IMPs. Board 1 (none vul): 420, -50 and table 3 adjusted A+/A-: 470 is 10 IMPs, so NS 1 +10,
    # NS 3 -10 (EW the opposite); table 3 gets the award, NS 5 +3, EW 6 -3. Board 2 (NS vul): 100 and -110:
    # 210 is 5 IMPs (170-210); pairs 5 and 6 sit out, 5 credited 2 IMPs, 6 its average (-3).
    pairs = pairs_of(twelve)
    board_1 = [
        {"ns": pairs["1"], "ew": pairs["2"], "ns_pair": "1", "ew_pair": "2", "ns_score": 420},
        {"ns": pairs["3"], "ew": pairs["4"], "ns_pair": "3", "ew_pair": "4", "ns_score": -50},
        {"ns": pairs["5"], "ew": pairs["6"], "ns_pair": "5", "ew_pair": "6", "adjusted": {"ns": "A+", "ew": "A-"}},
    ]
    board_2 = [
        {"ns": pairs["1"], "ew": pairs["2"], "ns_pair": "1", "ew_pair": "2", "ns_score": 100},
        {"ns": pairs["3"], "ew": pairs["4"], "ns_pair": "3", "ew_pair": "4", "ns_score": -110},
    ]
    body = {
        "game": "bridge", "played_at": EVENING.isoformat(), "league": "bridge-amateur", "scoring": "cross_imps",
        "boards": [
            {"number": 1, "tables": board_1},
            {"number": 2, "tables": board_2, "byes": [{"pair": "5", "points": 2}, {"pair": "6"}]},
        ],
    }  # fmt: skip
    match = store(referee_client, body)
    one = rows(page(f"/matches/{match.pk}/boards/1/"), "traveller")
    assert one[2] == [
        "5 scorecard Ida & Jo",
        "6 scorecard Kim & Lu",
        "Adjusted NS A+, EW A\u2212",
        "",
        "",
        "+3",
        "\u22123",
    ]
    assert [row[-2:] for row in one[:2]] == [["+10", "\u221210"], ["\u221210", "+10"]]
    two = page(f"/matches/{match.pk}/boards/2/")
    assert "Byes: pair 5 (Ida & Jo) +2 IMPs; pair 6 (Kim & Lu) \u22123 IMPs" in text(two)
    assert [row[-2:] for row in rows(two, "traveller")] == [["+5", "\u22125"], ["\u22125", "+5"]]
    # The standings: 1 and 4 +15 ("1="), 5 +3 + 2 = +5, 6 -3 - 3 = -6, 2 and 3 -15 ("5=").
    placed = [(row[0], row[1].split()[0], row[3]) for row in rows(page(match.get_absolute_url()), "pair-ranking")]
    assert placed == [
        ("1=", "1", "+15"),
        ("1=", "4", "+15"),
        ("3", "5", "+5"),
        ("4", "6", "\u22126"),
        ("5=", "2", "\u221215"),
        ("5=", "3", "\u221215"),
    ]
    card = rows(page(f"/matches/{match.pk}/pairs/6/"), "scorecard")
    assert card == [
        ["1", "EW", "5 scorecard Ida & Jo", "Adjusted A\u2212", "", "\u22123", "\u22123"],
        ["2", "Bye: no opponents", "\u22123", "\u22126"],
    ]


# --- a scorecard -------------------------------------------------------------------------------------------------


def test_a_pairs_scorecard_goes_board_by_board_to_its_standing(evening):
    html = page(f"/matches/{evening.pk}/pairs/1/")
    assert "<h1>Pair 1</h1>" in html
    assert "75% (9 of 12 MP)" in text(html)
    assert rows(html, "scorecard") == [
        # board, direction, opponents, contract, by, tricks, score, MP, running total
        ["1", "NS", "2 scorecard Cy & Di", "4 ♠ spades", "N", "+1", "+450", "4", "4"],
        ["2", "NS", "2 scorecard Cy & Di", "3 NT", "S", "+3", "+690", "1", "5"],
        ["3", "NS", "2 scorecard Cy & Di", "3 NT", "N", "+1", "+430", "4", "9"],
    ]
    ew = rows(page(f"/matches/{evening.pk}/pairs/2/"), "scorecard")
    assert [row[6:] for row in ew] == [["\u2212450", "0", "0"], ["\u2212690", "3", "3"], ["\u2212430", "0", "3"]]


def test_every_scorecard_adds_up_to_its_standing(evening):
    # Totals of 12: pair 1 9, 2 3, 3 5, 4 7, 5 4, 6 8 (the module docstring).
    expected = {"1": ("9", "75%"), "2": ("3", "25%"), "3": ("5", "41.67%"), "4": ("7", "58.33%")}
    expected |= {"5": ("4", "33.33%"), "6": ("8", "66.67%")}
    for pair, (total, percent) in expected.items():
        html = page(f"/matches/{evening.pk}/pairs/{pair}/")
        assert rows(html, "scorecard")[-1][-1] == total, pair
        assert f"{percent} ({total} of 12 MP)" in text(html), pair


def test_the_profiles_session_line_opens_the_players_scorecard(evening, twelve):
    ed = twelve[4]  # pair 3
    response = Client().get(f"/matches/{evening.pk}/players/{ed.pk}/scorecard/")
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{evening.pk}/pairs/3/"
    evening.status = Match.Status.RATED
    evening.save(update_fields=["status"])
    league = League.objects.get(slug="bridge-amateur")
    RatingChange.objects.create(
        game=evening.game, match=evening, player=ed, unit=1, played_at=evening.played_at,
        rating_before=Decimal(1000), rating_after=Decimal(1004), delta=Decimal(4), peak_after=Decimal(1004),
        rated_matches_after=1, league_after=league, details={"score": 1, "expected": 0.5, "imps": 3, "duels": 2},
    )  # fmt: skip
    profile = Client().get(ed.get_absolute_url()).content.decode()
    assert f'href="/matches/{evening.pk}/players/{ed.pk}/scorecard/"' in profile


# --- hand records ------------------------------------------------------------------------------------------------


def test_a_hand_record_shows_the_four_hands_round_the_compass_then_its_analysis(evening):
    board = Board.objects.get(match=evening, number=1)
    board.deal = DEAL
    board.save(update_fields=["deal"])
    html = page(f"/matches/{evening.pk}/boards/1/")
    assert "being analysed" in html
    record = html[html.index('class="compass"') :]
    hands = re.findall(r'<div class="hand hand-(\w)".*?</div>', record, re.S)
    assert hands == ["n", "w", "e", "s"]  # N top, W left, E right, S bottom
    north = re.search(r'<div class="hand hand-n".*?</div>', record, re.S).group(0)
    assert text(north) == "North (dealer) ♠ spades AKQJ ♥ hearts AKQ ♦ diamonds AKQ ♣ clubs AKQ"
    east = re.search(r'<div class="hand hand-e".*?</div>', record, re.S).group(0)
    assert "♠ spades 10987" in text(east)  # ten as 10
    west = re.search(r'<div class="hand hand-w".*?</div>', record, re.S).group(0)
    assert "♠ spades —" in text(west)  # a void

    # Filled by the analysis task: North-South take 13 tricks in every strain, East-West none.
    tables = {seat: dict.fromkeys(("C", "D", "H", "S", "NT"), 13 if seat in "NS" else 0) for seat in "NESW"}
    board.double_dummy = tables
    board.par = {"score": 1520, "contracts": ["7NT NS"]}
    board.save(update_fields=["double_dummy", "par"])
    html = page(f"/matches/{evening.pk}/boards/1/")
    assert "being analysed" not in html
    assert rows(html, "dd-table") == [
        ["13", "13", "13", "13", "13"],
        ["13", "13", "13", "13", "13"],
        ["0", "0", "0", "0", "0"],
        ["0", "0", "0", "0", "0"],
    ]
    assert re.findall(r'<th scope="row">(\w+)</th>', html) == ["North", "South", "East", "West"]
    assert "Par: NS +1520 (7 NT NS)" in text(html)


def test_a_board_without_a_deal_says_so_and_the_scorecard_marks_hand_records(evening):
    html = page(f"/matches/{evening.pk}/boards/2/")
    assert "The club did not publish this board's hands." in html
    Board.objects.filter(match=evening, number=3).update(deal=DEAL)
    card = page(f"/matches/{evening.pk}/pairs/1/")
    assert f'href="/matches/{evening.pk}/boards/3/#hand-record"' in card
    assert f'href="/matches/{evening.pk}/boards/2/#hand-record"' not in card


# --- not found, and what a page costs ---------------------------------------------------------------------------


def test_a_board_or_pair_not_in_the_session_is_not_found(evening, twelve, slaps):
    assert Client().get(f"/matches/{evening.pk}/boards/4/").status_code == 404
    assert Client().get(f"/matches/{evening.pk}/pairs/7/").status_code == 404
    assert Client().get(f"/matches/{evening.pk}/pairs/NS1/").status_code == 404  # not a Mitchell
    outsider = PlayerFactory(name="Zed")
    assert Client().get(f"/matches/{evening.pk}/players/{outsider.pk}/scorecard/").status_code == 404
    other = slaps_match(winner=outsider, loser=PlayerFactory(name="Yan"))
    assert Client().get(f"/matches/{other.pk}/boards/1/").status_code == 404
    assert Client().get(f"/matches/{evening.pk + other.pk + 100}/boards/1/").status_code == 404


def test_the_pages_cost_a_bounded_number_of_queries_whatever_the_session(
    referee_client, twelve, django_assert_max_num_queries
):
    small = store(referee_client, matchpoint_body(twelve))
    body = matchpoint_body(twelve, played_at=datetime(2026, 11, 10, 19, tzinfo=UTC).isoformat())
    # 24 boards, each played as board 1 was (none vulnerable, as each is said to be).
    body["boards"] = [{**body["boards"][0], "number": number, "vulnerability": "None"} for number in range(1, 25)]
    large = store(referee_client, body)
    for match in (small, large):
        # The match page: the match, its seats and their players and bots, boards, tables, their four players,
        # ledger rows. A traveller: the match, boards, tables, four players; a scorecard adds its two players'
        # ledger rows. None a board, a table or a pair.
        for url, most in (
            (match.get_absolute_url(), 10),
            (f"/matches/{match.pk}/boards/1/", 7),
            (f"/matches/{match.pk}/pairs/1/", 8),
        ):
            with django_assert_max_num_queries(most):
                assert Client().get(url).status_code == 200


# --- one computation: the points a traveller shows add up to the standings -------------------------------------


def _totals_agree(body: dict) -> None:
    """Each pair's points over its tables and byes give its standings score: the IMPs, or the matchpoints as a
    share of the top times its boards (the module's rule), to 2 decimals."""
    decimals = (body.get("scoring_options") or {}).get("total_decimals")
    totals: dict = {}
    for board in session_board_points(body):
        for table in board.tables:
            for key, points, top in (
                (table.ns_pair, table.ns_points, table.top),
                (table.ew_pair, table.ew_points, table.top),
            ):
                total, count, _ = totals.get(key, (Fraction(0), 0, 0))
                totals[key] = (total + points, count + 1, top or _)
        for bye in board.byes:
            total, count, top = totals.get(bye.pair, (Fraction(0), 0, 0))
            totals[bye.pair] = (total + bye.points, count + 1, bye.top or top)
    rows = session_standings(body)
    assert {standing_pair_key(row) for row in rows} == set(totals)
    for row in rows:
        total, count, top = totals[standing_pair_key(row)]
        if decimals is not None:  # the program rounds the total before it is printed (or made a percentage)
            total = Fraction(decimal_round(total, int(decimals)))
        value = total * 100 / (top * count) if body.get("scoring") == "matchpoints" else total
        assert abs(Fraction(row["score"]) - value) <= Fraction(1, 200), row


def test_the_matchpoint_evenings_points_add_up_to_its_standings(twelve):
    _totals_agree(matchpoint_body(twelve))


REAL = [
    "magiccontest-ffb_open2-dn1-finale-2022_seance1.pbn",
    "ruter-sbl-finland_sm-parikilpailu-2014_session1.pbn",
    "ruter-svenskbridge_silver1-2011_impcross-3sections.pbn",
    "magiccontest-h6-turku_2013-08-20_butler-bye.pbn",
    "ruter-norge_km-par-2022-05-08_utf8.pbn",
    "usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml",
    "usebio-compscore3_moonee-valley_2026-02-02_cross-imp-howell.xml",
    "usebio-scorebridge_forest-of-dean_2025-07-30_mp-howell.xml",
]


@pytest.mark.shared_data("bridge-results")
@pytest.mark.parametrize("name", REAL)
def test_every_real_files_points_add_up_to_its_standings(name):
    data = (shared_data("bridge-results") / name).read_bytes()
    plan = parse_pbn(data) if name.endswith(".pbn") else parse_usebio(data)
    (body,) = plan.results
    _totals_agree(body)


@pytest.mark.shared_data("bridge-results")
def test_a_real_evenings_pages_each_scorecard_ends_at_its_standing(reference_data, referee):
    """The FFB file (22 tables, 30 boards, matchpoints, every hand record): every traveller shows its four
    hands, and every pair's running total of matchpoints ends at the MPs that make its standing's percentage
    (the standings computed apart from the board points the scorecard adds)."""
    data = (shared_data("bridge-results") / REAL[0]).read_bytes()
    bridge = Game.objects.get(slug="bridge")
    import_apply(plan=import_plan_read(game=bridge, format="pbn", data=data), game=bridge, referee=referee)
    match = Match.objects.get(game=bridge)
    html = page(match.get_absolute_url())
    standings = dict(re.findall(r'<a href="/matches/\d+/pairs/([^/]+)/">([\d.]+)%</a>', html))
    assert len(standings) == 44
    for number in Board.objects.filter(match=match).values_list("number", flat=True):
        traveller = page(f"/matches/{match.pk}/boards/{number}/")
        assert len(re.findall(r'<div class="hand hand-\w"', traveller)) == 4, number
        assert len(rows(traveller, "traveller")) == 22, number
    for pair, percent in standings.items():
        card = page(f"/matches/{match.pk}/pairs/{pair}/")
        total, possible = re.search(r"\(([\d.]+) of (\d+) MP\)", text(card)).groups()
        assert rows(card, "scorecard")[-1][-1] == total, pair
        assert abs(Decimal(total) * 100 / Decimal(possible) - Decimal(percent)) <= Decimal("0.005"), pair


# --- how numbers and the play are written ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "signed", "shown"),
    [
        (Fraction(7, 2), False, "3.5"),
        (Fraction(175, 3), False, "58.33"),  # 58.333...
        (Fraction(11, 3), True, "+3.67"),  # Compscore's averaged cross-IMPs
        (Fraction(-15), True, "\u221215"),
        (Fraction(0), True, "0"),
        (Decimal("62.50"), False, "62.5"),
        (Fraction(1, 200), False, "0.01"),  # halves up
    ],
)
def test_points_are_written_to_two_decimals_at_most(value, signed, shown):
    assert points_text(value, signed=signed) == shown


@pytest.mark.parametrize(
    ("contract", "tricks", "shown"),
    [("4S", 10, "="), ("4S", 11, "+1"), ("3NT", 7, "\u22122"), ("7NTXX", 13, "="), ("Pass", None, ""), ("", 9, "")],
)
def test_tricks_are_written_against_the_contract(contract, tricks, shown):
    # 4S needs 10 tricks (6 + 4), 3NT 9, 7NT 13.
    assert result_text(contract, tricks) == shown


@pytest.mark.parametrize(("code", "shown"), [("A+", "A+"), ("A-", "A\u2212"), ("A=", "A="), (60, "60%"), (None, "")])
def test_adjusted_awards_are_written_as_the_director_gives_them(code, shown):
    assert adjusted_text(code) == shown
