"""Admin's tuning through the real processes: gunicorn serves the page, a Celery worker on Redis runs the search
on the admin queue, and the page's poll follows it round by round to its verdict (issue 29).

The history is made here: 24 players of fixed strength, the stronger always winning, so every part forecasts
better the surer the ratings are; the expected budget and parts are the ones this test posts. It is long enough
(1,280 results, 8 candidates a round) for a round's replays to be forked from inside the worker's own process
(``ratings.evaluation.PARALLEL_FROM``), as billiard allows and the standard library refuses a daemon.
"""

import os
import re
from datetime import UTC, datetime, timedelta

import pytest
import requests
from django.contrib.auth.hashers import make_password

from leagues.models import Game
from matches.models import Match, Seat
from ratings.models import TuningRun
from tests.factories import PlayerFactory, UserFactory
from tests.integration.conftest import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.services]

PASSWORD = "correct horse battery"  # tests.factories.UserFactory's
BUDGET = 40
RESULTS = 1280


def csrf(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def test_a_worker_runs_the_search_while_the_page_follows_it_to_its_verdict(stack):
    game = Game.objects.get(slug="slaps")
    players = [PlayerFactory(name=f"Tuning Player {number}") for number in range(24)]
    start = datetime(2025, 1, 6, 18, 0, tzinfo=UTC)
    # Stored as the factories' slaps_match stores a result (submitted, not yet rated: a tuning reads both), in
    # bulk; the worker replays them in memory and needs no ledger.
    matches = Match.objects.bulk_create(
        Match(game=game, played_at=start + timedelta(minutes=index), rated=True, status=Match.Status.SUBMITTED)
        for index in range(RESULTS)
    )
    seats = []
    for index, match in enumerate(matches):
        a, b = index % 24, (index * 7 + 1) % 24
        if a == b:
            b = (b + 1) % 24
        stronger, weaker = (players[a], players[b]) if a < b else (players[b], players[a])
        seats += [
            Seat(match=match, position=1, player=stronger, result=1),
            Seat(match=match, position=2, player=weaker, result=0),
        ]
    Seat.objects.bulk_create(seats)
    user = UserFactory(is_staff=True, is_superuser=True)
    # gunicorn checks passwords with the production hashers (tests/conftest.py: FAST_PASSWORD_HASHERS).
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save()
    web = requests.Session()
    base = stack.base_url
    login = web.get(f"{base}/admin/login/", timeout=30)
    answer = web.post(
        f"{base}/admin/login/?next=/admin/",
        data={"username": user.username, "password": PASSWORD, "csrfmiddlewaretoken": csrf(login.text)},
        headers={"Referer": f"{base}/admin/login/"},
        timeout=30,
    )
    assert answer.url == f"{base}/admin/", answer.text[:500]

    url = f"{base}/admin/leagues/game/{game.pk}/tuning/"
    form = web.get(url, timeout=30).text
    assert "Each replay rates the game's 1,280 stored results." in form
    answer = web.post(
        url,
        data={"split": "0.5", "choose": "0.25", "budget": str(BUDGET), "csrfmiddlewaretoken": csrf(form)},
        headers={"Referer": url},
        timeout=30,
    )
    run = TuningRun.objects.get(game=game)
    assert answer.url == f"{url}?run={run.pk}"
    status_url = f"{url}{run.pk}/status/"
    seen = []

    def finished() -> bool:
        block = web.get(status_url, timeout=30).text
        progress = re.search(r'<progress max="(\d+)" value="(\d+)">', block)
        if progress:
            seen.append((int(progress.group(2)), int(progress.group(1))))
        return 'data-status="done"' in block or 'data-status="failed"' in block

    wait_until(finished, timeout=180, what=f"the worker's tuning\n{stack.log('worker')}")
    run.refresh_from_db()
    assert run.status == TuningRun.Status.DONE, run.error
    assert "ratings.tasks.ratings_tune" in stack.log("worker")
    if len(os.sched_getaffinity(0)) > 1:
        assert re.search(r"Replaying candidates in \d+ forked processes", stack.log("worker"))
    search = run.result["search"]
    assert search["replays"] <= BUDGET
    assert run.progress["replays"] == search["replays"]
    assert all(total == BUDGET for _done, total in seen)
    assert [done for done, _total in seen] == sorted(done for done, _total in seen)
    assert run.result["verdict"] == "better"
    page = web.get(f"{url}?run={run.pk}", timeout=30).text
    assert "Recommended." in page
    assert 'id="tuning-apply-recommended"' in page
