"""Random histories through the real write path, every ledger row compared with the oracle.

Each example sets a game up (start rating near 1800 or not, K parameters,
a rating period and a time zone for bridge), then plays random operations:
submissions through ``matches.services`` or the REST API (many of them late),
friendlies, voids, corrections, bot edits, a raised pro floor. Celery runs
eagerly, so every write rates as it would in production. The expected ledger
is the oracle's replay of the test's own record of what was submitted (see
``tests/property/histories.py``); it is compared row by row (rating before and
after, delta, count, peak, league) with ``RatingChange``, ``Promotion`` and
``PlayerRating``, and the stored results read back through
``tests/oracle_db.py`` must give the same answer (the database keeps what was
played, bots included).

Each example runs in a transaction rolled back at its end, so examples never
see each other's data. On the code of issue 11's start these tests fail on
the three rule bugs being fixed in parallel (mid-game promotion and the floor,
bots as played, DST periods): they are meant to.
"""

import datetime as dt
import os

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings

from leagues.models import Game
from tests.oracle import oracle_replay
from tests.oracle_db import ledger_diff, oracle_outcome_from_db
from tests.property.histories import History, histories, play
from tests.property.test_corrected_bot_history import PREFERANS_CORRECTED_AFTER_A_BOT_EDIT

pytestmark = pytest.mark.django_db

SETTINGS = settings(
    # ORACLE_EXAMPLES=200 for a longer hunt; 25 keeps each game's test well under a minute when it passes.
    max_examples=int(os.environ.get("ORACLE_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _compare(driver) -> tuple[int, list[str], list[str]]:
    """(ledger rows the oracle expects, differences from the record's replay, differences from the stored results)."""
    game = Game.objects.get(pk=driver.game.pk)
    now = timezone.now()
    expected = oracle_replay(driver.game_spec(), list(driver.record.values()), now=now)
    from_record = ledger_diff(game=game, outcome=expected)
    from_storage = ledger_diff(game=game, outcome=oracle_outcome_from_db(game=game, now=now))
    return len(expected.rows), from_record, from_storage


def _assert_equal_to_the_oracle(history, referee, admin_user):
    rows, from_record, from_storage = play(history, referee=referee, admin=admin_user)(_compare)
    print(
        f"{history.game_slug}: {len(from_record)} differences over {rows} oracle ledger rows "
        f"({len(from_storage)} from the stored results read back)"
    )
    assert from_record == [], "\n".join(from_record[:25])
    assert from_storage == [], "\n".join(from_storage[:25])


# Explicit histories that reach each rule issue 11 settled, whatever hypothesis draws. Operations:
# ("submit", result, minutes after the start, (league tier, friendly), "service" | "api"),
# ("bot", slug, rating, max), ("floor", pro floor); players are indices into the example's players.
ANCHOR = dt.date(2026, 3, 2)

SLAPS_RAISED_FLOOR = History(
    # 1790 v 1790: the winner reaches 1806 and is promoted; the pro floor is raised to 1850; their next win
    # (about +14) must leave them near 1820, not lift them to 1850.
    "slaps", "1790", {}, "UTC", 0, ANCHOR,
    [("submit", {"players": [0, 1], "winner": 0}, 0, ("amateur", False), "service"),
     ("floor", "1850"),
     ("submit", {"players": [0, 1], "winner": 0}, 60, ("pro", False), "api")],
)  # fmt: skip

PREFERANS_MID_GAME_PROMOTION = History(
    # Promoted at deal 0 (1795 -> 1801.22 against the normal bot), then -10000 whists: the floor holds at 1800
    # from deal 1 on, in the same game; deal 2 cannot lift anyone.
    "preferans", "1795", {}, "UTC", 0, ANCHOR,
    [("submit", {"seats": [{"player": 0}, {"bot": "normal"}],
                 "deals": [["10", "-10"], ["-10000", "10000"], ["-1", "1"]]}, 0, ("amateur", False), "service")],
)  # fmt: skip

PREFERANS_RAISED_FLOOR = History(
    # Promoted in a first game (1795 -> 1801.22 against the normal bot); an admin raises the pro floor to 1850;
    # in the next game, through the API, a lost deal leaves them at 1801.22 (below the floor: not lifted, no
    # further fall) and a won deal gains from there.
    "preferans", "1795", {}, "UTC", 0, ANCHOR,
    [("submit", {"seats": [{"player": 0}, {"bot": "normal"}], "deals": [["10", "-10"]]}, 0, ("amateur", False),
      "service"),
     ("floor", "1850"),
     ("submit", {"seats": [{"player": 0}, {"bot": "normal"}], "deals": [["-5", "5"], ["3", "-3"]]}, 60,
      ("pro", False), "api")],
)  # fmt: skip

PREFERANS_BOT_EDITED = History(
    # A game against the easy bot (1200, max 1600), then the bot is edited (900, max 1000), then a late result
    # replays from before that game: the game must keep the bot as played.
    "preferans", "1000", {}, "UTC", 0, ANCHOR,
    [("submit", {"seats": [{"player": 0}, {"bot": "easy"}], "deals": [["5", "-5"]]}, 2880, ("amateur", False), "api"),
     ("bot", "easy", 900, 1000),
     ("submit", {"seats": [{"player": 1}, {"player": 2}], "deals": [["1", "-1"]]}, 0, ("amateur", False), "service")],
)  # fmt: skip

BRIDGE_RAISED_FLOOR = History(
    # (0, 1) from 1795 win a board by 3 IMPs and are promoted; an admin raises the pro floor to 1850; in their
    # next session, through the API, against two amateurs, a lost board leaves them where they are (below the
    # floor: not lifted, no further fall) and a won board gains from there.
    "bridge", "1795", {}, "UTC", 0, ANCHOR,
    [("submit", {"boards": [{"number": 1, "tables": [{"ns": [0, 1], "ew": [2, 3], "ns_imps": "3"}]}]}, 0,
      ("amateur", False), "service"),
     ("floor", "1850"),
     ("submit", {"boards": [{"number": 1, "tables": [{"ns": [0, 1], "ew": [4, 5], "ns_imps": "-3"}]},
                            {"number": 2, "tables": [{"ns": [0, 1], "ew": [4, 5], "ns_imps": "3"}]}]}, 60,
      ("amateur", False), "api")],
)  # fmt: skip
_TABLE = {"ns": [0, 1], "ew": [2, 3], "ns_imps": "3"}
BRIDGE_BERLIN_DST = History(
    # Europe/Berlin, 7-day periods anchored 2026-03-23; summer time starts 03-29. A session at 03-29 23:30 CEST
    # and one at 03-30 00:30 CEST (minutes after the start, 03-26 12:00) fall in two different periods.
    "bridge", "1000", {}, "Europe/Berlin", 7, dt.date(2026, 3, 23),
    [("submit", {"boards": [{"number": 1, "tables": [_TABLE]}]}, 3 * 1440 + 690, ("amateur", False), "service"),
     ("submit", {"boards": [{"number": 1, "tables": [_TABLE]}]}, 3 * 1440 + 750, ("amateur", False), "api")],
)  # fmt: skip


@SETTINGS
@example(history=SLAPS_RAISED_FLOOR)
@given(history=histories("slaps"))
def test_slaps_histories_equal_the_oracle(history, referee, admin_user):
    _assert_equal_to_the_oracle(history, referee, admin_user)


@SETTINGS
@example(history=PREFERANS_MID_GAME_PROMOTION)
@example(history=PREFERANS_RAISED_FLOOR)
@example(history=PREFERANS_BOT_EDITED)
@example(history=PREFERANS_CORRECTED_AFTER_A_BOT_EDIT)  # found by a random run; worked by hand there
@given(history=histories("preferans"))
def test_preferans_histories_equal_the_oracle(history, referee, admin_user):
    _assert_equal_to_the_oracle(history, referee, admin_user)


@SETTINGS
@example(history=BRIDGE_BERLIN_DST)
@example(history=BRIDGE_RAISED_FLOOR)
@given(history=histories("bridge"))
def test_bridge_histories_equal_the_oracle(history, referee, admin_user):
    _assert_equal_to_the_oracle(history, referee, admin_user)
