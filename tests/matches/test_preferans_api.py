"""Preferans through the API: games of deals, bots, hostile input, calculator."""

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import timezone

from games.preferans.models import Deal
from leagues.models import Bot, Game
from matches.models import Match, Seat
from ratings.models import PlayerRating, RatingChange
from tests.factories import PlayerFactory
from tests.oracle import rules
from tests.oracle_db import assert_ledger_is_the_oracles, oracle_outcome_from_db

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(hours=2)).isoformat()


def body(seats, deals, **overrides):
    data = {"game": "preferans", "played_at": PLAYED, "seats": seats, "deals": deals}
    data.update(overrides)
    return data


def submit(client, data, callbacks):
    with callbacks(execute=True):
        return client.post("/api/matches/", data, format="json")


def test_a_game_of_deals_equals_the_oracle(referee_client, django_capture_on_commit_callbacks):
    """Every deal's ledger row is the independent oracle's (tests/oracle), not the engine's own ``rate``."""
    ann, bob = PlayerFactory(), PlayerFactory()
    deals = [[4, -2, -2], [-6, 3, 3], [10.5, -5.25, -5.25], [0, 0, 0]]
    seats = [{"player": ann.pk}, {"player": bob.pk}, {"bot": "normal"}]
    response = submit(referee_client, body(seats, deals), django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.json()
    detail = referee_client.get(f"/api/matches/{response.json()['id']}/").json()
    assert detail["status"] == "rated"
    assert detail["deals"] == deals
    assert [seat["bot"] for seat in detail["seats"]] == [None, None, "normal"]
    assert [seat["result"] for seat in detail["seats"]] == [8.5, -4.25, -4.25]

    preferans = Game.objects.get(slug="preferans")
    assert assert_ledger_is_the_oracles(game=preferans) == 8  # 4 deals x 2 players (the bot is never rated)
    outcome = oracle_outcome_from_db(game=preferans)
    # The match shows one row per player with the game's total: the oracle's last deal, from 1000.
    totals = {row["player"]: row for row in detail["rating_changes"]}
    assert set(totals) == {ann.pk, bob.pk}
    last_ann = outcome.standings[ann.pk].rating
    assert totals[ann.pk]["rating_before"] == 1000
    assert Fraction(str(totals[ann.pk]["rating_after"])) == last_ann
    assert Fraction(str(totals[ann.pk]["delta"])) == last_ann - 1000
    # History has a row per deal.
    history = referee_client.get(f"/api/players/{ann.pk}/history/?game=preferans").json()["results"]
    assert [row["unit"] for row in history] == [0, 1, 2, 3]
    assert {"table_rating", "kv", "expected_whists", "kd"} <= set(history[0]["details"])
    assert PlayerRating.objects.get(player=ann).rated_matches == 1


def test_two_bots_cap_at_the_highest_maximum_equals_the_oracle(referee_client, django_capture_on_commit_callbacks):
    """Ann (1000) wins big against the easy bot (1200, max 1600) and the normal bot (1800, max 2400).

    The cap is the HIGHEST maximum at the table (PRODUCT.md, seed 001): 2400, so Ann may pass 1600.
    First deal, by hand: Rt = (2 * 1800 + 1200)/3 = 1600, Rs - Rt = -600: Kv = 60 + 600/22 = 87.27,
    Vf = -600/87.27 = -6.875, Kd = 2/(1 + log10 7) = 2/1.845098 = 1.083955,
    Rd = 1.083955 * sqrt(10000 + 6.875) = 1.083955 * 100.034369 = 108.4328 -> 1108.43.
    The deals after are the oracle's (tests/oracle); they must take her past 1600, or the test could
    not tell the highest maximum from the lowest.
    """
    ann = PlayerFactory()
    deals = [[10000, -5000, -5000]] * 8
    seats = [{"player": ann.pk}, {"bot": "easy"}, {"bot": "normal"}]
    response = submit(referee_client, body(seats, deals), django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.json()
    first = RatingChange.objects.get(player=ann, unit=0)
    assert first.rating_after == Decimal("1108.43")
    preferans = Game.objects.get(slug="preferans")
    assert assert_ledger_is_the_oracles(game=preferans) == 8
    assert oracle_outcome_from_db(game=preferans).standings[ann.pk].rating > 1600


def test_four_seats_and_two_seats(referee_client, django_capture_on_commit_callbacks):
    players = PlayerFactory.create_batch(4)
    four = submit(
        referee_client,
        body([{"player": p.pk} for p in players], [[3, -1, -1, -1]]),
        django_capture_on_commit_callbacks,
    )
    assert four.status_code == 201
    two = submit(
        referee_client,
        body([{"player": players[0].pk}, {"bot": "easy"}], [[2, -2]]),
        django_capture_on_commit_callbacks,
    )
    assert two.status_code == 201
    assert RatingChange.objects.filter(match_id=two.json()["id"]).count() == 1  # the bot is never rated


def test_bot_cap_through_the_service(referee_client, django_capture_on_commit_callbacks, slaps):
    """Ann (1000) alone against a 1000 bot whose maximum is 1003, one deal of +40 whists.

    Rt = 1000 (one opponent), Rs - Rt = 0: Kv = 60, Vf = 0, Kd = 2 / (1 + log10 1) = 2,
    Rd = 2 * sqrt(40 - 0) = 12.65, so 1012.65 uncapped; the bot's maximum stops the gain at 1003.00.
    """
    Bot.objects.create(
        game=slaps.__class__.objects.get(slug="preferans"), slug="novice", name="Novice", rating=1000, max_rating=1003
    )
    ann = PlayerFactory()
    response = submit(
        referee_client, body([{"player": ann.pk}, {"bot": "novice"}], [[40, -40]]), django_capture_on_commit_callbacks
    )
    assert response.status_code == 201
    assert PlayerRating.objects.get(player=ann).rating == 1003
    assert RatingChange.objects.get(player=ann).details["bot_cap"] == 1003.0


def nothing_stored():
    return not (Match.objects.exists() or Seat.objects.exists() or Deal.objects.exists())


HOSTILE = [
    ("one seat", lambda p: body([{"player": p[0]}], [[0]]), "seats"),
    ("five seats", lambda p: body([{"player": x} for x in p[:5]], [[0, 0, 0, 0, 0]]), "seats"),
    ("same player twice", lambda p: body([{"player": p[0]}, {"player": p[0]}], [[1, -1]]), "seats"),
    ("unknown player", lambda p: body([{"player": p[0]}, {"player": 999999}], [[1, -1]]), "seats"),
    ("unknown bot", lambda p: body([{"player": p[0]}, {"bot": "grandmaster"}], [[1, -1]]), "seats"),
    ("bots only", lambda p: body([{"bot": "easy"}, {"bot": "normal"}], [[1, -1]]), "seats"),
    ("seat with both", lambda p: body([{"player": p[0], "bot": "easy"}, {"player": p[1]}], [[1, -1]]), "seats"),
    ("seat not an object", lambda p: body([p[0], p[1]], [[1, -1]]), "seats"),
    ("seats missing", lambda p: body(None, [[1, -1]]), "seats"),
    ("not zero-sum", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[1, -1], [2, -1]]), "deals"),
    ("wrong row length", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[1, -1, 0]]), "deals"),
    ("no deals", lambda p: body([{"player": p[0]}, {"player": p[1]}], []), "deals"),
    ("deal not a list", lambda p: body([{"player": p[0]}, {"player": p[1]}], ["1,-1"]), "deals"),
    ("three decimals", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[0.001, -0.001]]), "deals"),
    ("absurd whists", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[20000, -20000]]), "deals"),
    ("whists as words", lambda p: body([{"player": p[0]}, {"player": p[1]}], [["four", "minus four"]]), "deals"),
    ("boolean whists", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[True, -1]]), "deals"),
    ("NaN as text", lambda p: body([{"player": p[0]}, {"player": p[1]}], [["NaN", "NaN"]]), "deals"),
    ("too many deals", lambda p: body([{"player": p[0]}, {"player": p[1]}], [[0, 0]] * 501), "deals"),
]


@pytest.mark.parametrize(("case", "make_body", "field"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_bad_games_are_a_400_naming_the_field_and_store_nothing(referee_client, case, make_body, field):
    ids = [player.pk for player in PlayerFactory.create_batch(5)]
    response = referee_client.post("/api/matches/", make_body(ids), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert nothing_stored()


@pytest.mark.parametrize("deal", ["[NaN, 0]", "[Infinity, -Infinity]", "[1e400, -1e400]"])
def test_non_finite_numbers_in_json_are_rejected(referee_client, deal):
    ids = [player.pk for player in PlayerFactory.create_batch(2)]
    payload = (
        f'{{"game": "preferans", "played_at": "{PLAYED}", "seats": [{{"player": {ids[0]}}}, {{"player": {ids[1]}}}],'
        f' "deals": [{deal}]}}'
    )
    response = referee_client.generic("POST", "/api/matches/", payload, content_type="application/json")
    assert response.status_code == 400
    assert nothing_stored()


def test_inactive_bots_cannot_be_seated(referee_client):
    Bot.objects.filter(slug="hard").update(active=False)
    ids = [player.pk for player in PlayerFactory.create_batch(1)]
    response = referee_client.post(
        "/api/matches/", body([{"player": ids[0]}, {"bot": "hard"}], [[1, -1]]), format="json"
    )
    assert response.status_code == 400
    assert "seats" in response.json()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "rating=1500&opponents=1000&whists=10",
            {
                "table_rating": 1000.0,
                "kv": 143.3333,
                "expected_whists": 3.4884,
                "kd": 1.1248,
                "delta": 2.87,
                "new_rating": 1502.87,
            },
        ),
        (
            "rating=1200&opponents=1500,1100&whists=3",
            {
                "table_rating": 1366.67,
                "kv": 67.5758,
                "expected_whists": -2.4664,
                "kd": 1.4026,
                "delta": 3.28,
                "new_rating": 1203.28,
            },
        ),
        (
            "rating=2000&opponents=1300,1500,1400&whists=6",
            {
                "table_rating": 1433.33,
                "kv": 154.4444,
                "expected_whists": 3.6691,
                "kd": 1.0965,
                "delta": 1.67,
                "new_rating": 2001.67,
            },
        ),
    ],
)
def test_preferans_calculator(anon_client, reference_data, query, expected):
    """The figures above are the seed's formulas worked by the oracle (``tests/oracle/rules``), checked here
    first, so a number typed from a previous run of the calculator cannot stand in for the rule."""
    values = dict(part.split("=") for part in query.split("&"))
    rs = Fraction(values["rating"])
    opponents = [Fraction(value) for value in values["opponents"].split(",")]
    p = rules.parameters_with_defaults("preferans", {})
    rt = rules.preferans_table_rating(opponents)
    new_rating = rules.preferans_deal_rating(
        rs=rs, opponents=opponents, vs=Fraction(values["whists"]), bot_maximum=None, p=p
    )
    oracle = {
        "table_rating": rt,
        "kv": rules.preferans_kv(rs, rt, p),
        "expected_whists": rules.preferans_vf(rs, rt, p),
        "kd": rules.preferans_kd(rs, rt, p),
        "delta": new_rating - rs,
        "new_rating": new_rating,
    }
    for key, value in expected.items():
        assert float(oracle[key]) == pytest.approx(value, abs=1e-2 if key == "table_rating" else 1e-4), key
    data = anon_client.get(f"/api/calculator/preferans/?{query}").json()
    for key, value in expected.items():
        assert data[key] == pytest.approx(value, abs=1e-4), key


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("opponents=1000&whists=1", "rating"),
        ("rating=1000&whists=1", "opponents"),
        ("rating=1000&opponents=1,2,3,4&whists=1", "opponents"),
        ("rating=1000&opponents=abc&whists=1", "opponents"),
        ("rating=1000&opponents=1000&whists=inf", "whists"),
        ("rating=1000&opponents=1000", "whists"),
    ],
)
def test_preferans_calculator_rejects_bad_input(anon_client, reference_data, query, field):
    response = anon_client.get(f"/api/calculator/preferans/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_calculator_grid(anon_client, reference_data):
    data = anon_client.get("/api/calculator/preferans/?rating=1500&opponents=1500&whists=4&grid=1").json()
    grid = data["grid"]
    assert grid["tables"][0] == 1000
    row = next(row for row in grid["rows"] if row["rating"] == 1000)
    assert row["deltas"][0] == 4.0  # equal 1000 table, +4 whists: 2*sqrt(4)


@pytest.mark.parametrize(
    "overrides",
    [{"game": "prefer\x00ans"}, {"league": "\x00"}, {"seats": "bot"}],
    ids=["game", "league", "bot"],
)
def test_nul_bytes_in_slugs_are_refused_like_any_unknown_slug(
    referee_client, django_capture_on_commit_callbacks, overrides
):
    """PostgreSQL cannot compare text with a NUL byte; such a slug must be a 400, not a 500."""
    players = PlayerFactory.create_batch(2)
    seats = [{"player": players[0].pk}, {"player": players[1].pk}, {"bot": "norm\x00al"}]
    if overrides.pop("seats", None) is None:
        seats[2] = {"player": PlayerFactory().pk}
    response = submit(referee_client, body(seats, [[2, -1, -1]], **overrides), django_capture_on_commit_callbacks)
    assert response.status_code == 400, response.content
    assert Match.objects.count() == 0
