"""``make run``'s own settings: SQLite, no cache server, Celery eager. Every test elsewhere runs on
PostgreSQL, so a page that reaches for PostgreSQL alone (``DISTINCT ON``, ``= ANY(array)``, ``FILTER``)
would pass them all and fail the first visitor of a fresh checkout. This test migrates a new SQLite file,
loads the demo club and asks every kind of page and read API as a visitor, a referee and an admin would,
in a process of its own with the embedded defaults."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

WALK = r"""
import json
from django.test import Client
from django.urls import reverse
from leagues.models import Game, League, Player
from matches.models import Match
from games.bridge.models import BoardTable

answers = {}

def ask(client, url):
    answers[url] = client.get(url).status_code

visitor, referee, admin = Client(), Client(), Client()
from django.contrib.auth import get_user_model
referee.force_login(get_user_model().objects.get(username="referee"))
admin.force_login(get_user_model().objects.get(username="admin"))
games = {game.slug: game for game in Game.objects.all()}
rated = {slug: list(Player.objects.filter(ratings__game=game).order_by("pk")[:2]) for slug, game in games.items()}
urls = ["/", "/matches/", "/players/?q=a", reverse("calculators"), "/quality/", "/compare/"]
for slug, game in games.items():
    urls += [f"/quality/{slug}/", f"/api/games/{slug}/drift/"]
    if game.kind.csv_columns:  # a game without a CSV of results (bridge) goes out as the JSON dump only
        urls.append(f"/api/games/{slug}/results.csv")
    first, second = rated[slug]
    urls += [f"/players/{first.pk}/", f"/players/{first.pk}/history/", f"/players/{first.pk}/head-to-head/?game={slug}",
             f"/api/players/{first.pk}/head-to-head/?game={slug}", f"/api/players/{first.pk}/history/"]
    if slug != "bridge":
        urls += [f"/compare/?game={slug}&a={first.pk}&b={second.pk}",
                 f"/api/compare/?game={slug}&a={first.pk}&b={second.pk}"]
table = BoardTable.objects.order_by("pk").first()
pairs = f"a={table.ns_1_id},{table.ns_2_id}&b={table.ew_1_id},{table.ew_2_id}"
urls += [f"/compare/?game=bridge&{pairs}", f"/api/compare/?game=bridge&{pairs}"]
for league in League.objects.all():
    urls += [f"/leagues/{league.slug}/", f"/leagues/{league.slug}/?include_inactive=true",
             f"/leagues/{league.slug}/crosstable/", f"/api/leagues/{league.slug}/leaderboard/",
             f"/api/leagues/{league.slug}/leaderboard.csv"]
for game in games.values():
    match = Match.objects.filter(game=game).order_by("pk").first()
    urls.append(match.get_absolute_url())
for url in urls:
    ask(visitor, url)
for slug in games:
    ask(referee, f"/results/{slug}/")
ask(referee, reverse("confirmations"))
ask(referee, "/players/search/?game=slaps&name=player_a&q=a")
for game in games.values():
    ask(admin, reverse("admin:leagues_game_tuning", args=[game.pk]))
ask(admin, "/admin/matches/match/")
print(json.dumps(answers))
"""


@pytest.mark.timeout(300)
def test_every_page_answers_on_the_embedded_defaults(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "CACHE_", "CELERY_", "DJANGO_", "CARDRANK_"))
    }
    env.update({"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PYTHONPATH": str(settings.BASE_DIR)})
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
    )
    for step in (["migrate", "--no-input", "-v0"], ["demo_data"]):
        done = run(*step)
        assert done.returncode == 0, done.stderr[-3000:]
    walk = run("shell", "-c", WALK)
    assert walk.returncode == 0, walk.stderr[-5000:]
    answers = json.loads(walk.stdout.strip().splitlines()[-1])
    assert len(answers) > 60
    failed = {url: status for url, status in answers.items() if status != 200}
    assert failed == {}, (failed, walk.stderr[-5000:])
    assert Path(tmp_path / "db.sqlite3").exists()
