"""Proof of issue 13's game kinds: a fourth game, defined only here, goes through every layer.

Rummy points (``tests/fourth_game``: its kind, its engine, its entry page's
template; nothing else in Cardrank names it) is entered through the API and
its entry page, rated by the rating task (eagerly here, by a real Celery
worker behind gunicorn in the second test), and shown on the leaderboard, a
profile and its match page.

Expected ratings are worked by hand from the engine's rule, each seat moving
by k x (its points - the table's mean points), k = 0.5, from 1000.
"""

import io
import json
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from leagues.kinds import kind_register, kind_unregister
from leagues.models import Game, League
from ratings.engines import REGISTRY
from tests.factories import PlayerFactory, RefereeFactory, api_token_for
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
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
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
    token = api_token_for(RefereeFactory())
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


@pytest.mark.django_db(transaction=True)  # results are rated on commit
def test_the_fourth_game_on_the_pages_added_since(rummy_kind, tmp_path):
    """The pages and files added after the fourth game was written take it as they take the built-in games:
    the history page and API, the records page (none: 404), the header's search, the paged matches list,
    the confirmations page, admin's match list and match page, the quality pages (no prediction: left
    out), the downloads (no CSV of its results: a clear 404; its JSON dump) and the import of that dump.

    Ratings by hand, k = 0.5 from 1000, in the amateur league made two-step: hand 1, Ann 30 and Bob 10
    (mean 20): Ann 1000 + 0.5 x 10 = 1005, Bob 995; hand 2, disputed and corrected by admin to Ann 0 and
    Bob 2 (mean 1): Ann 1005 - 0.5 x 1 = 1004.5, Bob 995 + 0.5 = 995.5. The copy made by the import is
    rated from the same hands: the same ratings.
    """
    from django.core.management import call_command

    from tests.factories import AdminFactory, reference_data_ensure

    reference_data_ensure()
    game = rummy_game()
    League.objects.filter(game=game, tier="amateur").update(requires_confirmation=True)
    ann, bob = PlayerFactory(name="Ann Rummy"), PlayerFactory(name="Bob Rummy")
    referee, second = RefereeFactory(), RefereeFactory()
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
    played = timezone.now() - timedelta(hours=3)

    def post(players, scores, at):
        body = {"game": "rummy", "played_at": at.isoformat(), "players": players, "scores": scores}
        answer = api.post("/api/matches/", json.dumps(body), content_type="application/json")
        assert answer.status_code == 201, answer.content
        return answer.json()["id"]

    first = post([ann.pk, bob.pk], [30, 10], played)

    # The confirmations page: a second referee sees the hand with the kind's default partials, and confirms it.
    checker = Client()
    checker.force_login(second)
    waiting = checker.get("/results/confirm/")
    assert waiting.status_code == 200
    assert f"#{first}" in waiting.content.decode()
    assert "Ann Rummy" in waiting.content.decode()
    done = checker.post("/results/confirm/", {"action": "confirm", "match": first})
    assert done.status_code == 200, done.content.decode()[:2000]
    assert api.get(f"/api/matches/{first}/").json()["status"] == "rated"
    second_hand = post([ann.pk, bob.pk], [0, 20], played + timedelta(hours=1))
    disputed = checker.post(
        "/results/confirm/", {"action": "dispute", "match": second_hand, "note": "Bob scored 2 points, not 20."}
    )
    assert disputed.status_code == 200
    assert "Bob scored 2 points" in checker.get("/results/confirm/").content.decode()
    # Admin corrects it on the JSON page (the kind has no ``entry_initial``), filled with the stored body.
    staff = Client()
    staff.force_login(AdminFactory())
    correct_page = staff.get(f"/admin/matches/match/{second_hand}/correct/")
    assert correct_page.status_code == 200
    assert "scores" in correct_page.content.decode()
    body = {"game": "rummy", "played_at": (played + timedelta(hours=1)).isoformat(), "league": "rummy-amateur"}
    corrected = staff.post(
        f"/admin/matches/match/{second_hand}/correct/",
        {"body": json.dumps({**body, "players": [ann.pk, bob.pk], "scores": [0, 2]})},
    )
    assert corrected.status_code == 302, corrected.content.decode()[:3000]
    checker.post("/results/confirm/", {"action": "confirm", "match": second_hand})
    assert ratings_shown(api, "rummy-amateur") == {"Ann Rummy": 1004.5, "Bob Rummy": 995.5}

    # A player's history, as a page, through the API and as CSV: a row per rated hand, oldest first.
    history = checker.get(f"/players/{ann.pk}/history/")
    assert history.status_code == 200
    assert "Rummy" in history.content.decode()
    rows = api.get(f"/api/players/{ann.pk}/history/", {"game": "rummy"}).json()["results"]
    assert [row["rating_after"] for row in rows] == [1005, 1004.5]
    csv_history = api.get(f"/api/players/{ann.pk}/history.csv")
    assert csv_history.status_code == 200
    assert "Bob Rummy" in b"".join(csv_history.streaming_content).decode()
    # The records page belongs to a kind's profile sections; Rummy has none.
    assert checker.get(f"/players/{ann.pk}/records/{rummy_kind.slug}/opponents/").status_code == 404

    # The header's search and the paged matches list, filtered to the game.
    found = checker.get("/players/", {"q": "Ann Rum"})
    assert found.status_code == 200
    assert "Ann Rummy" in found.content.decode()
    listed = checker.get("/matches/", {"game": "rummy"})
    assert listed.status_code == 200
    assert "Bob Rummy" in listed.content.decode()

    # Quality: a system without predictions is left out, and its own page says so or is not found.
    assert checker.get("/quality/").status_code == 200
    assert checker.get("/quality/rummy/").status_code in (200, 404)
    assert checker.get("/calculator/").status_code == 200

    # Admin: the match list names the players (the kind's default), the match page reads.
    admin_list = staff.get("/admin/matches/match/", {"game__id__exact": game.pk})
    assert admin_list.status_code == 200
    assert "Ann Rummy, Bob Rummy" in admin_list.content.decode()
    assert staff.get(f"/admin/matches/match/{first}/change/").status_code == 200

    # Downloads: the leaderboard's CSV; no CSV of the results (the kind has no columns): a clear 404.
    board_csv = api.get("/api/leagues/rummy-amateur/leaderboard.csv")
    assert board_csv.status_code == 200
    assert "Ann Rummy" in b"".join(board_csv.streaming_content).decode()
    no_csv = api.get("/api/games/rummy/results.csv")
    assert no_csv.status_code == 404
    assert "JSON" in no_csv.json()["detail"]
    assert api.get("/api/games/rummy/results.json").status_code == 403  # the dump is the staff's
    dump = staff.get("/api/games/rummy/results.json")
    assert dump.status_code == 200
    dumped = b"".join(dump.streaming_content)

    # The import: the dump read back into a second Rummy game rates as the first, hand by hand.
    copy = Game.objects.create(slug="rummy-copy", name="Rummy copy", rating_system=rummy_kind.slug)
    League.objects.create(game=copy, tier="amateur", slug="rummy-copy-amateur", name="Rummy copy Amateur")
    League.objects.create(game=copy, tier="pro", slug="rummy-copy-pro", name="Rummy copy Pro", rating_floor=1800)
    path = tmp_path / "rummy.json"
    path.write_bytes(dumped)
    call_command("import_results", str(path), game="rummy-copy", referee=referee.username, stdout=io.StringIO())
    copied = api.get("/api/leagues/rummy-copy-amateur/leaderboard/").json()["results"]
    assert {row["player"]["name"]: row["rating"] for row in copied} == {"Ann Rummy": 1004.5, "Bob Rummy": 995.5}


SHEET = b"2026-10-01T18:00:00+00:00;Ann Rummy=30;Bob Rummy=10\n2026-10-02T18:00:00+00:00;Bob Rummy=40;Cy Rummy=0\n"


@pytest.mark.django_db
def test_the_fourth_game_imports_its_own_file_format_in_admin_and_by_the_command(
    rummy_kind, tmp_path, django_capture_on_commit_callbacks
):
    """The kind's own format (``importers``, ``importer_files``: a ``.rummy`` score sheet) is offered by
    admin's upload form, guessed from the file's name there and by ``manage.py import_results``, and a
    hostile sheet is refused with its line and stores nothing.

    By hand, k = 0.5 from 1000: Ann 30 v Bob 10 (mean 20): Ann 1005, Bob 995; then Bob 40 v Cy 0 (mean
    20): Bob 995 + 10 = 1005, Cy 1000 - 10 = 990.
    """
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from games.models import ImportRun
    from matches.models import Match
    from tests.factories import AdminFactory, reference_data_ensure

    reference_data_ensure()
    game = rummy_game()
    staff = Client()
    admin_user = AdminFactory()
    staff.force_login(admin_user)
    capture = django_capture_on_commit_callbacks

    form = staff.get("/admin/games/importrun/add/").content.decode()
    assert '<option value="rummy-sheet">Rummy score sheet (test)</option>' in form
    assert ".rummy" in form

    # Hostile: a line without points is refused on the preview with its line; nothing is stored.
    with capture(execute=True):
        staff.post(
            "/admin/games/importrun/add/",
            {
                "game": game.pk,
                "file": SimpleUploadedFile("bad.rummy", SHEET + b"2026-10-03;Ann Rummy\n"),
                "referee": admin_user.pk,
            },
        )
    run = ImportRun.objects.get()
    assert run.format == "rummy-sheet"
    assert "line 3: Write a hand as" in staff.get(f"/admin/games/importrun/{run.pk}/change/").content.decode()
    with capture(execute=True):
        staff.post(f"/admin/games/importrun/{run.pk}/confirm/", {"sha256": run.sha256})
    assert Match.objects.count() == 0
    run.delete()

    # The sheet itself: upload (the format from its name), preview, confirm, rated.
    with capture(execute=True):
        uploaded = staff.post(
            "/admin/games/importrun/add/",
            {"game": game.pk, "file": SimpleUploadedFile("october.rummy", SHEET), "referee": admin_user.pk},
        )
    assert uploaded.status_code == 302, uploaded.content.decode()[:3000]
    run = ImportRun.objects.get()
    with capture(execute=True):
        staff.post(f"/admin/games/importrun/{run.pk}/confirm/", {"sha256": run.sha256})
    run.refresh_from_db()
    assert (run.status, run.format, run.summary["rated"]) == ("done", "rummy-sheet", 2)
    expected = {"Ann Rummy": 1005, "Bob Rummy": 1005, "Cy Rummy": 990}
    assert ratings_shown(staff, "rummy-amateur") == expected

    # The command guesses the format from the file's extension too (into a twin game: the same ratings).
    twin = Game.objects.create(slug="rummy-twin", name="Rummy twin", rating_system=rummy_kind.slug)
    League.objects.create(game=twin, tier="amateur", slug="rummy-twin-amateur", name="Rummy twin Amateur")
    League.objects.create(game=twin, tier="pro", slug="rummy-twin-pro", name="Rummy twin Pro", rating_floor=1800)
    sheet = tmp_path / "october.rummy"
    sheet.write_bytes(SHEET)
    with capture(execute=True):
        call_command("import_results", str(sheet), game="rummy-twin", referee=admin_user.username, stdout=io.StringIO())
    assert ratings_shown(staff, "rummy-twin-amateur") == expected


def test_admin_creates_a_game_of_a_clubs_own_kind(rummy_kind, rf, admin_user):
    """Issue 26: with its kind registered at start-up, a club's own game is created in admin, as
    docs/architecture.md says; the rating system's choices were frozen when leagues.models was imported."""
    from django.contrib import admin

    game_admin = admin.site._registry[Game]
    request = rf.get("/admin/leagues/game/add/")
    request.user = admin_user
    form = game_admin.get_form(request)(
        data={"name": "Rummy club", "slug": "rummy-club", "rating_system": rummy_kind.slug, "start_rating": "1500",
              "parameters": "{}"}
    )  # fmt: skip
    assert (rummy_kind.slug, rummy_kind.engine.label) in form.fields["rating_system"].choices
    assert form.is_valid(), form.errors
    game = form.save()
    assert game.kind.slug == rummy_kind.slug
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:  # a system nobody registered is still refused
        Game(slug="unknown-kind", name="Unknown", rating_system="no-such-system").full_clean()
    assert "rating_system" in refused.value.message_dict


@pytest.mark.django_db
def test_the_fourth_game_has_its_own_body_and_answer_in_the_schema(
    rummy_kind, tmp_path, django_capture_on_commit_callbacks
):
    """Issue 26: once its kind is registered, the fourth game is a member of the published unions, named from
    the kind alone (``RummyResult``, ``RummyMatchOut``): its players are 2 to 6 while Slaps's stay two, a body
    of three players fits Rummy's member only and a Slaps body of three fits none, and its answer has its
    own fields only. The schema is valid (no warning) before its game exists, too: a kind no game uses yet
    takes any slug and is in no mapping."""
    from django.core.management import call_command

    from tests.factories import reference_data_ensure
    from tests.schema_members import members_fitting

    reference_data_ensure()
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "before.yaml"))
    before = Client().get("/api/schema/?format=json").json()["components"]["schemas"]
    assert {"$ref": "#/components/schemas/RummyResult"} in before["MatchSubmit"]["oneOf"]
    assert before["RummyResult"]["properties"]["game"]["type"] == "string"
    assert "rummy" not in before["MatchSubmit"]["discriminator"]["mapping"]

    rummy_game()
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "after.yaml"))
    published = Client().get("/api/schema/?format=json").json()
    schemas = published["components"]["schemas"]
    assert schemas["MatchSubmit"]["discriminator"]["mapping"]["rummy"] == "#/components/schemas/RummyResult"
    assert schemas["MatchOut"]["discriminator"]["mapping"]["rummy"] == "#/components/schemas/RummyMatchOut"
    assert schemas["RummyGame"]["enum"] == ["rummy"]
    rummy_players = schemas["RummyResult"]["properties"]["players"]
    slaps_players = schemas["SlapsResult"]["properties"]["players"]
    assert (rummy_players["minItems"], rummy_players["maxItems"]) == (2, 6)
    assert (slaps_players["minItems"], slaps_players["maxItems"]) == (2, 2)

    ann, bob, cy = (PlayerFactory(name=name) for name in ("Ann Rummy", "Bob Rummy", "Cy Rummy"))
    played = (timezone.now() - timedelta(hours=1)).isoformat()
    body = {"game": "rummy", "played_at": played, "players": [ann.pk, bob.pk, cy.pk], "scores": [30, 10, 20]}
    assert members_fitting(published, "MatchSubmit", body) == ["RummyResult"]
    slaps_of_three = {"game": "slaps", "played_at": played, "players": [ann.pk, bob.pk, cy.pk], "winner": ann.pk}
    assert members_fitting(published, "MatchSubmit", slaps_of_three) == []

    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_for(RefereeFactory())}")
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/api/matches/", json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    answer = created.json()
    assert set(answer) == set(schemas["RummyMatchOut"]["properties"])
    assert not {"winner", "deals", "boards", "scoring", "standings"} & set(answer)
    assert members_fitting(published, "MatchOut", answer) == ["RummyMatchOut"]
