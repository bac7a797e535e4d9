"""Admin's import through the real processes: gunicorn serves the pages, a Celery worker on Redis checks and
imports the file, and the page's poll (the status block htmx fetches every second) follows the progress to done.

The expected counts are the file's, written here (the rows this test makes), never the service's.
"""

import re
from datetime import UTC, datetime, timedelta

import pytest
import requests
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission

from games.models import ImportRun
from leagues.models import Game, Player
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import RefereeFactory
from tests.integration.conftest import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.services]

RESULTS = 240  # 24 players, each in 20 results
PASSWORD = "correct horse battery"  # tests.factories.UserFactory's


def history_csv() -> bytes:
    start = datetime(2025, 1, 6, 18, 0, tzinfo=UTC)
    rows = ["played_at,player_a,player_b,winner"]
    for index in range(RESULTS):
        a, b = index % 24, (index * 7 + 1) % 24
        if a == b:
            b = (b + 1) % 24
        rows.append(f"{(start + timedelta(minutes=index)).isoformat()},Worker Player {a},Worker Player {b},a")
    return ("\n".join(rows) + "\n").encode()


def csrf(session: requests.Session, html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def test_a_worker_checks_and_imports_an_admin_upload_while_the_page_follows_its_progress(stack):
    user = RefereeFactory(is_staff=True)
    # gunicorn checks passwords with the production hashers (tests/conftest.py: FAST_PASSWORD_HASHERS).
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save()
    user.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    web = requests.Session()
    base = stack.base_url
    login = web.get(f"{base}/admin/login/", timeout=30)
    answer = web.post(
        f"{base}/admin/login/?next=/admin/",
        data={"username": user.username, "password": PASSWORD, "csrfmiddlewaretoken": csrf(web, login.text)},
        headers={"Referer": f"{base}/admin/login/"},
        timeout=30,
    )
    assert answer.url == f"{base}/admin/", answer.text[:500]

    form = web.get(f"{base}/admin/games/importrun/add/", timeout=30)
    answer = web.post(
        f"{base}/admin/games/importrun/add/",
        data={
            "game": Game.objects.get(slug="slaps").pk,
            "referee": user.pk,
            "csrfmiddlewaretoken": csrf(web, form.text),
        },
        files={"file": ("worker.csv", history_csv(), "text/csv")},
        headers={"Referer": f"{base}/admin/games/importrun/add/"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text[:3000]
    run = ImportRun.objects.get()
    assert answer.url == f"{base}/admin/games/importrun/{run.pk}/change/", answer.text[:1000]
    status_url = f"{base}/admin/games/importrun/{run.pk}/status/"

    def status() -> str:
        block = web.get(status_url, timeout=30).text
        return re.search(r'data-status="(\w+)"', block).group(1)

    wait_until(lambda: status() == "previewed", timeout=120, what=f"the worker's check\n{stack.log('worker')}")
    assert Match.objects.count() == 0  # the preview's dry run stored nothing
    page = web.get(answer.url, timeout=30).text
    assert f"{RESULTS} results; players: 0 matched (0 by federation number, 0 by name), 24 new" in page

    seen = []

    def done() -> bool:
        block = web.get(status_url, timeout=30).text
        progress = re.search(r'<progress id="import-progress" max="(\d+)" value="(\d+)"', block)
        if progress:
            seen.append((int(progress.group(2)), int(progress.group(1))))
        return 'data-status="done"' in block or 'data-status="failed"' in block

    answer = web.post(
        f"{base}/admin/games/importrun/{run.pk}/confirm/",
        data={"sha256": run.sha256, "csrfmiddlewaretoken": csrf(web, page)},
        headers={"Referer": answer.url},
        timeout=30,
    )
    assert answer.status_code == 200
    wait_until(done, timeout=180, what=f"the worker's import\n{stack.log('worker')}")

    run.refresh_from_db()
    assert run.status == "done", run.error
    assert (run.done, run.total) == (RESULTS, RESULTS)
    assert seen[-1] == (RESULTS, RESULTS)
    assert [done for done, _total in seen] == sorted(done for done, _total in seen)
    assert "games.tasks.import_run_check" in stack.log("worker")
    assert "games.tasks.import_run_apply" in stack.log("worker")
    assert Match.objects.filter(game__slug="slaps").count() == RESULTS
    assert Player.objects.filter(name__startswith="Worker Player").count() == 24
    assert RatingChange.objects.count() == 2 * RESULTS
    assert f"Imported {RESULTS} results (0 players matched, 24 new); {RESULTS} rated." in web.get(status_url).text
