"""The integration tests' own helpers can fail: no service needed.

``run_threads`` must surface what a thread raised and a thread that never
ends; ``ledger_rows_differing`` must count a lost and a doubled row, so the
"rows differing" figure can print something other than 0.
"""

import threading

import pytest

from tests.integration.conftest import ledger_rows_differing, run_threads, wait_until


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
