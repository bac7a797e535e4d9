"""What a client can send, on the production settings (DEBUG off, the Redis cache), through HTTP.

Each refusal is checked for its answer (status, JSON under /api/, a message
that says what was wrong) and for storing nothing: every row of the leagues,
matches and ratings apps is the same before and after.

- *depth*: arrays and objects nested in a JSON body (config.jsonbody); past
  ``JSON_MAX_DEPTH`` a body is refused before any code walks it.
- *the cap*: ``CARDRANK_MAX_BODY_BYTES``, the largest body read (1 MiB).
- *the audit row*: what ``AuditEntry.data`` keeps of a submission, for ever.
"""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from config.jsonbody import JSON_MAX_DEPTH
from games.bridge.scoring import board_vulnerability_name, possible_ns_scores
from leagues.models import Game, Player
from matches.models import AuditEntry, Match
from tests.conftest import REPO
from tests.factories import PlayerFactory, slaps_match
from tests.matches.rows import rows_snapshot

pytestmark = pytest.mark.django_db

MiB = 1024 * 1024


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def field_nested(name: str, depth: int) -> str:
    """A JSON object whose one field holds arrays nested ``depth`` deep (the object adds a level)."""
    return f'{{"{name}": {nested(depth)}}}'


def ago(**delta) -> str:
    return (timezone.now() - timedelta(**delta)).isoformat()


@pytest.fixture
def api(production, referee_client):
    """The referee's API client, seeing a crash as the 500 a deployment answers rather than an exception."""
    referee_client.raise_request_exception = False
    return referee_client


@pytest.fixture
def admin_api(production, admin_user):
    from rest_framework.test import APIClient

    from tests.factories import api_token_for

    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(admin_user)}")
    return client


@pytest.fixture
def admin_pages(production, admin_user):
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    return client


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    body = response.json()
    assert isinstance(body.get("detail"), str), body
    assert body["detail"], body
    return body


# ---- Item 4: deeply nested JSON ----


@pytest.mark.parametrize("path", ["/api/players/", "/api/matches/", "correct"])
def test_deeply_nested_json_is_a_400_naming_the_nesting(api, admin_api, reference_data, path):
    """``{"name": [[[...]]]}`` 1,000 deep (2 KB) was a RecursionError in the parser: a 500."""
    client = api
    if path == "correct":
        match = slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
        path, client = f"/api/matches/{match.pk}/correct/", admin_api
    before = rows_snapshot()
    body = f'{{"name": {nested(1000)}, "game": {nested(1000)}}}'
    assert len(body) < 5000
    answer = assert_json_error(client.post(path, body, content_type="application/json"), 400)
    assert "nested too deeply" in answer["detail"], answer
    assert rows_snapshot() == before


def test_the_depth_limit_is_the_services_and_not_the_interpreters(api, reference_data):
    """At the limit a body reaches the service (which names the field); one level more is refused as JSON."""
    before = rows_snapshot()
    at_limit = api.post("/api/players/", field_nested("name", JSON_MAX_DEPTH - 1), content_type="application/json")
    assert at_limit.status_code == 400
    assert list(at_limit.json()) == ["name"], at_limit.json()  # the service's own refusal of a non-text name
    over = api.post("/api/players/", field_nested("name", JSON_MAX_DEPTH), content_type="application/json")
    assert "nested too deeply" in assert_json_error(over, 400)["detail"]
    # Far past orjson's own limit (1,024) the answer is the same.
    deepest = api.post("/api/players/", field_nested("name", 100_000), content_type="application/json")
    assert "nested too deeply" in assert_json_error(deepest, 400)["detail"]
    assert rows_snapshot() == before


@pytest.mark.parametrize(
    "text",
    ['{"name": NaN}', '{"name": Infinity}', '{"name": "\\ud800"}', '{"name": "Ann"', b'{"name": "\xff"}'],
    ids=["NaN", "Infinity", "lone surrogate", "truncated", "not UTF-8"],
)
def test_what_is_not_json_is_a_400_detail(api, reference_data, text):
    before = rows_snapshot()
    answer = assert_json_error(api.post("/api/players/", text, content_type="application/json"), 400)
    assert answer["detail"].startswith("JSON parse error"), answer
    assert rows_snapshot() == before


def test_a_body_in_another_charset_is_read_in_it(api, reference_data):
    body = json.dumps({"name": "Zoë Ångström"}, ensure_ascii=False).encode("utf-16")
    response = api.post("/api/players/", body, content_type="application/json; charset=utf-16")
    assert response.status_code == 201, response.content
    assert Player.objects.get(pk=response.json()["id"]).name == "Zoë Ångström"


def test_the_admin_correction_form_refuses_deep_json(admin_pages, reference_data):
    """5,000 deep in the correction textarea was a RecursionError: the form comes back with the error."""
    match = slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
    before = rows_snapshot()
    response = admin_pages.post(f"/admin/matches/match/{match.pk}/correct/", {"body": nested(5000)})
    assert response.status_code == 400
    assert "nested too deeply" in response.content.decode()
    assert rows_snapshot() == before


def test_the_admin_game_parameters_refuse_deep_json(admin_pages, reference_data):
    """The game's engine parameters (a JSON field in admin) were parsed by json.loads: 5,000 deep was a 500."""
    game = Game.objects.get(slug="slaps")
    before = rows_snapshot()
    form = {
        "name": game.name,
        "slug": game.slug,
        "rating_system": game.rating_system,
        "start_rating": str(game.start_rating),
        "parameters": field_nested("k", 5000),
        "leagues-TOTAL_FORMS": "0",
        "leagues-INITIAL_FORMS": "0",
        "leagues-MIN_NUM_FORMS": "0",
        "leagues-MAX_NUM_FORMS": "1000",
    }
    response = admin_pages.post(f"/admin/leagues/game/{game.pk}/change/", form)
    assert response.status_code == 200  # the form again, with its error
    assert "nested too deeply" in response.content.decode()
    assert rows_snapshot() == before


# ---- Item 5: what the audit log keeps, and the cap on a body ----


def preferans_body(ids: list[int], **extra) -> dict:
    return {
        "game": "preferans",
        "played_at": ago(hours=1),
        "seats": [{"player": ids[0]}, {"player": ids[1]}, {"bot": "normal"}],
        "deals": [[4, -2, -2], [-6, 3, 3]],
        **extra,
    }


def test_a_body_over_the_cap_is_a_413_and_stores_nothing(api, reference_data):
    """The issue's 2.4 MB "players" in a Preferans body was accepted (201) and kept in the audit log."""
    ids = [player.pk for player in PlayerFactory.create_batch(2)]
    body = json.dumps(preferans_body(ids, players="x" * 2_400_000))
    before = rows_snapshot()
    answer = assert_json_error(api.post("/api/matches/", body, content_type="application/json"), 413)
    assert f"at most {MiB:,} bytes" in answer["detail"], answer
    assert rows_snapshot() == before


def test_the_audit_row_keeps_the_validated_result_and_nothing_else(api, reference_data):
    """Fields validation ignores (another game's, unknown ones) are not stored: the audit row is append-only."""
    ids = [player.pk for player in PlayerFactory.create_batch(2)]
    body = preferans_body(ids, players="x" * 500_000, note={"any": ["thing"] * 1000}, winner=ids[0])
    response = api.post("/api/matches/", body, format="json")
    assert response.status_code == 201, response.content[:300]
    match = Match.objects.get(pk=response.json()["id"])
    entry = AuditEntry.objects.get(match=match, action="submitted")
    assert entry.data == {
        "game": "preferans",
        "played_at": match.played_at.isoformat(),
        "rated": True,
        "seats": [{"player": ids[0]}, {"player": ids[1]}, {"bot": "normal"}],
        "deals": [[4.0, -2.0, -2.0], [-6.0, 3.0, 3.0]],
        "league": "preferans-amateur",
    }
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_column_size(data) FROM matches_auditentry WHERE id = %s", [entry.pk])
            assert cursor.fetchone()[0] < 1000


def test_a_large_bridge_evening_fits_under_the_cap(api, reference_data):
    """32 boards at 16 tables, pretty-printed (about 110 KB), is accepted: the cap leaves room for real sessions."""
    players = PlayerFactory.create_batch(64)
    tables = [[player.pk for player in players[4 * t : 4 * t + 4]] for t in range(16)]
    # Scores each board can have at its vulnerability (the cleaner refuses any other), smallest first.
    possible = {n: sorted(possible_ns_scores(board_vulnerability_name(n)), key=abs)[:160] for n in range(1, 33)}
    body = {
        "game": "bridge",
        "played_at": ago(hours=2),
        "boards": [
            {
                "number": number,
                "tables": [
                    {
                        "ns": pair[:2],
                        "ew": pair[2:],
                        "ns_score": possible[number][(number * 37 + t * 11) % len(possible[number])],
                    }
                    for t, pair in enumerate(tables)
                ],
            }
            for number in range(1, 33)
        ],
    }
    text = json.dumps(body, indent=2)
    assert 80_000 < len(text) < MiB // 8
    response = api.post("/api/matches/", text, content_type="application/json")
    assert response.status_code == 201, response.content[:500]
    assert Match.objects.get(pk=response.json()["id"]).boards.count() == 32


def test_the_cap_is_a_setting(tmp_path):
    """CARDRANK_MAX_BODY_BYTES sets Django's DATA_UPLOAD_MAX_MEMORY_SIZE; 1 MiB when unset."""
    code = "from django.conf import settings; print(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(REPO)}
    env.pop("CARDRANK_MAX_BODY_BYTES", None)
    seen = []
    for value in (None, "200000"):
        if value:
            env["CARDRANK_MAX_BODY_BYTES"] = value
        result = subprocess.run(
            [sys.executable, "-c", f"import django; django.setup(); {code}"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        seen.append(int(result.stdout.split()[-1]))
    assert seen == [MiB, 200_000]


# ---- Item 9: every error under /api/ is JSON ----


def test_a_10_mb_body_is_a_json_413(api, reference_data):
    before = rows_snapshot()
    body = json.dumps({"name": "x" * 10_000_000})
    answer = assert_json_error(api.post("/api/players/", body, content_type="application/json"), 413)
    assert "too large" in answer["detail"]
    assert rows_snapshot() == before


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize(
    "path", ["/api/matches/abc/", "/api/players/1x/", "/api/players/1x/history/", "/api/matches/1.5/void/", "/api/"]
)
def test_a_path_no_route_matches_is_a_json_404(production, reference_data, client, debug, path):
    """A non-integer id matches no route: Django's HTML 404 in debug mode (``make run``), where handler404 is
    not called."""
    production.DEBUG = debug
    answer = assert_json_error(client.get(path), 404)
    assert answer == {"detail": "Not found."}


def test_a_signed_in_post_to_no_route_is_a_json_404(production, reference_data, referee):
    """A browser session's POST to a path no route matches meets no CSRF page: the API's views are exempt too."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(referee)
    before = rows_snapshot()
    assert_json_error(client.post("/api/matches/-80/confirm/"), 404)
    assert_json_error(client.post("/api/players/1x/", {"name": "Ann"}, content_type="application/json"), 404)
    assert rows_snapshot() == before


def test_too_many_query_parameters_is_a_json_400(production, reference_data, client):
    """Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS parameters before the view: it was an HTML 400."""
    query = "&".join(f"p{n}=1" for n in range(1001))
    answer = assert_json_error(client.get(f"/api/games/?{query}"), 400)
    assert "Too many parameters" in answer["detail"]


def test_a_host_not_allowed_is_a_json_400_under_the_api(production, reference_data, client):
    answer = assert_json_error(client.get("/api/games/", HTTP_HOST="evil.example"), 400)
    assert answer == {"detail": "Bad request."}  # Django says nothing more to a client it refuses
    page = client.get("/", HTTP_HOST="evil.example")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")


def test_a_page_body_over_the_cap_is_a_413_page(production, reference_data, referee):
    """Over the cap, a page's form was Django's HTML "Bad Request (400)"."""
    client = Client(raise_request_exception=False)
    client.force_login(referee)
    before = rows_snapshot()
    response = client.post("/results/players/", {"name": "x" * (3 * MiB)})
    assert response.status_code == 413
    assert f"at most {MiB:,} bytes" in response.content.decode()
    assert rows_snapshot() == before


# ---- Item 12: names in every script ----

ACCEPTED_NAMES = {
    "persian ZWNJ": "مهدی\u200cزاده",  # noqa: RUF001 - Persian letters, not Latin look-alikes
    "emoji ZWJ": "Ann \U0001f469\u200d\U0001f4bb",
    "flag ZWJ and variation selector": "\U0001f3f3\ufe0f\u200d\U0001f308 Bea",
    "subdivision flag (tags)": "Cy \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "skin tone": "Dee \U0001f44b\U0001f3fd",
    "hindi conjunct ZWJ": "क्\u200dष",
    "arabic": "محمد",
    "hebrew": "שָׁלוֹם",
}
REFUSED_NAMES = {
    "right-to-left override": "\u202eevil",
    "left-to-right embedding": "A\u202aB",
    "pop directional formatting": "AB\u202c",
    "first strong isolate": "A\u2068B\u2069",
    "left-to-right mark": "A\u200eB",
    "leading ZWJ": "\u200dAnn",
    "trailing ZWNJ": "Ann\u200c",
    "ZWJ beside a space": "Ann \u200dBo",
    "soft hyphen": "An\u00adn",
    "zero-width space": "An\u200bn",
    "lone tag character": "Ann\U000e0041",
    "bell": "Ann\x07",
    "NUL": "Ann\x00",
    "private use": "Ann\ue000",
}


@pytest.mark.parametrize("name", ACCEPTED_NAMES.values(), ids=ACCEPTED_NAMES.keys())
def test_names_in_every_script_are_accepted_and_shown(api, reference_data, client, name):
    response = api.post("/api/players/", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == name
    player = Player.objects.get(pk=response.json()["id"])
    assert player.name == name
    page = client.get(f"/players/{player.pk}/")
    assert page.status_code == 200
    assert name in page.content.decode()


def test_a_name_is_kept_in_normal_form_c(api, reference_data):
    response = api.post("/api/players/", {"name": "Zoe\u0308  Lu"}, format="json")  # e + combining diaeresis
    assert response.status_code == 201
    assert Player.objects.get(pk=response.json()["id"]).name == "Zo\u00eb Lu"


@pytest.mark.parametrize("name", REFUSED_NAMES.values(), ids=REFUSED_NAMES.keys())
def test_names_with_invisible_controls_are_refused(api, reference_data, name):
    before = rows_snapshot()
    response = api.post("/api/players/", {"name": name}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["name"]
    assert rows_snapshot() == before


def test_the_page_form_applies_the_same_rules(production, reference_data, referee, client):
    client.force_login(referee)
    persian = ACCEPTED_NAMES["persian ZWNJ"]
    saved = client.post("/results/players/", {"name": persian})
    assert saved.status_code == 200
    player = Player.objects.get(name=persian)
    assert persian in client.get(f"/players/{player.pk}/").content.decode()
    before = rows_snapshot()
    refused = client.post("/results/players/", {"name": REFUSED_NAMES["right-to-left override"]})
    assert refused.status_code == 400
    assert "bidirectional" in refused.content.decode()
    assert rows_snapshot() == before


def test_admin_applies_the_same_rules_to_a_name(admin_pages, reference_data):
    player = PlayerFactory(name="Ann")
    url = f"/admin/leagues/player/{player.pk}/change/"
    form = {"name": "\u202eAnn", "user": "", "ratings-TOTAL_FORMS": "0", "ratings-INITIAL_FORMS": "0"}
    response = admin_pages.post(url, form)
    assert response.status_code == 200  # the form again, with its error
    assert "bidirectional" in response.content.decode()
    player.refresh_from_db()
    assert player.name == "Ann"
    saved = admin_pages.post(url, {**form, "name": ACCEPTED_NAMES["emoji ZWJ"]})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    player.refresh_from_db()
    assert player.name == ACCEPTED_NAMES["emoji ZWJ"]
