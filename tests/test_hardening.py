"""Rate limits on sign-in and writes, and production settings that pass check --deploy."""

import os
import subprocess
import sys

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Player
from tests.conftest import REPO, manage_on_production
from tests.factories import RefereeFactory, api_token_for
from tests.redis_servers import capped_cache_redis

pytestmark = pytest.mark.django_db


def test_sign_in_attempts_are_limited(production, reference_data):
    """The sign-in limits (config/signin.py; every case in tests/test_sign_in_limits.py)."""
    production.CARDRANK_SIGN_IN_LIMITS = {**production.CARDRANK_SIGN_IN_LIMITS, "account_and_address": 3}
    RefereeFactory(username="table9")
    client = Client()
    statuses = [
        client.post("/accounts/login/", {"username": "table9", "password": f"guess {n}"}).status_code for n in range(5)
    ]
    assert statuses[:2] == [200, 200]  # the form again, with an error
    assert statuses[2:] == [429, 429, 429]  # the third failure reached the limit
    # Even the right password waits now: a brute-forcer learns nothing.
    right = client.post("/accounts/login/", {"username": "table9", "password": "correct horse battery"})
    assert right.status_code == 429
    assert 1 <= int(right["Retry-After"]) <= 15 * 60
    assert "_auth_user_id" not in client.session


def test_api_writes_are_throttled_per_referee(reference_data, settings):
    # Per hour, so that five quick requests never straddle the window's edge.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": "3/hour"}}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(RefereeFactory())}")
    responses = [client.post("/api/players/", {"name": f"P{n}"}, format="json") for n in range(5)]
    assert [response.status_code for response in responses] == [201, 201, 201, 429, 429]
    assert 1 <= int(responses[-1]["Retry-After"]) <= 3600  # the rest of the hour's window, never 0
    assert Player.objects.count() == 3
    # Reading is never throttled.
    assert all(client.get("/api/games/").status_code == 200 for _ in range(5))


def test_page_writes_are_limited_per_user(reference_data, settings):
    settings.CARDRANK_PAGE_WRITE_RATE = "2/m"
    client = Client()
    client.force_login(RefereeFactory())
    statuses = [client.post("/results/players/", {"name": f"Q{n}"}).status_code for n in range(4)]
    assert statuses == [200, 200, 429, 429]
    assert Player.objects.count() == 2


@pytest.mark.redis
def test_production_settings_pass_check_deploy():
    # The cache on a capped, evicting Redis of its own, apart from the broker's (config/checks.py).
    with capped_cache_redis() as cache_url:
        result = manage_on_production(
            "check",
            "--deploy",
            "--fail-level",
            "WARNING",
            CACHE_URL=cache_url,
            CELERY_BROKER_URL="redis://127.0.0.1:6379/14",
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_static_files_collect_with_hashed_names(tmp_path, settings):
    """The documented deployment runs collectstatic; the manifest storage fails on any reference it cannot resolve."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    manifest = (tmp_path / "staticfiles.json").read_text()
    assert "vendor/chart-4.6.1.umd.min.js" in manifest
    assert "vendor/htmx" in manifest


def test_production_refuses_to_start_without_a_secret():
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": ""}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr
