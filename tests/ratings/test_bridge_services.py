"""Bridge through the pipeline: sessions, partnerships across sessions, rating periods.

Expected ledgers come from the independent oracle (tests/oracle, via tests/oracle_db), never from the
bridge engine or ``ratings_replay_all``."""

from dataclasses import replace
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match
from matches.services import match_submit
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_close_periods, ratings_process_game, ratings_replay_all
from tests.factories import PlayerFactory, bridge_session_body
from tests.oracle import oracle_replay
from tests.oracle_db import assert_ledger_is_the_oracles, oracle_game_spec, oracle_outcome_from_db, oracle_results

pytestmark = pytest.mark.django_db


@pytest.fixture
def bridge(reference_data):
    return Game.objects.get(slug="bridge")


@pytest.fixture
def eight():
    return PlayerFactory.create_batch(8)


def session(players, played_at, scores, league=None):
    return bridge_session_body([player.pk for player in players], played_at, scores, league)


def ratings(game):
    return {r.player_id: r.rating for r in PlayerRating.objects.filter(game=game)}


def test_sessions_equal_the_oracle_and_partnerships_carry_over(bridge, eight, referee):
    """Three sessions, every ledger row compared with the oracle (tests/oracle), before and after a full replay.

    First a single table, six boards in IMPs: A-B against a new pair each board
    (C-E, D-F, C-G, E-H, F-G, D-H); then two two-table sessions by the pairs A-B,
    C-D, E-F, G-H. A pair's bonus is 50 * (1 - e^(-d/100)) for d deals together,
    counted board by board, within a session too: in the first session A-B's bonus
    grows (0, 0.50, 1.00, ... 2.44) against strangers, and in the later ones only A-B
    has a history (6 deals: 2.91), so the sides are unequal. Had every pair the same
    count, the bonuses would cancel and a partnership bug could hide; the test checks
    with the oracle itself that without the bonus it gives other ratings. A full replay
    (the invariant: ratings are a pure function of the rated results) must give the
    same rows, and so must equal the oracle too.
    """
    a, b, c, d, e, f, g, h = (player.pk for player in eight)
    t0 = timezone.now() - timedelta(days=2)
    single = {
        "game": "bridge",
        "played_at": (t0 - timedelta(hours=3)).isoformat(),
        "boards": [
            {"number": number, "tables": [{"ns": [a, b], "ew": opponents, "ns_imps": imps}]}
            for number, (opponents, imps) in enumerate(
                [([c, e], 3), ([d, f], -5), ([c, g], 0), ([e, h], 7), ([f, g], -2), ([d, h], 4)], start=1
            )
        ],
    }
    match_submit(referee=referee, data=single)
    match_submit(referee=referee, data=session(eight, t0, [(420, -50), (-100, -100)]))
    match_submit(referee=referee, data=session(eight, t0 + timedelta(hours=3), [(110, 140), (-620, 100)]))
    ratings_process_game(game_id=bridge.pk)
    assert Match.objects.filter(status="rated").count() == 3
    assert assert_ledger_is_the_oracles(game=bridge) == 6 * 4 + 2 * 2 * 8

    spec = oracle_game_spec(game=bridge)
    without_bonus = oracle_replay(
        replace(spec, parameters={**spec.parameters, "bonus_max": 0}), oracle_results(game=bridge), now=timezone.now()
    )
    with_bonus = oracle_outcome_from_db(game=bridge)
    assert {key: row.rating_after for key, row in without_bonus.rows.items()} != {
        key: row.rating_after for key, row in with_bonus.rows.items()
    }, "the partnership bonus must change some rating here, or this test cannot see it"

    snapshot = ratings(bridge)
    ratings_replay_all(game_id=bridge.pk)
    assert ratings(bridge) == snapshot
    assert_ledger_is_the_oracles(game=bridge)


def test_a_rating_period_applies_nothing_until_it_closes(bridge, eight, referee):
    league = League.objects.get(slug="bridge-amateur")
    now = timezone.now()
    league.rating_period_days = 3
    league.rating_period_anchor = (now - timedelta(days=4)).date()
    league.save()
    start, end = league.period_bounds(now)
    first_time = max(start, now - timedelta(hours=5))
    first = match_submit(referee=referee, data=session(eight, first_time, [(420, -50), (-100, 140)]))
    second = match_submit(referee=referee, data=session(eight, first_time + timedelta(hours=1), [(-600, 100)]))
    assert first.due_at == end
    assert ratings_process_game(game_id=bridge.pk) == 0
    assert ratings_close_periods() == 0
    first.refresh_from_db()
    assert first.status == Match.Status.SUBMITTED
    assert not RatingChange.objects.exists()

    # The period closes: both sessions are rated at once, each from the ratings at the period's start.
    Match.objects.filter(pk__in=[first.pk, second.pk]).update(due_at=now - timedelta(seconds=1))
    assert ratings_close_periods() == 2
    changes = list(RatingChange.objects.order_by("played_at", "unit", "player_id"))
    assert {change.details["period_rating"] for change in changes} == {1000.0}
    # Deltas add up: the second session's rows start where the first left each player.
    a = eight[0].pk
    rows = [change for change in changes if change.player_id == a]
    assert rows[1].rating_before == rows[0].rating_after
    # Every row is the oracle's, which computes each board of a closed period from the ratings at the
    # period's start and adds its change to the current rating (as of the period's end: the oracle holds
    # results back until then, by their played_at, whatever due_at says).
    assert assert_ledger_is_the_oracles(game=bridge, now=end) == 3 * 8
    snapshot = ratings(bridge)
    ratings_replay_all(game_id=bridge.pk)
    assert ratings(bridge) == snapshot
    assert_ledger_is_the_oracles(game=bridge, now=end)


def test_a_closed_period_waiting_for_confirmation_is_not_due_so_its_game_is_left_alone(
    bridge, eight, referee, django_assert_num_queries
):
    """The beat task that closes periods reads the one due rule (``due_condition``): a session whose period
    has closed but which waits for a second referee is not due, so the task finds no game to process (one
    query, the games') and rates nothing."""
    league = League.objects.get(slug="bridge-amateur")
    now = timezone.now()
    league.rating_period_days = 3
    league.rating_period_anchor = (now - timedelta(days=4)).date()
    league.requires_confirmation = True
    league.save()
    start, _ = league.period_bounds(now)
    waiting = match_submit(referee=referee, data=session(eight, max(start, now - timedelta(hours=5)), [(420, -50)]))
    assert waiting.awaiting_confirmation
    Match.objects.filter(pk=waiting.pk).update(due_at=now - timedelta(seconds=1))
    with django_assert_num_queries(1):
        assert ratings_close_periods() == 0
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.SUBMITTED


def test_bad_sessions_store_nothing(bridge, eight, referee):
    ids = [p.pk for p in eight]
    bad = [
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[0]], "ew": [ids[2], ids[3]], "ns_imps": 1}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]], "ns_score": 420},
                                             {"ns": [ids[0], ids[5]], "ew": [ids[6], ids[7]], "ns_score": 10}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ns_imps": 3}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]]}]}]},
        {"boards": [{"number": 1, "tables": []}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]], "ns_score": 425},
                                             {"ns": [ids[4], ids[5]], "ew": [ids[6], ids[7]], "ns_score": 10}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]], "ns_imps": 30}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], 999999], "ns_imps": 3}]}]},
        {"boards": [{"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]], "ns_imps": 3}]},
                    {"number": 1, "tables": [{"ns": [ids[0], ids[1]], "ew": [ids[2], ids[3]], "ns_imps": 3}]}]},
        {"boards": []},
    ]  # fmt: skip
    for body in bad:
        with pytest.raises(ValidationError) as error:
            match_submit(referee=referee, data={"game": "bridge", "played_at": timezone.now().isoformat(), **body})
        assert "boards" in error.value.message_dict, body
    with pytest.raises(ValidationError) as error:
        match_submit(
            referee=referee,
            data={**session(eight, timezone.now(), [(10, 20)]), "league": "slaps-pro"},
        )
    assert "league" in error.value.message_dict
    assert not Match.objects.exists()
