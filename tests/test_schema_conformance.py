"""The published OpenAPI schema (``/api/schema/``) describes what the API answers.

Clients generate code from the schema, so a response it does not describe is a
bug. Two kinds of tests hold it to that, both against the real app (its WSGI
handler, in the test's database transaction) and the schema as it is served:

- *Fuzzing* with schemathesis: for every documented operation, requests it
  generates from the schema, both *positive* (fitting the schema) and
  *negative* (violating it), sent as the role the operation needs and as roles
  it refuses. Each answer must pass the checks in ``CHECKS``: no 5xx, a
  documented status code and content type, a body that validates against that
  status's schema, and no 2xx for a request that violates the schema. A
  refused request (4xx) must store nothing: the rows of every table of the
  games, leagues, matches and ratings apps are compared, contents not counts, before
  and after it.
- *Answer shapes*: one valid request per answer a client can get (each game's
  submission, a rated detail, void, correction, confirmation, a leaderboard
  page with links, a history, both calculators with the grid, each answer of
  the batch, the downloads and their refusals), each validated
  against the schema the same way; random data rarely reaches those.

``positive_data_acceptance`` is not among the checks: a body can fit the
schema and still be refused for what it says (an unknown player id, a deal
that does not sum to zero), which the schema cannot express; the services
decide that, and the negative check holds the other direction.

Deterministic: hypothesis is derandomized (fixed seed, no example database)
with a bounded number of examples per operation, role and mode.
"""

import contextlib
import copy
import json
from datetime import timedelta

import jsonschema
import pytest
import schemathesis
from django.core import signals
from django.core.management import call_command
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import checks as core_checks
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi import checks as openapi_checks

from config.wsgi import application
from games.seasons import season_close, season_table_refresh
from leagues.kinds import KINDS
from leagues.models import Game, League, Season
from matches.services import match_submit
from ratings.lists import rating_list_publish
from ratings.models import PlayerRating
from ratings.selectors import activity_today
from tests import factories
from tests.conftest import FIGURES
from tests.factories import api_token_for
from tests.matches.rows import rows_snapshot
from tests.schema_members import component_validator, documented_bodies, members_fitting

pytestmark = pytest.mark.django_db

CHECKS = [
    core_checks.not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
    openapi_checks.negative_data_rejection,
]

# Every documented operation, with the role it needs; a write is also tried by roles it refuses.
OPERATIONS = {
    "GET /api/games/": "anonymous",
    "GET /api/games/{slug}/results.csv": "anonymous",
    "GET /api/games/{slug}/results.json": "admin",
    "GET /api/games/{slug}/drift/": "anonymous",
    "GET /api/games/{slug}/lists/": "anonymous",
    "GET /api/games/{slug}/lists/{date}/": "anonymous",
    "GET /api/leagues/": "anonymous",
    "GET /api/leagues/{slug}/leaderboard/": "anonymous",
    "GET /api/leagues/{slug}/seasons/": "anonymous",
    "GET /api/leagues/{slug}/seasons/{id}/": "anonymous",
    "GET /api/leagues/{slug}/leaderboard.csv": "anonymous",
    "POST /api/players/": "referee",
    "GET /api/players/{id}/": "anonymous",
    "GET /api/players/{id}/history/": "anonymous",
    "GET /api/players/{id}/rating/": "anonymous",
    "GET /api/me/": "referee",  # any signed-in person; a referee is one
    "GET /api/players/{id}/history.csv": "anonymous",
    "GET /api/players/{id}/head-to-head/": "anonymous",
    "GET /api/compare/": "anonymous",
    "POST /api/matches/": "referee",
    "POST /api/matches/batch/": "referee",
    "GET /api/matches/{id}/": "anonymous",
    "POST /api/matches/{id}/void/": "admin",
    "POST /api/matches/{id}/correct/": "admin",
    "POST /api/matches/{id}/confirm/": "referee",
    "POST /api/matches/{id}/dispute/": "referee",
    "GET /api/calculator/elo/": "anonymous",
    "GET /api/calculator/preferans/": "anonymous",
}
REFUSED_ROLES = {"referee": ["anonymous"], "admin": ["anonymous", "referee"], "anonymous": []}
# Examples per operation and generation mode for the role it needs, and for each role it refuses (those
# are refused before the body is read): bounded so the whole file runs in well under a minute.
EXAMPLES = 15
REFUSED_EXAMPLES = 3
# Parameters that random text almost never gets right, given valid values in part of the positive cases.
KNOWN_QUERY = {"GET /api/calculator/preferans/": {"opponents": ["1500", "1800,1200", "2400, 1600, 1000"]}}


def _known_queries(label: str, world) -> list[dict[str, str]]:
    """Whole query strings that reach an answer (two parameters or more, which random text never matches)."""
    ids = [str(pk) for pk in world["players"]]
    if label == "GET /api/compare/":
        return [
            {"game": "slaps", "a": ids[0], "b": ids[1]},
            {"game": "preferans", "a": ids[0], "b": ids[1]},
            {"game": "bridge", "a": f"{ids[0]},{ids[1]}", "b": f"{ids[2]},{ids[3]}"},
        ]
    if label == "GET /api/players/{id}/head-to-head/":
        return [{"game": slug} for slug in ("slaps", "preferans", "bridge")]
    if label == "GET /api/players/{id}/rating/":
        return [{"game": slug, "on": world["today"]} for slug in ("slaps", "preferans", "bridge")]
    return []


@contextlib.contextmanager
def requests_in_the_test_transaction():
    """Let WSGI requests run inside the test's transaction, as Django's test client does.

    Django closes "old" connections at each request's start and end; inside the
    test's atomic block that would close the connection the test runs on.
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def answers_closed(published: dict) -> dict:
    """The schema with every object an answer can contain closed (``additionalProperties: false``).

    OpenAPI lets an object carry properties its schema does not name, so a field
    the API returns and the schema forgets (the first schema's ``boards``,
    ``league``, ...) would still validate. Answers are checked against this
    copy; request bodies stay open (the services ignore unknown fields).
    """
    closed = copy.deepcopy(published)
    components = closed["components"]["schemas"]
    seen: set[str] = set()

    def close(node) -> None:
        if isinstance(node, list):
            for item in node:
                close(item)
            return
        if not isinstance(node, dict):
            return
        reference = node.get("$ref", "")
        if reference.startswith("#/components/schemas/"):
            name = reference.rsplit("/", 1)[1]
            if name not in seen:
                seen.add(name)
                close(components[name])
        if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            close(value)

    for operations in closed["paths"].values():
        for operation in operations.values():
            close(operation.get("responses", {}))
    return closed


def served_schema(django_db_blocker) -> dict:
    """The schema ``/api/schema/`` serves with the three games in the database (a transactional test elsewhere
    may have flushed them): each game's slug is in its kind's member, and the discriminator maps it there."""
    with django_db_blocker.unblock(), requests_in_the_test_transaction(), transaction.atomic():
        factories.reference_data_ensure()
        served = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application).raw_schema
        transaction.set_rollback(True)
    return served


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker):
    """The schema as ``/api/schema/`` serves it, answers closed, bound to the app's WSGI handler (made once the
    test database is: it reads the games)."""
    served = served_schema(django_db_blocker)
    closed = schemathesis.openapi.from_dict(answers_closed(served))
    closed.app = application
    return closed


def ago(**delta) -> str:
    return (timezone.now() - timedelta(**delta)).isoformat()


@pytest.fixture
def world(reference_data, django_capture_on_commit_callbacks, settings):
    """Players, rated results of each game, one waiting for confirmation, and a token per role."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # users are made per test
    entered_by = factories.RefereeFactory()
    players = factories.PlayerFactory.create_batch(8)
    ids = [player.pk for player in players]
    League.objects.filter(slug="slaps-pro").update(requires_confirmation=True)
    pro = League.objects.get(slug="slaps-pro")
    for player in players[4:6]:  # two pros, as a promotion leaves them: their result is the pro league's
        PlayerRating.objects.create(player=player, game=pro.game, league=pro, rating=1850, peak_rating=1850)
    bodies = [
        {"game": "slaps", "played_at": ago(hours=5), "players": ids[:2], "winner": ids[0]},
        {"game": "slaps", "played_at": ago(hours=4), "players": ids[2:4], "winner": ids[3], "rated": False},
        {
            "game": "preferans",
            "played_at": ago(hours=3),
            "seats": [{"player": ids[0]}, {"player": ids[1]}, {"bot": "normal"}],
            "deals": [[4, -2, -2], [-6, 3, 3]],
        },
        factories.bridge_session_body(ids, timezone.now() - timedelta(hours=2), [(420, -50), (100, 100)]),
        {"game": "slaps", "played_at": ago(hours=1), "players": ids[4:6], "winner": ids[4], "league": "slaps-pro"},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        matches = [match_submit(referee=entered_by, data=body) for body in bodies]
    users = {
        "referee": factories.RefereeFactory(first_name="Rita", last_name="Second"),
        "admin": factories.AdminFactory(),
    }
    headers = {role: {"Authorization": f"Token {api_token_for(user)}"} for role, user in users.items()}
    headers["anonymous"] = {}
    # Each game's list of a day before the results (it lists nobody, but it is published and answers).
    today = activity_today()
    list_day = today - timedelta(days=2)
    for game in Game.objects.filter(slug__in=["slaps", "preferans", "bridge"]):
        rating_list_publish(game=game, day=list_day)
    # A closed season of the Slaps amateur league (nobody played in it) and a running one with a table.
    amateur = League.objects.get(slug="slaps-amateur")
    closed = Season.objects.create(
        league=amateur, name="Past", first_day=today - timedelta(days=40), last_day=today - timedelta(days=20)
    )
    season_close(season_id=closed.pk)
    running = Season.objects.create(league=amateur, name="Now", first_day=today - timedelta(days=1), last_day=today)
    season_table_refresh(season_id=running.pk)
    return {
        "seasons": [closed.pk, running.pk],
        "list_day": list_day.isoformat(),
        "today": today.isoformat(),
        "players": ids,
        "matches": [match.pk for match in matches],
        "leagues": list(League.objects.values_list("slug", flat=True)),
        "headers": headers,
        "bodies": bodies,
    }


def test_every_documented_operation_is_fuzzed(schema):
    documented = {result.ok().label for result in schema.get_all_operations()}
    assert documented == set(OPERATIONS)


def _fuzz(cases: st.SearchStrategy, send, *, examples: int) -> None:
    @hypothesis_settings(
        max_examples=examples,
        derandomize=True,  # a fixed seed: CI runs the same cases every time
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases)
    def fuzz(case):
        send(case)

    fuzz()


def _path_values(operation, world) -> st.SearchStrategy:
    """Mostly ids and slugs that exist (so answers other than 404 are reached), sometimes generated ones."""
    names = {parameter.name for parameter in operation.path_parameters}
    if "date" in names:  # a game's published list
        return st.sampled_from(["slaps", "preferans", "bridge"]).map(
            lambda value: {"slug": value, "date": world["list_day"]}
        )
    if "/seasons/" in operation.path and "id" in names:  # a season of the Slaps amateur league
        return st.sampled_from(world["seasons"]).map(lambda value: {"slug": "slaps-amateur", "id": value})
    if "id" in names:
        existing = world["players"] if "/players/" in operation.path else world["matches"]
        return st.sampled_from(existing).map(lambda value: {"id": value})
    if "slug" in names and "/games/" in operation.path:
        return st.sampled_from(["slaps", "preferans", "bridge"]).map(lambda value: {"slug": value})
    if "slug" in names:
        return st.sampled_from(world["leagues"]).map(lambda value: {"slug": value})
    return st.just(None)


def _violable(parameter) -> bool:
    """A path parameter a generated value can break: any but a bare string (``{slug}``, any text, where a
    path has no other parameter to break: ``GET /api/games/{slug}/lists/``)."""
    return parameter.definition.get("schema") != {"type": "string"}


def _cases(operation, mode: GenerationMode, world) -> st.SearchStrategy:
    generated = operation.as_strategy(generation_mode=mode)
    if mode is not GenerationMode.POSITIVE:
        return generated
    if operation.path_parameters:
        generated |= _path_values(operation, world).flatmap(
            lambda values: operation.as_strategy(generation_mode=mode, path_parameters=values)
        )
    for query in _known_queries(operation.label, world):
        if operation.path_parameters:
            generated |= _path_values(operation, world).flatmap(
                lambda values, query=query: operation.as_strategy(
                    generation_mode=mode, path_parameters=values, query=query
                )
            )
        else:
            generated |= operation.as_strategy(generation_mode=mode, query=query)
    for name, values in KNOWN_QUERY.get(operation.label, {}).items():
        generated |= st.sampled_from(values).flatmap(
            lambda value, name=name: operation.as_strategy(generation_mode=mode, query={name: value})
        )
    return generated


@pytest.mark.parametrize("label", OPERATIONS)
def test_every_answer_conforms_to_the_schema_and_a_refusal_stores_nothing(
    schema, world, label, django_capture_on_commit_callbacks
):
    method, path = label.split(" ")
    operation = schema[path][method]
    statuses: list[int] = []
    failures: list[str] = []

    def send(case, role):
        before = rows_snapshot()
        with django_capture_on_commit_callbacks(execute=True):  # results are rated, as a worker would
            response = case.call(headers=world["headers"][role])
        statuses.append(response.status_code)
        case.validate_response(response, checks=CHECKS)
        if response.status_code >= 400 and rows_snapshot() != before:
            failures.append(f"{role} {case.method} {case.formatted_path} {response.status_code} stored rows")

    roles = [OPERATIONS[label], *REFUSED_ROLES[OPERATIONS[label]]]
    modes = [GenerationMode.POSITIVE]
    # The token's header that schemathesis derives from a required security scheme is any string: nothing to break.
    headers = [header for header in operation.headers if "x-original-security-type" not in header.definition]
    if any(map(_violable, operation.path_parameters)) or operation.query or headers or operation.body:
        modes.append(GenerationMode.NEGATIVE)  # nothing to violate otherwise
    with requests_in_the_test_transaction():
        for role in roles:
            examples = EXAMPLES if role == OPERATIONS[label] else REFUSED_EXAMPLES
            for mode in modes:
                _fuzz(_cases(operation, mode, world), lambda case, role=role: send(case, role), examples=examples)
    FIGURES.setdefault("schema-driven requests (schemathesis)", []).extend(statuses)
    FIGURES.setdefault("of them refused, stored rows compared", []).extend(code for code in statuses if code >= 400)
    assert not failures
    assert statuses  # the fuzzing ran (an operation without parameters has one possible request)
    if OPERATIONS[label] == "anonymous":
        assert any(200 <= code < 300 for code in statuses), statuses  # the answer a client wants was reached


# ---- Answer shapes: one valid request for each answer a client can get ----


@pytest.fixture
def answers(schema, world, django_capture_on_commit_callbacks):
    """Send one request as a role and validate its answer against the published schema."""

    def answer(role: str, method: str, path: str, *, status: int, documented_as: str | None = None, **request):
        # ``documented_as``: the operation whose documentation applies (a 405 is answered for another method).
        operation_method, operation_path = (documented_as or f"{method} {path}").split(" ")
        operation = schema[operation_path][operation_method]
        case = operation.Case(method=method, **request)
        with requests_in_the_test_transaction(), django_capture_on_commit_callbacks(execute=True):
            response = case.call(headers=world["headers"][role])
        assert response.status_code == status, response.text[:500]
        case.validate_response(response, checks=CHECKS)
        return response.json()

    return answer


def test_every_success_answer_validates_against_the_schema(answers, world):
    ids = world["players"]
    slaps, _, preferans, bridge, waiting = world["matches"]
    body = {"game": "slaps", "played_at": ago(minutes=30), "players": ids[6:8], "winner": ids[7]}

    created = answers("referee", "POST", "/api/matches/", status=201, body=body, headers={"Idempotency-Key": "k-1"})
    again = answers("referee", "POST", "/api/matches/", status=200, body=body, headers={"Idempotency-Key": "k-1"})
    assert again["id"] == created["id"]
    League.objects.filter(slug="bridge-amateur").update(rating_period_days=7)
    pending = {**world["bodies"][3], "played_at": ago(minutes=20), "league": "bridge-amateur"}
    in_period = answers("referee", "POST", "/api/matches/", status=201, body=pending)
    assert in_period["rated_after"] is not None, in_period
    assert in_period["boards"], in_period

    rated_slaps = answers("anonymous", "GET", "/api/matches/{id}/", status=200, path_parameters={"id": slaps})
    assert all(isinstance(row["rating_after"], int) for row in rated_slaps["rating_changes"]), rated_slaps
    rated_preferans = answers("anonymous", "GET", "/api/matches/{id}/", status=200, path_parameters={"id": preferans})
    assert rated_preferans["deals"] == [[4, -2, -2], [-6, 3, 3]]
    assert len(rated_preferans["rating_changes"]) == 2, rated_preferans  # two players and a bot
    rated_bridge = answers("anonymous", "GET", "/api/matches/{id}/", status=200, path_parameters={"id": bridge})
    assert len(rated_bridge["boards"]) == 2, rated_bridge
    assert len(rated_bridge["rating_changes"]) == 8, rated_bridge

    pro_result = {"game": "slaps", "played_at": ago(minutes=10), "players": ids[4:6], "winner": ids[5]}
    to_dispute = match_submit(referee=factories.RefereeFactory(), data=pro_result | {"league": "slaps-pro"}).pk
    disputed = answers(
        "referee",
        "POST",
        "/api/matches/{id}/dispute/",
        status=200,
        path_parameters={"id": to_dispute},
        body={"note": "Wrong winner."},
    )
    assert disputed["disputed_by"], disputed
    assert (disputed["status"], disputed["awaiting_confirmation"]) == ("submitted", True), disputed
    confirmed = answers("referee", "POST", "/api/matches/{id}/confirm/", status=200, path_parameters={"id": waiting})
    assert confirmed["confirmed_by"], confirmed
    assert confirmed["awaiting_confirmation"] is False, confirmed
    correction = {**world["bodies"][0], "winner": ids[1]}
    corrected = answers(
        "admin", "POST", "/api/matches/{id}/correct/", status=200, path_parameters={"id": slaps}, body=correction
    )
    assert corrected["winner"] == ids[1], corrected
    voided = answers("admin", "POST", "/api/matches/{id}/void/", status=200, path_parameters={"id": preferans})
    assert voided["status"] == "void"

    added = answers("referee", "POST", "/api/players/", status=201, body={"name": "Zoë"})
    assert added["ratings"] == []
    player = answers("anonymous", "GET", "/api/players/{id}/", status=200, path_parameters={"id": ids[0]})
    assert {rating["game"] for rating in player["ratings"]} == {"slaps", "bridge"}  # the Preferans game was voided
    history = answers(
        "anonymous", "GET", "/api/players/{id}/history/", status=200, path_parameters={"id": ids[0]}, query={}
    )
    assert len(history["results"]) >= 3, history
    first = answers(
        "anonymous",
        "GET",
        "/api/leagues/{slug}/leaderboard/",
        status=200,
        path_parameters={"slug": "bridge-amateur"},
        query={"page_size": 3},
    )
    assert first["next"], first
    assert first["previous"] is None, first
    second = answers(
        "anonymous",
        "GET",
        "/api/leagues/{slug}/leaderboard/",
        status=200,
        path_parameters={"slug": "bridge-amateur"},
        query={"page_size": 3, "page": 2, "sort": "peak"},
    )
    assert second["previous"], second
    answers("anonymous", "GET", "/api/games/", status=200)
    answers("anonymous", "GET", "/api/leagues/", status=200, query={"game": "bridge"})
    elo = answers(
        "anonymous", "GET", "/api/calculator/elo/", status=200, query={"rating": 1613, "opponent": 1609, "score": 0}
    )
    assert elo["new_rating"] == 1597  # seed 000: 1613 loses to 1609, E = 0.506, 1613 + 32 * (0 - 0.506) = 1596.8
    grid = answers(
        "anonymous",
        "GET",
        "/api/calculator/preferans/",
        status=200,
        query={"rating": 1800, "opponents": "1800,1800", "whists": -5, "grid": "true"},
    )
    assert len(grid["grid"]["rows"]) == 10, grid


def _django_auth(world) -> dict:
    return {"HTTP_AUTHORIZATION": world["headers"]["referee"]["Authorization"]}


def test_every_error_answer_is_json_and_documented(answers, world, settings, client):
    before = rows_snapshot()
    match = world["matches"][0]
    body = {"game": "slaps", "played_at": ago(minutes=5), "players": world["players"][:2], "winner": 0}
    refused = answers("referee", "POST", "/api/matches/", status=400, body=body)
    assert "winner" in refused
    not_an_object = answers("referee", "POST", "/api/matches/", status=400, body=["slaps"])
    assert "non_field_errors" in not_an_object
    answers("referee", "POST", "/api/players/", status=415, body={"name": "Ann"}, media_type="text/plain")
    answers("anonymous", "POST", "/api/matches/", status=401, body=body)
    answers("referee", "POST", "/api/matches/{id}/void/", status=403, path_parameters={"id": match})
    answers("anonymous", "GET", "/api/matches/{id}/", status=404, path_parameters={"id": 10**9})
    answers("anonymous", "GET", "/api/matches/{id}/", status=404, path_parameters={"id": -1})  # no route matches
    answers("referee", "GET", "/api/matches/", status=405, documented_as="POST /api/matches/", body=body)
    twice = answers(
        "anonymous", "GET", "/api/calculator/elo/", status=400, query={"rating": [1500, 1600], "opponent": 1500}
    )
    assert list(twice) == ["rating"]  # was read as its last value
    nul = answers("anonymous", "GET", "/api/leagues/", status=400, query={"game": "\x00", "game__slug": "a\x00"})
    assert set(nul) == {"game", "game__slug"}  # was a 500 on PostgreSQL (NUL in a text comparison)
    answers(
        "anonymous",
        "GET",
        "/api/leagues/{slug}/leaderboard/",
        status=400,
        path_parameters={"slug": "slaps-amateur"},
        query={"page_size": "0"},
    )
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    answers("referee", "POST", "/api/players/", status=413, body={"name": "x" * 200})
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = settings.CARDRANK_MAX_BODY_BYTES
    # A body that is not JSON at all, sent raw (schemathesis would encode it): the documented 400 shape.
    published = client.get("/api/schema/?format=json").json()
    field_errors = published["paths"]["/api/matches/"]["post"]["responses"]["400"]["content"]["application/json"]
    broken = client.post("/api/matches/", "{not json", content_type="application/json", **_django_auth(world))
    assert broken.status_code == 400
    assert "detail" in broken.json()
    jsonschema.validate(broken.json(), field_errors["schema"])
    # A path under /api/ that no route matches answers JSON too (outside the schema: nothing documents it).
    unknown = client.get("/api/no-such-thing/")
    assert unknown.status_code == 404
    assert unknown["Content-Type"] == "application/json"
    assert unknown.json() == {"detail": "Not found."}
    assert rows_snapshot() == before  # every refusal above stored nothing

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": "1/min"}}
    answers("referee", "POST", "/api/players/", status=201, body={"name": "Bea"})
    answers("referee", "POST", "/api/players/", status=429, body={"name": "Cy"})
    players = rows_snapshot()["leagues.Player"]
    assert [row["name"] for pk, row in players.items() if pk not in before["leagues.Player"]] == ["Bea"]


def test_the_schema_validates_and_describes_the_match_answer(tmp_path, reference_data):
    """drf-spectacular's own validation (OpenAPI 3.0 meta-schema), failing on any warning; and each game's
    match answer lists the five fields the first schema lacked, with their types."""
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    from django.test import Client

    published = Client().get("/api/schema/?format=json").json()
    schemas = published["components"]["schemas"]
    assert schemas["BridgeMatchOut"]["properties"]["boards"]["items"] == {"$ref": "#/components/schemas/BoardOutput"}
    assert "boards" in schemas["BridgeMatchOut"]["required"]
    for name in ("SlapsMatchOut", "PreferansMatchOut", "BridgeMatchOut"):
        match = schemas[name]
        assert {"league", "awaiting_confirmation", "confirmed_by", "disputed_by", "rated_after"} <= set(
            match["required"]
        )
        properties = match["properties"]
        assert (properties["league"]["type"], properties["league"]["nullable"]) == ("string", True)
        assert properties["awaiting_confirmation"]["type"] == "boolean"
        assert (properties["confirmed_by"]["type"], properties["confirmed_by"]["nullable"]) == ("string", True)
        assert (properties["rated_after"]["format"], properties["rated_after"]["nullable"]) == ("date-time", True)
    reused = published["paths"]["/api/matches/"]["post"]["responses"]["422"]["content"]["application/json"]
    assert reused["schema"]["required"] == ["Idempotency-Key"]
    for path in ["/api/matches/{id}/", "/api/matches/{id}/void/", "/api/matches/{id}/correct/"]:
        operation = next(iter(published["paths"][path].values()))
        assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/MatchOut"
        }


# ---- A schema per game (issue 26): each body and each answer is its own game's, chosen by "game" ----

GAME_MEMBERS = {
    "MatchSubmit": {"slaps": "SlapsResult", "preferans": "PreferansResult", "bridge": "BridgeResult"},
    "MatchOut": {"slaps": "SlapsMatchOut", "preferans": "PreferansMatchOut", "bridge": "BridgeMatchOut"},
}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def test_a_body_and_an_answer_are_a_oneof_of_the_games_chosen_by_game(schema):
    """MatchSubmit and MatchOut are a oneOf with a member per game's kind, the discriminator's mapping taking
    each game's slug to it; a member's game is the enum of its kind's games. The batch refers to the same
    unions. Each member has its own limits and words: only Slaps's players are two, and no description of a
    member names another game."""
    schemas = schema.raw_schema["components"]["schemas"]
    for union, members in GAME_MEMBERS.items():
        refs = schemas[union]["oneOf"]
        assert refs[: len(members)] == [_ref(name) for name in members.values()]
        # Any other registered kind (the suite's fifth game) is a member too; with no game yet, in no mapping.
        assert not {ref["$ref"] for ref in refs[len(members) :]} & set(
            schemas[union]["discriminator"]["mapping"].values()
        )
        assert schemas[union]["discriminator"] == {
            "propertyName": "game",
            "mapping": {slug: f"#/components/schemas/{name}" for slug, name in members.items()},
        }
        for slug, name in members.items():
            assert schemas[name]["properties"]["game"]["allOf"] == [_ref(f"{slug.title()}Game")]
            assert "game" in schemas[name]["required"]
    assert schemas["SlapsGame"]["enum"] == ["slaps"]
    batch = schemas["MatchBatchSubmit"]["properties"]["matches"]
    assert batch["items"] == _ref("MatchSubmit")
    assert schemas["MatchBatchOut"]["properties"]["matches"]["items"] == _ref("MatchOut")

    slaps = schemas["SlapsResult"]["properties"]
    assert (slaps["players"]["minItems"], slaps["players"]["maxItems"]) == (2, 2)
    assert {"players", "winner"} <= set(schemas["SlapsResult"]["required"])
    assert {"seats", "deals"} <= set(schemas["PreferansResult"]["required"])
    assert "boards" in schemas["BridgeResult"]["required"]
    assert not {"seats", "deals", "boards"} & set(slaps)
    assert not {"players", "winner", "boards"} & set(schemas["PreferansResult"]["properties"])
    assert not {"winner", "boards", "scoring", "standings"} & set(schemas["PreferansMatchOut"]["properties"])
    assert not {"deals", "boards", "scoring", "standings"} & set(schemas["SlapsMatchOut"]["properties"])
    other_games = ("Slaps:", "Preferans:", "Bridge:", "else empty", "for other games")
    for name in [*GAME_MEMBERS["MatchSubmit"].values(), *GAME_MEMBERS["MatchOut"].values()]:
        words = json.dumps(schemas[name]["properties"])
        assert not [word for word in other_games if word in words], name


def _documented_examples(published: dict) -> list[dict]:
    """Every example body: docs/api.md's, the kinds' own, and those the schema shows on POST /api/matches/."""
    examples = published["paths"]["/api/matches/"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    kinds = [kind.body_example for kind in KINDS.values() if getattr(kind, "body_example", None)]
    return [*documented_bodies(), *kinds, *(example["value"] for example in examples.values())]


def test_every_documented_body_validates_as_its_own_game_only(schema):
    published = schema.raw_schema
    examples = _documented_examples(published)
    assert {body["game"] for body in examples} == {"slaps", "preferans", "bridge"}
    assert len(examples) >= 9  # three in docs/api.md, three kinds', three in the schema
    submit = component_validator(published, "MatchSubmit")
    for body in examples:
        submit.validate(body)
        assert members_fitting(published, "MatchSubmit", body) == [GAME_MEMBERS["MatchSubmit"][body["game"]]], body


def test_every_body_the_tests_send_validates_and_a_wrong_one_does_not(schema, world):
    published = schema.raw_schema
    submit = component_validator(published, "MatchSubmit")
    for body in world["bodies"]:
        assert members_fitting(published, "MatchSubmit", body) == [GAME_MEMBERS["MatchSubmit"][body["game"]]], body
    slaps = world["bodies"][0]
    three = {**slaps, "players": world["players"][:3]}
    assert members_fitting(published, "MatchSubmit", three) == []  # not as Slaps, nor as another game
    assert not submit.is_valid(three)
    assert not submit.is_valid({key: value for key, value in slaps.items() if key != "winner"})
    assert not submit.is_valid({**slaps, "game": "preferans"})  # a Slaps body named a Preferans game
    batch = component_validator(published, "MatchBatchSubmit")
    batch.validate({"matches": world["bodies"]})
    assert not batch.is_valid({"matches": [world["bodies"][0], three]})


def test_each_games_answer_has_its_own_fields_only(answers, world, schema):
    """A Slaps match answers winner and none of the other games' fields (no "deals": [], no "boards": []), and
    so on for each game: its keys are exactly its member's properties, and it fits that member only."""
    published = schema.raw_schema
    slaps, _, preferans, bridge, _ = world["matches"]
    for pk, game in ((slaps, "slaps"), (preferans, "preferans"), (bridge, "bridge")):
        answer = answers("anonymous", "GET", "/api/matches/{id}/", status=200, path_parameters={"id": pk})
        member = GAME_MEMBERS["MatchOut"][game]
        assert set(answer) == set(published["components"]["schemas"][member]["properties"]), answer
        assert members_fitting(published, "MatchOut", answer) == [member]
    assert {"deals", "boards", "scoring", "standings"}.isdisjoint(
        answers("anonymous", "GET", "/api/matches/{id}/", status=200, path_parameters={"id": slaps})
    )


# ---- Refusals: every operation documents each one it can answer, and answers it as documented ----

MiB = 1024 * 1024


def _concrete_path(path: str, world, *, unknown: bool = False) -> str:
    if "{slug}" in path and "{id}" in path:  # a season of a league
        return path.replace("{slug}", "slaps-amateur").replace("{id}", str(10**9 if unknown else world["seasons"][0]))
    if "{slug}" in path:
        return path.replace("{slug}", "no-such-league" if unknown else "slaps-amateur")
    if "{id}" in path:
        existing = world["players"][0] if path.startswith("/api/players/") else world["matches"][-1]
        return path.replace("{id}", str(10**9 if unknown else existing))
    return path


def _refusals(label: str, role: str) -> list[int]:
    """The refusals an operation can answer (config.api ``error_responses``), by what the operation is."""
    method, path = label.split(" ")
    codes = [400, 401, 405]  # a Host not served, a bad token, another method
    if "{" in path:
        codes.append(404)
    if method == "POST":
        codes += [403, 429]
    if path in {"/api/players/", "/api/matches/", "/api/matches/{id}/correct/"}:
        codes += [413, 415]
    return codes


def test_every_operation_documents_each_refusal_it_can_answer_and_answers_it_so(schema, world, settings):
    """Each refusal is provoked for real on each operation; its status must be documented there and its
    JSON body valid against the documented schema (answers closed, as the fuzzing checks them)."""
    from django.test import Client

    published = schema.raw_schema
    components = {"components": published["components"]}
    outsider = factories.UserFactory()  # signed in, no role
    tokens = {
        "outsider": f"Token {api_token_for(outsider)}",
        **{role: headers.get("Authorization") for role, headers in world["headers"].items()},
    }
    before = rows_snapshot()
    checked = 0
    for label, role in OPERATIONS.items():
        method, path = label.split(" ")
        documented = published["paths"][path][method.lower()]["responses"]
        url = _concrete_path(path, world)
        auth = {"HTTP_AUTHORIZATION": tokens[role]} if tokens.get(role) else {}
        send = getattr(Client(), method.lower())
        provoked = {
            400: lambda send=send, url=url, auth=auth: send(url, HTTP_HOST="not-served.example", **auth),
            401: lambda send=send, url=url: send(url, HTTP_AUTHORIZATION="Token not-a-token"),
            405: lambda url=url, auth=auth: Client().put(url, {}, content_type="application/json", **auth),
            404: lambda send=send, path=path, auth=auth: send(_concrete_path(path, world, unknown=True), **auth),
            403: lambda url=url, role=role: Client().post(
                url,
                {},
                content_type="application/json",
                HTTP_AUTHORIZATION=tokens["referee" if role == "admin" else "outsider"],
            ),
            413: lambda url=url, auth=auth: Client().post(
                url, '{"name": "%s"}' % ("x" * MiB), content_type="application/json", **auth
            ),
            415: lambda url=url, auth=auth: Client().post(url, "name=Ann", content_type="text/plain", **auth),
        }
        for code in _refusals(label, role):
            assert str(code) in documented, f"{label} can answer {code} but does not document it"
            if code == 429:
                settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": "1/hour"}}
                unknown = _concrete_path(path, world, unknown=True) if "{" in path else url
                Client().post(unknown, "{", content_type="application/json", **auth)  # counted, and refused
                response = Client().post(unknown, "{", content_type="application/json", **auth)
                settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": "600/min"}}
            else:
                response = provoked[code]()
            assert response.status_code == code, (label, code, response.content[:300])
            assert response["Content-Type"] == "application/json", (label, code, response["Content-Type"])
            body_schema = documented[str(code)]["content"]["application/json"]["schema"]
            jsonschema.validate(response.json(), {**body_schema, **components})
            checked += 1
    assert rows_snapshot() == before  # every refusal stored nothing
    assert checked >= 60


def test_the_leaderboard_schema_is_the_paged_object_it_answers(schema, world, client):
    """The leaderboard answers one page object (not a list of rows): the schema says so, field for field, and
    the fuzzing validates its answers against it (response_schema_conformance, objects closed)."""
    assert openapi_checks.response_schema_conformance in CHECKS
    published = schema.raw_schema
    page_schema = published["paths"]["/api/leagues/{slug}/leaderboard/"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]
    name = page_schema["$ref"].rsplit("/", 1)[1]
    page = published["components"]["schemas"][name]
    assert page["type"] == "object"
    assert page["additionalProperties"] is False  # closed by answers_closed: no field may go undocumented
    answer = client.get("/api/leagues/bridge-amateur/leaderboard/?page_size=3").json()
    assert set(page["properties"]) == set(answer) == {"count", "next", "previous", "results"}
    assert set(page["required"]) == set(answer)
    assert page["properties"]["results"]["type"] == "array"
    row = published["components"]["schemas"][page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]]
    assert set(row["properties"]) == set(answer["results"][0])


# ---- Answer shapes of the endpoints added after the first schema: the batch and the downloads ----


def _call(schema, world, role: str, method: str, path: str, *, status: int, **request):
    """One request as ``role``, its answer validated against the published schema (``CHECKS``)."""
    case = schema[path][method].Case(method=method, **request)
    with requests_in_the_test_transaction():
        response = case.call(headers=world["headers"][role])
    assert response.status_code == status, response.text[:500]
    case.validate_response(response, checks=CHECKS)
    return response


def test_every_batch_answer_validates_against_the_schema(schema, world, django_capture_on_commit_callbacks):
    """Random bodies almost never make a batch whose every item is accepted, so the fuzzing above rarely
    reaches the 201 and the 200 of a retry: each answer of POST /api/matches/batch/ is sent here once.
    After each refusal the rows of every table are the same, compared by content."""
    ids = world["players"]
    items = [
        {"game": "slaps", "played_at": ago(minutes=40), "players": ids[6:8], "winner": ids[6]},
        {
            "game": "preferans",
            "played_at": ago(minutes=35),
            "seats": [{"player": ids[6]}, {"player": ids[7]}, {"bot": "easy"}],
            "deals": [[2, -1, -1]],
        },
    ]
    key = {"Idempotency-Key": "batch-1"}
    with django_capture_on_commit_callbacks(execute=True):
        created = _call(schema, world, "referee", "POST", "/api/matches/batch/", status=201,
                        body={"matches": items}, headers=key).json()  # fmt: skip
    assert [match["game"] for match in created["matches"]] == ["slaps", "preferans"], created
    before = rows_snapshot()
    again = _call(schema, world, "referee", "POST", "/api/matches/batch/", status=200,
                  body={"matches": items}, headers=key).json()  # fmt: skip
    assert [match["id"] for match in again["matches"]] == [match["id"] for match in created["matches"]]
    other = [items[0], {**items[1], "deals": [[-2, 1, 1]]}]
    reused = _call(schema, world, "referee", "POST", "/api/matches/batch/", status=422,
                   body={"matches": other}, headers=key).json()  # fmt: skip
    assert "batch-1" in reused["Idempotency-Key"][0], reused
    bad_item = [items[0], {**items[0], "winner": 0}]
    refused = _call(schema, world, "referee", "POST", "/api/matches/batch/", status=400,
                    body={"matches": bad_item}).json()  # fmt: skip
    assert list(refused["errors"]) == ["1"], refused
    assert "winner" in refused["errors"]["1"], refused
    empty = _call(schema, world, "referee", "POST", "/api/matches/batch/", status=400, body={"matches": []}).json()
    assert "matches" in empty, empty
    _call(schema, world, "anonymous", "POST", "/api/matches/batch/", status=401, body={"matches": items})
    assert rows_snapshot() == before  # the retry and every refusal stored nothing


def test_every_download_answer_validates_against_the_schema(schema, world):
    """The CSV files and the JSON dump: 200 with the documented content type (the dump's body against its
    schema), and each refusal as documented (401 and 403 for the staff's dump, 404 for an unknown game or
    player, 400 naming a bad parameter)."""
    ids = world["players"]
    results = _call(schema, world, "anonymous", "GET", "/api/games/{slug}/results.csv", status=200,
                    path_parameters={"slug": "slaps"}, query={})  # fmt: skip
    content_type = {name.lower(): values for name, values in results.headers.items()}["content-type"]
    assert content_type[0].startswith("text/csv"), results.headers
    rows = results.text.lstrip("\ufeff").splitlines()
    assert len(rows) == 1 + 3, rows  # a header and the three Slaps results of ``world``
    dump = _call(schema, world, "admin", "GET", "/api/games/{slug}/results.json", status=200,
                 path_parameters={"slug": "preferans"}, query={}).json()  # fmt: skip
    assert isinstance(dump, dict), dump
    for role, status in (("anonymous", 401), ("referee", 403)):
        _call(schema, world, role, "GET", "/api/games/{slug}/results.json", status=status,
              path_parameters={"slug": "preferans"}, query={})  # fmt: skip
    table = _call(schema, world, "anonymous", "GET", "/api/leagues/{slug}/leaderboard.csv", status=200,
                  path_parameters={"slug": "bridge-amateur"}, query={"sort": "peak"})  # fmt: skip
    assert len(table.text.lstrip("\ufeff").splitlines()) == 1 + 8, table.text  # the eight bridge players
    history = _call(schema, world, "anonymous", "GET", "/api/players/{id}/history.csv", status=200,
                    path_parameters={"id": ids[0]}, query={"game": "slaps"})  # fmt: skip
    assert len(history.text.lstrip("\ufeff").splitlines()) == 1 + 1, history.text  # ids[0]'s one Slaps match
    _call(schema, world, "anonymous", "GET", "/api/games/{slug}/results.csv", status=404,
          path_parameters={"slug": "no-such-game"}, query={})  # fmt: skip
    _call(schema, world, "anonymous", "GET", "/api/players/{id}/history.csv", status=404,
          path_parameters={"id": 10**9}, query={})  # fmt: skip
    bad_day = _call(schema, world, "anonymous", "GET", "/api/games/{slug}/results.csv", status=400,
                    path_parameters={"slug": "slaps"}, query={"from": "not a day"}).json()  # fmt: skip
    assert "from" in bad_day, bad_day
