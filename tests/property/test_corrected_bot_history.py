"""The Preferans history a random oracle run found, fixed and worked by hand.

What it found: a friendly against the easy bot (1200, maximum 1600) is
stored; an admin edits the bot to 900/900; the friendly is then corrected into
a rated game of two players and the easy bot. The service rated the corrected
game against the bot as played (1200: -1.98 a player), the property test's
record against the edited bot (900: -2.06), and every later deal of those
players differed by the carried 0.08. PRODUCT.md "Bots as played": editing a
bot changes future games only, and the corrected game was played before the
edit, so the service is right (as ``test_a_correction_keeps_the_bots_as_played``
in tests/test_settled_rules_ratings.py settles for an unchanged table); the
record now keeps the values of a bot already at the corrected result's table.

Every expected number below is worked from seed 001's formulas, never asked of
the engine, the service or the oracle:

    Rt = Rr1 (one opponent) or (2*Rr1 + Rr2)/3 (two, high to low)
    Kv = 60 + (Rs - Rt)/6 if Rs > Rt, else 60 + (Rt - Rs)/22
    Vf = min((Rs - Rt)/Kv, 4)
    Kd = clamp(2 / (1 + log10(1 + |Rs - Rt|/100)), 0.3, 2)
    Rd = +Kd*sqrt(Vs - Vf) if Vs > Vf, -Kd*sqrt(Vf - Vs) if Vs < Vf
    Rn = Rs + Rd, to cents
"""

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import timezone

from ratings.models import RatingChange
from tests.oracle import ResultSpec, oracle_replay
from tests.property.histories import History, play

pytestmark = pytest.mark.django_db

PREFERANS_CORRECTED_AFTER_A_BOT_EDIT = History(
    # Everyone starts at 1790 (amateurs, promotion at 1800 out of reach: every deal here is a loss or a
    # small gain). Ops: the friendly (minute 0), the bot edit, a rated game of players 0 and 2 (minute 60),
    # then the correction of the friendly into a rated game (still minute 0, so it is rated first).
    "preferans", "1790", {}, "UTC", 0, dt.date(2026, 3, 2),
    [("submit", {"seats": [{"player": 1}, {"player": 0}, {"bot": "easy"}, {"bot": "normal"}],
                 "deals": [["0", "0", "0", "0"]]}, 0, ("amateur", True), "service"),
     ("bot", "easy", 900, 900),
     ("submit", {"seats": [{"player": 0}, {"player": 2}], "deals": [["0", "0"]]}, 60, ("amateur", False), "service"),
     ("correct", 0, {"seats": [{"player": 0}, {"player": 1}, {"bot": "easy"}], "deals": [["0", "0", "0"]]},
      0, ("amateur", False), "service")],
)  # fmt: skip


def hand_ledger(corrected: int, later: int, players: list[int]) -> dict[tuple[int, int, int], tuple[str, str]]:
    """(match, unit, player) -> (rating before, rating after), by hand.

    The corrected game, deal 0, whists [0, 0, 0], the easy bot as played (1200, maximum 1600):
        Players 0 and 1 alike: Rs = 1790, opponents 1790 and 1200:
            Rt = (2*1790 + 1200)/3 = 1593.333333, gap 196.666667 > 0:
            Kv = 60 + 196.666667/6 = 92.777778, Vf = 196.666667/92.777778 = 2.119760,
            Kd = 2 / (1 + log10 2.966667) = 2 / 1.472266 = 1.358448,
            Rd = -1.358448 * sqrt(2.119760) = -1.358448 * 1.455940 = -1.977818 -> 1788.02.
        (Against the edited bot, 900: Rt = (3580 + 900)/3 = 1493.333333, gap 296.666667,
        Kv = 109.444444, Vf = 2.710660, Kd = 2 / (1 + log10 3.966667) = 1.251231,
        Rd = -1.251231 * 1.646408 = -2.060037 -> 1787.94: the record's old number.)
    The later game, deal 0, whists [0, 0]:
        Player 0: Rs = 1788.02, Rt = 1790, gap -1.98: Kv = 60 + 1.98/22 = 60.09,
            Vf = -1.98/60.09 = -0.032951, Kd = 2 / (1 + log10 1.0198) = 1.983114,
            Rd = 1.983114 * sqrt(0.032951) = 1.983114 * 0.181523 = 0.359981 -> 1788.38.
        Player 2: Rs = 1790, Rt = 1788.02, gap 1.98: Kv = 60 + 1.98/6 = 60.33,
            Vf = 1.98/60.33 = 0.032819, Kd = 1.983114,
            Rd = -1.983114 * sqrt(0.032819) = -1.983114 * 0.181162 = -0.359264 -> 1789.64.
    """
    first, second, third = players[:3]
    return {
        (corrected, 0, first): ("1790", "1788.02"),
        (corrected, 0, second): ("1790", "1788.02"),
        (later, 0, first): ("1788.02", "1788.38"),
        (later, 0, third): ("1790", "1789.64"),
    }


def test_a_game_corrected_after_a_bot_edit_is_rated_and_recorded_with_the_bot_as_played(referee, admin_user):
    def check(driver):
        corrected, later = driver.matches
        expected = hand_ledger(corrected, later, driver.players)
        stored = {
            (row.match_id, row.unit, row.player_id): (row.rating_before, row.rating_after)
            for row in RatingChange.objects.filter(game=driver.game)
        }
        assert stored == {key: (Decimal(before), Decimal(after)) for key, (before, after) in expected.items()}

        # The record keeps the easy bot as played, so the oracle's replay of it gives the hand numbers too.
        record = driver.record[corrected]
        assert [seat for seat in record.body["seats"] if "bot" in seat] == [
            {"bot": "easy", "rating": "1200.00", "max_rating": "1600.00"}
        ]
        outcome = oracle_replay(driver.game_spec(), list(driver.record.values()), now=timezone.now())
        assert {key: (row.rating_before, row.rating_after) for key, row in outcome.rows.items()} == {
            key: (Fraction(before), Fraction(after)) for key, (before, after) in expected.items()
        }

        # The record's old reading, the edited bot, is the other hand number: 1787.94.
        edited = [
            {**seat, "rating": "900", "max_rating": "900"} if "bot" in seat else seat for seat in record.body["seats"]
        ]
        old = ResultSpec(record.id, record.played_at, record.league, record.status, {**record.body, "seats": edited})
        outcome = oracle_replay(driver.game_spec(), [old], now=timezone.now())
        assert outcome.rows[(corrected, 0, driver.players[0])].rating_after == Fraction("1787.94")

    play(PREFERANS_CORRECTED_AFTER_A_BOT_EDIT, referee=referee, admin=admin_user)(check)
