"""The Content-Security-Policy, through HTTP on the production settings: on every kind of answer, exactly.

The browser half (no page breaks the policy in a real Chromium) is ``tests/browser/test_csp.py``.
"""

import json
import os
import subprocess
import sys

import pytest
from django.test import Client

from leagues.models import Player
from ratings.services import ratings_process_game
from tests.conftest import REPO
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

# The policy settings.CONTENT_SECURITY_POLICY promises: directive -> its sources, exactly.
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.status_code} {response.get('Content-Type')}: no Content-Security-Policy"
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


@pytest.fixture
def played(slaps):
    """Two players, one rated Slaps match between them."""
    winner, loser = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=winner, loser=loser)
    ratings_process_game(game_id=slaps.pk)
    return match


@pytest.fixture
def signed_in_admin(admin_user):
    client = Client()
    client.force_login(admin_user)
    return client


def test_every_kind_of_answer_carries_the_policy(production, played, signed_in_admin, referee_client):
    player = played.seats.first().player
    pages = [
        "/",
        "/leagues/slaps-amateur/",
        f"/players/{player.pk}/",
        "/matches/",
        f"/matches/{played.pk}/",
        "/calculator/elo/",
        "/calculator/preferans/",
        "/quality/",
        "/quality/slaps/",
        "/results/slaps/",
        "/results/preferans/",
        "/results/bridge/",
        "/results/confirm/",
        "/admin/",
        f"/admin/matches/match/{played.pk}/change/",
        "/api/docs/",
        "/api/docs/?script=",
        "/api/games/",
        f"/api/matches/{played.pk}/",
        "/accounts/login/",
    ]
    for url in pages:
        response = signed_in_admin.get(url)
        assert response.status_code == 200, url
        assert policy_of(response) == POLICY, url
    # Errors too: a missing page, an API error, a write refused.
    assert policy_of(signed_in_admin.get("/no/such/page/")) == POLICY
    assert policy_of(signed_in_admin.get("/api/matches/999999/")) == POLICY
    refused = referee_client.post("/api/players/", {"name": ""}, format="json")
    assert refused.status_code == 400
    assert policy_of(refused) == POLICY
    assert not Player.objects.filter(name="").exists()


def test_api_docs_need_no_inline_script_or_style(production, client):
    """Swagger UI's start-up script comes from a URL of its own, its page style from a static file."""
    page = client.get("/api/docs/").content.decode()
    assert "<style" not in page
    assert "<script>" not in page
    assert 'src="/api/docs/?script="' in page
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()
    assert '"validatorUrl": null' in script.content.decode()  # no badge fetched from validator.swagger.io


def test_pages_tell_htmx_to_inject_no_style_and_eval_nothing(production, client, reference_data):
    """htmx would add an inline <style> for its indicator (refused by style-src 'self') unless told not to."""
    page = client.get("/").content.decode()
    assert '"includeIndicatorStyles": false' in page
    assert '"allowEval": false' in page
    assert " style=" not in page


def test_an_operator_can_collect_violation_reports():
    """CARDRANK_CSP_REPORT_URI adds report-uri to the policy; unset, there is none."""
    script = (
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.CONTENT_SECURITY_POLICY))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(REPO)}
    env.pop("CARDRANK_CSP_REPORT_URI", None)
    policies = []
    for extra in ({}, {"CARDRANK_CSP_REPORT_URI": "https://reports.example.org/csp"}):
        result = subprocess.run(
            [sys.executable, "-c", script], cwd=REPO, env={**env, **extra}, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        policies.append(json.loads(result.stdout)["DIRECTIVES"])
    assert "report-uri" not in policies[0]
    assert policies[1]["report-uri"] == ["https://reports.example.org/csp"]
    assert {key: value for key, value in policies[1].items() if key != "report-uri"} == policies[0] == POLICY
