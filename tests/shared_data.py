"""Where the real data nobody here wrote is found: ``../shared/data`` beside the checkout, never copied in.

Its licences and its players' names are not ours, so the files stay outside
the repository and every test reads them through ``shared_data``: relative to
the repository, never an absolute path. A test that reads them is marked
``@pytest.mark.shared_data("<folder>")``; ``tests/conftest.py`` skips it, with
the path it looked for, when the folder is missing, and fails it instead under
``CARDRANK_REQUIRE_SERVICES=1`` (CI), so a run that requires everything cannot
pass without reading a real file.

``CARDRANK_SHARED_DATA`` names another folder (a copy elsewhere on the
machine); without it the folder is ``shared/data`` beside the checkout, or
beside the folder that holds it (a worktree kept one level down).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent  # the checkout (tests/conftest.py's REPO too)


def shared_data_root() -> Path:
    """The shared data folder: ``$CARDRANK_SHARED_DATA``, else the nearest ``shared/data`` above the checkout."""
    explicit = os.environ.get("CARDRANK_SHARED_DATA")
    if explicit:
        return Path(explicit)
    for base in (REPO.parent, REPO.parent.parent):
        candidate = base / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "data"  # where it is looked for first, named in a missing folder's reason


def shared_data(*parts: str) -> Path:
    """A file or folder of the shared data, e.g. ``shared_data("bridge-results", "SOURCES.md")`` (may not exist)."""
    return shared_data_root().joinpath(*parts)
