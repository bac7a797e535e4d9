"""ISF Elo (seed 000): every worked example of the seed is a case here."""

import pytest

from ratings.engines import Change, EngineInputError, PlayerState, get_rating_system
from ratings.engines.base import round_half_away_from_zero
from ratings.engines.elo import EloMatch, EloParameters, elo_update, expected_score, k_factor

# (rating, opponent, score, rated_matches, new rating) — the seed's four scenarios.
SEED_SCENARIOS = [
    pytest.param(1100, 1000, 1, 0, 1112, id="scenario 1: A (1100) beats B, K=32"),
    pytest.param(1000, 1100, 0, 0, 988, id="scenario 1: B (1000) loses"),
    pytest.param(1100, 1000, 0, 0, 1080, id="scenario 2: A loses"),
    pytest.param(1000, 1100, 1, 0, 1020, id="scenario 2: B wins"),
    pytest.param(1100, 1000, 1, 33, 1106, id="scenario 3: A wins, K=16"),
    pytest.param(1000, 1100, 1, 33, 1010, id="scenario 3: B wins, K=16"),
    pytest.param(1400, 1000, 1, 0, 1403, id="scenario 4: 1400 beats 1000"),
    pytest.param(1000, 1400, 1, 0, 1029, id="scenario 4: 1000 beats 1400"),
]


@pytest.mark.parametrize(("rating", "opponent", "score", "rated_matches", "expected_new"), SEED_SCENARIOS)
def test_seed_scenarios(rating, opponent, score, rated_matches, expected_new):
    update = elo_update(rating=rating, opponent_rating=opponent, score=score, rated_matches=rated_matches)
    assert update.rating_after == expected_new


# The seed's table of expected outcomes by rating difference.
@pytest.mark.parametrize(
    ("difference", "probability"),
    [(0, 0.50), (100, 0.64), (200, 0.76), (300, 0.85), (400, 0.91)],
)
def test_expected_score_table(difference, probability):
    assert expected_score(1000 + difference, 1000) == pytest.approx(probability, abs=0.005)
    assert expected_score(1000, 1000 + difference) == pytest.approx(1 - probability, abs=0.005)


def test_expected_scores_of_both_players_add_up_to_one():
    assert expected_score(1234, 987) + expected_score(987, 1234) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("rated_matches", "k"),
    [(0, 32), (31, 32), (32, 16), (33, 16), (500, 16)],
    ids=["new", "31 completed: the 32nd match still has K 32", "32 completed: the 33rd has K 16", "33", "veteran"],
)
def test_k_drops_from_the_33rd_rated_match(rated_matches, k):
    assert k_factor(rated_matches, EloParameters()) == k


def test_maximum_change_is_k():
    # Beating an opponent rated far above you earns at most K.
    assert elo_update(rating=1000, opponent_rating=3000, score=1, rated_matches=0).rating_after == 1032
    assert elo_update(rating=1000, opponent_rating=3000, score=1, rated_matches=40).rating_after == 1016


@pytest.mark.parametrize(
    ("value", "rounded"),
    [(1111.5, 1112), (1111.49, 1111), (-0.5, -1), (0.5, 1), (2.5, 3), (1079.52, 1080), (988.48, 988), (0.0, 0)],
)
def test_rounding_is_half_away_from_zero(value, rounded):
    assert round_half_away_from_zero(value) == rounded


def test_floor_holds_the_rating():
    update = elo_update(rating=1805, opponent_rating=1000, score=0, rated_matches=40, floor=1800)
    assert update.rating_after == 1800
    assert update.floor_applied


def test_rate_match_changes_both_players_with_their_own_k():
    system = get_rating_system("elo")
    states = {"a": PlayerState(rating=1100, rated_matches=40), "b": PlayerState(rating=1000, rated_matches=3)}
    changes = {c.player: c for c in system.rate(EloMatch(players=("a", "b"), winner="a"), states, EloParameters())}
    assert changes["a"].rating_after == 1106  # K 16
    assert changes["b"].rating_after == 988  # K 32
    assert changes["a"].details["k"] == 16
    assert changes["b"].details["expected"] == pytest.approx(0.3599, abs=1e-4)


def test_rate_match_rejects_impossible_input():
    system = get_rating_system("elo")
    states = {"a": PlayerState(rating=1000)}
    with pytest.raises(EngineInputError):
        system.rate(EloMatch(players=("a", "a"), winner="a"), states, EloParameters())
    with pytest.raises(EngineInputError):
        system.rate(EloMatch(players=("a", "b"), winner="c"), states, EloParameters())


def test_unknown_rating_system():
    with pytest.raises(EngineInputError):
        get_rating_system("chess960")


def test_engines_do_not_import_django():
    import ast
    from pathlib import Path

    engines = Path(__file__).resolve().parents[3] / "ratings" / "engines"
    for path in engines.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(name.split(".")[0] == "django" for name in names), f"{path.name} imports Django"


@pytest.mark.parametrize(
    ("rating_a", "rating_b", "played_a", "played_b", "floor_a", "floor_b", "winner"),
    [
        (1100, 1000, 0, 40, None, None, "b"),
        (1400, 1000, 31, 32, None, None, "a"),
        (987, 1234, 5, 100, None, None, "b"),
        (1805, 1000, 40, 3, 1800, None, "b"),  # a's floor holds
        (1000, 1805, 3, 40, None, 1800, "a"),  # b's floor holds
        (1900, 1850, 40, 40, 1800, 1800, "a"),  # floors given, not reached
    ],
)
def test_rate_agrees_with_elo_update(rating_a, rating_b, played_a, played_b, floor_a, floor_b, winner):
    """``rate`` writes ``elo_update`` out for both sides for replay speed; they must never drift apart."""
    states = {"a": PlayerState(rating_a, played_a, floor_a), "b": PlayerState(rating_b, played_b, floor_b)}
    changes = {
        c.player: c for c in get_rating_system("elo").rate(EloMatch(("a", "b"), winner), states, EloParameters())
    }
    for player, opponent in (("a", "b"), ("b", "a")):
        update = elo_update(
            rating=states[player].rating,
            opponent_rating=states[opponent].rating,
            score=1 if player == winner else 0,
            rated_matches=states[player].rated_matches,
            floor=states[player].floor,
        )
        change = changes[player]
        assert type(change) is Change
        assert (change.rating_before, change.rating_after) == (states[player].rating, update.rating_after)
        assert change.details == {
            "opponent_rating": states[opponent].rating,
            "expected": round(update.expected, 4),
            "k": update.k,
            "score": update.score,
            "floor_applied": update.floor_applied,
        }


def test_player_state_after_one_more_match_keeps_its_floor():
    state = PlayerState(1810.0, 7, 1800.0)
    assert state.after(1800.0) == PlayerState(rating=1800.0, rated_matches=8, floor=1800.0)
    assert type(state.after(1800.0)) is PlayerState
