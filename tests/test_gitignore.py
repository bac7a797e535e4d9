"""What a developer's running processes leave in the checkout is ignored by git."""

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO

CELERY = Path(sys.executable).parent / "celery"


def beat_leaves_behind(cwd: Path) -> set[str]:
    """The files ``celery beat`` writes in its working directory (``make worker`` embeds it, from the checkout).

    On the in-memory broker (no CELERY_BROKER_URL: what ``make worker``'s
    settings fall back to when none is set), so no Redis receives its tasks.
    """
    env = {key: value for key, value in os.environ.items() if key not in {"CELERY_BROKER_URL", "DATABASE_URL"}}
    env["PYTHONPATH"] = str(REPO)
    beat = subprocess.Popen(
        [str(CELERY), "-A", "config", "beat", "--loglevel=INFO"],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(cwd.iterdir()) and time.monotonic() < deadline:
            assert beat.poll() is None, f"celery beat exited with {beat.returncode}"
            time.sleep(0.2)
        time.sleep(1)  # its companions (.dir, .bak with dbm.dumb) follow the first file
    finally:
        beat.terminate()
        beat.wait(timeout=15)
    return {path.name for path in cwd.iterdir()}


def test_the_beat_schedule_files_are_ignored(tmp_path):
    left = beat_leaves_behind(tmp_path)
    assert any(name.startswith("celerybeat-schedule") for name in left), left
    ignored = subprocess.run(
        ["git", "check-ignore", "--stdin", "-z"],
        cwd=REPO,
        input="\0".join(sorted(left)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert set(filter(None, ignored.stdout.split("\0"))) == left
