"""The integration tests' own helpers can fail: no service needed (the database
tests run on whatever ``DATABASE_URL`` names, SQLite by default).

``run_threads`` must surface what a thread raised and a thread that never
ends; ``ledger_rows_differing`` must count a lost and a doubled row, so the
"rows differing" figure can print something other than 0. ``ledger_expected``
must be the oracle's reading of the test's ``History`` (numbers by hand), not
of the stored results: a void, a lost result or a tampered row that the
History does not explain shows up as rows differing.
"""

import datetime as dt
import threading
from decimal import Decimal
from fractions import Fraction

import pytest
from django.test import TestCase

from leagues.models import Bot, Game
from matches.models import Match
from matches.services import match_correct, match_submit, match_void
from ratings.models import PlayerRating, RatingChange
from tests.factories import PlayerFactory
from tests.integration.conftest import (
    History,
    ledger_expected,
    ledger_rows_differing,
    ledger_rows_shown,
    ledger_snapshot,
    run_threads,
    wait_until,
)
from tests.oracle import oracle_replay
from tests.oracle_db import oracle_game_spec, oracle_result_from_body


def test_run_threads_returns_every_result_in_order():
    assert run_threads([lambda n=n: n * n for n in range(5)], timeout=10) == [0, 1, 4, 9, 16]


def test_run_threads_raises_what_every_failing_thread_raised():
    def crash(n: int) -> None:
        raise RuntimeError(f"delivery {n} crashed")

    with pytest.raises(ExceptionGroup) as raised:
        run_threads([lambda: 1, lambda: crash(2), lambda: crash(3), lambda: crash(4)], timeout=10)
    assert raised.value.message == "3 of 4 test threads raised"
    assert sorted(str(error) for error in raised.value.exceptions) == [f"delivery {n} crashed" for n in (2, 3, 4)]


def test_run_threads_fails_on_a_thread_still_running_at_its_deadline():
    release = threading.Event()
    try:
        with pytest.raises(AssertionError, match=r"1 of 2 test threads still running after 0\.2 s"):
            run_threads([lambda: None, release.wait], timeout=0.2)
    finally:
        release.set()


def test_wait_until_fails_naming_what_it_waited_for():
    with pytest.raises(AssertionError, match=r"waited 0\.2 s for the moon"):
        wait_until(lambda: False, timeout=0.2, what="the moon", every=0.05)
    assert wait_until(lambda: 7, timeout=1, what="seven") == 7


def test_rows_differing_counts_lost_and_doubled_rows():
    ratings = [(1, 10, 1016)]
    ledger = [(1, 0, 10, 1000, 1016), (1, 0, 11, 1000, 984)]
    assert ledger_rows_differing((ratings, ledger), (ratings, ledger)) == 0
    lost = (ratings, ledger[:1])
    doubled = (ratings, [*ledger, ledger[1]])
    changed = ([(1, 10, 1017)], ledger)
    assert ledger_rows_differing(lost, (ratings, ledger)) == 1
    assert ledger_rows_differing(doubled, (ratings, ledger)) == 1
    assert ledger_rows_differing(changed, (ratings, ledger)) == 2  # one row gone, another in its place


T0 = dt.datetime(2026, 6, 1, 18, tzinfo=dt.UTC)


def _submit(referee, history: History, body: dict) -> int:
    """Store and rate a body (tasks run eagerly at commit), and record it as the load tests do."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        match_id = match_submit(referee=referee, data=body).pk
    history.submitted[match_id] = body
    return match_id


def _slaps(winner, loser, minutes: int) -> dict:
    played_at = (T0 + dt.timedelta(minutes=minutes)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [winner.pk, loser.pk], "winner": winner.pk}


@pytest.fixture
def two_wins(referee):
    """A beats B twice: (history, (a, b), (first id, second id)), both rated."""
    a, b = PlayerFactory.create_batch(2)
    history = History()
    ids = (_submit(referee, history, _slaps(a, b, 0)), _submit(referee, history, _slaps(a, b, 60)))
    return history, (a, b), ids


def test_the_expected_ledger_is_the_oracles_reading_of_the_history(two_wins):
    """By hand, Slaps K = 32. Match 1, 1000 v 1000: E = 1/2, A 1016, B 984. Match 2, 1016 v 984:
    E_A = 1/(1 + 10^(-32/400)) = 0.54592, A = 1016 + 32(0.45408) = 1030.53 -> 1031; B = 984 - 14.53 = 969.47 -> 969.
    """
    history, (a, b), (first, second) = two_wins
    before = ledger_snapshot()
    ratings, ledger, promotions = ledger_expected(history=history)
    assert ledger_snapshot() == before, "computing the expected ledger writes nothing"
    assert ratings == [("slaps", a.pk, 1031, 1031, 2, "amateur"), ("slaps", b.pk, 969, 1000, 2, "amateur")]
    assert sorted(ledger) == sorted(
        [
            (first, 0, a.pk, 1000, 1016, 16, 1, 1016, "amateur"),
            (first, 0, b.pk, 1000, 984, -16, 1, 1000, "amateur"),
            (second, 0, a.pk, 1016, 1031, 15, 2, 1031, "amateur"),
            (second, 0, b.pk, 984, 969, -15, 2, 1000, "amateur"),
        ]
    )
    assert promotions == []
    assert ledger_rows_differing(ledger_snapshot(), (ratings, ledger, promotions)) == 0


def test_a_void_the_history_does_not_know_makes_rows_differ(two_wins, admin_user):
    """Expected comes from what the test submitted, not from the stored results (a replay of those would agree)."""
    history, _players, (_first, second) = two_wins
    with TestCase.captureOnCommitCallbacks(execute=True):
        match_void(match_id=second, by=admin_user)
    stored, expected = ledger_snapshot(), ledger_expected(history=history)
    # Match 2's two ledger rows are missing; both players' ratings differ (a row on each side).
    assert ledger_rows_differing(stored, expected) == 2 + 2 * 2, ledger_rows_shown(stored, expected)
    history.voided.add(second)
    assert ledger_rows_differing(ledger_snapshot(), ledger_expected(history=history)) == 0


def test_a_correction_in_the_history_replaces_the_submitted_body(two_wins, admin_user):
    history, (_a, b), (first, _second) = two_wins
    corrected = {**history.submitted[first], "winner": b.pk}
    history.corrected[first] = corrected
    stored, expected = ledger_snapshot(), ledger_expected(history=history)
    assert ledger_rows_differing(stored, expected) == 2 * (4 + 2), "every row and rating, on each side"
    with TestCase.captureOnCommitCallbacks(execute=True):
        match_correct(match_id=first, by=admin_user, data=corrected)
    stored = ledger_snapshot()
    assert ledger_rows_differing(stored, expected) == 0, ledger_rows_shown(stored, expected)


def test_a_tampered_or_lost_row_is_counted(two_wins):
    history, (a, b), (first, second) = two_wins
    # .update() and .delete() skip the model's guards: the kind of damage a lost or wrong update leaves.
    RatingChange.objects.filter(match_id=second, player=a).update(rating_after=Decimal("1030"), delta=Decimal("14"))
    RatingChange.objects.filter(match_id=first, player=b).delete()
    PlayerRating.objects.filter(player=b).update(rated_matches=3)
    stored, expected = ledger_snapshot(), ledger_expected(history=history)
    shown = ledger_rows_shown(stored, expected)
    assert ledger_rows_differing(stored, expected) == 2 + 1 + 2, shown
    assert f"stored: ({second}, 0, {a.pk}, 1016.00, 1030.00, 14.00, 2, 1031.00, amateur)" in shown.splitlines()
    assert f"expected: ({first}, 0, {b.pk}, 1000.00, 984.00, -16.00, 1, 1000.00, amateur)" in shown.splitlines()


def test_a_result_the_database_lost_is_expected_all_the_same(two_wins):
    history, (a, b), _ids = two_wins
    lost = (Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    history.submitted[lost] = _slaps(b, a, 120)
    stored, expected = ledger_snapshot(), ledger_expected(history=history)
    assert ledger_rows_differing(stored, expected) == 2 + 2 * 2, ledger_rows_shown(stored, expected)


def test_a_bot_seat_is_expected_as_played_after_the_bot_is_edited(referee):
    """The History keeps the body ({"bot": "normal"}); the bot's values as played come from the seat."""
    ann, bob = PlayerFactory.create_batch(2)
    history = History()
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}]
    body = {"game": "preferans", "played_at": T0.isoformat(), "seats": seats, "deals": [[6, -2, -4], [-3, 5, -2]]}
    match_id = _submit(referee, history, body)
    bot = Bot.objects.get(slug="normal")
    bot.rating, bot.max_rating = 1100, 1150
    with TestCase.captureOnCommitCallbacks(execute=True):
        bot.save()  # as Django admin saves it: future games only
    stored, expected = ledger_snapshot(), ledger_expected(history=history)
    assert ledger_rows_differing(stored, expected) == 0, ledger_rows_shown(stored, expected)
    # The edit is material: the oracle with the bot's new values gives other rows, so the check above can fail.
    game = Game.objects.get(slug="preferans")
    edited = oracle_result_from_body(
        match_id=match_id, body=body, bots={"normal": (1100, 1150)}, default_league="preferans-amateur"
    )
    rows = oracle_replay(oracle_game_spec(game=game), [edited], now=T0 + dt.timedelta(days=1)).rows
    assert {row.rating_after for row in rows.values()} != {Fraction(row[4]) for row in expected[1]}
