"""Bridge through the pipeline: sessions, partnerships across sessions, rating periods."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match
from matches.services import match_submit
from ratings.engines import PlayerState, get_rating_system
from ratings.engines.bridge import BridgeBoard, BridgeParameters, BridgeSession, BridgeTable
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_close_periods, ratings_process_game, ratings_replay_all
from tests.factories import PlayerFactory, bridge_session_body

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


def test_sessions_equal_the_engine_and_partnerships_carry_over(bridge, eight, referee):
    t0 = timezone.now() - timedelta(days=2)
    match_submit(referee=referee, data=session(eight, t0, [(420, -50), (-100, -100)]))
    match_submit(referee=referee, data=session(eight, t0 + timedelta(hours=3), [(110, 140), (-620, 100)]))
    ratings_process_game(game_id=bridge.pk)
    assert Match.objects.filter(status="rated").count() == 2

    engine = get_rating_system("bridge")
    ids = [player.pk for player in eight]
    a, b, c, d, e, f, g, h = ids
    states = {pid: PlayerState(1000) for pid in ids}
    together: dict = {}
    for scores in ([(420, -50), (-100, -100)], [(110, 140), (-620, 100)]):
        boards = tuple(
            BridgeBoard((BridgeTable(ns=(a, b), ew=(c, d), ns_score=x), BridgeTable(ns=(e, f), ew=(g, h), ns_score=y)))
            for x, y in scores
        )
        changes = engine.rate(BridgeSession(boards, dict(together)), states, BridgeParameters())
        for change in changes:
            states[change.player] = PlayerState(change.rating_after)
        for pair in ((a, b), (c, d), (e, f), (g, h)):
            together[frozenset(pair)] = together.get(frozenset(pair), 0) + len(scores)
    assert {pid: float(r) for pid, r in ratings(bridge).items()} == {pid: s.rating for pid, s in states.items()}
    # The second session knew each pair had two deals together.
    second = RatingChange.objects.filter(match__played_at__gt=t0 + timedelta(hours=1)).first()
    assert second is not None
    snapshot = ratings(bridge)
    ratings_replay_all(game_id=bridge.pk)
    assert ratings(bridge) == snapshot


def test_a_rating_period_applies_nothing_until_it_closes(bridge, eight, referee):
    league = League.objects.get(slug="bridge-amateur")
    now = timezone.now()
    league.rating_period_days = 3
    league.rating_period_anchor = (now - timedelta(days=4)).date()
    league.save()
    start, end = league.period_bounds(now)
    first_time = max(start, now - timedelta(hours=5))
    first = match_submit(referee=referee, data=session(eight, first_time, [(420, -50)]))
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
    frozen_second = 1000 + (rows[1].rating_after - rows[1].rating_before)
    immediate = get_rating_system("bridge").rate(
        BridgeSession(
            (
                BridgeBoard(
                    (
                        BridgeTable(ns=(eight[0].pk, eight[1].pk), ew=(eight[2].pk, eight[3].pk), ns_score=-600),
                        BridgeTable(ns=(eight[4].pk, eight[5].pk), ew=(eight[6].pk, eight[7].pk), ns_score=100),
                    )
                ),
            ),
            {frozenset((p.pk, q.pk)): 1 for p, q in zip(eight[::2], eight[1::2], strict=True)},
        ),
        {p.pk: PlayerState(1000) for p in eight},
        BridgeParameters(),
    )
    assert float(frozen_second) == pytest.approx(next(c for c in immediate if c.player == a).rating_after)
    snapshot = ratings(bridge)
    ratings_replay_all(game_id=bridge.pk)
    assert ratings(bridge) == snapshot


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
