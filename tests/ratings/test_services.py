"""The rating pipeline: ledger, replay, idempotency, promotion and floor.

Expected ratings are worked by hand in the test (seed 000: E = 1/(1 + 10^((Rb - Ra)/400)),
R' = R + K(S - E) rounded to a whole number, K = 32 for the first 32 rated matches) or are the
independent oracle's (``assert_ledger_is_the_oracles``: tests/oracle replays what is stored and every
ledger row, promotion and player rating must equal it). A test of the invariant "applying results as
they arrive equals a full replay" keeps that comparison and also compares with the oracle, so the
incremental path and ``ratings_replay_all`` being wrong the same way fails it.
"""

import itertools
import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from leagues.models import League
from matches.models import Match
from matches.services import match_void
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from ratings.services import ratings_pending_games, ratings_process_game, ratings_replay_all, ratings_sweep
from tests.factories import PlayerFactory, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db

T0 = timezone.now() - timedelta(days=30)


def snapshot(game):
    ratings = {
        r.player_id: (r.rating, r.peak_rating, r.rated_matches, r.league_id)
        for r in PlayerRating.objects.filter(game=game)
    }
    ledger = list(
        RatingChange.objects.filter(game=game)
        .order_by("played_at", "match_id", "unit", "player_id")
        .values_list("match_id", "player_id", "rating_before", "rating_after", "peak_after", "rated_matches_after")
    )
    return ratings, ledger


def test_a_rated_match_updates_both_players_and_writes_the_ledger(slaps):
    """Ann and Bob at 1000: E = 1/(1 + 10^0) = 0.5, K = 32; Ann 1000 + 32(1 - 0.5) = 1016,
    Bob 1000 + 32(0 - 0.5) = 984 (his peak stays the start rating, 1000)."""
    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob)
    assert ratings_process_game(game_id=slaps.pk) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.RATED
    ann_rating = PlayerRating.objects.get(player=ann, game=slaps)
    assert (ann_rating.rating, ann_rating.peak_rating, ann_rating.rated_matches) == (1016, 1016, 1)
    assert ann_rating.league.slug == "slaps-amateur"
    bob_rating = PlayerRating.objects.get(player=bob, game=slaps)
    assert (bob_rating.rating, bob_rating.peak_rating, bob_rating.rated_matches) == (984, 1000, 1)
    change = RatingChange.objects.get(match=match, player=bob)
    assert (change.rating_before, change.rating_after, change.delta) == (1000, 984, -16)
    assert change.details == {
        "opponent_rating": 1000.0,
        "expected": 0.5,
        "k": 32.0,
        "score": 0.0,
        "floor_applied": False,
    }


def test_processing_twice_changes_nothing(slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    before = snapshot(slaps)
    assert ratings_process_game(game_id=slaps.pk) == 0
    assert snapshot(slaps) == before


def test_friendlies_are_never_rated(slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    friendly = slaps_match(winner=ann, loser=bob, rated=False)
    assert ratings_process_game(game_id=slaps.pk) == 0
    friendly.refresh_from_db()
    assert friendly.status == Match.Status.FRIENDLY
    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()


def test_in_order_result_appends_without_recomputing(slaps):
    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=T0)
    ratings_process_game(game_id=slaps.pk)
    first_ids = set(RatingChange.objects.values_list("pk", flat=True))
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=1))
    assert ratings_process_game(game_id=slaps.pk) == 1
    assert first_ids < set(RatingChange.objects.values_list("pk", flat=True))


def test_late_result_replays_from_its_place_and_equals_a_full_replay(slaps):
    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    early = slaps_match(winner=ann, loser=bob, played_at=T0)
    slaps_match(winner=bob, loser=cid, played_at=T0 + timedelta(hours=2))
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=3))
    ratings_process_game(game_id=slaps.pk)
    kept = set(RatingChange.objects.filter(match=early).values_list("pk", flat=True))
    late = slaps_match(winner=cid, loser=bob, played_at=T0 + timedelta(hours=1))
    assert ratings_process_game(game_id=slaps.pk) == 3  # the late one and the two after it
    assert kept <= set(RatingChange.objects.values_list("pk", flat=True)), "history before the late result is kept"
    late.refresh_from_db()
    assert late.status == Match.Status.RATED
    incremental = snapshot(slaps)
    assert assert_ledger_is_the_oracles(game=slaps) == 8
    ratings_replay_all(game_id=slaps.pk)
    assert snapshot(slaps) == incremental


def test_random_arrival_order_equals_the_replay_in_played_order(slaps):
    rng = random.Random(2026)
    players = PlayerFactory.create_batch(8)
    plan = []
    for index in range(60):
        a, b = rng.sample(players, 2)
        plan.append((a, b, T0 + timedelta(minutes=rng.randint(0, 5000), seconds=index)))
    rng.shuffle(plan)
    for winner, loser, played_at in plan:
        slaps_match(winner=winner, loser=loser, played_at=played_at)
        ratings_process_game(game_id=slaps.pk)
    incremental = snapshot(slaps)
    assert Match.objects.filter(status=Match.Status.RATED).count() == 60
    assert assert_ledger_is_the_oracles(game=slaps) == 120
    ratings_replay_all(game_id=slaps.pk)
    assert snapshot(slaps) == incremental
    # And the ledger chains: each player's next "before" is their previous "after".
    for player in players:
        rows = RatingChange.objects.filter(player=player).order_by("played_at", "match_id")
        ratings = [(row.rating_before, row.rating_after) for row in rows]
        for (_, after), (before, _) in itertools.pairwise(ratings):
            assert before == after


def test_k_drops_after_32_rated_matches(slaps):
    """Seed 000: K = 32 until a player has completed 32 rated matches, 16 from the 33rd on. The K of
    each row is read from its details; the ratings themselves are the oracle's."""
    ann, bob = PlayerFactory(), PlayerFactory()
    for index in range(33):
        slaps_match(
            winner=ann if index % 2 else bob, loser=bob if index % 2 else ann, played_at=T0 + timedelta(hours=index)
        )
    ratings_process_game(game_id=slaps.pk)
    ks = list(RatingChange.objects.filter(player=ann).order_by("played_at").values_list("details__k", flat=True))
    assert ks[:32] == [32] * 32
    assert ks[32] == 16
    assert assert_ledger_is_the_oracles(game=slaps) == 66


def test_void_replays_without_the_match(slaps, admin_user):
    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=T0)
    voided = slaps_match(winner=bob, loser=cid, played_at=T0 + timedelta(hours=1))
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=2))
    ratings_process_game(game_id=slaps.pk)

    match_void(match_id=voided.pk, by=admin_user)  # eager: replays on commit
    ratings_process_game(game_id=slaps.pk)  # (tests run inside one transaction: apply explicitly)
    voided.refresh_from_db()
    assert voided.status == Match.Status.VOID
    assert not RatingChange.objects.filter(match=voided).exists()
    after_void = snapshot(slaps)
    assert assert_ledger_is_the_oracles(game=slaps) == 4  # the two unvoided matches

    # The same history without the voided match, computed from scratch:
    ratings_replay_all(game_id=slaps.pk)
    assert snapshot(slaps) == after_void
    assert PlayerRating.objects.get(player=bob).rated_matches == 1
    assert not RatingState.objects.filter(replay_from_played_at__isnull=False).exists()
    # Voiding twice changes nothing.
    match_void(match_id=voided.pk, by=admin_user)
    assert ratings_process_game(game_id=slaps.pk) == 0


def test_voiding_a_players_only_match_removes_their_rating(slaps, admin_user):
    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    match_void(match_id=match.pk, by=admin_user)
    ratings_process_game(game_id=slaps.pk)
    assert not PlayerRating.objects.exists()


def test_reaching_the_threshold_promotes_and_a_void_undoes_it(slaps, admin_user):
    """Threshold 1030. Ann beats Bob (both 1000): 1016. Ann (1016) beats Cid (1000):
    E = 1/(1 + 10^(-16/400)) = 0.52301, 1016 + 32(1 - 0.52301) = 1031.26 -> 1031 >= 1030: promoted
    at the second match. Voiding it leaves her at 1016, amateur, with no promotion."""
    amateur = League.objects.get(slug="slaps-amateur")
    amateur.promotion_threshold = Decimal("1030")
    amateur.save()
    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=T0)  # ann 1016
    second = slaps_match(winner=ann, loser=cid, played_at=T0 + timedelta(hours=1))  # ann 1031
    ratings_process_game(game_id=slaps.pk)
    rating = PlayerRating.objects.get(player=ann)
    assert rating.rating == 1031
    assert rating.league.slug == "slaps-pro"
    assert assert_ledger_is_the_oracles(game=slaps) == 4
    promotion = Promotion.objects.get(player=ann)
    assert (promotion.from_league.slug, promotion.to_league.slug, promotion.match_id) == (
        "slaps-amateur",
        "slaps-pro",
        second.pk,
    )

    match_void(match_id=second.pk, by=admin_user)
    ratings_process_game(game_id=slaps.pk)
    rating.refresh_from_db()
    assert (rating.rating, rating.league.slug) == (1016, "slaps-amateur")
    assert not Promotion.objects.exists()
    assert assert_ledger_is_the_oracles(game=slaps) == 2


def test_pro_floor_holds(slaps):
    """Threshold and pro floor 1010. Ann beats Bob: 1016 >= 1010, promoted. Bob (984) beats Ann (1016):
    E(Ann) = 1/(1 + 10^(-32/400)) = 0.54592, 1016 + 32(0 - 0.54592) = 998.53 -> 999 < 1010: the
    floor stops the fall at 1010."""
    amateur = League.objects.get(slug="slaps-amateur")
    amateur.promotion_threshold = Decimal("1010")
    amateur.save()
    League.objects.filter(slug="slaps-pro").update(rating_floor=Decimal("1010"))
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=T0)  # ann 1016, promoted
    slaps_match(winner=bob, loser=ann, played_at=T0 + timedelta(hours=1))  # would fall to ~999
    ratings_process_game(game_id=slaps.pk)
    rating = PlayerRating.objects.get(player=ann)
    assert rating.rating == 1010
    last = RatingChange.objects.filter(player=ann).order_by("-played_at").first()
    assert last.details["floor_applied"] is True
    assert assert_ledger_is_the_oracles(game=slaps) == 4


def test_amateur_rating_can_go_down(slaps):
    """Bob beats Ann, both at 1000: Ann 1000 + 32(0 - 0.5) = 984; the amateur league has no floor."""
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=bob, loser=ann)
    ratings_process_game(game_id=slaps.pk)
    assert PlayerRating.objects.get(player=ann).rating == 984


def test_sweeper_rates_matches_left_submitted(slaps, settings):
    settings.CARDRANK_SWEEP_AFTER = timedelta(seconds=0)
    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob)
    assert ratings_sweep() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.RATED


def test_pending_games_include_a_replay_left_by_a_void(slaps, admin_user):
    """Once every result is rated, a void still leaves work: its replay. Waiting for
    "nothing submitted" alone would read the ratings before that replay ran."""
    ann, bob = PlayerFactory(), PlayerFactory()
    assert ratings_pending_games() == set()
    match = slaps_match(winner=ann, loser=bob)
    assert ratings_pending_games() == {slaps.pk}
    assert ratings_pending_games(stored_before=match.created_at - timedelta(seconds=1)) == set()
    ratings_process_game(game_id=slaps.pk)
    assert ratings_pending_games() == set()

    match_void(match_id=match.pk, by=admin_user)
    assert not Match.objects.filter(status=Match.Status.SUBMITTED).exists()
    assert ratings_pending_games() == {slaps.pk}, "the void's replay is still to run"
    ratings_process_game(game_id=slaps.pk)
    assert ratings_pending_games() == set()
    assert not PlayerRating.objects.exists()


def test_ledger_rows_are_immutable(slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    change = RatingChange.objects.first()
    change.rating_after = 5000
    with pytest.raises(ValueError, match="immutable"):
        change.save()


def test_correction_replays_from_the_earlier_place(slaps, admin_user):
    from matches.services import match_correct

    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=T0)
    wrong = slaps_match(winner=bob, loser=cid, played_at=T0 + timedelta(hours=3))
    slaps_match(winner=cid, loser=ann, played_at=T0 + timedelta(hours=2))
    ratings_process_game(game_id=slaps.pk)

    # The referee swapped the winner and the time: cid won, an hour in.
    match_correct(
        match_id=wrong.pk,
        by=admin_user,
        data={
            "game": "slaps",
            "played_at": (T0 + timedelta(hours=1)).isoformat(),
            "players": [bob.pk, cid.pk],
            "winner": cid.pk,
        },
    )
    ratings_process_game(game_id=slaps.pk)
    wrong.refresh_from_db()
    assert wrong.status == Match.Status.RATED
    assert wrong.winner_seat.player == cid
    corrected = snapshot(slaps)
    assert assert_ledger_is_the_oracles(game=slaps) == 6
    ratings_replay_all(game_id=slaps.pk)
    assert snapshot(slaps) == corrected
    cid_rows = RatingChange.objects.filter(player=cid).order_by("played_at")
    assert cid_rows.first().match_id == wrong.pk


def test_correction_validates_like_a_submission_and_changes_nothing_when_wrong(slaps, admin_user, referee):
    from django.core.exceptions import PermissionDenied, ValidationError

    from matches.services import match_correct

    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob, played_at=T0)
    ratings_process_game(game_id=slaps.pk)
    before = snapshot(slaps)
    bad = {"game": "slaps", "played_at": T0.isoformat(), "players": [ann.pk, ann.pk], "winner": ann.pk}
    with pytest.raises(ValidationError) as error:
        match_correct(match_id=match.pk, by=admin_user, data=bad)
    assert "players" in error.value.message_dict
    with pytest.raises(PermissionDenied):
        match_correct(match_id=match.pk, by=referee, data=bad)
    assert snapshot(slaps) == before
    assert match.seats.count() == 2


@pytest.mark.parametrize(
    ("value", "cents"),
    [(1234.56, 123456), (1000.0, 100000), (-0.05, -5), (1234.565, 123457), (-1234.565, -123457), (0.005, 1)],
)
def test_ratings_become_whole_cents_rounded_half_away_from_zero(value, cents):
    from ratings.cents import cents_decimal, to_cents, to_decimal

    assert to_cents(value) == cents
    assert cents_decimal(cents) == to_decimal(value)


def test_the_ledger_writer_keeps_details_that_need_escaping(slaps):
    """Details go to PostgreSQL as COPY text: backslashes, tabs, quotes and newlines must survive."""
    from ratings.history import MatchRow
    from ratings.ledger import LedgerWriter, Standing

    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob, rated=False)
    league = League.objects.get(game=slaps, tier=League.Tier.AMATEUR)
    details = {"note": 'tab\there "quoted" back\\slash\nnew line é', "expected": 0.5, "nothing": None}
    writer = LedgerWriter(game_id=slaps.pk)
    row = MatchRow(match.pk, match.played_at, match.status, None, None, False)
    standing = Standing(None, 101_234, 101_234, 1, league.pk)
    writer.add_change(row, match.played_at.isoformat(), ann.pk, 0, standing, 100_000, details)
    writer.flush(force=True)
    change = RatingChange.objects.get(match=match, player=ann)
    assert change.details == details
    assert (change.rating_before, change.rating_after, change.delta) == (
        Decimal("1000.00"),
        Decimal("1012.34"),
        Decimal("12.34"),
    )
    assert change.played_at == match.played_at
