"""Engine parameters outside their engine's ranges, through HTTP on the production settings (issue 12 item 7).

* Admin refuses them on the game's page, naming the parameter and its range,
  stores nothing and replays nothing; the page lists every range.
* A set stored before the ranges existed (written here straight to the
  table, as an old release would have kept it) makes the calculators answer
  400 in JSON instead of 500, and the rating task fail with a message naming
  the game and the parameter, writing nothing. The periodic sweep logs it and
  rates the other games, and the deploy check warns. Once an admin corrects
  the set, the results are rated, as the oracle computes them.
"""

import io
import json
import logging
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import Game
from matches.models import Match
from ratings.models import PlayerRating, RatingChange, RatingState
from ratings.services import ratings_process_game, ratings_sweep
from tests.factories import PlayerFactory
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(hours=2)).replace(microsecond=0)


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


def game_form(game: Game, parameters: str) -> dict:
    return {
        "name": game.name,
        "slug": game.slug,
        "rating_system": game.rating_system,
        "start_rating": "1000",
        "parameters": parameters,
        "leagues-TOTAL_FORMS": "0",
        "leagues-INITIAL_FORMS": "0",
    }


@pytest.mark.parametrize(
    ("slug", "parameters", "message"),
    [
        ("slaps", '{"scale": 0}', "Parameter scale must be a number from 100 to 2000; got 0."),
        ("slaps", '{"k_provisional": -8}', "Parameter k_provisional must be a number above 0 and at most 200; got -8."),
        (
            "slaps",
            '{"k_established": 1e300}',
            "Parameter k_established must be a number above 0 and at most 200; got 1e+300.",
        ),
        (
            "slaps",
            '{"provisional_matches": -5}',
            "Parameter provisional_matches must be a whole number from 0 to 10000; got -5.",
        ),
        # Refused as JSON before the range is read (config/jsonbody.py); the engine refuses NaN too.
        ("slaps", '{"scale": NaN}', "JSON parse error"),
        ("preferans", '{"kd_min": 3}', "Parameter kd_min (3) must not exceed kd_max (2)."),
        ("preferans", '{"smoothing_scale": 0}', "Parameter smoothing_scale must be a number from 1 to 100000; got 0."),
        ("bridge", '{"imps_per_goal": 0}', "Parameter imps_per_goal must be a number from 0.5 to 24; got 0."),
    ],
)
def test_admin_refuses_parameters_outside_the_engines_range(production, admin_browser, slug, parameters, message):
    game = Game.objects.get(slug=slug)
    PlayerFactory()  # a game with history would be replayed by a rule change; none may be asked for
    response = admin_browser.post(f"/admin/leagues/game/{game.pk}/change/", game_form(game, parameters))
    assert response.status_code == 200  # the form again, with the error
    assert message in response.content.decode()
    game.refresh_from_db()
    assert game.parameters == {}
    assert not RatingState.objects.filter(game=game, replay_from_played_at__isnull=False).exists()


def test_admin_accepts_parameters_within_range_and_lists_every_range(production, admin_browser):
    game = Game.objects.get(slug="slaps")
    page = admin_browser.get(f"/admin/leagues/game/{game.pk}/change/").content.decode()
    assert "<code>scale</code> = 400.0 (a number from 100 to 2000)" in page
    assert "<code>provisional_matches</code> = 32 (a whole number from 0 to 10000)" in page
    saved = admin_browser.post(f"/admin/leagues/game/{game.pk}/change/", game_form(game, '{"scale": 800}'))
    assert saved.status_code == 302
    game.refresh_from_db()
    assert game.parameters == {"scale": 800}


def store_as_an_old_release_did(slug: str, parameters: dict) -> Game:
    """Written past admin's validation, as sets saved before the ranges existed are."""
    Game.objects.filter(slug=slug).update(parameters=parameters)
    return Game.objects.get(slug=slug)


def test_the_calculators_answer_400_for_a_stored_set_out_of_range(production, reference_data):
    store_as_an_old_release_did("slaps", {"scale": 0})
    store_as_an_old_release_did("preferans", {"kd_scale": 0})
    client = APIClient()

    elo = client.get("/api/calculator/elo/", {"rating": "1000", "opponent": "1200"})
    assert elo.status_code == 400
    assert elo["Content-Type"] == "application/json"
    [message] = elo.json()["parameters"]
    assert message.startswith("The rating parameters stored for Slaps (slaps) cannot be used: Parameter scale must be")
    preferans = client.get("/api/calculator/preferans/", {"rating": "1500", "opponents": "1600", "whists": "4"})
    assert preferans.status_code == 400
    assert "Parameter kd_scale must be a number from 1 to 100000; got 0." in preferans.json()["parameters"][0]

    # The pages show the same error, and the leaderboards stay readable.
    for path in ("/calculator/elo/?rating=1000&opponent=1200", "/calculator/preferans/"):
        page = Client().get(path)
        assert page.status_code == 200
        assert "cannot be used" in page.content.decode()
    assert client.get("/api/leagues/slaps-amateur/leaderboard/").status_code == 200
    assert Client().get("/leagues/slaps-amateur/").status_code == 200


def test_the_elo_calculator_at_the_smallest_scale_and_the_widest_gap(production, reference_data):
    """Scale 100 is allowed; a gap of 100,000 (the calculator's widest) used to overflow 10^x: a 500."""
    store_as_an_old_release_did("slaps", {"scale": 100})
    answer = APIClient().get("/api/calculator/elo/", {"rating": "0", "opponent": "100000"})
    assert answer.status_code == 200
    figures = {key: answer.json()[key] for key in ("expected", "k", "delta", "new_rating")}
    assert figures == {"expected": 0.0, "k": 32.0, "delta": 32, "new_rating": 32}
    assert answer.json()["parameters"]["scale"] == 100


def test_the_rating_task_fails_loudly_on_a_stored_set_out_of_range(
    production, reference_data, referee_client, admin_browser, caplog, django_capture_on_commit_callbacks
):
    slaps = store_as_an_old_release_did("slaps", {"scale": 0, "k_provisional": 32})
    ann, bob, cid, dan = PlayerFactory.create_batch(4)
    body = {"game": "slaps", "played_at": PLAYED.isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk}
    preferans = {
        "game": "preferans",
        "played_at": PLAYED.isoformat(),
        "seats": [{"player": cid.pk}, {"player": dan.pk}],
        "deals": [[4, -4]],
    }
    created = referee_client.post("/api/matches/", body, format="json")
    assert created.status_code == 201  # the result is kept: it is the parameters that are wrong
    match_id = created.json()["id"]
    assert referee_client.post("/api/matches/", preferans, format="json").status_code == 201

    with pytest.raises(ValidationError) as refused:
        ratings_process_game(game_id=slaps.pk)
    [message] = refused.value.message_dict["parameters"]
    assert "Slaps (slaps)" in message
    assert "Parameter scale must be a number from 100 to 2000; got 0." in message
    assert Match.objects.get(pk=match_id).status == "submitted"
    assert not RatingChange.objects.filter(game=slaps).exists()
    assert not PlayerRating.objects.filter(game=slaps).exists()

    # The sweep rates every other game and says which one it could not.
    Match.objects.update(created_at=timezone.now() - timedelta(hours=1))
    with caplog.at_level(logging.ERROR, logger="ratings.services"):
        assert ratings_sweep() == 1
    assert Match.objects.get(pk=match_id).status == "submitted"
    assert Match.objects.exclude(pk=match_id).get().status == "rated"
    assert f"Game {slaps.pk} is not rated" in caplog.text
    assert "Parameter scale must be" in caplog.text

    # An admin corrects the set: the game is replayed and the result rated (seed 000 at scale 400).
    with django_capture_on_commit_callbacks(execute=True):
        fixed = admin_browser.post(
            f"/admin/leagues/game/{slaps.pk}/change/", game_form(slaps, json.dumps({"k_provisional": 32}))
        )
    assert fixed.status_code == 302
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=ann).rating == 1016
    assert assert_ledger_is_the_oracles(game=slaps) == 2


def test_the_deploy_check_names_each_game_with_a_stored_set_out_of_range(reference_data):
    """``manage.py check --database default`` (``migrate`` runs it too) warns, naming the game and the
    parameter; a warning, so the migration that brings the ranges still runs."""
    store_as_an_old_release_did("bridge", {"bonus_scale": 0})
    out, err = io.StringIO(), io.StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=err)
    text = out.getvalue() + err.getvalue()
    assert "ratings.W001" in text
    assert "Bridge (bridge)" in text
    assert "Parameter bonus_scale must be a number from 1 to 100000; got 0." in text
    assert "Slaps (slaps)" not in text  # its parameters are the engine's defaults

    store_as_an_old_release_did("bridge", {"bonus_scale": 2})
    out = io.StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=out)
    assert "ratings.W001" not in out.getvalue()
