"""Service-level tests that kill the mutants of the rating arithmetic in ``ratings/services.py``.

Issue 11's mutation clause: no surviving mutant on a line of rating arithmetic or rating
state (ratings, floors, promotion, rated-match counts, peaks, period snapshots, partnership
counts, rollback restore). Each test below names the code it holds and the change it
catches. Results go in through ``matches.services`` (``match_submit``, ``match_void``,
``match_correct``) and are rated by ``ratings_process_game`` / ``ratings_process_match``, as
the rating task does.

Expected values are never asked of ``ratings.services`` or the engines: they are the
independent oracle's (``tests/oracle``, through ``assert_ledger_is_the_oracles``, which
compares every ledger row, promotion and player rating), or worked by hand in the test's
docstring. Where a mutant could only show through a rule the history must exercise (a
partnership count that differs between the sides, a result at a period's first instant),
the test also asks the oracle that the history is sensitive to it, so the test cannot
quietly stop testing what it names.

docs/mutation.md lists the survivors these tests leave and why each is equivalent.
"""

import datetime
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from leagues.models import Game, League
from matches.services import match_submit, match_void
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory
from tests.oracle import oracle_replay
from tests.oracle_db import assert_ledger_is_the_oracles, oracle_game_spec, oracle_outcome_from_db, oracle_results

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
T0 = (timezone.now() - timedelta(days=40)).replace(microsecond=0)


def at(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).isoformat()


def d(value) -> Decimal:
    return Decimal(str(value))


def rate(game: Game) -> int:
    return ratings_process_game(game_id=game.pk)


def ratings_after(outcome) -> dict:
    return {key: row.rating_after for key, row in outcome.rows.items()}


def oracle_with(game: Game, change) -> dict:
    """The oracle's ledger (rating after, per row) for the stored results with ``change`` applied to them."""
    results = [change(result) for result in oracle_results(game=game)]
    return ratings_after(oracle_replay(oracle_game_spec(game=game), results, now=timezone.now()))


# --- Bridge: the partnership count carried from one session to the next ---------------------


def imps_session(tables_per_board, hours, *, game="bridge", rated=True) -> dict:
    """A bridge body of single-table boards in IMPs: ``tables_per_board`` is [(ns, ew, imps), ...]."""
    return {
        "game": game,
        "played_at": at(hours),
        "rated": rated,
        "boards": [
            {"number": number, "tables": [{"ns": list(ns), "ew": list(ew), "ns_imps": imps}]}
            for number, (ns, ew, imps) in enumerate(tables_per_board, start=1)
        ],
    }


@pytest.fixture
def bridge(reference_data):
    """Bridge with a short partnership scale: 50 * (1 - e^(-d/2)) for d deals together (0, 19.67,
    31.61, 38.84, 43.23 for d = 0..4), so one deal more or less moves a rating by far more than a cent."""
    game = Game.objects.get(slug="bridge")
    game.parameters = {"bonus_scale": 2}
    game.save()
    return game


def test_partnership_counts_before_a_replay_come_from_the_rated_sessions_of_the_game(bridge, referee, admin_user):
    """``_bridge_pair_history``: the deals each pair played together before the replay's start.

    History (single tables in IMPs; a, b, c, d, e, f, g, h):
        hour 1, rated:     board 1 NS (a, b) v EW (c, d) +2; board 2 NS (d, c) v EW (b, a) -3;
                           board 3 NS (a, b) v EW (e, g) +1; board 4 NS (a, c) v EW (b, d) 0
        hour 2, friendly:  (a, b) v (e, f), and (g, h) v (c, d): friendlies count for nobody
        hour 3, rated, then voided: (e, f) v (a, b): a void counts for nobody
        hour 6, rated:     (a, b) v (c, d) +4; (e, f) v (g, h) -2
    Then a late session at hour 4, (e, f) v (g, h) +3, replays from hour 4, and the replay must
    start every pair from its deals before hour 4 in rated sessions: (a, b) 3 (once as NS (a, b),
    once as EW (b, a), once more as NS (a, b)), (c, d) 2 (EW (c, d), NS (d, c)), (e, f) and (g, h) 0.
    The counts differ between the sides, so a count dropped (0), restarted at 1, summed over only
    one seating or orientation (1 and 1), or taking the friendly or the void (e, f 2; a, b 5),
    each moves a rating: the test checks with the oracle that it does.
    """
    a, b, c, dd, e, f, g, h = (player.pk for player in PlayerFactory.create_batch(8))
    match_submit(
        referee=referee,
        data=imps_session([((a, b), (c, dd), 2), ((dd, c), (b, a), -3), ((a, b), (e, g), 1), ((a, c), (b, dd), 0)], 1),
    )
    rate(bridge)
    friendly = match_submit(
        referee=referee, data=imps_session([((a, b), (e, f), 5), ((g, h), (c, dd), 1)], 2, rated=False)
    )
    voided = match_submit(referee=referee, data=imps_session([((e, f), (a, b), 6)], 3))
    rate(bridge)
    match_void(match_id=voided.pk, by=admin_user)
    rate(bridge)
    last = match_submit(referee=referee, data=imps_session([((a, b), (c, dd), 4), ((e, f), (g, h), -2)], 6))
    rate(bridge)  # in order: the history before hour 6 is read from the ledger's rated sessions
    assert_ledger_is_the_oracles(game=bridge)

    match_submit(referee=referee, data=imps_session([((e, f), (g, h), 3)], 4))
    assert rate(bridge) == 2  # the late session and the one after it
    assert RatingState.objects.get(game=bridge).applied_until_match_id == last.pk
    assert assert_ledger_is_the_oracles(game=bridge) == 16 + 8 + 4

    # The history is sensitive to what the replay must count (the oracle, with the results changed):
    right = ratings_after(oracle_outcome_from_db(game=bridge))
    counted = {friendly.pk: "rated", voided.pk: "rated"}
    assert oracle_with(bridge, lambda r: replace(r, status=counted.get(r.id, r.status))) != right
    spec = oracle_game_spec(game=bridge)
    no_bonus = oracle_replay(
        replace(spec, parameters={"bonus_max": 0}), oracle_results(game=bridge), now=timezone.now()
    )
    assert {k: v for k, v in ratings_after(no_bonus).items() if k[0] == last.pk} != {
        k: v for k, v in right.items() if k[0] == last.pk
    }


def test_a_partnership_in_another_bridge_game_does_not_count(bridge, referee):
    """``_bridge_pair_history`` reads the game being replayed only. A second bridge game (club
    bridge) where (c, d) have played 3 boards together: in the main game (a, b) v (c, d) are
    strangers, both counts 0, the bonus cancels; the session at hour 2 then comes after hour 1's
    session (both pairs at 1 deal). Counting the other game would give (c, d) 3 and 4."""
    club = Game.objects.create(slug="club-bridge", name="Club bridge", rating_system="bridge", parameters={})
    League.objects.create(game=club, slug="club-bridge-amateur", name="Club amateur", tier="amateur")
    League.objects.create(game=club, slug="club-bridge-pro", name="Club pro", tier="pro")
    a, b, c, dd, e, f = (player.pk for player in PlayerFactory.create_batch(6))
    match_submit(
        referee=referee,
        data=imps_session([((c, dd), (e, f), 1), ((dd, c), (e, f), 2), ((c, dd), (e, f), 3)], 0, game="club-bridge"),
    )
    rate(club)
    match_submit(referee=referee, data=imps_session([((a, b), (c, dd), 5)], 1))
    rate(bridge)
    match_submit(referee=referee, data=imps_session([((a, b), (c, dd), -4)], 2))
    rate(bridge)
    assert_ledger_is_the_oracles(game=bridge)
    assert_ledger_is_the_oracles(game=club)
    first = RatingChange.objects.filter(game=bridge, player_id=a).order_by("played_at").first()
    # Hand check of the first session: strangers, +5 IMPs (1.67 goals): K = 1.5 * 24 = 36, S = 1, E = 0.5.
    assert (first.rating_before, first.rating_after) == (d(1000), d(1018))


# --- Replay bookkeeping: the rollback restores each player from their last row before the start ---


def slaps_body(players, winner, hours) -> dict:
    return {"game": "slaps", "played_at": at(hours), "players": [p.pk for p in players], "winner": winner.pk}


def test_a_rollback_restores_each_player_from_their_last_row_before_the_start(slaps, referee):
    """``_ledger_rollback`` and ``_pool_load``: a late result deletes the ledger from its place on and
    every affected player continues from their last row before it: rating, peak, rated matches
    and league, in this game only.

    Slaps, promotion at 1030, pro floor 900. Ann's Slaps history (m4 is stored after m3 but
    played before it, m1 and m2 at the same moment):
        m1 hour 1   Ann beats Bob: 1016
        m2 hour 1   Ann beats Cid: E = 1/(1 + 10^(-16/400)) = 0.523011, 1016 + 32 * 0.476989
                    = 1031.26 -> 1031 >= 1030: promoted, peak 1031
        m3 hour 2   Bob beats Ann (stored before m4)
        m4 hour 1.5 Ann beats Dan (stored after m3, rated late: m3 is replayed after it)
        m5 hour 4   Ann beats Eve
    and a Preferans game of Ann's at hour 3. Late result L1 (hour 1.2, Bob beats Cid) replays
    from hour 1.2: Ann restarts from m2's row (the later of the two hour-1 rows), not m1's. Late
    result L2 (hour 3.5, Bob beats Cid) replays from hour 3.5: Ann restarts from m3's row (played
    last before it, though m4 has the higher id), with 4 rated matches (not the league's id), peak
    1031 and the pro league, and not from her Preferans row at hour 3; her Preferans rating is
    left alone. Every row, promotion and rating is the oracle's, in both games.
    """
    League.objects.filter(slug="slaps-amateur").update(promotion_threshold=Decimal(1030))
    League.objects.filter(slug="slaps-pro").update(rating_floor=Decimal(900))
    preferans = Game.objects.get(slug="preferans")
    ann, bob, cid, dan, eve, fay = PlayerFactory.create_batch(6)
    for players, winner, hours in (((ann, bob), ann, 1), ((ann, cid), ann, 1), ((bob, ann), bob, 2)):
        match_submit(referee=referee, data=slaps_body(players, winner, hours))
    rate(slaps)
    match_submit(referee=referee, data=slaps_body((ann, dan), ann, 1.5))
    assert rate(slaps) == 2  # m4, then m3 again
    match_submit(referee=referee, data=slaps_body((ann, eve), ann, 4))
    rate(slaps)
    match_submit(
        referee=referee,
        data={
            "game": "preferans",
            "played_at": at(3),
            "seats": [{"player": ann.pk}, {"player": fay.pk}],
            "deals": [[7, -7], [-2, 2]],
        },
    )
    rate(preferans)
    assert PlayerRating.objects.get(player=ann, game=slaps).league.slug == "slaps-pro"
    preferans_before = PlayerRating.objects.values_list("rating", "peak_rating", "rated_matches", "league_id").get(
        player=ann, game=preferans
    )

    match_submit(referee=referee, data=slaps_body((bob, cid), bob, 1.2))
    assert rate(slaps) == 4  # L1, m4, m3 and m5: m1 and m2 stay
    assert_ledger_is_the_oracles(game=slaps)
    match_submit(referee=referee, data=slaps_body((bob, cid), bob, 3.5))
    assert rate(slaps) == 2  # L2 and m5
    assert assert_ledger_is_the_oracles(game=slaps) == 2 * 7
    assert Promotion.objects.filter(player=ann).count() == 1
    ann_slaps = PlayerRating.objects.get(player=ann, game=slaps)
    assert (ann_slaps.rated_matches, ann_slaps.league.slug) == (5, "slaps-pro")
    assert (
        PlayerRating.objects.values_list("rating", "peak_rating", "rated_matches", "league_id").get(
            player=ann, game=preferans
        )
        == preferans_before
    )
    assert_ledger_is_the_oracles(game=preferans)
