"""Preferans through the API: games of deals, bots, hostile input, calculator."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Bot
from matches.models import Deal, Match, Seat
from ratings.engines import PlayerState, get_rating_system
from ratings.engines.preferans import BotSeat, PreferansGame, PreferansParameters
from ratings.models import PlayerRating, RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(hours=2)).isoformat()


def body(seats, deals, **overrides):
    data = {"game": "preferans", "played_at": PLAYED, "seats": seats, "deals": deals}
    data.update(overrides)
    return data


def submit(client, data, callbacks):
    with callbacks(execute=True):
        return client.post("/api/matches/", data, format="json")


def test_a_game_of_deals_equals_the_engine(referee_client, django_capture_on_commit_callbacks):
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

    bot = Bot.objects.get(slug="normal")
    game = PreferansGame(
        seats=(ann.pk, bob.pk, BotSeat("normal", float(bot.rating), float(bot.max_rating))),
        deals=tuple(tuple(deal) for deal in deals),
    )
    states = {ann.pk: PlayerState(rating=1000), bob.pk: PlayerState(rating=1000)}
    expected = get_rating_system("preferans").rate(game, states, PreferansParameters())
    ledger = list(RatingChange.objects.order_by("unit", "player_id").values_list("unit", "player_id", "rating_after"))
    assert [(c.unit, c.player, c.rating_after) for c in sorted(expected, key=lambda c: (c.unit, c.player))] == [
        (unit, player, float(after)) for unit, player, after in ledger
    ]
    # The match shows one row per player with the game's total.
    totals = {row["player"]: row for row in detail["rating_changes"]}
    assert set(totals) == {ann.pk, bob.pk}
    last_ann = [c for c in expected if c.player == ann.pk][-1].rating_after
    assert totals[ann.pk]["rating_before"] == 1000
    assert totals[ann.pk]["rating_after"] == last_ann
    assert totals[ann.pk]["delta"] == pytest.approx(last_ann - 1000)
    # History has a row per deal.
    history = referee_client.get(f"/api/players/{ann.pk}/history/?game=preferans").json()
    assert [row["unit"] for row in history] == [0, 1, 2, 3]
    assert {"table_rating", "kv", "expected_whists", "kd"} <= set(history[0]["details"])
    assert PlayerRating.objects.get(player=ann).rated_matches == 1


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
