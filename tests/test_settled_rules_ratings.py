"""The rating rules of PRODUCT.md's "Rules settled after the first release", through the real write path.

Vocabulary:
    service level   results stored with ``matches.services.match_submit`` and
                    rated with ``ratings.services.ratings_process_game``, as
                    the rating task does;
    through HTTP    ``POST /api/matches/`` with a referee's token (the task
                    runs eagerly on commit), then the public ``GET`` APIs;
    ledger row      one ``RatingChange``: (match, unit, player, rating before,
                    rating after, league after the unit).

Every expected number is worked by hand in the test's docstring, with each
step of the seed's formula and the seed's rounding (Slaps: whole numbers,
halves away from zero; Preferans and bridge: cents). None is asked of an
engine, of ``ratings_replay_all`` or of the service under test. A replay is
checked against the same hand numbers, not against the rows it replaces.
"""

import datetime
import zoneinfo
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.test import override_settings
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from leagues.models import Bot, Game, League
from matches.models import Match, Seat
from matches.services import match_correct, match_submit, match_void
from ratings.models import PlayerRating, Promotion, RatingChange
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

T0 = timezone.now() - timedelta(days=20)


def at(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).isoformat()


def set_rules(game: str, *, threshold, floor) -> None:
    League.objects.filter(slug=f"{game}-amateur").update(promotion_threshold=Decimal(threshold))
    League.objects.filter(slug=f"{game}-pro").update(rating_floor=Decimal(floor))


def ledger(game: str, players=None) -> list[tuple]:
    """Every ledger row of the game: (match id, unit, player id, before, after, league after), in ledger order."""
    rows = RatingChange.objects.filter(game__slug=game)
    if players is not None:
        rows = rows.filter(player__in=players)
    return [
        (row.match_id, row.unit, row.player_id, row.rating_before, row.rating_after, row.league_after.slug)
        for row in rows.select_related("league_after").order_by("played_at", "match_id", "unit", "player_id")
    ]


def promotions(game: str) -> list[tuple]:
    return sorted(
        (p.player_id, p.match_id, p.rating, p.to_league.slug) for p in Promotion.objects.filter(game__slug=game)
    )


def rate(game: str) -> None:
    ratings_process_game(game_id=Game.objects.get(slug=game).pk)


def d(value) -> Decimal:
    return Decimal(str(value))


# --- Promotion and floor: Preferans --------------------------------------------------------

PREFERANS_GAME_1 = [[16, -16], [-100, 100], [-1, 1]]
PREFERANS_GAME_2 = [[-1, 1]]


def preferans_expected(ann, bob, first, second) -> list[tuple]:
    """Ann and Bob at 1000, alone at a two-seat table (Rt = the opponent's rating); the
    amateur league promotes at 1005, the pro floor is 1004.

    Game 1, deal 1 [+16, -16]: gap 0, Kv = 60, Vf = 0, Kd = 2 / (1 + log10 1) = 2.
        Ann 1000 + 2 * sqrt(16) = 1008.00 >= 1005: promoted at deal 1 (league after: pro).
        Bob 1000 - 8 = 992.00.
    Deal 2 [-100, +100]: Ann Rs 1008, Rt 992, gap 16: Kv = 60 + 16/6 = 62.666667,
        Vf = 16/62.666667 = 0.255319, Kd = 2 / (1 + log10 1.16) = 1.878890,
        Rd = -1.878890 * sqrt(100.255319) = -18.812876 -> 989.19 < 1004: she is pro since
        deal 1, so the fall stops at the floor: 1004.00 (the old rule left her at 989.19).
        Bob Rs 992, gap -16: Kv = 60 + 16/22 = 60.727273, Vf = -0.263473,
        Rd = 1.878890 * sqrt(100.263473) = 18.813641 -> 1010.81 >= 1005: promoted at deal 2.
    Deal 3 [-1, +1]: Ann Rs 1004, Rt 1010.81, gap -6.81: Kv = 60 + 6.81/22 = 60.309545,
        Vf = -0.112917, Kd = 2 / (1 + log10 1.0681) = 1.944368,
        Rd = -1.944368 * sqrt(0.887083) = -1.831304 -> 1002.17: stays 1004.00.
        Bob Rs 1010.81, gap 6.81: Kv = 60 + 6.81/6 = 61.135, Vf = 0.111393,
        Rd = 1.944368 * sqrt(0.888607) = 1.832877 -> 1012.64.
    Game 2, deal 1 [-1, +1]: Ann Rs 1004, Rt 1012.64, gap -8.64: Kv = 60.392727,
        Vf = -0.143064, Kd = 1.930521, Rd = -1.787100 -> 1002.21: stays 1004.00 (not
        lifted: she was never below). Bob gap 8.64: Kv = 61.44, Vf = 0.140625,
        Rd = 1.930521 * sqrt(0.859375) = 1.789641 -> 1014.43.
    """
    return [
        (first, 0, ann, d(1000), d(1008), "preferans-pro"),
        (first, 0, bob, d(1000), d(992), "preferans-amateur"),
        (first, 1, ann, d(1008), d(1004), "preferans-pro"),
        (first, 1, bob, d(992), d("1010.81"), "preferans-pro"),
        (first, 2, ann, d(1004), d(1004), "preferans-pro"),
        (first, 2, bob, d("1010.81"), d("1012.64"), "preferans-pro"),
        (second, 0, ann, d(1004), d(1004), "preferans-pro"),
        (second, 0, bob, d("1012.64"), d("1014.43"), "preferans-pro"),
    ]


def preferans_body(seats, deals, hours) -> dict:
    return {"game": "preferans", "played_at": at(hours), "seats": seats, "deals": deals}


def test_preferans_mid_game_promotion_and_floor_at_service_level(referee, admin_user):
    set_rules("preferans", threshold=1005, floor=1004)
    ann, bob, cid, dan = PlayerFactory.create_batch(4)
    # An earlier game of two other players; voiding it replays everything after it.
    earlier = match_submit(referee=referee, data=preferans_body([{"player": cid.pk}, {"player": dan.pk}], [[5, -5]], 0))
    seats = [{"player": ann.pk}, {"player": bob.pk}]
    first = match_submit(referee=referee, data=preferans_body(seats, PREFERANS_GAME_1, 1))
    rate("preferans")
    second = match_submit(referee=referee, data=preferans_body(seats, PREFERANS_GAME_2, 2))
    rate("preferans")
    expected = preferans_expected(ann.pk, bob.pk, first.pk, second.pk)
    assert ledger("preferans", [ann, bob]) == expected
    wanted_promotions = sorted(
        [
            (ann.pk, first.pk, d(1008), "preferans-pro"),
            (bob.pk, first.pk, d("1010.81"), "preferans-pro"),
        ]
    )
    assert promotions("preferans") == wanted_promotions
    ann_rating = PlayerRating.objects.get(player=ann)
    assert (ann_rating.rating, ann_rating.peak_rating, ann_rating.league.slug) == (1004, 1008, "preferans-pro")

    # Replay: voiding the earlier game recomputes both games, to the same hand numbers.
    match_void(match_id=earlier.pk, by=admin_user)
    rate("preferans")
    assert not RatingChange.objects.filter(match=earlier).exists()
    assert ledger("preferans", [ann, bob]) == expected
    assert promotions("preferans") == wanted_promotions


def test_preferans_mid_game_promotion_and_floor_through_http(
    referee_client, anon_client, django_capture_on_commit_callbacks
):
    set_rules("preferans", threshold=1005, floor=1004)
    ann, bob = PlayerFactory.create_batch(2)
    seats = [{"player": ann.pk}, {"player": bob.pk}]
    ids = []
    for hours, deals in ((1, PREFERANS_GAME_1), (2, PREFERANS_GAME_2)):
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", preferans_body(seats, deals, hours), format="json")
        assert response.status_code == 201, response.json()
        ids.append(response.json()["id"])
    assert [anon_client.get(f"/api/matches/{pk}/").json()["status"] for pk in ids] == ["rated", "rated"]
    expected = preferans_expected(ann.pk, bob.pk, *ids)
    for player in (ann, bob):
        history = anon_client.get(f"/api/players/{player.pk}/history/?game=preferans").json()["results"]
        assert [(row["match"], row["unit"], row["rating_before"], row["rating_after"]) for row in history] == [
            (match, unit, float(before), float(after))
            for match, unit, who, before, after, _ in expected
            if who == player.pk
        ]
    profile = anon_client.get(f"/api/players/{ann.pk}/").json()
    assert [(r["game"], r["league"], r["rating"], r["peak_rating"]) for r in profile["ratings"]] == [
        ("preferans", "preferans-pro", 1004, 1008)
    ]


# --- Promotion and floor: Slaps ------------------------------------------------------------


def slaps_expected(ann, bob, matches) -> list[tuple]:
    """Slaps (seed 000): promote at 1016, pro floor raised to 1020, K 32 (fewer than 32 matches).

    Match 1, Ann beats Bob: E = 0.5, Ann 1000 + 32 * 0.5 = 1016 >= 1016: promoted at this
        match, below the pro floor 1020 (not lifted to it). Bob 1000 - 16 = 984.
    Match 2, Bob beats Ann: E_Ann = 1 / (1 + 10^((984 - 1016)/400)) = 0.545922,
        Ann 1016 - 32 * 0.545922 = 998.53 -> 999 < 1020, and 1016 is already below the
        floor: max(999, min(1016, 1020)) = 1016 (stays). Bob 984 + 32 * 0.545922 = 1001.47 -> 1001.
    Match 3, Ann beats Bob: E_Ann = 1 / (1 + 10^((1001 - 1016)/400)) = 0.521573,
        Ann 1016 + 32 * 0.478427 = 1031.31 -> 1031 (gains normally). Bob 1001 - 15.31 = 985.69 -> 986.
    """
    m1, m2, m3 = matches
    return [
        (m1, 0, ann, 1000, 1016, "slaps-pro"),
        (m1, 0, bob, 1000, 984, "slaps-amateur"),
        (m2, 0, ann, 1016, 1016, "slaps-pro"),
        (m2, 0, bob, 984, 1001, "slaps-amateur"),
        (m3, 0, ann, 1016, 1031, "slaps-pro"),
        (m3, 0, bob, 1001, 986, "slaps-amateur"),
    ]


def test_slaps_promotion_at_the_match_and_a_raised_floor_at_service_level(referee):
    set_rules("slaps", threshold=1016, floor=1020)
    ann, bob = PlayerFactory.create_batch(2)
    matches = []
    for hours, winner in ((1, ann), (2, bob), (3, ann)):
        body = {"game": "slaps", "played_at": at(hours), "players": [ann.pk, bob.pk], "winner": winner.pk}
        matches.append(match_submit(referee=referee, data=body).pk)
        rate("slaps")
    assert ledger("slaps") == slaps_expected(ann.pk, bob.pk, matches)
    assert promotions("slaps") == [(ann.pk, matches[0], 1016, "slaps-pro")]
    assert RatingChange.objects.get(match_id=matches[1], player=ann).details["floor_applied"] is True


def test_slaps_raised_floor_through_http(referee_client, anon_client, django_capture_on_commit_callbacks):
    set_rules("slaps", threshold=1016, floor=1020)
    ann, bob = PlayerFactory.create_batch(2)
    matches = []
    for hours, winner in ((1, ann), (2, bob), (3, ann)):
        body = {"game": "slaps", "played_at": at(hours), "players": [ann.pk, bob.pk], "winner": winner.pk}
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.json()
        matches.append(response.json()["id"])
    history = anon_client.get(f"/api/players/{ann.pk}/history/?game=slaps").json()["results"]
    assert [(row["match"], row["rating_before"], row["rating_after"]) for row in history] == [
        (matches[0], 1000, 1016),
        (matches[1], 1016, 1016),
        (matches[2], 1016, 1031),
    ]
    profile = anon_client.get(f"/api/players/{ann.pk}/").json()
    assert [(r["league"], r["rating"]) for r in profile["ratings"]] == [("slaps-pro", 1031)]


# --- Promotion and floor: bridge -----------------------------------------------------------


def bridge_imps_body(ns, ew, imps_per_board, hours) -> dict:
    boards = [
        {"number": number, "tables": [{"ns": list(ns), "ew": list(ew), "ns_imps": imps}]}
        for number, imps in enumerate(imps_per_board, start=1)
    ]
    return {"game": "bridge", "played_at": at(hours), "boards": boards}


@pytest.mark.parametrize("via", ["service", "http"])
def test_bridge_mid_session_promotion(via, referee, referee_client, anon_client, django_capture_on_commit_callbacks):
    """Promote at 1020, pro floor 1015; (a, b) NS against (c, d) EW, all 1000, strangers.

    Board 1, NS +10 IMPs: K = 24 * (11 + 10/3)/8 = 43, E = 0.5, S = 1:
        a, b = 1000 + 21.5 = 1021.50 >= 1020: promoted at board 1; c, d = 978.50.
    Board 2, NS -10 IMPs: both pairs have 1 deal together (the bonus 0.497508 cancels);
        E_NS = 1 / (1 + 10^((978.5 - 1021.5)/400)) = 0.561568, S = 0, K = 43:
        a, b = 1021.5 - 24.147421 = 997.35 < 1015: pro since board 1, stopped at 1015.00.
        c, d = 978.5 + 43 * 0.438432 = 1002.65.
    """
    set_rules("bridge", threshold=1020, floor=1015)
    a, b, c, e = PlayerFactory.create_batch(4)
    body = bridge_imps_body((a.pk, b.pk), (c.pk, e.pk), [10, -10], 1)
    if via == "service":
        match_id = match_submit(referee=referee, data=body).pk
        rate("bridge")
    else:
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.json()
        match_id = response.json()["id"]
    amateur, pro = "bridge-amateur", "bridge-pro"
    expected = [
        (match_id, 0, a.pk, d(1000), d("1021.5"), pro),
        (match_id, 0, b.pk, d(1000), d("1021.5"), pro),
        (match_id, 0, c.pk, d(1000), d("978.5"), amateur),
        (match_id, 0, e.pk, d(1000), d("978.5"), amateur),
        (match_id, 1, a.pk, d("1021.5"), d(1015), pro),
        (match_id, 1, b.pk, d("1021.5"), d(1015), pro),
        (match_id, 1, c.pk, d("978.5"), d("1002.65"), amateur),
        (match_id, 1, e.pk, d("978.5"), d("1002.65"), amateur),
    ]
    assert ledger("bridge") == sorted(expected, key=lambda row: (row[1], row[2]))
    assert promotions("bridge") == sorted([(a.pk, match_id, d("1021.5"), pro), (b.pk, match_id, d("1021.5"), pro)])
    history = anon_client.get(f"/api/players/{a.pk}/history/?game=bridge").json()["results"]
    assert [(row["unit"], row["rating_after"]) for row in history] == [(0, 1021.5), (1, 1015.0)]
    assert anon_client.get(f"/api/players/{a.pk}/").json()["ratings"][0]["league"] == pro


# --- Bots as played ------------------------------------------------------------------------


def golden_bots() -> tuple[Bot, Bot]:
    preferans = Game.objects.get(slug="preferans")
    low = Bot.objects.create(game=preferans, slug="low", name="Low bot", rating=900, max_rating=1004)
    mid = Bot.objects.create(game=preferans, slug="mid", name="Mid bot", rating=1000, max_rating=1010)
    return low, mid


GOLDEN_DEALS = [[6, -2, -2, -2], [-12, 4, 4, 4], [30, -10, -10, -10]]


def golden_preferans_expected(ann, bob, match) -> list[tuple]:
    """Golden case: Ann, Bob (both 1000, amateurs), the Low bot (900, maximum 1004) and the
    Mid bot (1000, maximum 1010). Promotion at 1003, pro floor 1002. The bot cap is the
    highest maximum at the table: max(1004, 1010) = 1010. Rt = (3*Rr1 + 2*Rr2 + Rr3)/6.

    Deal 1 [6, -2, -2, -2]:
        Ann: opponents 1000 (Bob), 1000 (Mid), 900 (Low): Rt = (3000 + 2000 + 900)/6
            = 983.333333, gap 16.666667 > 0: Kv = 60 + 16.666667/6 = 62.777778,
            Vf = 16.666667/62.777778 = 0.265487, Kd = 2 / (1 + log10 1.166667) = 1.874508,
            Rd = 1.874508 * sqrt(6 - 0.265487) = 4.488854 -> 1004.49 (under the cap 1010;
            a cap of min(1004, 1010) would give 1004.00) >= 1003: promoted at deal 1.
        Bob: the same Rt, Kv, Vf and Kd; Rd = -1.874508 * sqrt(2.265487) = -2.821422 -> 997.18.
    Deal 2 [-12, 4, 4, 4]:
        Ann: opponents 1000, 997.18, 900: Rt = (3000 + 1994.36 + 900)/6 = 982.393333,
            gap 22.096667: Kv = 63.682778, Vf = 0.346980, Kd = 1.840428,
            Rd = -1.840428 * sqrt(12.346980) = -6.466945 -> 998.02 < 1002: pro since
            deal 1, stopped at 1002.00.
        Bob: opponents 1004.49, 1000, 900: Rt = (3013.47 + 2000 + 900)/6 = 985.578333,
            gap 11.601667: Kv = 61.933611, Vf = 0.187324, Kd = 1.908997,
            Rd = 1.908997 * sqrt(3.812676) = 3.727521 -> 1000.91.
    Deal 3 [30, -10, -10, -10]:
        Ann: opponents 1000.91, 1000, 900: Rt = 983.788333, gap 18.211667: Kv = 63.035278,
            Vf = 0.288912, Kd = 1.864523, Rd = 1.864523 * sqrt(29.711088) = 10.163120
            -> 1012.16 > 1010: the bot cap holds her at 1010.00.
        Bob: opponents 1002, 1000, 900: Rt = 984.333333, gap 16.576667: Kv = 62.762778,
            Vf = 0.264116, Kd = 1.875097, Rd = -1.875097 * sqrt(10.264116) = -6.007371 -> 994.90.
    """
    pro, amateur = "preferans-pro", "preferans-amateur"
    return [
        (match, 0, ann, d(1000), d("1004.49"), pro),
        (match, 0, bob, d(1000), d("997.18"), amateur),
        (match, 1, ann, d("1004.49"), d(1002), pro),
        (match, 1, bob, d("997.18"), d("1000.91"), amateur),
        (match, 2, ann, d(1002), d(1010), pro),
        (match, 2, bob, d("1000.91"), d("994.9"), amateur),
    ]


def test_golden_preferans_game_with_two_bots_and_a_mid_game_promotion(referee):
    set_rules("preferans", threshold=1003, floor=1002)
    golden_bots()
    ann, bob = PlayerFactory.create_batch(2)
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "low"}, {"bot": "mid"}]
    match = match_submit(referee=referee, data=preferans_body(seats, GOLDEN_DEALS, 1))
    rate("preferans")
    assert ledger("preferans") == golden_preferans_expected(ann.pk, bob.pk, match.pk)
    assert promotions("preferans") == [(ann.pk, match.pk, d("1004.49"), "preferans-pro")]
    details = {row.unit: row.details for row in RatingChange.objects.filter(player=ann)}
    assert (details[1]["floor_applied"], details[2]["bot_cap"]) == (True, 1010.0)


def test_editing_a_bot_changes_future_games_only(referee, admin_user):
    """The golden game is rated with the bots as played. Then an admin makes both bots
    much stronger (Low 1500 / maximum 1600, Mid 1700 / maximum 1800), and two results
    force replays over the golden game: a late game of two other players played before it,
    and the void of that late game. The golden rows stay the hand numbers of
    ``golden_preferans_expected`` (with the new values Ann's deal-1 Rt would be
    (3*1700 + 2*1500 + 1000)/6 = 1516.67 and every number would move).
    """
    set_rules("preferans", threshold=1003, floor=1002)
    low, mid = golden_bots()
    ann, bob, cid, dan = PlayerFactory.create_batch(4)
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "low"}, {"bot": "mid"}]
    golden = match_submit(referee=referee, data=preferans_body(seats, GOLDEN_DEALS, 5))
    rate("preferans")
    expected = golden_preferans_expected(ann.pk, bob.pk, golden.pk)
    assert ledger("preferans", [ann, bob]) == expected

    low.rating, low.max_rating = 1500, 1600
    low.save()
    mid.rating, mid.max_rating = 1700, 1800
    mid.save()
    late = match_submit(referee=referee, data=preferans_body([{"player": cid.pk}, {"player": dan.pk}], [[1, -1]], 1))
    rate("preferans")
    assert Match.objects.get(pk=late.pk).status == Match.Status.RATED
    assert ledger("preferans", [ann, bob]) == expected
    match_void(match_id=late.pk, by=admin_user)
    rate("preferans")
    assert ledger("preferans", [ann, bob]) == expected

    # The golden seats keep the values played; a new game seats the bots as they are now.
    assert sorted(
        Seat.objects.filter(match=golden, bot__isnull=False).values_list("bot__slug", "bot_rating", "bot_max_rating")
    ) == [("low", 900, 1004), ("mid", 1000, 1010)]
    later = match_submit(referee=referee, data=preferans_body([{"player": cid.pk}, {"bot": "mid"}], [[1, -1]], 9))
    assert Seat.objects.get(match=later, bot=mid).bot_rating == 1700


def test_a_correction_keeps_the_bots_as_played(referee, admin_user):
    """An admin makes both bots much stronger, then corrects the golden game's time (hour 5
    to hour 6, nothing else). The corrected game was still played against the bots as they
    were: its seats keep 900/1004 and 1000/1010 and its rows stay the hand numbers of
    ``golden_preferans_expected``, not a game against the edited bots.
    """
    set_rules("preferans", threshold=1003, floor=1002)
    low, mid = golden_bots()
    ann, bob = PlayerFactory.create_batch(2)
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "low"}, {"bot": "mid"}]
    golden = match_submit(referee=referee, data=preferans_body(seats, GOLDEN_DEALS, 5))
    rate("preferans")
    low.rating, low.max_rating = 1500, 1600
    low.save()
    mid.rating, mid.max_rating = 1700, 1800
    mid.save()

    match_correct(match_id=golden.pk, by=admin_user, data=preferans_body(seats, GOLDEN_DEALS, 6))
    rate("preferans")

    assert Match.objects.get(pk=golden.pk).played_at == timezone.datetime.fromisoformat(at(6))
    assert sorted(
        Seat.objects.filter(match=golden, bot__isnull=False).values_list("bot__slug", "bot_rating", "bot_max_rating")
    ) == [("low", 900, 1004), ("mid", 1000, 1010)]
    assert ledger("preferans", [ann, bob]) == golden_preferans_expected(ann.pk, bob.pk, golden.pk)


def test_editing_a_bot_in_admin_changes_future_games_only_through_http(
    referee_client, admin_user, anon_client, client, django_capture_on_commit_callbacks
):
    """The same rule through the site: the golden game is posted to the API, an admin makes
    both bots much stronger on the bots' admin page, a late game of two other players is
    posted and voided through the API; each time the golden rows in the API's history stay
    the hand numbers of ``golden_preferans_expected``."""
    from rest_framework.test import APIClient

    set_rules("preferans", threshold=1003, floor=1002)
    low, mid = golden_bots()
    ann, bob, cid, dan = PlayerFactory.create_batch(4)
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "low"}, {"bot": "mid"}]

    def post(body) -> int:
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.json()
        return response.json()["id"]

    def history(player) -> list[tuple]:
        rows = anon_client.get(f"/api/players/{player.pk}/history/?game=preferans").json()["results"]
        return [(row["match"], row["unit"], row["rating_before"], row["rating_after"]) for row in rows]

    golden = post(preferans_body(seats, GOLDEN_DEALS, 5))
    expected = {
        who: [(match, unit, float(before), float(after)) for match, unit, p, before, after, _ in rows if p == who]
        for rows in [golden_preferans_expected(ann.pk, bob.pk, golden)]
        for who in (ann.pk, bob.pk)
    }
    assert (history(ann), history(bob)) == (expected[ann.pk], expected[bob.pk])

    client.force_login(admin_user)
    for bot, rating, maximum in ((low, 1500, 1600), (mid, 1700, 1800)):
        response = client.post(
            f"/admin/leagues/bot/{bot.pk}/change/",
            {"game": bot.game_id, "slug": bot.slug, "name": bot.name, "rating": rating, "max_rating": maximum,
             "active": "on"},
        )  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:500]
    assert sorted(Bot.objects.filter(pk__in=[low.pk, mid.pk]).values_list("rating", "max_rating")) == [
        (1500, 1600),
        (1700, 1800),
    ]

    late = post(preferans_body([{"player": cid.pk}, {"player": dan.pk}], [[1, -1]], 1))
    assert (history(ann), history(bob)) == (expected[ann.pk], expected[bob.pk])
    admin_api = APIClient()
    admin_api.force_authenticate(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_api.post(f"/api/matches/{late}/void/").status_code == 200
    assert (history(ann), history(bob)) == (expected[ann.pk], expected[bob.pk])
    bots = [seat for seat in anon_client.get(f"/api/matches/{golden}/").json()["seats"] if seat["bot"]]
    assert [(seat["bot"], seat["bot_rating"], seat["bot_max_rating"]) for seat in bots] == [
        ("low", 900, 1004),
        ("mid", 1000, 1010),
    ]


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"bot_rating": None, "bot_max_rating": None}, "a bot seat without the bot as played"),
        ({"bot_rating": 900, "bot_max_rating": None}, "a bot seat without the maximum"),
        ({"bot_rating": 1000, "bot_max_rating": 900}, "a maximum below the rating"),
        ({"bot_rating": 0, "bot_max_rating": 900}, "a rating that is not positive"),
    ],
)
def test_the_database_refuses_a_bot_seat_without_its_values(referee, fields, why):
    ann = PlayerFactory()
    match = match_submit(referee=referee, data=preferans_body([{"player": ann.pk}, {"bot": "easy"}], [[1, -1]], 1))
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(match=match, bot__isnull=False).update(**fields)
    assert Seat.objects.get(match=match, bot__isnull=False).bot_rating == 1200, why


def test_the_database_refuses_a_player_seat_with_bot_values(referee):
    ann = PlayerFactory()
    match = match_submit(referee=referee, data=preferans_body([{"player": ann.pk}, {"bot": "easy"}], [[1, -1]], 1))
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(match=match, player=ann).update(bot_rating=1200, bot_max_rating=1600)
    assert Seat.objects.get(match=match, player=ann).bot_rating is None


def test_the_match_page_and_api_show_the_bot_as_played(referee, anon_client, client):
    ann = PlayerFactory()
    match = match_submit(referee=referee, data=preferans_body([{"player": ann.pk}, {"bot": "easy"}], [[1, -1]], 1))
    Bot.objects.filter(slug="easy").update(rating=1300, max_rating=1700)
    seats = anon_client.get(f"/api/matches/{match.pk}/").json()["seats"]
    assert [seat["bot"] for seat in seats] == [None, "easy"]
    page = client.get(match.get_absolute_url()).content.decode()
    assert "bot, 1200" in page
    assert "bot, 1300" not in page


# --- Golden case: a three-table bridge board -----------------------------------------------


def test_golden_three_table_bridge_board_with_a_regular_partnership(referee):
    """Before: (p1, p2) play two boards together against (q1, q2), one table in IMPs, 0 IMPs
    each: S = E = 0.5, nobody moves, and (p1, p2) have 2 deals together.

    The golden board (nobody else has played together; everyone is at 1000):
        table 1: NS (p1, p2)  EW (c1, c2)  NS +420
        table 2: NS (d1, d2)  EW (e1, e2)  NS -50
        table 3: NS (f1, f2)  EW (g1, g2)  NS +170
    Pair ratings: (p1, p2) = 1000 + 50 * (1 - e^(-2/100)) = 1000.990066, every other 1000.
    Duels (every pair of tables; side A = NS(t) and EW(u), side B = NS(u) and EW(t)):
        1-2: A {p, e} = (1000.990066 + 1000)/2 = 1000.495033, B {d, c} = 1000;
             IMPs(420 - -50 = 470) = +10: K = 24 * (11 + 10/3)/8 = 43, S_A = 1;
             E_A = 1 / (1 + 10^(-0.495033/400)) = 0.500712: A +21.469366, B -21.469366.
        1-3: A {p, g} = 1000.495033, B {f, c} = 1000; IMPs(250) = +6: 2 goals, K = 1.5 * 24 = 36,
             S_A = 1, E_A = 0.500712: A +17.974353, B -17.974353.
        2-3: A {d, g} = 1000, B {f, e} = 1000; IMPs(-220) = -6: K = 36, S_A = 0, E = 0.5:
             A -18, B +18.
    A player's change is the mean over their duels, rounded to cents:
        p1, p2: (21.469366 + 17.974353)/2 = 19.721860 -> 1019.72
        c1, c2: -19.721860 -> 980.28
        e1, e2: (21.469366 + 18)/2 = 19.734683 -> 1019.73
        d1, d2: -19.734683 -> 980.27
        g1, g2: (17.974353 - 18)/2 = -0.012823 -> 999.99
        f1, f2: +0.012823 -> 1000.01
    Without the partnership bonus c and d (and e and p, f and g) would be equal.
    """
    people = PlayerFactory.create_batch(16)
    p1, p2, q1, q2, c1, c2, d1, d2, e1, e2, f1, f2, g1, g2 = (player.pk for player in people[:14])
    before = match_submit(referee=referee, data=bridge_imps_body((p1, p2), (q1, q2), [0, 0], 1))
    board = {
        "number": 1,
        "tables": [
            {"ns": [p1, p2], "ew": [c1, c2], "ns_score": 420},
            {"ns": [d1, d2], "ew": [e1, e2], "ns_score": -50},
            {"ns": [f1, f2], "ew": [g1, g2], "ns_score": 170},
        ],
    }
    golden = match_submit(referee=referee, data={"game": "bridge", "played_at": at(2), "boards": [board]})
    rate("bridge")
    assert {(row[2], row[4]) for row in ledger("bridge") if row[0] == before.pk} == {
        (player, d(1000)) for player in (p1, p2, q1, q2)
    }
    after = {
        p1: "1019.72", p2: "1019.72", c1: "980.28", c2: "980.28", e1: "1019.73", e2: "1019.73",
        d1: "980.27", d2: "980.27", g1: "999.99", g2: "999.99", f1: "1000.01", f2: "1000.01",
    }  # fmt: skip
    assert sorted(row[1:] for row in ledger("bridge") if row[0] == golden.pk) == sorted(
        (0, player, d(1000), d(value), "bridge-amateur") for player, value in after.items()
    )


# --- Rating periods across daylight saving -------------------------------------------------

ZONES = ["Europe/Berlin", "America/New_York", "UTC"]
UTC = datetime.UTC


def league(days: int, anchor: datetime.date) -> League:
    return League(rating_period_days=days, rating_period_anchor=anchor)


@pytest.mark.parametrize(
    ("zone", "local", "start", "end"),
    [
        # The case: 00:30 CEST on 03-30 is in the period that starts at local midnight 03-30.
        ("Europe/Berlin", (2026, 3, 30, 0, 30), (2026, 3, 29, 22, 0), (2026, 4, 5, 22, 0)),
        # Just before that midnight, still the first period (which began in winter time).
        ("Europe/Berlin", (2026, 3, 29, 23, 59), (2026, 3, 22, 23, 0), (2026, 3, 29, 22, 0)),
        # Autumn: the period holding the change (10-25 03:00 CEST -> 02:00 CET) is 169 hours long.
        ("Europe/Berlin", (2026, 10, 26, 0, 30), (2026, 10, 25, 23, 0), (2026, 11, 1, 23, 0)),
        ("Europe/Berlin", (2026, 10, 25, 23, 30), (2026, 10, 18, 22, 0), (2026, 10, 25, 23, 0)),
        # New York: DST starts 03-08, ends 11-01; periods anchored 2026-03-23 (a Monday).
        ("America/New_York", (2026, 3, 9, 0, 30), (2026, 3, 9, 4, 0), (2026, 3, 16, 4, 0)),
        ("America/New_York", (2026, 3, 8, 23, 59), (2026, 3, 2, 5, 0), (2026, 3, 9, 4, 0)),
        ("America/New_York", (2026, 11, 2, 0, 15), (2026, 11, 2, 5, 0), (2026, 11, 9, 5, 0)),
        ("America/New_York", (2026, 11, 1, 23, 45), (2026, 10, 26, 4, 0), (2026, 11, 2, 5, 0)),
        ("UTC", (2026, 3, 30, 0, 30), (2026, 3, 30, 0, 0), (2026, 4, 6, 0, 0)),
    ],
)
def test_period_bounds_follow_the_local_calendar(zone, local, start, end):
    """7-day periods anchored 2026-03-23, local midnight to local midnight; bounds given in UTC by hand
    (CET = UTC+1, CEST = UTC+2, EST = UTC-5, EDT = UTC-4).

    Before the fix a UTC moment was placed by elapsed time since the anchor, so the
    issue's 03-30 00:30 CEST (22:30 UTC, 6 days 23.5 hours after 03-23 00:00 CET) fell
    into the period ending 03-30 00:00 CEST.
    """
    moment = datetime.datetime(*local, tzinfo=zoneinfo.ZoneInfo(zone))
    # The database hands times back in UTC; a caller may hold them in the local zone.
    for handed in (moment.astimezone(UTC), moment):
        with override_settings(TIME_ZONE=zone):
            bounds = league(7, datetime.date(2026, 3, 23)).period_bounds(handed)
        assert bounds == (datetime.datetime(*start, tzinfo=UTC), datetime.datetime(*end, tzinfo=UTC))
        assert bounds[0] <= moment < bounds[1]


@pytest.mark.parametrize("zone", ZONES)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    moment=st.datetimes(
        min_value=datetime.datetime(2025, 1, 1), max_value=datetime.datetime(2028, 12, 31), timezones=st.just(UTC)
    ),
    days=st.integers(min_value=1, max_value=30),
    anchor=st.dates(min_value=datetime.date(2024, 1, 1), max_value=datetime.date(2029, 12, 31)),
)
def test_every_moment_is_inside_its_period_and_periods_tile(zone, moment, days, anchor):
    """start <= moment < end; the next period starts where this one ends, the previous one
    ends where this one starts; every start is a local midnight of anchor + k * days."""
    tz = zoneinfo.ZoneInfo(zone)
    with override_settings(TIME_ZONE=zone):
        rules = league(days, anchor)
        start, end = rules.period_bounds(moment)
        assert start <= moment < end
        assert rules.period_bounds(end)[0] == end
        assert rules.period_bounds(start - timedelta(microseconds=1))[1] == start
    for bound in (start, end):
        local = bound.astimezone(tz)
        assert (local.hour, local.minute) == (0, 0)
        assert (local.date() - anchor).days % days == 0
    assert timedelta(days=days) - timedelta(hours=1) <= end - start <= timedelta(days=days) + timedelta(hours=1)


@override_settings(TIME_ZONE="Europe/Berlin")
def test_a_result_after_the_spring_change_is_rated_with_its_period(referee):
    """Europe/Berlin, bridge amateur league with 7-day periods anchored 2026-03-23.

    Session A at 2026-03-29 23:30 CEST (21:30 UTC) is in the period 03-23 .. 03-30.
    Sessions B at 2026-03-30 00:30 CEST (22:30 UTC, the issue's moment) and C at 04-01
    12:00 CEST are both in the period 03-30 00:00 CEST (03-29 22:00 UTC) .. 04-06 00:00
    CEST (04-05 22:00 UTC), so both are rated from the ratings at that period's start,
    i.e. after A. One table in IMPs, (a, b) NS against (c, e) EW, strangers, all 1000:
        A, NS +2 IMPs: K = 24 (2/3 of a goal), E = 0.5, S = 1: a, b 1012.00; c, e 988.00.
        B, NS +2 IMPs, from the period's start (a 1012, c 988; (a, b) and (c, e) both have
            1 deal together, the bonus cancels): E_NS = 1 / (1 + 10^(-24/400)) = 0.534484,
            delta = 24 * (1 - 0.534484) = 11.172384 -> a 1023.17, c 976.83.
        C, NS +2 IMPs, also from the period's start (E and K as for B; the pairs now have
            2 deals each, the bonus still cancels): the delta on the period's rating is
            1023.17 - 1012 = +11.17, added to the current rating: a 1023.17 + 11.17 = 1034.34,
            c 976.83 - 11.17 = 965.66.
    """
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=7, rating_period_anchor=datetime.date(2026, 3, 23)
    )
    a, b, c, e = PlayerFactory.create_batch(4)
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    times = [
        datetime.datetime(2026, 3, 29, 23, 30, tzinfo=berlin),
        datetime.datetime(2026, 3, 30, 0, 30, tzinfo=berlin),
        datetime.datetime(2026, 4, 1, 12, 0, tzinfo=berlin),
    ]
    matches = []
    for moment in times:
        body = bridge_imps_body((a.pk, b.pk), (c.pk, e.pk), [2], 0)
        body["played_at"] = moment.isoformat()
        matches.append(match_submit(referee=referee, data=body))
    assert [match.due_at for match in matches] == [
        datetime.datetime(2026, 3, 29, 22, 0, tzinfo=UTC),
        datetime.datetime(2026, 4, 5, 22, 0, tzinfo=UTC),
        datetime.datetime(2026, 4, 5, 22, 0, tzinfo=UTC),
    ]
    rate("bridge")
    rows = {row.match_id: row for row in RatingChange.objects.filter(player=a)}
    assert [rows[m.pk].details["period_start"] for m in matches] == [
        "2026-03-22T23:00:00+00:00",
        "2026-03-29T22:00:00+00:00",
        "2026-03-29T22:00:00+00:00",
    ]
    assert [rows[m.pk].details["period_rating"] for m in matches] == [1000.0, 1012.0, 1012.0]
    assert [(rows[m.pk].rating_before, rows[m.pk].rating_after) for m in matches] == [
        (d(1000), d(1012)),
        (d(1012), d("1023.17")),
        (d("1023.17"), d("1034.34")),
    ]
    assert PlayerRating.objects.get(player=c).rating == d("965.66")


@override_settings(TIME_ZONE="Europe/Berlin")
def test_a_result_after_the_spring_change_through_http(referee_client, anon_client, django_capture_on_commit_callbacks):
    """The sessions of the test above, posted to the API: each answer says when its period
    closes (``rated_after``: 03-30 00:00 CEST = 03-29 22:00 UTC for A, 04-06 00:00 CEST =
    04-05 22:00 UTC for B and C, the issue's 00:30 CEST result among them), and the API's
    history of a shows the same hand numbers: 1012.00, 1023.17, 1034.34."""
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=7, rating_period_anchor=datetime.date(2026, 3, 23)
    )
    a, b, c, e = PlayerFactory.create_batch(4)
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    answers = []
    for moment in (
        datetime.datetime(2026, 3, 29, 23, 30, tzinfo=berlin),
        datetime.datetime(2026, 3, 30, 0, 30, tzinfo=berlin),
        datetime.datetime(2026, 4, 1, 12, 0, tzinfo=berlin),
    ):
        body = bridge_imps_body((a.pk, b.pk), (c.pk, e.pk), [2], 0)
        body["played_at"] = moment.isoformat()
        with django_capture_on_commit_callbacks(execute=True):
            response = referee_client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.json()
        answers.append(response.json())
    assert [answer["rated_after"] for answer in answers] == [
        "2026-03-29T22:00:00Z",
        "2026-04-05T22:00:00Z",
        "2026-04-05T22:00:00Z",
    ]
    assert [anon_client.get(f"/api/matches/{answer['id']}/").json()["status"] for answer in answers] == ["rated"] * 3
    history = anon_client.get(f"/api/players/{a.pk}/history/?game=bridge").json()["results"]
    assert [(row["match"], row["rating_before"], row["rating_after"]) for row in history] == [
        (answers[0]["id"], 1000, 1012),
        (answers[1]["id"], 1012, 1023.17),
        (answers[2]["id"], 1023.17, 1034.34),
    ]


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_bot_seats_the_bot_as_it_is(reference_data):
    """Seats stored before 0011 take their bot's current rating and maximum (what their
    ratings were computed with); player seats get neither."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    # Players as they were then, too: without the search key (leagues 0019), which old code never wrote.
    before = [("matches", "0010_results_version"), ("leagues", "0018_translatable_labels")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        game = old.get_model("leagues", "Game").objects.get(slug="preferans")
        bot = old.get_model("leagues", "Bot").objects.get(game=game, slug="normal")
        player = old.get_model("leagues", "Player").objects.create(name="Before the migration")
        match = old.get_model("matches", "Match").objects.create(
            game=game, played_at=T0, rated=True, status="submitted"
        )
        seat = old.get_model("matches", "Seat")
        seat.objects.create(match=match, position=1, player=player, result=1)
        seat.objects.create(match=match, position=2, bot=bot, result=-1)
    finally:
        executor = MigrationExecutor(connection)  # A fresh loader: it knows what is applied now.
        executor.migrate(executor.loader.graph.leaf_nodes())
    rows = Seat.objects.filter(match_id=match.pk).order_by("position")
    assert [(s.bot_rating, s.bot_max_rating) for s in rows] == [(None, None), (1800, 2400)]


def test_in_a_rating_period_a_floor_stops_a_fall_and_never_lifts(referee):
    """Bridge amateur league with 7-day periods from 2026-03-23 (UTC); promotion at 1010,
    pro floor 1015. (a, b) NS against (c, e) EW, one table in IMPs, strangers, all 1000.

    Session A (period 1), NS +2 IMPs: K = 24, E = 0.5, S = 1: a, b 1012.00 >= 1010:
        promoted at it, and below the pro floor 1015 (not lifted to it); c, e 988.00.
    Session B (period 2), NS -2 IMPs, from the period's start (a 1012, c 988; the bonus
        cancels): E_NS = 1 / (1 + 10^(-24/400)) = 0.534484, S = 0:
        a's delta = 24 * (0 - 0.534484) = -12.827616 -> 999.17 on the period's rating,
        -12.83 added: 999.17 < 1015 and 1012 is below the floor already:
        max(999.17, min(1012, 1015)) = 1012.00 (the old rule lifted a to 1015).
        c, e: 988 + 12.83 = 1000.83.
    """
    set_rules("bridge", threshold=1010, floor=1015)
    League.objects.filter(slug="bridge-amateur").update(
        rating_period_days=7, rating_period_anchor=datetime.date(2026, 3, 23)
    )
    a, b, c, e = PlayerFactory.create_batch(4)
    matches = []
    for moment, imps in (
        (datetime.datetime(2026, 3, 24, 18, tzinfo=UTC), 2),
        (datetime.datetime(2026, 4, 1, 18, tzinfo=UTC), -2),
    ):
        body = bridge_imps_body((a.pk, b.pk), (c.pk, e.pk), [imps], 0)
        body["played_at"] = moment.isoformat()
        matches.append(match_submit(referee=referee, data=body).pk)
    rate("bridge")
    first, second = matches
    assert ledger("bridge", [a, c]) == [
        (first, 0, a.pk, d(1000), d(1012), "bridge-pro"),
        (first, 0, c.pk, d(1000), d(988), "bridge-amateur"),
        (second, 0, a.pk, d(1012), d(1012), "bridge-pro"),
        (second, 0, c.pk, d(988), d("1000.83"), "bridge-amateur"),
    ]
    assert promotions("bridge") == sorted([(a.pk, first, d(1012), "bridge-pro"), (b.pk, first, d(1012), "bridge-pro")])
