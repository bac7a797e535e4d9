"""Head-to-head and compare (issue 16): records per opponent, the crosstable, two sides compared, in the API
and on the pages. Every number is worked by hand in the docstrings: the Slaps history is rated by the
engine and its ratings checked against the hand figures first; Preferans and bridge ledgers and ratings are
set to hand-written numbers where the pages and APIs only read them."""

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache

from leagues.models import Bot, Game, League, Player
from matches.models import Match
from ratings.models import PlayerRating, RatingChange
from ratings.people import player_erase
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, figures_now, slaps_match

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 10, 1, 18, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def slaps_history(reference_data):
    """Ann, Bob and Cid start at 1000 (K 32 while provisional, scale 400, seed 000; rounded half away from 0):

    1. Ann beats Bob, 1000 v 1000: E = 0.5, Ann +16 -> 1016, Bob -16 -> 984.
    2. Ann beats Bob, 1016 v 984: E(Ann) = 1 / (1 + 10^(-32/400)) = 1 / 1.831764 = 0.545922;
       Ann + 32 x 0.454078 = +14.53 -> 1030.53 -> 1031; Bob -14.53 -> 969.47 -> 969.
    3. Bob beats Ann, 1031 v 969: E(Ann) = 1 / (1 + 10^(-62/400)) = 1 / 1.699842 = 0.588290;
       Ann - 32 x 0.588290 = -18.83 -> 1012.17 -> 1012; Bob +18.83 -> 987.83 -> 988.
    4. Ann beats Cid, 1012 v 1000: E(Ann) = 1 / (1 + 10^(-12/400)) = 1 / 1.933254 = 0.517263;
       Ann + 32 x 0.482737 = +15.45 -> 1027.45 -> 1027; Cid -15.45 -> 984.55 -> 985.
    A friendly (Cid beats Ann) and a voided result (Bob beats Ann) do not count.

    So Ann against Bob: 3 met, 2 won, 1 lost, last on day 3, rating change 1016-1000 + 1031-1016 + 1012-1031
    = +12; Bob against Ann: -12. Ann against Cid: 1-0, +15 (1027 - 1012); Cid against Ann: -15.
    """
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    slaps_match(winner=ann, loser=bob, played_at=T0)
    slaps_match(winner=ann, loser=bob, played_at=T0 + DAY)
    slaps_match(winner=bob, loser=ann, played_at=T0 + 2 * DAY)
    slaps_match(winner=ann, loser=cid, played_at=T0 + 3 * DAY)
    slaps_match(winner=cid, loser=ann, played_at=T0 + 4 * DAY, rated=False)
    void = slaps_match(winner=bob, loser=ann, played_at=T0 + 5 * DAY)
    Match.objects.filter(pk=void.pk).update(status=Match.Status.VOID)
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    cache.clear()
    ratings = dict(PlayerRating.objects.filter(game__slug="slaps").values_list("player__name", "rating"))
    assert ratings == {"Ann": 1027, "Bob": 988, "Cid": 985}  # the hand figures above
    return ann, bob, cid


def test_a_slaps_record_per_opponent_counts_rated_results_and_their_rating_change(slaps_history):
    ann, _bob, _cid = slaps_history
    rows = Game.objects.get(slug="slaps").kind.head_to_head(player=ann, game=Game.objects.get(slug="slaps"))
    table = [(row.name, row.meetings, row.wins, row.losses, row.rating_change, row.last_met) for row in rows]
    assert table == [("Bob", 3, 2, 1, Decimal(12), T0 + 2 * DAY), ("Cid", 1, 1, 0, Decimal(15), T0 + 3 * DAY)]


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_the_head_to_head_api_answers_a_page_of_rows(anon_client, slaps_history, django_assert_max_num_queries):
    ann, bob, _cid = slaps_history
    with django_assert_max_num_queries(4):  # the player, the game, the rows (one aggregate query)
        response = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=slaps")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2
    assert body["next"] is None
    assert body["previous"] is None
    assert body["results"][0] == {
        "opponents": [{"id": bob.pk, "name": "Bob"}],
        "meetings": 3,
        "wins": 2,
        "draws": 0,
        "losses": 1,
        "last_met": "2026-10-03T18:00:00Z",
        "rating_change": 12,
        "points_for": None,
        "points_against": None,
    }
    first = anon_client.get(f"/api/players/{bob.pk}/head-to-head/?game=slaps&page_size=1").json()
    assert first["count"] == 1
    assert first["results"][0]["rating_change"] == -12
    paged = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=slaps&page_size=1&page=2").json()
    assert [row["opponents"][0]["name"] for row in paged["results"]] == ["Cid"]
    assert paged["previous"].endswith("page_size=1")
    assert paged["next"] is None
    assert anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=slaps&page=3").status_code == 404


def test_compare_answers_ratings_record_and_the_expected_score(anon_client, slaps_history):
    """Ann 1027 against Bob 988: E = 1 / (1 + 10^((988 - 1027) / 400)) = 1 / (1 + 10^-0.0975)
    = 1 / (1 + 0.79892) = 0.5559."""
    ann, bob, _cid = slaps_history
    response = anon_client.get(f"/api/compare/?game=slaps&a={ann.pk}&b={bob.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["expected_score_a"] == pytest.approx(1 / (1 + 10 ** (-39 / 400)), abs=1e-4)
    assert body["expected_score_a"] == pytest.approx(0.5559, abs=1e-4)
    assert body["a"] == {
        "name": "Ann",
        "rating": 1027,
        "players": [{"id": ann.pk, "name": "Ann", "rating": 1027, "rated_matches": 4, "league": "slaps-amateur"}],
    }
    assert body["b"]["rating"] == 988
    assert body["record"] == {
        "meetings": 3,
        "wins_a": 2,
        "wins_b": 1,
        "draws": 0,
        "last_met": "2026-10-03T18:00:00Z",
        "rating_change_a": 12,
        "rating_change_b": -12,
        "points_a": None,
        "points_b": None,
    }
    assert len(body["recent"]) == 3  # the three rated meetings, not the voided one
    assert body["recent"] == sorted(body["recent"], reverse=True)


def test_compare_of_two_who_never_met_and_one_not_yet_rated(anon_client, slaps_history):
    """Dee has no rated result: the start rating, 1000. Cid 985 against Dee 1000:
    E = 1 / (1 + 10^(15/400)) = 1 / (1 + 1.090184) = 0.4784."""
    _ann, _bob, cid = slaps_history
    dee = PlayerFactory(name="Dee")
    body = anon_client.get(f"/api/compare/?game=slaps&a={cid.pk}&b={dee.pk}").json()
    assert body["expected_score_a"] == pytest.approx(0.4784, abs=1e-4)
    assert body["b"]["players"][0] == {"id": dee.pk, "name": "Dee", "rating": 1000, "rated_matches": 0, "league": None}
    assert body["record"]["meetings"] == 0
    assert body["record"]["last_met"] is None
    assert body["recent"] == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("a={ann}&b={bob}", "game"),
        ("game=chess&a={ann}&b={bob}", "game"),
        ("game=slaps&a={ann}&b={ann}", "b"),
        ("game=slaps&a=x&b={bob}", "a"),
        ("game=slaps&a=-1&b={bob}", "a"),
        ("game=slaps&a={ann}", "b"),
        ("game=slaps&a={ann},{cid}&b={bob}", "a"),
        ("game=slaps&a=normal&b={bob}", "a"),  # a bot, by its slug: not a player's id
        ("game=slaps&a=99999999999999999999&b={bob}", "a"),
        ("game=slaps&a={ann}&a={cid}&b={bob}", "a"),
        ("game=bridge&a={ann}&b={bob}", "a"),  # bridge compares pairs: two ids a side
        ("game=bridge&a={ann},{ann}&b={bob},{cid}", "a"),
        ("game=bridge&a={ann},{bob}&b={bob},{cid}", "b"),  # a player on both sides
    ],
)
def test_compare_refuses_bad_input_with_400_naming_the_parameter(anon_client, slaps_history, query, field):
    ann, bob, cid = slaps_history
    before = RatingChange.objects.count(), PlayerRating.objects.count(), Match.objects.count()
    response = anon_client.get("/api/compare/?" + query.format(ann=ann.pk, bob=bob.pk, cid=cid.pk))
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert (RatingChange.objects.count(), PlayerRating.objects.count(), Match.objects.count()) == before


def test_unknown_players_are_404_and_head_to_head_needs_a_known_game(anon_client, slaps_history):
    ann, _bob, _cid = slaps_history
    missing = Player.objects.order_by("-pk").first().pk + 1000
    assert anon_client.get(f"/api/compare/?game=slaps&a={ann.pk}&b={missing}").status_code == 404
    assert anon_client.get(f"/api/players/{missing}/head-to-head/?game=slaps").status_code == 404
    assert "game" in anon_client.get(f"/api/players/{ann.pk}/head-to-head/").json()
    assert "game" in anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=chess").json()
    assert "page_size" in anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=slaps&page_size=0").json()


def test_an_erased_player_is_compared_by_their_erased_name(anon_client, slaps_history):
    ann, bob, _cid = slaps_history
    erased = player_erase(player=bob, by=AdminFactory())
    body = anon_client.get(f"/api/compare/?game=slaps&a={ann.pk}&b={bob.pk}").json()
    assert body["b"]["name"] == erased.name != "Bob"
    assert body["record"]["wins_a"] == 2  # results stay when a person is erased
    rows = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=slaps").json()["results"]
    assert rows[0]["opponents"][0]["name"] == erased.name
    assert b"Bob" not in anon_client.get(f"/compare/?game=slaps&a={ann.pk}&b={bob.pk}").content


# --- pages ---------------------------------------------------------------------------------------------


def test_the_profile_shows_the_head_to_head_and_links_the_full_list(client, slaps_history):
    ann, bob, _cid = slaps_history
    page = client.get(f"/players/{ann.pk}/").content.decode()
    assert 'id="head-to-head-slaps"' in page
    assert f"/compare/?game=slaps&amp;a={ann.pk}&amp;b={bob.pk}" in page
    full = client.get(f"/players/{ann.pk}/head-to-head/?game=slaps")
    assert full.status_code == 200
    text = full.content.decode()
    assert "Bob" in text
    assert "Cid" in text
    assert "+12" in text
    assert "+15" in text
    assert client.get(f"/players/{ann.pk}/head-to-head/?game=chess").status_code == 404


def test_the_compare_page_shows_both_sides_and_refuses_what_it_cannot_read(client, slaps_history):
    ann, bob, _cid = slaps_history
    assert client.get("/compare/").status_code == 200
    assert client.get(f"/compare/?game=slaps&a={ann.pk}").status_code == 200  # a link naming one side
    response = client.get(f"/compare/?game=slaps&a={ann.pk}&b={bob.pk}")
    assert response.status_code == 200
    text = response.content.decode()
    assert "1027" in text
    assert "988" in text
    assert "56%" in text
    assert "+12" in text
    assert "\u221212" in text
    refused = client.get(f"/compare/?game=slaps&a={ann.pk}&b={ann.pk}")
    assert refused.status_code == 400
    assert "different players" in refused.content.decode()
    missing = Player.objects.order_by("-pk").first().pk + 1000
    assert client.get(f"/compare/?game=slaps&a={ann.pk}&b={missing}").status_code == 404


def test_the_crosstable_crosses_the_top_players(client, slaps_history, django_assert_max_num_queries):
    """Ann (1027) first, Bob (988), Cid (985). Ann's row: Bob 2-1, Cid 1-0; Bob's: Ann 1-2; Cid's: Ann 0-1;
    Bob and Cid never met."""
    _ann, _bob, _cid = slaps_history
    # Kept by the figures' task, never computed by a request: before it ran the page says so.
    assert "Being computed" in client.get("/leagues/slaps-amateur/crosstable/").content.decode()
    figures_now(*Game.objects.filter(slug__in=["slaps", "bridge"]))
    with django_assert_max_num_queries(12):
        response = client.get("/leagues/slaps-amateur/crosstable/")
    assert response.status_code == 200
    text = response.content.decode()
    assert text.index(">Ann<") < text.index(">Bob<") < text.index(">Cid<")
    for label in ("Ann against Bob: won 2, lost 1", "Ann against Cid: won 1, lost 0", "Bob against Ann: won 1, lost 2"):
        assert label in text
    assert "Bob against Cid: never met" in text
    bridge = client.get("/leagues/bridge-amateur/crosstable/")
    assert bridge.status_code == 200
    assert "pair against pair" in bridge.content.decode()


# --- Preferans: games shared, whists and the deals' changes ---------------------------------------------


def set_deltas(match: Match, player: Player, deltas: list[str]) -> None:
    """Give the player's ledger rows of ``match`` these deltas, in deal order (before 1000)."""
    rows = RatingChange.objects.filter(match=match, player=player).order_by("unit")
    for change, delta in zip(rows, deltas, strict=True):
        RatingChange.objects.filter(pk=change.pk).update(
            rating_before=Decimal(1000), rating_after=Decimal(1000) + Decimal(delta), delta=Decimal(delta)
        )


@pytest.fixture
def preferans_history(referee_client, reference_data, django_capture_on_commit_callbacks):
    """Game 1: Ann, Bob and a bot; deals [4, -2, -2], [-6, 3, 3]: Ann -2 whists, Bob +1.
    Game 2: Ann, Bob, Cid; one deal [5, -3, -2].
    Ann's deltas set by hand: game 1 +1.50 and -2.25 (= -0.75), game 2 +3.10.
    Ann against Bob: 2 games, ahead in game 2 (5 > -3), behind in game 1 (-2 < 1): 1 won, 1 lost;
    whists 3 (= -2 + 5) to -2 (= 1 - 3); rating change -0.75 + 3.10 = +2.35.
    Ann against Cid: 1 game, won, whists 5 to -2, +3.10."""
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    matches = []
    for day, seats, deals in (
        (1, [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}], [[4, -2, -2], [-6, 3, 3]]),
        (2, [{"player": ann.pk}, {"player": bob.pk}, {"player": cid.pk}], [[5, -3, -2]]),
    ):
        body = {"game": "preferans", "played_at": f"2026-11-0{day}T18:00:00Z", "seats": seats, "deals": deals}
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.content
        matches.append(Match.objects.get(pk=response.json()["id"]))
    set_deltas(matches[0], ann, ["1.50", "-2.25"])
    set_deltas(matches[1], ann, ["3.10"])
    cache.clear()
    return ann, bob, cid


def test_a_preferans_record_counts_games_whists_and_the_deals_changes(anon_client, preferans_history):
    ann, bob, _cid = preferans_history
    rows = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=preferans").json()["results"]
    assert rows[0] == {
        "opponents": [{"id": bob.pk, "name": "Bob"}],
        "meetings": 2,
        "wins": 1,
        "draws": 0,
        "losses": 1,
        "last_met": "2026-11-02T18:00:00Z",
        "rating_change": 2.35,
        "points_for": 3.0,
        "points_against": -2.0,
    }
    assert (rows[1]["opponents"][0]["name"], rows[1]["wins"], rows[1]["rating_change"]) == ("Cid", 1, 3.1)
    assert (rows[1]["points_for"], rows[1]["points_against"]) == (5.0, -2.0)


def test_preferans_compare_gives_the_chance_of_more_whists(anon_client, preferans_history):
    """Ratings set by hand: Ann 1100, Bob 1000. Two games are too few to fit a scale on (fewer than
    ``ratings.quality.MIN_FORECASTS_TO_FIT`` pairs in the older half), so the pair scale is the default 400:
    p = 1 / (1 + 10^(-(1100 - 1000) / 400)) = 1 / (1 + 10^-0.25) = 1 / (1 + 0.562341) = 0.6401."""
    ann, bob, _cid = preferans_history
    PlayerRating.objects.filter(game__slug="preferans", player=ann).update(
        rating=Decimal(1100), peak_rating=Decimal(1100)
    )
    PlayerRating.objects.filter(game__slug="preferans", player=bob).update(
        rating=Decimal(1000), peak_rating=Decimal(1100)
    )
    body = anon_client.get(f"/api/compare/?game=preferans&a={ann.pk}&b={bob.pk}").json()
    assert body["expected_score_a"] == pytest.approx(0.6401, abs=1e-4)
    assert body["record"]["wins_a"] == 1
    assert body["record"]["wins_b"] == 1
    assert (body["record"]["points_a"], body["record"]["points_b"]) == (3.0, -2.0)
    assert body["record"]["rating_change_a"] == 2.35
    page = anon_client.get(f"/compare/?game=preferans&a={ann.pk}&b={bob.pk}").content.decode()
    assert "64%" in page  # p = 0.6401 (above)
    assert "Whists" in page  # the record's points column, named by the kind
    assert "Normal bot" in page  # the latest meetings list game 1 with its bot seat


def test_preferans_compare_uses_the_scale_fitted_on_the_games_history(anon_client, referee_client, reference_data):
    """40 one-deal games of Ann, Bob and Cid, Ann winning 4 whists from the other two each time: 3 pairs a game,
    60 in the older half, enough to fit a scale on (``MIN_FORECASTS_TO_FIT`` is 50). The compare reads that
    scale, the one the game's quality page shows as fitted, not the default 400; and with Ann at 1100 and Bob
    at 1000 its chance is the formula's on that scale."""
    from ratings.quality import DEFAULT_PAIR_SCALE, MIN_FORECASTS_TO_FIT, pair_scale, rating_quality_row

    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"player": cid.pk}]
    for day in range(40):
        played_at = (T0 + day * DAY).isoformat().replace("+00:00", "Z")
        body = {"game": "preferans", "played_at": played_at, "seats": seats, "deals": [[4, -2, -2]]}
        assert referee_client.post("/api/matches/", body, format="json").status_code == 201
    game = Game.objects.get(slug="preferans")
    ratings_process_game(game_id=game.pk)
    cache.clear()
    # The scale is fitted by the figures' task, never by a request: until it ran, no expected score.
    assert anon_client.get(f"/api/compare/?game=preferans&a={ann.pk}&b={bob.pk}").json()["expected_score_a"] is None
    assert "Being computed" in anon_client.get(f"/compare/?game=preferans&a={ann.pk}&b={bob.pk}").content.decode()
    figures_now(game)
    row = rating_quality_row(game=game)
    assert row.scale_fitted
    assert row.older_forecasts == 60 >= MIN_FORECASTS_TO_FIT
    scale = pair_scale(game)
    assert scale == row.scale != DEFAULT_PAIR_SCALE
    PlayerRating.objects.filter(game=game, player=ann).update(rating=Decimal(1100))
    PlayerRating.objects.filter(game=game, player=bob).update(rating=Decimal(1000))
    cache.clear()
    body = anon_client.get(f"/api/compare/?game=preferans&a={ann.pk}&b={bob.pk}").json()
    assert body["expected_score_a"] == pytest.approx(1 / (1 + 10 ** (-100 / scale)), abs=1e-4)


# --- bridge: two pairs ----------------------------------------------------------------------------------


def test_bridge_compares_two_pairs_by_the_pairs_ratings(anon_client, reference_data):
    """Strangers (no deal together: no partnership bonus, seed 003). Pair A: 1100 and 1000, rated
    (1100 + 1000) / 2 = 1050; pair B: 1000 and 1000, rated 1000.
    E(A) = 1 / (1 + 10^((1000 - 1050) / 400)) = 1 / (1 + 10^-0.125) = 1 / (1 + 0.749894) = 0.5715."""
    players = [PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dee")]
    bridge = Game.objects.get(slug="bridge")
    league = League.objects.get(slug="bridge-amateur")
    for player, rating in zip(players, (1100, 1000, 1000, 1000), strict=True):
        PlayerRating.objects.create(
            player=player, game=bridge, league=league, rating=rating, peak_rating=rating, rated_matches=1
        )
    ann, bob, cid, dee = (player.pk for player in players)
    response = anon_client.get(f"/api/compare/?game=bridge&a={ann},{bob}&b={cid},{dee}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["expected_score_a"] == pytest.approx(0.5715, abs=1e-4)
    assert body["expected_score_a"] == pytest.approx(1 / (1 + 10 ** (-50 / 400)), abs=1e-4)
    assert body["a"]["name"] == "Ann & Bob"
    assert body["a"]["rating"] == 1050.0
    assert body["record"]["meetings"] == 0
    assert body["record"]["points_a"] == 0.0
    page = anon_client.get(f"/compare/?game=bridge&a={ann},{bob}&b={cid},{dee}")
    assert page.status_code == 200
    assert "57%" in page.content.decode()


def test_engines_pair_functions_match_the_hand_figures():
    """The engines' pure functions, against the same hand figures (no database)."""
    from ratings.engines import bridge, elo, preferans

    assert elo.expected_score(1027, 988) == pytest.approx(0.5559, abs=1e-4)
    assert preferans.pair_expected_score(1100, 1000, 400.0) == pytest.approx(0.6401, abs=1e-4)
    assert preferans.pair_expected_score(1000, 1000, 250.0) == 0.5
    p = bridge.BridgeParameters()
    assert bridge.pairs_expected_score((1100, 1000), 0, (1000, 1000), 0, p) == pytest.approx(0.5715, abs=1e-4)
    # 100 deals together: bonus 50 x (1 - e^-1) = 31.61; 1000 + 31.61 against 1000: 1 / (1 + 10^(-31.61/400))
    bonus = 50 * (1 - math.exp(-1))
    assert bridge.pairs_expected_score((1000, 1000), 100, (1000, 1000), 0, p) == pytest.approx(
        1 / (1 + 10 ** (-bonus / 400)), abs=1e-9
    )
    assert bonus == pytest.approx(31.606, abs=1e-3)


def set_board_rows(match: Match, player: Player, rows: list[tuple[str, float, float]]) -> None:
    """Give the player's ledger rows of a bridge session these (delta, score, IMPs), board by board."""
    for change, (delta, score, imps) in zip(
        RatingChange.objects.filter(match=match, player=player).order_by("unit"), rows, strict=True
    ):
        RatingChange.objects.filter(pk=change.pk).update(
            rating_before=Decimal(1000),
            rating_after=Decimal(1000) + Decimal(delta),
            delta=Decimal(delta),
            details={**change.details, "score": score, "imps": imps},
        )


def test_a_bridge_pair_record_reads_the_boards_where_the_pairs_met(
    anon_client, referee_client, reference_data, django_capture_on_commit_callbacks
):
    """One session, two tables, two boards: (Ann, Bob) NS against (Cid, Dee) EW at table 1 on both; (Eve, Fay)
    against (Gus, Hal) at table 2. Board 1: 420 at table 1, -50 at table 2: 470 points, 10 IMPs to Ann and Bob
    (and to Gus and Hal, their teammates in the duel): won. Board 2: 100 at both, 0 IMPs: drawn.
    The ledger is set by hand: Ann +21.50 and -1.48, Bob +21.50 and -1.50, Cid and Dee -21.50 and +1.48.
    Pair (Ann, Bob) against (Cid, Dee): 2 boards, won 1, drawn 1, lost 0; its change is the mean of the
    partners' deltas a board: (21.50 + 21.50) / 2 + (-1.48 - 1.50) / 2 = 21.50 - 1.49 = +20.01; (Cid, Dee):
    -21.50 + 1.48 = -20.02. Net IMPs: Ann 10 + 0 = 10, Cid -10. Ann alone against (Cid, Dee): +20.02."""
    names = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")
    players = [PlayerFactory(name=name) for name in names]
    ann, bob, cid, dee = players[:4]
    body = {
        "game": "bridge",
        "played_at": "2026-11-01T19:00:00Z",
        "boards": [
            {
                "number": number,
                "tables": [
                    {"ns": [ann.pk, bob.pk], "ew": [cid.pk, dee.pk], "ns_score": first},
                    {"ns": [players[4].pk, players[5].pk], "ew": [players[6].pk, players[7].pk], "ns_score": second},
                ],
            }
            for number, (first, second) in enumerate([(420, -50), (100, 100)], start=1)
        ],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", body, format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert match.status == Match.Status.RATED
    set_board_rows(match, ann, [("21.50", 1.0, 10.0), ("-1.48", 0.5, 0.0)])
    set_board_rows(match, bob, [("21.50", 1.0, 10.0), ("-1.50", 0.5, 0.0)])
    for player in (cid, dee):
        set_board_rows(match, player, [("-21.50", 0.0, -10.0), ("1.48", 0.5, 0.0)])
    body = anon_client.get(f"/api/compare/?game=bridge&a={ann.pk},{bob.pk}&b={dee.pk},{cid.pk}").json()
    assert body["record"] == {
        "meetings": 2,
        "wins_a": 1,
        "wins_b": 0,
        "draws": 1,
        "last_met": "2026-11-01T19:00:00Z",
        "rating_change_a": 20.01,
        "rating_change_b": -20.02,
        "points_a": 10.0,
        "points_b": -10.0,
    }
    assert body["recent"] == [match.pk]
    rows = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=bridge").json()["results"]
    assert rows == [
        {
            "opponents": [{"id": cid.pk, "name": "Cid"}, {"id": dee.pk, "name": "Dee"}],
            "meetings": 2,
            "wins": 1,
            "draws": 1,
            "losses": 0,
            "last_met": "2026-11-01T19:00:00Z",
            "rating_change": 20.02,
            "points_for": 10.0,
            "points_against": None,
        }
    ]
    # Pairs that never sat at one table (Ann and Bob against Eve and Fay) have no record.
    other = anon_client.get(f"/api/compare/?game=bridge&a={ann.pk},{bob.pk}&b={players[4].pk},{players[5].pk}").json()
    assert other["record"]["meetings"] == 0
    page = anon_client.get(f"/compare/?game=bridge&a={ann.pk},{bob.pk}&b={cid.pk},{dee.pk}")
    assert page.status_code == 200
    assert "+20" in page.content.decode()
    full = anon_client.get(f"/players/{ann.pk}/head-to-head/?game=bridge").content.decode()
    assert f'<a href="/players/{cid.pk}/">Cid</a> &amp; <a href="/players/{dee.pk}/">Dee</a>' in full
    assert "Net IMPs" in full


def test_a_game_the_player_never_played_has_no_rows_and_a_bots_number_is_no_player(anon_client, slaps_history):
    """Ann played no Preferans: an empty list, not an error. A bot is not a player: the number of a bot that
    no player shares answers 404 (bots and players are numbered apart).

    The bot is given a number past every player's and bot's, since the two tables' sequences may hand out the
    same numbers (SQLite's do, from 1 each)."""
    ann, _bob, _cid = slaps_history
    body = anon_client.get(f"/api/players/{ann.pk}/head-to-head/?game=preferans").json()
    assert body == {"count": 0, "next": None, "previous": None, "results": []}
    preferans = Bot.objects.filter(game__slug="preferans").first().game
    highest = max([*Player.objects.values_list("pk", flat=True), *Bot.objects.values_list("pk", flat=True)])
    bot = Bot.objects.create(
        pk=highest + 1, game=preferans, slug="numbered-apart", name="Numbered apart", rating=1500, max_rating=1600
    )
    assert not Player.objects.filter(pk=bot.pk).exists()
    assert anon_client.get(f"/api/compare/?game=preferans&a={ann.pk}&b={bot.pk}").status_code == 404
    assert anon_client.get(f"/api/players/{bot.pk}/head-to-head/?game=preferans").status_code == 404
