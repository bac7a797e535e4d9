"""Read endpoints of API.md: games, leagues, leaderboards, players, history, calculator."""

import itertools
from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone

from leagues.models import Game
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, slaps_match
from tests.oracle import rules
from tests.oracle_db import assert_ledger_is_the_oracles, oracle_outcome_from_db

pytestmark = pytest.mark.django_db
T0 = timezone.now() - timedelta(days=3)


@pytest.fixture
def club(slaps):
    """Ann beats Bob twice, Bob beats Cid, Cid beats Ann: a small rated history."""
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    slaps_match(winner=ann, loser=bob, played_at=T0)
    slaps_match(winner=ann, loser=bob, played_at=T0 + timedelta(hours=1))
    slaps_match(winner=bob, loser=cid, played_at=T0 + timedelta(hours=2))
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=3))
    ratings_process_game(game_id=slaps.pk)
    return ann, bob, cid


def test_games_always_include_the_three(anon_client, reference_data):
    games = anon_client.get("/api/games/").json()
    assert {g["slug"]: g["rating_system"] for g in games} == {
        "slaps": "elo",
        "preferans": "preferans",
        "bridge": "bridge",
    }


def test_leagues_by_game(anon_client, reference_data):
    leagues = anon_client.get("/api/leagues/?game=slaps").json()
    assert {(lg["slug"], lg["game"], lg["tier"], lg["promotion_threshold"]) for lg in leagues} == {
        ("slaps-amateur", "slaps", "amateur", 1800.0),
        ("slaps-pro", "slaps", "pro", None),
    }
    assert anon_client.get("/api/leagues/?game=nope").status_code == 400


def test_leaderboard_current_and_peak(anon_client, club):
    _ann, _bob, _cid = club
    current = anon_client.get("/api/leagues/slaps-amateur/leaderboard/?sort=current").json()
    assert current["count"] == 3
    rows = current["results"]
    assert [row["rank"] for row in rows] == [1, 2, 3]
    ratings = [row["rating"] for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert set(rows[0]) >= {"rank", "player", "rating", "peak_rating", "rated_matches"}
    assert rows[0]["player"]["name"] == "Ann"
    peak = anon_client.get("/api/leagues/slaps-amateur/leaderboard/?sort=peak").json()["results"]
    peaks = [row["peak_rating"] for row in peak]
    assert peaks == sorted(peaks, reverse=True)
    assert anon_client.get("/api/leagues/slaps-amateur/leaderboard/?sort=best").status_code == 400
    assert anon_client.get("/api/leagues/nope/leaderboard/").status_code == 404


def test_leaderboard_ties_are_broken_by_name_and_pages(anon_client, slaps):
    # Six winners at 1016 and six losers at 984: ties everywhere.
    for index in range(6):
        slaps_match(
            winner=PlayerFactory(name=f"W{5 - index}"),
            loser=PlayerFactory(name=f"L{index}"),
            played_at=T0 + timedelta(minutes=index),
        )
    ratings_process_game(game_id=slaps.pk)
    first = anon_client.get("/api/leagues/slaps-amateur/leaderboard/?page_size=5").json()
    assert [row["player"]["name"] for row in first["results"]] == ["W0", "W1", "W2", "W3", "W4"]
    second = anon_client.get(first["next"]).json()
    assert [row["rank"] for row in second["results"]] == [6, 7, 8, 9, 10]
    assert [row["player"]["name"] for row in second["results"]] == ["W5", "L0", "L1", "L2", "L3"]
    assert anon_client.get("/api/leagues/slaps-amateur/leaderboard/?page=99").status_code == 404


def test_player_detail_and_history(anon_client, club):
    """Ann's history as the API shows it is the oracle's ledger for her, row by row (tests/oracle), not
    merely consistent with the rating the same API shows."""
    ann, _, _ = club
    detail = anon_client.get(f"/api/players/{ann.pk}/").json()
    assert detail["id"] == ann.pk
    assert detail["name"] == "Ann"
    [slaps_rating] = detail["ratings"]
    assert slaps_rating["game"] == "slaps"
    assert slaps_rating["league"] == "slaps-amateur"
    assert slaps_rating["rated_matches"] == 3
    history = anon_client.get(f"/api/players/{ann.pk}/history/?game=slaps").json()["results"]
    assert len(history) == 3
    assert [row["played_at"] for row in history] == sorted(row["played_at"] for row in history)
    assert history[0]["rating_before"] == 1000
    assert history[-1]["rating_after"] == slaps_rating["rating"]
    assert {"expected", "k"} <= set(history[0]["details"])
    for before, after in itertools.pairwise(history):
        assert after["rating_before"] == before["rating_after"]
    slaps = Game.objects.get(slug="slaps")
    assert assert_ledger_is_the_oracles(game=slaps) == 8
    rows = oracle_outcome_from_db(game=slaps).rows
    oracle_history = sorted((row for row in rows.values() if row.player == ann.pk), key=lambda row: row.match)
    assert [(row["match"], row["rating_before"], row["rating_after"]) for row in history] == [
        (row.match, row.rating_before, row.rating_after) for row in oracle_history
    ]
    assert anon_client.get(f"/api/players/{ann.pk}/history/?game=nope").status_code == 400
    assert anon_client.get("/api/players/999999/").status_code == 404


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("rating=1100&opponent=1000&score=1", {"expected": 0.6401, "k": 32.0, "delta": 12, "new_rating": 1112}),
        (
            "rating=1000&opponent=1100&score=1&rated_matches=40",
            {"expected": 0.3599, "k": 16.0, "delta": 10, "new_rating": 1010},
        ),
        ("rating=1400&opponent=1000&score=1", {"expected": 0.9091, "k": 32.0, "delta": 3, "new_rating": 1403}),
        ("rating=1000&opponent=1400&score=1", {"expected": 0.0909, "k": 32.0, "delta": 29, "new_rating": 1029}),
    ],
)
def test_elo_calculator_reproduces_the_seed(anon_client, reference_data, query, expected):
    """Seed 000's four scenarios (1100 v 1000 -> 1112; 1000 v 1100 established -> 1010; 1400 v 1000 -> 1403;
    1000 v 1400 -> 1029). The figures are checked against the oracle's rules (tests/oracle) first."""
    values = {name: int(value) for name, value in (part.split("=") for part in query.split("&"))}
    p = rules.parameters_with_defaults("elo", {})
    rating, opponent, played = Fraction(values["rating"]), Fraction(values["opponent"]), values.get("rated_matches", 0)
    new_rating = rules.slaps_new_rating(
        rating=rating, opponent=opponent, won=values["score"] == 1, completed_rated_matches=played, parameters=p
    )
    oracle = {
        "expected": round(float(rules.slaps_expected(rating, opponent)), 4),
        "k": float(rules.slaps_k(played, p)),
        "delta": new_rating - rating,
        "new_rating": new_rating,
    }
    assert oracle == expected
    answer = anon_client.get(f"/api/calculator/elo/?{query}").json()
    assert {key: answer[key] for key in expected} == expected  # beside them: the game's parameters, in words


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("opponent=1000", "rating"),
        ("rating=abc&opponent=1", "rating"),
        ("rating=1&opponent=nan", "opponent"),
        ("rating=1&opponent=1&score=2", "score"),
        ("rating=1&opponent=1&rated_matches=-1", "rated_matches"),
        ("rating=1e308&opponent=1", "rating"),
    ],
)
def test_elo_calculator_rejects_bad_numbers(anon_client, reference_data, query, field):
    response = anon_client.get(f"/api/calculator/elo/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_openapi_schema_is_served(anon_client, reference_data):
    response = anon_client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/matches/",
        "/api/leagues/{slug}/leaderboard/",
        "/api/players/{id}/history/",
        "/api/calculator/elo/",
    ]:
        assert path in paths


@pytest.mark.parametrize(
    ("query", "blank"),
    [
        ("rating=1100&opponent=1000&rated_matches=", "rated_matches"),
        ("rating=&opponent=1000", "rating"),
        ("rating=1100&opponent=1000&score=", "score"),
    ],
)
def test_a_calculator_parameter_given_without_a_value_is_refused(anon_client, reference_data, query, blank):
    """The schema gives each parameter a type: ``rated_matches=`` is no integer, so the API says which one
    (schemathesis found the API taking it as "not given"). The calculator page, whose form sends every field,
    still reads a blank field as not given."""
    response = anon_client.get(f"/api/calculator/elo/?{query}")
    assert response.status_code == 400
    assert response.json() == {blank: ["Give a value, or leave the parameter out."]}
    assert anon_client.get(f"/calculator/elo/?{query}").status_code == 200
