"""Leaderboards and profiles at scale: true ranks on every page and in search, query counts that
do not grow with the league or the history, and cached pages that never outlive a rating change."""

import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from leagues.models import League, Player
from matches.models import Match
from matches.services import match_correct, match_void
from ratings import selectors
from ratings.caching import rating_version
from ratings.models import PlayerRating, RatingChange, RatingState
from ratings.selectors import Standings, leaderboard_page
from ratings.services import ratings_process_game, ratings_replay_all
from tests.factories import AdminFactory, PlayerFactory, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db
T0 = timezone.now() - timedelta(days=3)


def league_of(slaps, tier="amateur") -> League:
    return League.objects.get(game=slaps, tier=tier)


def seed_league(slaps, players: int, *, seed: int = 1) -> list[tuple]:
    """``players`` ratings drawn from few values (ties everywhere), names in shuffled order.

    Returns the expected leaderboard by current rating: (player id, name, rating, peak) best first.
    """
    rng = random.Random(seed)
    league = league_of(slaps)
    names = [f"p{n:04d}" for n in range(players)]
    rng.shuffle(names)
    roster = Player.objects.bulk_create(Player(name=name) for name in names)
    rows = []
    for player in roster:
        rating = Decimal(rng.choice([980, 1000, 1000.5, 1016, 1032]))
        rows.append(
            PlayerRating(
                player=player,
                game=slaps,
                league=league,
                rating=rating,
                peak_rating=rating + rng.choice([0, 0, 8, 16]),
                rated_matches=rng.randint(1, 60),
            )
        )
    PlayerRating.objects.bulk_create(rows)
    RatingState.objects.get_or_create(game=slaps)
    return [(r.player_id, r.player.name, r.rating, r.peak_rating) for r in rows]


def expected(rows, sort: str) -> list[int]:
    column = 2 if sort == "current" else 3
    return [row[0] for row in sorted(rows, key=lambda row: (-row[column], row[1], row[0]))]


def test_standings_count_rank_and_seek():
    # Ratings 1016 (x2), 1000 (x3), 984 (x1), in cents, negated so the array ascends.
    from array import array

    standings = Standings(values=array("q", [-101600, -100000, -98400]), before=array("q", [0, 2, 5, 6]))
    assert standings.count == 6
    assert [standings.above(Decimal(value)) for value in (1100, 1016, 1000, 984, 900)] == [0, 0, 2, 5, 6]
    assert [standings.seek(offset) for offset in range(6)] == [
        (Decimal(1016), 0),
        (Decimal(1016), 1),
        (Decimal(1000), 0),
        (Decimal(1000), 1),
        (Decimal(1000), 2),
        (Decimal(984), 0),
    ]


@pytest.mark.parametrize("sort", ["current", "peak"])
@pytest.mark.parametrize("page_size", [7, 25, 50])
def test_every_page_holds_the_true_ranks_in_order(slaps, sort, page_size):
    rows = seed_league(slaps, 230)
    order = expected(rows, sort)
    league = league_of(slaps)
    seen = []
    for number in range(1, -(-len(order) // page_size) + 1):
        page = leaderboard_page(league=league, sort=sort, page=str(number), page_size=page_size)
        assert page.count == len(order)
        seen += [(row.rank, row.player_id) for row in page.rows]
    assert seen == [(rank, pid) for rank, pid in enumerate(order, start=1)]


@pytest.mark.parametrize("sort", ["current", "peak"])
def test_search_keeps_true_league_ranks(slaps, sort):
    rows = seed_league(slaps, 230)
    rank_of = {pid: rank for rank, pid in enumerate(expected(rows, sort), start=1)}
    league = league_of(slaps)
    page = leaderboard_page(league=league, sort=sort, search="p01", page="2", page_size=40)
    matching = [pid for pid in expected(rows, sort) if {r[0]: r[1] for r in rows}[pid].startswith("p01")]
    assert page.count == len(matching) == 100
    assert [row.player_id for row in page.rows] == matching[40:80]
    assert [row.rank for row in page.rows] == [rank_of[row.player_id] for row in page.rows]


def test_api_deep_page_and_search_ranks(anon_client, slaps):
    rows = seed_league(slaps, 230)
    order = expected(rows, "peak")
    url = "/api/leagues/slaps-amateur/leaderboard/?sort=peak&page_size=20"
    deep = anon_client.get(f"{url}&page=9").json()
    assert deep["count"] == 230
    assert [(r["rank"], r["player"]["id"]) for r in deep["results"]] == list(enumerate(order, 1))[160:180]
    assert "page=10&" in deep["next"]
    assert "page=8&" in deep["previous"]
    last = anon_client.get(f"{url}&page=last").json()
    assert last["next"] is None
    assert [r["rank"] for r in last["results"]] == list(range(221, 231))
    second = anon_client.get(f"{url}&page=2").json()
    assert "page=" not in second["previous"]
    assert anon_client.get(f"{url}&page=13").status_code == 404
    assert anon_client.get(f"{url}&page=x").status_code == 404
    target = order[137]
    name = Player.objects.get(pk=target).name
    found = anon_client.get(f"{url}&search={name}").json()
    assert [(r["rank"], r["player"]["id"]) for r in found["results"]] == [(138, target)]


def test_html_deep_page_and_out_of_range_pages(client, slaps):
    rows = seed_league(slaps, 120)
    order = expected(rows, "current")
    html = client.get("/leagues/slaps-amateur/?page=3").content.decode()
    assert "Page 3 of 5 · 120 players" in html
    assert f'<tr data-player="{order[50]}">\n        <td class="num">51</td>' in html
    assert "Page 5 of 5" in client.get("/leagues/slaps-amateur/?page=99").content.decode()
    assert "Page 1 of 5" in client.get("/leagues/slaps-amateur/?page=zz").content.decode()


@pytest.mark.parametrize(
    ("url", "warm_queries"),
    [
        ("/api/leagues/slaps-amateur/leaderboard/?sort=current", 1),
        ("/api/leagues/slaps-amateur/leaderboard/?sort=peak&page=2&page_size=25", 1),
        # Searches and page sizes of the client's choosing are never cached (bounded cache keys):
        # every request costs what a cold one does, and that does not grow with the league either.
        ("/api/leagues/slaps-amateur/leaderboard/?sort=peak&page=3&page_size=10", 3),
        ("/api/leagues/slaps-amateur/leaderboard/?search=p00", 4),
        ("/leagues/slaps-amateur/?sort=peak&page=2", 1),
        ("/leagues/slaps-amateur/?q=p00", 4),
    ],
)
def test_leaderboard_queries_do_not_grow_with_the_league(
    client, slaps, url, warm_queries, django_assert_num_queries, django_assert_max_num_queries
):
    seed_league(slaps, 40, seed=1)
    cache.clear()
    with django_assert_max_num_queries(6) as small:  # a cold cache
        client.get(url)
    with django_assert_max_num_queries(warm_queries) as warm:  # cached: the league with its version only
        client.get(url)
    seed_league(slaps, 400, seed=2)
    cache.clear()
    with django_assert_num_queries(len(small.captured_queries)):
        response = client.get(url)
    assert response.status_code == 200
    with django_assert_num_queries(len(warm.captured_queries)):
        client.get(url)


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_profile_queries_do_not_grow_with_the_history(client, slaps, django_assert_num_queries):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    for index in range(10):
        slaps_match(winner=ann, loser=bob, played_at=T0 + timedelta(minutes=index))
    ratings_process_game(game_id=slaps.pk)
    with django_assert_num_queries(13) as cold:  # of them, the head-to-head: one aggregate query a game played
        client.get(f"/players/{ann.pk}/")
    # The player, its ratings and results versions (the parts are cached HTML), its rating lists' lines.
    with django_assert_num_queries(4) as warm:
        client.get(f"/players/{ann.pk}/")
    for index in range(10, 700):
        slaps_match(winner=ann, loser=bob, played_at=T0 + timedelta(minutes=index))
    ratings_process_game(game_id=slaps.pk)
    with django_assert_num_queries(len(cold.captured_queries)):
        html = client.get(f"/players/{ann.pk}/").content.decode()
    with django_assert_num_queries(len(warm.captured_queries)):
        client.get(f"/players/{ann.pk}/")
    assert "The whole history of 700 Slaps results (700 rated matches)" in html


def long_ledger(game, player, ratings: list[int], *, units: int = 1, per_day: int = 1) -> list[Match]:
    """A ledger written straight (what is tested is reading it): a match per rating in ``ratings``, each of
    ``units`` units, ``per_day`` matches a day from noon UTC; the match's rating after its last unit is its
    entry, each unit moving from the one before, the first from 1000."""
    day0 = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=len(ratings))
    league = league_of(game)
    matches = Match.objects.bulk_create(
        Match(game=game, played_at=day0 + timedelta(days=n // per_day, minutes=n % per_day), status="rated")
        for n in range(len(ratings))
    )
    rows, before = [], Decimal(1000)
    for match, rating in zip(matches, ratings, strict=True):
        for unit in range(units):
            after = Decimal(rating) if unit == units - 1 else before
            rows.append(
                RatingChange(game=game, match=match, player=player, unit=unit, played_at=match.played_at,
                             rating_before=before, rating_after=after, delta=after - before, peak_after=after,
                             rated_matches_after=1, league_after=league)
            )  # fmt: skip
            before = after
    RatingChange.objects.bulk_create(rows)
    return matches


def test_chart_keeps_the_span_peaks_and_dips_of_a_long_history(slaps):
    """1,201 matches, 600 points at most: the start and the last match, the peak (2500) and the dip (100)
    kept, in order of play; the day table has every day (3 matches a day: 401 days, the last of one)."""
    ann = PlayerFactory(name="Ann")
    ratings = [1000 + (index % 50) for index in range(1201)]
    ratings[700], ratings[900] = 2500, 100
    long_ledger(slaps, ann, ratings, per_day=3)
    [series] = selectors.player_chart_series(player=ann)
    assert (series.units, series.matches, series.reduced) == (1201, 1201, True)
    assert len(series.points) <= 600
    assert [point[1:] for point in series.points[:1]] == [[1000.0, 0]]  # the rating before the first unit
    assert series.points[-1][1:] == [float(ratings[-1]), 1201]
    assert [2500.0, 701] in [point[1:] for point in series.points]
    assert [100.0, 901] in [point[1:] for point in series.points]
    assert [point[2] for point in series.points] == sorted(point[2] for point in series.points)
    assert len(series.days) == 401
    assert [(day.units, day.rating_before, day.rating_after) for day in series.days[:2]] == [
        (3, 1000.0, 1002.0),
        (3, 1002.0, 1005.0),
    ]
    assert (series.days[-1].units, series.days[-1].rating_after) == (1, float(ratings[-1]))


@pytest.mark.postgres
def test_the_chart_reads_its_points_and_days_not_the_whole_ledger(slaps):
    """The profile's chart of 1,201 matches (10 a day: 121 days) takes at most 600 points and 121 days from
    the database, not the 1,201 ledger rows (issue 25: 80,000 deals were read and walked in Python, seconds
    of the profile). PostgreSQL's cursor says how many rows each query answered."""
    ann = PlayerFactory(name="Ann")
    long_ledger(slaps, ann, [1000 + (index % 50) for index in range(1201)], per_day=10)
    answered = []

    def count_rows(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        answered.append(context["cursor"].cursor.rowcount)
        return result

    with connection.execute_wrapper(count_rows):
        [series] = selectors.player_chart_series(player=ann)
    assert (series.units, len(series.days)) == (1201, 121)
    assert answered
    assert max(answered) <= 600 + 121


def test_a_short_history_keeps_a_point_a_match_whatever_its_units(slaps):
    """Ten matches of four units each: ten points and the start, each at its match's last unit."""
    ann = PlayerFactory(name="Ann")
    long_ledger(slaps, ann, [1010 + n for n in range(10)], units=4)
    [series] = selectors.player_chart_series(player=ann)
    assert (series.units, series.matches, series.reduced) == (40, 10, False)
    assert [point[1:] for point in series.points] == [[1000.0, 0]] + [[1010.0 + n, 4 * (n + 1)] for n in range(10)]
    assert [(day.units, day.rating_after) for day in series.days][:2] == [(4, 1010.0), (4, 1011.0)]


def board(client, sort="current"):
    return client.get(f"/api/leagues/slaps-amateur/leaderboard/?sort={sort}").json()


def profile_card(client, player) -> str:
    html = client.get(f"/players/{player.pk}/").content.decode()
    return html[html.index('<div class="cards">') : html.index("</dl>")]


def rated_pair(slaps):
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    first = slaps_match(winner=ann, loser=bob, played_at=T0)
    ratings_process_game(game_id=slaps.pk)
    return ann, bob, cid, first


def test_a_new_rated_result_shows_at_once(anon_client, client, slaps):
    """Ann beat Bob (both 1000, E = 0.5, K = 32): 1016 and 984. Then Cid (1000) beats Ann (1016):
    E(Cid) = 1/(1 + 10^(16/400)) = 0.47699, Cid 1000 + 32(1 - 0.47699) = 1016.74 -> 1017,
    Ann 1016 + 32(0 - 0.52301) = 999.26 -> 999; Bob stays 984."""
    ann, _bob, cid, _ = rated_pair(slaps)
    assert [r["player"]["name"] for r in board(anon_client)["results"]] == ["Ann", "Bob"]
    assert "#1 in" in profile_card(client, ann)
    assert "1016" in profile_card(client, ann)
    chart = selectors.player_chart_series(player=ann)
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    after = board(anon_client)["results"]
    assert [(r["rank"], r["player"]["name"], r["rating"]) for r in after] == [
        (1, "Cid", 1017),
        (2, "Ann", 999),
        (3, "Bob", 984),
    ]
    assert "#2 in" in profile_card(client, ann)
    assert "999" in profile_card(client, ann)
    assert selectors.player_chart_series(player=ann)[0].units == chart[0].units + 1
    assert board(anon_client, "peak")["results"][0]["player"]["name"] == "Cid"
    assert assert_ledger_is_the_oracles(game=slaps) == 4


def test_a_void_shows_at_once(anon_client, client, slaps, reference_data):
    ann, _bob, _cid, first = rated_pair(slaps)
    board(anon_client)
    profile_card(client, ann)
    match_void(match_id=first.pk, by=AdminFactory())
    ratings_process_game(game_id=slaps.pk)
    assert board(anon_client) == {"count": 0, "next": None, "previous": None, "results": []}
    assert "has no rated matches yet" in client.get(f"/players/{ann.pk}/").content.decode()


def test_a_correction_and_a_full_replay_show_at_once(anon_client, slaps, reference_data):
    """The correction makes Bob the winner; then K for new players is set to 40 and everything is replayed:
    Bob 1000 + 40(1 - 0.5) = 1020 (and Ann 980), the oracle's reading of the new parameters too."""
    ann, bob, _cid, first = rated_pair(slaps)
    assert board(anon_client)["results"][0]["player"]["name"] == "Ann"
    body = {"game": "slaps", "played_at": T0.isoformat(), "players": [ann.pk, bob.pk], "winner": bob.pk}
    match_correct(match_id=first.pk, by=AdminFactory(), data=body)
    ratings_process_game(game_id=slaps.pk)
    assert [r["player"]["name"] for r in board(anon_client)["results"]] == ["Bob", "Ann"]
    slaps.parameters = {**(slaps.parameters or {}), "k_provisional": 40}
    slaps.save()
    ratings_replay_all(game_id=slaps.pk)
    assert [(r["player"]["name"], r["rating"]) for r in board(anon_client)["results"]] == [("Bob", 1020), ("Ann", 980)]
    assert assert_ledger_is_the_oracles(game=slaps) == 2


def test_a_late_result_replays_and_shows_at_once(anon_client, slaps):
    """The late result (Cid beats Bob, before Ann beat Bob) is replayed into place: counts on the board,
    ratings the oracle's. Bob first loses to Cid (1000 v 1000): 984; then to Ann (1000):
    E(Bob) = 1/(1 + 10^((1000 - 984)/400)) = 0.47699, 984 + 32(0 - 0.47699) = 968.74 -> 969."""
    _ann, bob, cid, _ = rated_pair(slaps)
    board(anon_client)
    slaps_match(winner=cid, loser=bob, played_at=T0 - timedelta(hours=1))  # played before the rated one
    ratings_process_game(game_id=slaps.pk)
    assert {r["player"]["name"]: r["rated_matches"] for r in board(anon_client)["results"]} == {
        "Ann": 1,
        "Bob": 2,
        "Cid": 1,
    }
    assert {r["player"]["name"]: r["rating"] for r in board(anon_client)["results"]}["Bob"] == 969
    assert assert_ledger_is_the_oracles(game=slaps) == 4


def test_a_rename_reorders_ties_at_once(anon_client, slaps):
    ann, _bob, cid, _ = rated_pair(slaps)
    slaps_match(winner=cid, loser=PlayerFactory(name="Dan"), played_at=T0 + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    before = rating_version(game_id=slaps.pk)
    assert [r["player"]["name"] for r in board(anon_client)["results"]][:2] == ["Ann", "Cid"]  # tied at 1016
    ann.name = "Zoe"
    ann.save()
    assert rating_version(game_id=slaps.pk) != before
    assert [r["player"]["name"] for r in board(anon_client)["results"]][:2] == ["Cid", "Zoe"]


def test_a_result_that_is_only_submitted_changes_no_version(slaps):
    _ann, bob, cid, _ = rated_pair(slaps)
    before = rating_version(game_id=slaps.pk)
    match = slaps_match(winner=cid, loser=bob, played_at=T0 + timedelta(hours=1), rated=False)
    assert match.status == Match.Status.FRIENDLY
    assert rating_version(game_id=slaps.pk) == before


def test_pages_are_invalidated_through_a_shared_redis_cache(anon_client, slaps, require_redis):
    with override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": require_redis}}
    ):
        cache.clear()
        ann, _bob, cid, _ = rated_pair(slaps)
        assert [r["player"]["name"] for r in board(anon_client)["results"]] == ["Ann", "Bob"]
        slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=1))
        ratings_process_game(game_id=slaps.pk)
        assert [r["player"]["name"] for r in board(anon_client)["results"]] == ["Cid", "Ann", "Bob"]
        cache.clear()


def test_renaming_a_league_or_game_shows_at_once(client, slaps):
    ann, _bob, _cid, _ = rated_pair(slaps)
    assert "Slaps" in profile_card(client, ann)
    client.get("/leagues/slaps-amateur/")  # the league tabs are cached too
    league = league_of(slaps, "pro")
    league.name = "Slaps masters"
    league.save()
    assert "Slaps masters" not in profile_card(client, ann)
    slaps.name = "Slaps deluxe"
    slaps.save()
    assert "Slaps deluxe" in profile_card(client, ann)
    amateur = league_of(slaps)
    amateur.name = "Slaps beginners"
    amateur.save()
    assert "Slaps beginners" in profile_card(client, ann)
