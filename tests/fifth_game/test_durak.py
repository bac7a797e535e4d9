"""Issue 26's proof: a fifth game with parts of its own, added by settings only, through every layer.

Durak (this folder) is installed by one line in ``tests/settings.py``; its game
is created through admin's form, entered through the API (its body validated
by the published schema's own member) and on its entry page, rated by its
engine, exported and imported into a second game, and its deals are rows of
its own table, made by its own migration.

Expected ratings are worked by hand from the engine's rule (``engine.py``):
K = 16, each deal the loser loses to each other player, scaled by K / (n - 1).
"""

import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from leagues.kinds import KINDS
from leagues.models import Game
from matches.models import Match
from ratings.engines import REGISTRY
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, api_token_for, reference_data_ensure
from tests.fifth_game.engine import SYSTEM
from tests.fifth_game.models import Round
from tests.schema_members import members_fitting

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
K = 16


def ratings_shown(client, league: str) -> dict[str, float]:
    answer = client.get(f"/api/leagues/{league}/leaderboard/").json()
    return {row["player"]["name"]: row["rating"] for row in answer["results"]}


def durak_game_by_admin(staff: Client, slug: str) -> Game:
    """The game and its two leagues, made through admin's add forms as a club's admin would."""
    form = {"name": f"Durak {slug}", "slug": slug, "rating_system": SYSTEM.slug, "start_rating": "1000",
            "parameters": "{}", "leagues-TOTAL_FORMS": "2", "leagues-INITIAL_FORMS": "0"}  # fmt: skip
    for number, tier in enumerate(("amateur", "pro")):
        form |= {f"leagues-{number}-name": f"{slug} {tier}", f"leagues-{number}-slug": f"{slug}-{tier}",
                 f"leagues-{number}-tier": tier}  # fmt: skip
    added = staff.post("/admin/leagues/game/add/", form)
    assert added.status_code == 302, re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', added.content.decode())
    game = Game.objects.get(slug=slug)
    assert sorted(game.leagues.values_list("tier", flat=True)) == ["amateur", "pro"]
    return game


def test_the_fifth_game_is_an_app_added_by_settings_only():
    """Its app is installed, its kind and engine registered from its ``apps.py``, its table made by its own
    migration; and nothing outside its folder names it but the settings line that adds it."""
    assert apps.get_app_config("durak_test").kind == "tests.fifth_game.kind.DurakKind"
    assert KINDS[SYSTEM.slug].parts == ("durak_rounds",)
    assert REGISTRY[SYSTEM.slug] is SYSTEM
    assert Round._meta.db_table == "durak_test_round"
    assert (HERE / "migrations" / "0001_initial.py").is_file()

    # The names shared code would have to use to reach it: its module, its app label, its kind's slug.
    reach = re.compile(r"fifth_game|durak_test|durak-test")
    naming = sorted(
        path.relative_to(REPO).as_posix()
        for folder in (
            "config",
            "games",
            "leagues",
            "matches",
            "ratings",
            "web",
            "templates",
            "static",
            "benchmarks",
            "tests",
        )
        for path in (REPO / folder).rglob("*")
        if path.suffix in {".py", ".html", ".js", ".md"}
        and HERE not in path.parents
        and reach.search(path.read_text(errors="replace"))
    )
    naming += [name for name in ("pyproject.toml", "Makefile") if reach.search((REPO / name).read_text())]
    assert naming == ["tests/settings.py", "pyproject.toml"]


@pytest.mark.django_db(transaction=True)  # results are rated on commit
def test_the_fifth_game_is_created_in_admin_entered_rated_exported_and_imported(tmp_path):
    reference_data_ensure()
    admin = AdminFactory()
    staff = Client()
    staff.force_login(admin)
    game = durak_game_by_admin(staff, "durak")
    assert game.kind is KINDS[SYSTEM.slug]

    ann, bob, cy, dan = (PlayerFactory(name=f"{name} Durak") for name in ("Ann", "Bob", "Cy", "Dan"))
    referee = RefereeFactory()
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
    played = timezone.now() - timedelta(hours=3)
    published = Client().get("/api/schema/?format=json").json()

    # The API: three players, Ann loses the first deal and Bob the second.
    body = {"game": "durak", "played_at": played.isoformat(), "players": [ann.pk, bob.pk, cy.pk], "losers": [1, 2]}
    assert members_fitting(published, "MatchSubmit", body) == ["DurakResult"]
    created = api.post("/api/matches/", json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    answer = created.json()
    assert answer["status"] == "rated"
    assert answer["losers"] == [1, 2]
    assert [seat["result"] for seat in answer["seats"]] == [1, 1, 0]  # deals lost
    assert not {"winner", "deals", "boards", "scores"} & set(answer)
    assert members_fitting(published, "MatchOut", answer) == ["DurakMatchOut"]
    # All at 1000, every expectation 0.5: deal 1, Ann -0.5 x 2, Bob and Cy +0.5; deal 2, Bob -1, Ann and
    # Cy +0.5. Sums: Ann -0.5, Bob -0.5, Cy +1, times K / (n - 1) = 8.
    assert {row["player"]: row["delta"] for row in answer["rating_changes"]} == {ann.pk: -4, bob.pk: -4, cy.pk: 8}
    stored = Match.objects.get(pk=answer["id"])
    assert list(Round.objects.filter(match=stored).values_list("number", "loser")) == [(1, 1), (2, 2)]

    # Bad input: a loser who is not at the table, or seven players. A clear error, nothing stored.
    before = (Match.objects.count(), Round.objects.count())
    for bad in ({**body, "losers": [4]}, {**body, "players": [*body["players"], *range(9001, 9005)]}):
        refused = api.post("/api/matches/", json.dumps(bad), content_type="application/json")
        assert refused.status_code == 400, refused.content
        assert {"losers", "players"} & set(refused.json())
    assert (Match.objects.count(), Round.objects.count()) == before

    # The entry page: Cy (1008) and Dan (1000), Dan loses the only deal.
    page = Client()
    page.force_login(referee)
    assert "Enter a Durak durak game" in page.get("/results/durak/").content.decode()
    posted = page.post(
        "/results/durak/",
        {"player_1": cy.pk, "player_2": dan.pk, "losers": "2",
         "played_at": (played + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")},
    )  # fmt: skip
    assert posted.status_code == 302, posted.content.decode()[:2000]
    # Cy expected 1 / (1 + 10^(-8/400)) against Dan; Cy scores 1, Dan 0; K / (n - 1) = 16.
    gain = K * (1 - 1 / (1 + 10 ** (-8 / 400)))
    shown = ratings_shown(api, "durak-amateur")
    assert shown == {"Ann Durak": 996, "Bob Durak": 996, "Cy Durak": round(1008 + gain, 2),
                     "Dan Durak": round(1000 - gain, 2)}  # fmt: skip
    match_page = page.get(posted["Location"]).content.decode()
    assert "Cy Durak" in match_page
    assert "Dan Durak" in match_page

    # Export: the staff's JSON dump; import: read back into a second game, it rates game by game as the first.
    dump = staff.get("/api/games/durak/results.json")
    assert dump.status_code == 200
    path = tmp_path / "durak.json"
    path.write_bytes(b"".join(dump.streaming_content))
    durak_game_by_admin(staff, "durak-copy")
    call_command("import_results", str(path), game="durak-copy", referee=referee.username, stdout=io.StringIO())
    assert ratings_shown(api, "durak-copy-amateur") == shown
    copied = Match.objects.filter(game__slug="durak-copy").order_by("played_at")
    assert [list(match.durak_rounds.values_list("loser", flat=True)) for match in copied] == [[1, 2], [2]]


@pytest.mark.django_db
def test_the_fifth_games_table_is_its_own():
    """Its deals are in its own app's table, made by its migration: the database has it, with its checks."""
    assert "durak_test_round" in connection.introspection.table_names()
    constraints = connection.introspection.get_constraints(connection.cursor(), "durak_test_round")
    assert {"durak_round_unique_number", "durak_round_loser_seat"} <= set(constraints)


def test_the_architecture_page_lists_every_file_of_the_folder_with_its_lines():
    """docs/architecture.md shows the whole game as a file list with line counts: it stays true."""
    listed = {
        path: int(lines)
        for path, lines in re.findall(
            r"^\| `(tests/fifth_game/[^`]+)`[^|]*\| (\d+)", (REPO / "docs" / "architecture.md").read_text(), re.M
        )
    }
    here = {
        path.relative_to(REPO).as_posix(): len(path.read_text().splitlines())
        for path in HERE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.stat().st_size
        if not path.name.startswith("test_")
    }
    assert listed == here
