"""The adapter and the comparer can fail: a stored ledger that is wrong is reported row by row."""

import datetime as dt
from decimal import Decimal

import pytest
from django.test import TestCase

from leagues.models import Game
from matches.services import match_submit
from ratings.models import PlayerRating, RatingChange
from tests.factories import PlayerFactory
from tests.oracle_db import ledger_diff, oracle_outcome_from_db, oracle_result_from_body, oracle_results

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 6, 1, 18, tzinfo=dt.UTC)


@pytest.fixture
def rated_slaps(referee):
    """Two rated matches and a friendly between three players (rated as they arrive)."""
    a, b, c = PlayerFactory.create_batch(3)
    bodies = [
        {"game": "slaps", "played_at": T0.isoformat(), "players": [a.pk, b.pk], "winner": a.pk},
        {
            "game": "slaps",
            "played_at": (T0 + dt.timedelta(hours=1)).isoformat(),
            "players": [b.pk, c.pk],
            "winner": c.pk,
        },
        {"game": "slaps", "played_at": T0.isoformat(), "players": [a.pk, c.pk], "winner": c.pk, "rated": False},
    ]
    with TestCase.captureOnCommitCallbacks(execute=True):
        for body in bodies:
            match_submit(referee=referee, data=body)
    return Game.objects.get(slug="slaps"), (a, b, c)


def test_stored_results_read_back_as_plain_bodies(rated_slaps):
    game, (a, b, c) = rated_slaps
    results = sorted(oracle_results(game=game), key=lambda r: r.id)
    assert [(r.body["players"], r.body["winner"], r.status, r.league) for r in results] == [
        ([a.pk, b.pk], a.pk, "rated", "slaps-amateur"),
        ([b.pk, c.pk], c.pk, "rated", "slaps-amateur"),
        ([a.pk, c.pk], c.pk, "friendly", "slaps-amateur"),
    ]


def test_an_untouched_ledger_has_no_difference(rated_slaps):
    """By hand: match 1, A beats B at 1000 each: 1016 / 984. Match 2, C (1000) beats B (984):
    E_C = 1/(1 + 10^(-16/400)) = 0.52301, C = 1000 + 32(0.47699) = 1015.26 -> 1015; E_B = 0.47699,
    B = 984 - 32 * 0.47699 = 968.74 -> 969."""
    game, (_a, b, c) = rated_slaps
    outcome = oracle_outcome_from_db(game=game)
    assert {
        key[2]: row.rating_after for key, row in outcome.rows.items() if key[0] == max(k[0] for k in outcome.rows)
    } == {
        b.pk: 969,
        c.pk: 1015,
    }
    assert ledger_diff(game=game, outcome=outcome) == []


def test_a_tampered_ledger_is_reported_row_by_row(rated_slaps):
    game, (a, b, c) = rated_slaps
    outcome = oracle_outcome_from_db(game=game)
    # .update() skips the model's immutability guard: this is the kind of damage the comparer must see.
    RatingChange.objects.filter(game=game, player=a).update(rating_after=Decimal("1017"), delta=Decimal("17"))
    RatingChange.objects.filter(game=game, player=c).order_by("pk").first().delete()
    PlayerRating.objects.filter(game=game, player=b).update(rated_matches=7)
    differences = ledger_diff(game=game, outcome=outcome)
    print(f"{len(differences)} differences")
    assert len(differences) == 4, differences
    assert any("rating_after: stored 1017.00, rules 1016.00" in line for line in differences)
    assert any("delta: stored 17.00, rules 16.00" in line for line in differences)
    assert any(f", {c.pk}): missing" in line for line in differences)
    assert any(line.startswith(f"player rating {b.pk}: stored") for line in differences)


def test_a_submitted_body_reads_like_the_stored_result(referee):
    """What a load test keeps (the body it sent, the bots as they were) gives the oracle the same input
    as the stored result read back."""
    players = PlayerFactory.create_batch(2)
    body = {
        "game": "preferans",
        "played_at": T0.isoformat(),
        "seats": [{"player": players[0].pk}, {"bot": "normal"}, {"player": players[1].pk}],
        "deals": [[4, "-2.5", "-1.5"], [-6, 3, 3]],
    }
    with TestCase.captureOnCommitCallbacks(execute=True):
        match = match_submit(referee=referee, data=body)
    game = Game.objects.get(slug="preferans")
    (stored,) = oracle_results(game=game)
    kept = oracle_result_from_body(
        match_id=match.pk, body=body, bots={"normal": (1800, 2400)}, default_league="preferans-amateur"
    )
    assert (kept.id, kept.played_at, kept.league, kept.status) == (stored.id, stored.played_at, stored.league, "rated")
    assert [seat.get("player") for seat in kept.body["seats"]] == [seat.get("player") for seat in stored.body["seats"]]
    assert [Decimal(seat["rating"]) for seat in kept.body["seats"] if "bot" in seat] == [Decimal(1800)]
    assert [[Decimal(w) for w in deal] for deal in kept.body["deals"]] == [
        [Decimal(w) for w in deal] for deal in stored.body["deals"]
    ]
    assert ledger_diff(game=game, outcome=oracle_outcome_from_db(game=game)) == []
