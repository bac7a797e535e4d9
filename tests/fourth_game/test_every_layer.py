"""Proof of issue 13's game kinds: a fourth game, defined only here, goes through every layer.

Rummy points (``tests/fourth_game``: its kind, its engine, its entry page's
template; nothing else in Cardrank names it) is entered through the API and
its entry page, rated by the rating task (eagerly here, by a real Celery
worker behind gunicorn in the second test), and shown on the leaderboard, a
profile and its match page.

Expected ratings are worked by hand from the engine's rule, each seat moving
by k x (its points - the table's mean points), k = 0.5, from 1000.
"""

import json
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from leagues.kinds import kind_register, kind_unregister
from leagues.models import Game, League
from ratings.engines import REGISTRY
from tests.factories import PlayerFactory, RefereeFactory
from tests.fourth_game.kind import RummyKind

HERE = Path(__file__).parent
KIND_PATH = "tests.fourth_game.kind.RummyKind"


def rummy_game() -> Game:
    game = Game.objects.create(slug="rummy", name="Rummy", rating_system=RummyKind.slug)
    League.objects.create(game=game, tier="amateur", slug="rummy-amateur", name="Rummy Amateur")
    League.objects.create(game=game, tier="pro", slug="rummy-pro", name="Rummy Pro", rating_floor=1800)
    return game


@pytest.fixture
def rummy_kind(settings):
    """What ``games.apps.GamesConfig.ready`` does for a kind named in ``CARDRANK_EXTRA_GAME_KINDS``."""
    kind = kind_register(RummyKind())
    REGISTRY.setdefault(kind.slug, kind.engine)
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], HERE / "templates"]}]
    yield kind
    kind_unregister(kind.slug)
    REGISTRY.pop(kind.slug, None)


def ratings_shown(client, league: str) -> dict[str, float]:
    answer = client.get(f"/api/leagues/{league}/leaderboard/").json()
    return {row["player"]["name"]: row["rating"] for row in answer["results"]}


@pytest.mark.django_db(transaction=True)  # results are rated on commit
def test_the_fourth_game_goes_through_the_api_the_task_and_every_page(rummy_kind):
    from tests.factories import reference_data_ensure

    reference_data_ensure()
    rummy_game()
    ann, bob, cy = (PlayerFactory(name=name) for name in ("Ann Rummy", "Bob Rummy", "Cy Rummy"))
    referee = RefereeFactory()
    api = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=referee).key}")
    played = timezone.now() - timedelta(hours=2)

    # The API: a body of the game's own fields, cleaned by its kind and rated by its engine (eager here).
    body = {
        "game": "rummy",
        "played_at": played.isoformat(),
        "players": [ann.pk, bob.pk, cy.pk],
        "scores": [30, 10, 20],
    }
    created = api.post("/api/matches/", json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    answer = created.json()
    assert answer["status"] == "rated"
    assert [seat["result"] for seat in answer["seats"]] == [30, 10, 20]
    assert answer["league"] == "rummy-amateur"
    # Mean 20: Ann +0.5 x 10, Bob -0.5 x 10, Cy 0.
    assert {row["player"]: row["delta"] for row in answer["rating_changes"]} == {ann.pk: 5, bob.pk: -5, cy.pk: 0}
    # Bad input gets the kind's clear error and stores nothing.
    refused = api.post("/api/matches/", json.dumps({**body, "scores": [1, 2]}), content_type="application/json")
    assert refused.status_code == 400
    assert "scores" in refused.json()

    # The entry page, through the one route every game's page takes.
    page = Client()
    page.force_login(referee)
    form = page.get("/results/rummy/")
    assert form.status_code == 200
    assert "Enter a Rummy hand" in form.content.decode()
    assert "Enter Rummy" in page.get("/").content.decode()  # the referee's menu lists it
    posted = page.post(
        "/results/rummy/",
        {
            "player_1": ann.pk,
            "score_1": "0",
            "player_2": bob.pk,
            "score_2": "40",
            "played_at": (played + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        },
    )
    assert posted.status_code == 302, posted.content.decode()[:2000]
    # Mean 20: Ann 1005 - 10 = 995, Bob 995 + 10 = 1005; Cy stays at 1000.
    assert ratings_shown(api, "rummy-amateur") == {"Bob Rummy": 1005, "Cy Rummy": 1000, "Ann Rummy": 995}

    # The pages: leaderboard, profile and match page, from the shared templates and the kind's defaults.
    board = page.get("/leagues/rummy-amateur/").content.decode()
    assert board.index("Bob Rummy") < board.index("Cy Rummy") < board.index("Ann Rummy")
    profile = page.get(f"/players/{ann.pk}/")
    assert profile.status_code == 200
    assert "Rummy" in profile.content.decode()
    match_page = page.get(posted["Location"])
    assert match_page.status_code == 200
    shown = match_page.content.decode()
    assert "Ann Rummy" in shown
    assert "Bob Rummy" in shown
    assert "995" in shown


@pytest.mark.postgres
@pytest.mark.services
def test_a_real_worker_rates_the_fourth_game_loaded_by_import_path(
    transactional_db, require_postgres, require_redis, tmp_path
):
    """gunicorn and a Celery worker load the kind as a club's own game would: by
    ``CARDRANK_EXTRA_GAME_KINDS``, with no edit to Cardrank."""
    import redis

    from benchmarks.stack import REPO, Stack
    from tests.factories import reference_data_ensure

    redis.Redis.from_url(require_redis).flushdb()
    reference_data_ensure()
    game = rummy_game()
    ann, bob, cy = (PlayerFactory(name=name) for name in ("Ann Rummy", "Bob Rummy", "Cy Rummy"))
    token = Token.objects.create(user=RefereeFactory()).key
    stack = Stack(require_redis, tmp_path)
    stack.env["CARDRANK_EXTRA_GAME_KINDS"] = KIND_PATH
    stack.env["PYTHONPATH"] = str(REPO)  # the test suite is not installed: the processes find it in the checkout
    try:
        stack.start_worker()
        stack.start_web()
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        base = timezone.now() - timedelta(days=1)
        # Entered out of played order: the earlier hand arrives second and forces a replay.
        hands = [
            (base + timedelta(hours=2), [bob.pk, cy.pk], [40, 0]),
            (base + timedelta(hours=1), [ann.pk, bob.pk], [30, 10]),
        ]
        ids = []
        for played_at, players, scores in hands:
            body = {"game": game.slug, "played_at": played_at.isoformat(), "players": players, "scores": scores}
            status, answer = stack.request("POST", "/api/matches/", json.dumps(body).encode(), headers)
            assert status == 201, answer
            ids.append(json.loads(answer)["id"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = [json.loads(stack.request("GET", f"/api/matches/{pk}/")[1])["status"] for pk in ids]
            if states == ["rated", "rated"]:
                break
            time.sleep(0.2)
        assert states == ["rated", "rated"], stack.log("worker")
        assert "ratings.tasks.ratings_apply_match" in stack.log("worker")
        _, board = stack.request("GET", f"/api/leagues/{game.slug}-amateur/leaderboard/")
        shown = {row["player"]["name"]: row["rating"] for row in json.loads(board)["results"]}
        # Played order: Ann 30 v Bob 10 (mean 20): Ann 1005, Bob 995; then Bob 40 v Cy 0 (mean 20): Bob 1005, Cy 990.
        assert shown == {"Ann Rummy": 1005, "Bob Rummy": 1005, "Cy Rummy": 990}
    finally:
        stack.stop()
