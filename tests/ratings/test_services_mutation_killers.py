"""Service-level tests that kill the mutants of the rating arithmetic in the rating services
(``ratings/services.py``, ``replay.py``, ``ledger.py``, ``periods.py``, ``loaders.py``).

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
from django.core.exceptions import ValidationError
from django.utils import timezone

from leagues.models import Bot, Game, League
from matches.models import Match
from matches.services import match_due_at, match_submit, match_void
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from ratings.services import ratings_process_game, ratings_process_match
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


def filed_under(match: Match, league_slug: str) -> Match:
    """The stored match moved to ``league_slug`` (with that league's due date), as releases before issue 12
    filed results under a league their players were not in (amateurs under the pro league): the write
    path now refuses that, and the replay must still rate such stored results by their league's rules."""
    league = League.objects.get(slug=league_slug)
    due_at = match_due_at(game=match.game, league=league, played_at=match.played_at)
    Match.objects.filter(pk=match.pk).update(league=league, due_at=due_at)
    return Match.objects.get(pk=match.pk)


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
    """``ledger_rollback`` and ``pool_load``: a late result deletes the ledger from its place on and
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


# --- Preferans through the services -----------------------------------------------------------


def preferans_body(seats, deals, hours) -> dict:
    return {"game": "preferans", "played_at": at(hours), "seats": seats, "deals": deals}


@pytest.fixture
def preferans(reference_data):
    """Preferans, promotion at 1005 and pro floor 1004 (the pro league also names a threshold, 1006:
    only an amateur league promotes, so it must be ignored); two bots of its own."""
    League.objects.filter(slug="preferans-amateur").update(promotion_threshold=Decimal(1005))
    League.objects.filter(slug="preferans-pro").update(rating_floor=Decimal(1004), promotion_threshold=Decimal(1006))
    game = Game.objects.get(slug="preferans")
    Bot.objects.create(game=game, slug="low", name="Low bot", rating=900, max_rating=1004)
    Bot.objects.create(game=game, slug="mid", name="Mid bot", rating=1000, max_rating=1010)
    return game


def test_preferans_games_rated_together_and_replayed_equal_the_oracle(preferans, referee, admin_user):
    """``_preferans_inputs`` and the engine's promotion and floor, through the services.

    Four games stored before one rating run (they are read and rated in one chunk), in an order
    that is not the order played, with bots seated before, between and after the players,
    decimal whists and games of one to three deals; then a late game and a void replay them.

    The first game is hand-worked in tests/test_settled_rules_ratings.py (``preferans_expected``):
    Ann and Bob at 1000, deals [+16, -16], [-100, +100], [-1, +1]. Ann reaches 1008.00 at deal 1
    (promoted: 1008 >= 1005); at deal 2 she would fall to 989.19 but is pro from deal 2 on, so the
    pro floor stops her at 1004.00; deal 3 leaves her there. Bob falls to 992.00, then rises to
    1010.81 at deal 2 (promoted) and 1012.64 at deal 3 (the pro league's own threshold, 1006,
    promotes nobody). Those rows are checked against the hand numbers; every other row against
    the oracle.
    """
    ann, bob, cid, dan = PlayerFactory.create_batch(4)
    first = match_submit(
        referee=referee,
        data=preferans_body([{"player": ann.pk}, {"player": bob.pk}], [[16, -16], [-100, 100], [-1, 1]], 1),
    )
    match_submit(
        referee=referee,
        data=preferans_body(
            [{"bot": "low"}, {"player": cid.pk}, {"bot": "mid"}, {"player": dan.pk}],
            [["-2.5", "6.25", "-1.75", "-2"], [3, -1, -1, -1]],
            3,
        ),
    )
    match_submit(
        referee=referee,
        data=preferans_body([{"player": dan.pk}, {"bot": "mid"}, {"player": ann.pk}], [[1, "2.5", "-3.5"]], 2),
    )
    match_submit(
        referee=referee,
        data=preferans_body(
            [{"player": bob.pk}, {"player": cid.pk}, {"bot": "low"}], [["0.5", "-0.25", "-0.25"], [-4, 8, -4]], 4
        ),
    )
    assert rate(preferans) == 4
    expected_first = [
        (0, ann.pk, d(1000), d(1008), "preferans-pro"),
        (0, bob.pk, d(1000), d(992), "preferans-amateur"),
        (1, ann.pk, d(1008), d(1004), "preferans-pro"),
        (1, bob.pk, d(992), d("1010.81"), "preferans-pro"),
        (2, ann.pk, d(1004), d(1004), "preferans-pro"),
        (2, bob.pk, d("1010.81"), d("1012.64"), "preferans-pro"),
    ]
    rows = RatingChange.objects.filter(match=first).select_related("league_after").order_by("unit", "player_id")
    assert [(r.unit, r.player_id, r.rating_before, r.rating_after, r.league_after.slug) for r in rows] == expected_first
    assert sorted(Promotion.objects.values_list("player_id", "match_id", "rating", "to_league__slug")) == sorted(
        [(ann.pk, first.pk, d(1008), "preferans-pro"), (bob.pk, first.pk, d("1010.81"), "preferans-pro")]
    )
    assert assert_ledger_is_the_oracles(game=preferans) == 6 + 4 + 2 + 4

    late = match_submit(
        referee=referee, data=preferans_body([{"player": cid.pk}, {"bot": "low"}, {"player": bob.pk}], [[2, 2, -4]], 0)
    )
    assert rate(preferans) == 5
    assert_ledger_is_the_oracles(game=preferans)
    match_void(match_id=late.pk, by=admin_user)
    assert rate(preferans) == 4
    assert assert_ledger_is_the_oracles(game=preferans) == 16
    rows = RatingChange.objects.filter(match=first).select_related("league_after").order_by("unit", "player_id")
    assert [(r.unit, r.player_id, r.rating_before, r.rating_after, r.league_after.slug) for r in rows] == expected_first


# --- ratings_process_match: the rating task's body ---------------------------------------------


def test_the_rating_task_rates_a_new_result_and_skips_one_already_rated(slaps, referee, admin_user):
    """``ratings_process_match``. Ann and Bob at 1000; Ann wins: 1016 and 984 (K 32, E 0.5).
    A second run for the same, now rated, result does nothing (0). After a void of another
    result it runs the replay the void asked for (the other result's 2 rows go; the one left is
    applied again: 1 match). An unknown match id does nothing."""
    ann, bob, cid = PlayerFactory.create_batch(3)
    first = match_submit(referee=referee, data=slaps_body((ann, bob), ann, 1))
    assert ratings_process_match(match_id=first.pk) == 1
    assert PlayerRating.objects.get(player=ann).rating == 1016
    assert PlayerRating.objects.get(player=bob).rating == 984
    assert ratings_process_match(match_id=first.pk) == 0
    second = match_submit(referee=referee, data=slaps_body((bob, cid), cid, 0))
    assert ratings_process_match(match_id=second.pk) == 2  # the late one, then the first again
    assert_ledger_is_the_oracles(game=slaps)
    match_void(match_id=second.pk, by=admin_user)  # its replay is queued on commit, which never comes here
    assert RatingState.objects.get(game=slaps).replay_from_match_id == second.pk
    assert ratings_process_match(match_id=first.pk) == 1  # rated, but a replay is asked for its game
    assert RatingState.objects.get(game=slaps).replay_from_match_id is None
    assert PlayerRating.objects.get(player=bob).rating == 984
    assert not PlayerRating.objects.filter(player=cid).exists()
    assert_ledger_is_the_oracles(game=slaps)
    assert ratings_process_match(match_id=first.pk) == 0
    assert ratings_process_match(match_id=second.pk + 1000) == 0


def test_the_rating_task_for_a_rated_result_leaves_other_games_replays_alone(slaps, preferans, referee, admin_user):
    """A replay asked for in Preferans is not the Slaps result's business: the Slaps task returns 0
    and the Preferans replay stays asked for."""
    ann, bob = PlayerFactory.create_batch(2)
    slaps_result = match_submit(referee=referee, data=slaps_body((ann, bob), ann, 1))
    ratings_process_match(match_id=slaps_result.pk)
    game = match_submit(referee=referee, data=preferans_body([{"player": ann.pk}, {"bot": "low"}], [[1, -1]], 1))
    ratings_process_match(match_id=game.pk)
    match_void(match_id=game.pk, by=admin_user)
    assert ratings_process_match(match_id=slaps_result.pk) == 0
    assert RatingState.objects.get(game=preferans).replay_from_match_id == game.pk
    assert ratings_process_match(match_id=game.pk) == 0  # a void: the replay runs and applies nothing
    assert not PlayerRating.objects.filter(game=preferans).exists()


# --- Rating periods: snapshots at the period's start, the floor and promotion in a period -----


@pytest.mark.parametrize("days", [1, 7])
def test_a_period_is_rated_from_its_start_with_the_floor_and_promotion_applied_by_the_service(
    bridge, referee, admin_user, days
):
    """``PeriodSnapshots``, the window filter of ``ledger_apply``, ``period_aligned`` and the
    period branch of ``MatchApplier``. Bridge (partnership scale 2), amateur league with rating
    periods of ``days`` days, promotion at 1012; the pro league has no period and a floor of 1005.
    Period W starts at s. One table in IMPs, everyone at 1000, strangers unless said.

        P  at s exactly, filed under the pro league (rated at once, no period): NS (e, f) +2 IMPs
           v (g, h): K = 24, E = 0.5, S = 1: e, f 1012.00 (promoted: 1012 >= 1012, and pro from
           then on), g, h 988.00.
        A  at s + 1 h, amateur (period W): NS (a, b) +2 v (c, d): from W's start, 1000 v 1000:
           a, b 1012.00, exactly the threshold: promoted by the service (the period branch),
           c, d 988.00.
        B  at s + 2 h, amateur (period W): NS (e, f) -2 v (a, b): every rating from W's start,
           1000 for all four, not e, f's 1012 after P (played at s, inside W: the snapshot must
           hold the rating before a change at W's first instant). Both pairs have 1 deal
           together, the bonus cancels: E = 0.5, S = 0, K = 24: e, f -12 on their current 1012
           -> 1000 < 1005: pro, so the floor stops them at 1005.00; a, b +12 on 1012 -> 1024.00.
    Then a late session at s + 30 min, (i, j) v (k, l), replays from W's start (a replay from
    s + 30 min would take e, f's W rating after P, 1012). The rows are checked by hand and against
    the oracle.
    """
    League.objects.filter(slug="bridge-amateur").update(
        promotion_threshold=Decimal(1012),
        rating_period_days=days,
        rating_period_anchor=(T0 - timedelta(days=10)).date(),
    )
    League.objects.filter(slug="bridge-pro").update(rating_floor=Decimal(1005))
    start, end = League.objects.get(slug="bridge-amateur").period_bounds(T0)
    a, b, c, dd, e, f, g, h, i, j, k, m = (player.pk for player in PlayerFactory.create_batch(12))

    def session(ns, ew, imps, moment, league="bridge-amateur"):
        body = imps_session([(ns, ew, imps)], 0)
        body["played_at"] = moment.isoformat()
        return filed_under(match_submit(referee=referee, data=body), league)

    p = session((e, f), (g, h), 2, start, league="bridge-pro")
    first = session((a, b), (c, dd), 2, start + timedelta(hours=1))
    second = session((e, f), (a, b), -2, start + timedelta(hours=2))
    assert first.due_at == end
    assert rate(bridge) == 3

    def rows():
        return {
            (r.match_id, r.player_id): (r.rating_before, r.rating_after, r.league_after.slug)
            for r in RatingChange.objects.filter(game=bridge).select_related("league_after")
        }

    amateur, pro = "bridge-amateur", "bridge-pro"
    expected = {
        (p.pk, e): (d(1000), d(1012), pro),
        (p.pk, g): (d(1000), d(988), amateur),
        (first.pk, a): (d(1000), d(1012), pro),
        (first.pk, c): (d(1000), d(988), amateur),
        (second.pk, e): (d(1012), d(1005), pro),
        (second.pk, a): (d(1012), d(1024), pro),
    }
    assert {key: value for key, value in rows().items() if key in expected} == expected
    assert sorted(Promotion.objects.values_list("player_id", "match_id", "rating")) == sorted(
        [(e, p.pk, d(1012)), (f, p.pk, d(1012)), (a, first.pk, d(1012)), (b, first.pk, d(1012))]
    )
    details = RatingChange.objects.get(match=second, player_id=e).details
    assert (details["period_start"], details["period_rating"]) == (start.isoformat(), 1000.0)
    assert PlayerRating.objects.get(game=bridge, player_id=a).peak_rating == d(1024)
    assert assert_ledger_is_the_oracles(game=bridge) == 12

    session((i, j), (k, m), 1, start + timedelta(minutes=30))
    assert rate(bridge) == 4  # from W's first instant: P (at s), A, the late one and B
    assert {key: value for key, value in rows().items() if key in expected} == expected
    assert assert_ledger_is_the_oracles(game=bridge) == 16
    match_void(match_id=first.pk, by=admin_user)
    rate(bridge)
    assert assert_ledger_is_the_oracles(game=bridge) == 12


def test_a_rating_period_on_a_slaps_league_does_not_hold_slaps_results(slaps, referee):
    """Rating periods are bridge's (``match_due_at``): a Slaps league with a period still rates each
    result at once, from the current ratings (``ledger_apply`` computes a window only for a result
    that has a ``due_at``). Ann beats Bob twice in one week: 1016 / 984, then
    E = 1/(1 + 10^((984 - 1016)/400)) = 0.545922, Ann 1016 + 32 * 0.454078 = 1030.53 -> 1031,
    Bob 984 - 14.53 = 969.47 -> 969 (from the period's start both would move by 16 again)."""
    League.objects.filter(slug="slaps-amateur").update(
        rating_period_days=7, rating_period_anchor=(T0 - timedelta(days=3)).date()
    )
    ann, bob = PlayerFactory.create_batch(2)
    for hours in (1, 2):
        match_submit(referee=referee, data=slaps_body((ann, bob), ann, hours))
    assert rate(slaps) == 2
    assert PlayerRating.objects.get(player=ann).rating == 1031
    assert PlayerRating.objects.get(player=bob).rating == 969
    assert not RatingChange.objects.filter(details__has_key="period_start").exists()
    assert assert_ledger_is_the_oracles(game=slaps) == 4


def test_a_chunk_with_no_result_to_rate_does_not_end_the_run(slaps, referee, monkeypatch):
    """``ledger_apply`` reads matches ``REPLAY_CHUNK`` at a time; a chunk holding only results
    that cannot be rated yet (here: awaiting a second referee) is skipped, and the run goes on.
    With one match a chunk: m1 (Ann beats Bob: 1016 / 984), m2 waiting, m3 (Cid beats Ann:
    E_Cid = 1/(1 + 10^(16/400)) = 0.476989, Cid 1000 + 32 * 0.523011 = 1016.74 -> 1017,
    Ann 1016 - 16.74 = 999.26 -> 999)."""
    monkeypatch.setattr("ratings.replay.REPLAY_CHUNK", 1)
    ann, bob, cid = PlayerFactory.create_batch(3)
    match_submit(referee=referee, data=slaps_body((ann, bob), ann, 1))
    waiting = match_submit(referee=referee, data=slaps_body((bob, cid), bob, 2))
    Match.objects.filter(pk=waiting.pk).update(awaiting_confirmation=True)
    last = match_submit(referee=referee, data=slaps_body((cid, ann), cid, 3))
    assert rate(slaps) == 2
    assert Match.objects.get(pk=last.pk).status == Match.Status.RATED
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.SUBMITTED
    assert {r.player_id: r.rating for r in PlayerRating.objects.all()} == {ann.pk: 999, bob.pk: 984, cid.pk: 1017}
    assert assert_ledger_is_the_oracles(game=slaps) == 4


def _elo_match(game: Game, winner, loser, hours) -> Match:
    match = Match.objects.create(game=game, played_at=T0 + timedelta(hours=hours), rated=True)
    match.seats.create(position=1, player=winner, result=1)
    match.seats.create(position=2, player=loser, result=0)
    return match


def test_players_enter_a_game_without_an_amateur_league_in_its_only_league(reference_data):
    """``ledger_apply``'s entry league: the amateur league, or else the game's first league; a
    game with no league cannot place anyone and says so. A game with a pro league only: Ann beats
    Bob, 1016 / 984 (E = 0.5, K = 32), both placed in the pro league."""
    solo = Game.objects.create(slug="solo", name="Solo", rating_system="elo")
    League.objects.create(game=solo, slug="solo-pro", name="Solo pro", tier="pro")
    ann, bob = PlayerFactory.create_batch(2)
    _elo_match(solo, ann, bob, 1)
    assert rate(solo) == 1
    assert sorted(PlayerRating.objects.values_list("rating", "league__slug")) == [
        (d(984), "solo-pro"),
        (d(1016), "solo-pro"),
    ]

    empty = Game.objects.create(slug="empty", name="Empty", rating_system="elo")
    _elo_match(empty, ann, bob, 1)
    with pytest.raises(ValidationError, match="has no league to place players in"):
        rate(empty)


def test_a_replay_is_aligned_to_the_periods_of_every_league_in_turn(bridge, referee):
    """``period_aligned`` with two leagues with periods: the pro league's of 7 days from P0 (a
    local midnight), the amateur league's of 2 days from P0 - 1 day. A late result filed under
    the pro league at P0 + 1 day, the first instant of an amateur period without results, must
    still be moved back to P0 (the pro period it falls in has results), and from there to
    P0 - 1 day (P0 is inside an amateur period with results). From any later start, players
    whose rating changed earlier in a period would be rated in it from the wrong rating:
        Y1 amateur P0 - 12 h (a, b) v (c, d)    Y2 amateur P0 + 12 h (a, b) v (c, d)
        Y0 pro     P0 + 6 h  (e, f) v (g, h)    Y3 pro     P0 + 2 d  (e, f) v (g, h)
    (a replay from P0 would rate Y2 from a and b's rating after Y1; one from P0 + 1 day would
    rate Y3 from e and f's rating after Y0). Every row is the oracle's.
    """
    p0 = datetime.datetime.combine((T0 - timedelta(days=14)).date(), datetime.time(), tzinfo=UTC)
    League.objects.filter(slug="bridge-pro").update(rating_period_days=7, rating_period_anchor=p0.date())
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=2, rating_period_anchor=(p0 - timedelta(days=1)).date()
    )
    a, b, c, dd, e, f, g, h, i, j, k, m = (player.pk for player in PlayerFactory.create_batch(12))

    def session(ns, ew, imps, moment, league):
        body = imps_session([(ns, ew, imps)], 0)
        body["played_at"] = moment.isoformat()
        return filed_under(match_submit(referee=referee, data=body), league)

    session((a, b), (c, dd), 2, p0 - timedelta(hours=12), "bridge-amateur")
    session((a, b), (c, dd), 3, p0 + timedelta(hours=12), "bridge-amateur")
    session((e, f), (g, h), 2, p0 + timedelta(hours=6), "bridge-pro")
    session((e, f), (g, h), -4, p0 + timedelta(days=2), "bridge-pro")
    assert rate(bridge) == 4
    assert_ledger_is_the_oracles(game=bridge)
    session((i, j), (k, m), 1, p0 + timedelta(days=1), "bridge-pro")
    assert rate(bridge) == 5  # everything again, from P0 - 1 day
    assert assert_ledger_is_the_oracles(game=bridge) == 5 * 4


# --- A league's period changed after its results were rated -------------------------------------


def test_a_longer_period_keeps_rated_results_rated_and_rates_them_from_the_new_periods_start(bridge, referee):
    """The rule (ratings.md, "Rating periods"): changing a league's period takes no rating back. A result
    already rated whose new period is still open stays rated; the replay the change starts rates it from
    the new period's start, as it will again when that period closes. (The window filter of
    ``ledger_apply``: a rated result that is not due any more still needs its period's snapshot.)

    Amateur league, periods of 1 day; the pro league has none. One table in IMPs, strangers (no
    partnership bonus), K = 24 at a 2 IMP margin. P three days ago, filed under the pro league (rated at
    once: no period, so no snapshot of its own), and R two days ago under the amateur league, in a 1-day
    period long closed:
        P: (e, f) +2 v (g, h): 1000 v 1000, E = 0.5, S = 1: e, f 1012.00; g, h 988.00.
        R: (e, i) -2 v (a, b), from R's own day's start: side (1012 + 1000)/2 = 1006 v 1000,
           E(e, i) = 1/(1 + 10^(-6/400)) = 0.508634, S = 0: Δ = -24·0.508634 = -12.21:
           e 999.79, i 987.79; a, b 1000 + 12.21 = 1012.21.
    The amateur period becomes 7 days from four days ago, still open, holding R (period W) and the
    moment of P:
        P: the same; R from W's start (e's rating before P), everyone 1000: E = 0.5, Δ = ∓12, added to
           the current rating:
           e 1012 - 12 = 1000.00, i 988.00; a, b 1012.00.
    """
    from matches.services import league_due_dates_refresh
    from ratings.services import ratings_request_full_replay

    now = timezone.now()
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=1, rating_period_anchor=(now - timedelta(days=30)).date()
    )
    a, b, e, f, g, h, i = (player.pk for player in PlayerFactory.create_batch(7))

    def session(ns, ew, imps, moment):
        body = imps_session([(ns, ew, imps)], 0)
        body["played_at"] = moment.isoformat()
        return match_submit(referee=referee, data=body)

    p = filed_under(session((e, f), (g, h), 2, now - timedelta(days=3)), "bridge-pro")
    r = filed_under(session((e, i), (a, b), -2, now - timedelta(days=2)), "bridge-amateur")
    rate(bridge)

    def ratings(match) -> dict:
        return dict(RatingChange.objects.filter(match=match).values_list("player_id", "rating_after"))

    assert ratings(p) == {e: d(1012), f: d(1012), g: d(988), h: d(988)}
    assert ratings(r) == {e: d("999.79"), i: d("987.79"), a: d("1012.21"), b: d("1012.21")}

    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=7, rating_period_anchor=(now - timedelta(days=4)).date()
    )
    league = League.objects.get(slug="bridge-amateur")
    league_due_dates_refresh(league=league)  # as admin does when a league's period changes
    start, end = league.period_bounds(r.played_at)
    assert start <= p.played_at, "P was played inside R's new period"
    assert end > now, "which is still open"
    assert ratings_request_full_replay(game_id=bridge.pk)
    rate(bridge)
    assert sorted(Match.objects.values_list("status", flat=True)) == ["rated", "rated"]
    assert ratings(p) == {e: d(1012), f: d(1012), g: d(988), h: d(988)}
    assert ratings(r) == {e: d(1000), i: d(988), a: d(1012), b: d(1012)}
    details = RatingChange.objects.get(match=r, player_id=e).details
    assert (details["period_start"], details["period_rating"]) == (start.isoformat(), 1000.0)
