"""A result's path through Cardrank's modules: what one Preferans result posted to the API calls.

Not a timing: a count, the same on any machine. One result of three players and two deals is posted to
``POST /api/matches/`` by a signed-in referee (Django's test client, in this process, on the configured
database) under ``sys.setprofile``; each call of a function in Cardrank's own code (``config``, the apps)
is counted, with the files it was in, and a *hop* whenever a function of ours is called from one of
ours in another file (*between apps*: another top folder). The work is split by where it ran: the
request itself, and each Celery task it started, by the task's name (under ``make run``'s eager Celery
the tasks run inside the request, after its commit; with a worker they run there and are not counted).

A first result is posted before the counted one, so that imports and start-up caches are not counted.
``docs/architecture.md`` (A result's path) draws the path and gives the figures.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from benchmarks.replay import cleanup
from leagues.models import Game, League, Player

ROOT = Path(__file__).resolve().parent.parent
OURS = ("config", "games", "leagues", "matches", "ratings", "web")
PREFIX = "benchmark-path-"
PLAYER_PREFIX = "bench path "
TASKS = "ratings/tasks.py"


def _ours(filename: str) -> str | None:
    try:
        relative = Path(filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return relative if relative.startswith(OURS) else None


class PathCounter:
    """Counts our calls, their files and the hops between them, per part of the work."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = defaultdict(int)
        self.files: dict[str, set[str]] = defaultdict(set)
        self.hops: dict[str, int] = defaultdict(int)
        self.app_hops: dict[str, int] = defaultdict(int)
        self._names: dict[str, str | None] = {}
        self._task_depth: list[tuple[int, str]] = []  # (depth, task) of the tasks running
        self._depth = 0

    def _file(self, code) -> str | None:
        filename = code.co_filename
        if filename not in self._names:
            self._names[filename] = _ours(filename)
        return self._names[filename]

    def __call__(self, frame, event, arg):
        if event == "return":
            self._depth -= 1
            if self._task_depth and self._task_depth[-1][0] > self._depth:
                self._task_depth.pop()
            return
        if event != "call":
            return
        self._depth += 1
        here = self._file(frame.f_code)
        if here is None:
            return
        if here == TASKS and not self._task_depth:
            self._task_depth.append((self._depth, f"task {frame.f_code.co_name}"))
        part = self._task_depth[-1][1] if self._task_depth else "request"
        self.calls[part] += 1
        self.files[part].add(here)
        caller = frame.f_back
        while caller is not None and self._file(caller.f_code) is None:
            caller = caller.f_back
        if caller is not None:
            there = self._file(caller.f_code)
            if there != here:
                self.hops[part] += 1
                if there.split("/")[0] != here.split("/")[0]:
                    self.app_hops[part] += 1

    def report(self) -> dict[str, dict]:
        return {
            part: {
                "calls": self.calls[part],
                "files": len(self.files[part]),
                "hops_between_modules": self.hops[part],
                "hops_between_apps": self.app_hops[part],
                "file_list": sorted(self.files[part]),
            }
            for part in self.calls
        }


def result_path() -> dict[str, dict]:
    """Post a Preferans result and count its path (the section ``--only path`` of the benchmark command)."""
    game, _ = Game.objects.get_or_create(
        slug=f"{PREFIX}preferans", defaults={"name": "Benchmark path Preferans", "rating_system": "preferans"}
    )
    League.objects.get_or_create(game=game, slug=f"{PREFIX}amateur", defaults={"name": "Benchmark path", "tier": 1})
    players = [Player.objects.get_or_create(name=f"{PLAYER_PREFIX}{n}")[0] for n in range(3)]
    user, _ = get_user_model().objects.get_or_create(username=f"{PREFIX}referee")
    user.groups.add(Group.objects.get_or_create(name="referees")[0])
    client = Client()
    client.force_login(user)

    def post(day: int):
        body = {
            "game": game.slug,
            "played_at": f"2026-11-{day:02d}T18:00:00Z",
            "seats": [{"player": player.pk} for player in players],
            "deals": [[4, -2, -2], [-6, 3, 3]],
        }
        answer = client.post("/api/matches/", json.dumps(body), content_type="application/json")
        if answer.status_code != 201:
            raise RuntimeError(f"The result was refused: {answer.status_code} {answer.content[:300]!r}")

    try:
        post(1)  # imports and start-up caches, not counted
        counter = PathCounter()
        sys.setprofile(counter)
        try:
            post(2)
        finally:
            sys.setprofile(None)
        return counter.report()
    finally:
        cleanup(game, player_prefix=PLAYER_PREFIX)
        user.delete()
