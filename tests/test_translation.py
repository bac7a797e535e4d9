"""The catalogues are complete and every string a person reads is marked (issue 28, docs/translation.md).

- Every Russian entry of every catalogue is translated, none is fuzzy, and a translation keeps the
  placeholders of its English (``%(name)s``, ``%s``, ``{name}``).
- The compiled files are the catalogues': each ``.mo`` holds what its ``.po`` says, and the JavaScript
  catalogue (``static/jsi18n``) is what django-statici18n builds from them.
- The catalogues follow the sources: ``manage.py messages`` run on a copy of the tree finds no string the
  catalogues lack and none they keep for nothing (needs GNU gettext: skipped without it, a failure under
  ``CARDRANK_REQUIRE_SERVICES=1``).
- No template and no Python module shows a person an unmarked literal (``tests/i18n/unmarked.py`` says
  what it reads and how a line is exempted).
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings

from tests.i18n.unmarked import python_findings, template_findings

ROOT = Path(settings.BASE_DIR)
#: The folders the site is made of: what the catalogues and the unmarked-string readers cover.
SOURCES = ("config", "leagues", "ratings", "matches", "games", "people", "notices", "hooks", "web")
#: Python that is never shown to a person: pure engines (their refusals are re-worded where shown),
#: migrations (their labels are the models'), developers' commands.
PYTHON_LEFT_OUT = ("migrations", "engines", "management")
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
PLACEHOLDERS = re.compile(r"%\([^)]+\)[sdfi]|%[sdfi]|\{[a-z_]+\}")


def catalogues() -> list[Path]:
    found = []
    for source in SOURCES:
        for language in LANGUAGES:
            found += sorted((ROOT / source).glob(f"**/locale/{language}/LC_MESSAGES/*.po"))
    return found


def test_every_app_and_language_has_its_catalogue():
    paths = {str(path.relative_to(ROOT)) for path in catalogues()}
    for folder in ("config", "leagues", "ratings", "matches", "games", "games/slaps", "games/preferans",
                   "games/bridge", "people", "notices", "hooks", "web"):  # fmt: skip
        for language in LANGUAGES:
            assert f"{folder}/locale/{language}/LC_MESSAGES/django.po" in paths


@pytest.mark.parametrize("path", catalogues(), ids=lambda path: str(path.relative_to(ROOT)))
def test_catalogue_is_complete(path):
    catalogue = polib.pofile(str(path))
    untranslated = [entry.msgid for entry in catalogue.untranslated_entries() if not entry.obsolete]
    fuzzy = [entry.msgid for entry in catalogue.fuzzy_entries()]
    assert not untranslated, f"{path}: {len(untranslated)} untranslated, e.g. {untranslated[:5]}"
    assert not fuzzy, f"{path}: {len(fuzzy)} fuzzy (review them, then drop the flag), e.g. {fuzzy[:5]}"
    assert not catalogue.metadata_is_fuzzy
    broken = []
    for entry in catalogue.translated_entries():
        wanted = sorted(PLACEHOLDERS.findall(entry.msgid))
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for index, translation in enumerate(translations):
            got = sorted(PLACEHOLDERS.findall(translation))
            # A plural's singular may spell "one" instead of its number in English ("an hour"), but never in
            # Russian, where form 0 also serves 21, 31…: every form keeps every placeholder.
            if got != wanted and not (entry.msgid_plural and sorted(PLACEHOLDERS.findall(entry.msgid_plural)) == got):
                broken.append((entry.msgid, index, translation))
    assert not broken, f"{path}: placeholders differ from the English: {broken[:5]}"


@pytest.mark.parametrize("path", catalogues(), ids=lambda path: str(path.relative_to(ROOT)))
def test_compiled_catalogue_is_the_catalogue(path, tmp_path):
    compiled = path.with_suffix(".mo")
    assert compiled.exists(), f"{compiled} is missing: run make messages"
    fresh = tmp_path / "fresh.mo"
    polib.pofile(str(path)).save_as_mofile(str(fresh))
    with compiled.open("rb") as kept, fresh.open("rb") as made:
        kept_catalogue = gettext.GNUTranslations(kept)._catalog
        made_catalogue = gettext.GNUTranslations(made)._catalog
    stale = {
        key
        for key in made_catalogue.keys() | kept_catalogue.keys()
        if made_catalogue.get(key) != kept_catalogue.get(key)
    }
    assert not stale, f"{compiled} is older than its .po ({len(stale)} entries differ): run make messages"


def test_javascript_catalogue_is_built_from_the_catalogues(tmp_path, settings):
    from django.core.management import call_command

    settings.STATICI18N_ROOT = tmp_path
    call_command("compilejsi18n", verbosity=0)
    for language in [settings.LANGUAGE_CODE, *LANGUAGES]:
        kept = ROOT / "static" / "jsi18n" / language / "djangojs.js"
        made = tmp_path / "jsi18n" / language / "djangojs.js"
        assert kept.read_text(encoding="utf-8") == made.read_text(encoding="utf-8"), (
            f"{kept} is not what its catalogues build: run make messages"
        )


def _entries(path: Path) -> set[tuple[str | None, str, str]]:
    return {(entry.msgctxt, entry.msgid, entry.msgid_plural) for entry in polib.pofile(str(path)) if not entry.obsolete}


@pytest.mark.gettext
def test_catalogues_follow_the_sources(tmp_path):
    """The catalogues hold exactly the strings the sources mark: run on a copy, ``manage.py messages`` would
    add or drop nothing."""
    copy = tmp_path / "tree"
    skip = shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "node_modules", "staticfiles", "mutants", "files", "*.sqlite3", "*.mo",
        "tests", "benchmarks", "docs",
    )  # fmt: skip
    copy.mkdir()
    for name in (*SOURCES, "templates", "static"):
        shutil.copytree(ROOT / name, copy / name, ignore=skip)
    shutil.copy(ROOT / "manage.py", copy / "manage.py")
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(copy)}
    environment.pop("CARDRANK_EXTRA_GAME_APPS", None)
    environment.pop("CARDRANK_EXTRA_GAME_KINDS", None)
    run = subprocess.run(
        [sys.executable, "manage.py", "messages", "--no-compile"],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    differences = []
    for path in catalogues():
        kept, made = _entries(path), _entries(copy / path.relative_to(ROOT))
        if kept != made:
            new, gone = sorted(made - kept, key=str)[:5], sorted(kept - made, key=str)[:5]
            differences.append(f"{path.relative_to(ROOT)}: new {new}, gone {gone}")
    assert not differences, "The catalogues are not up to date: run make messages.\n" + "\n".join(differences)


def templates() -> list[Path]:
    found = sorted((ROOT / "templates").rglob("*.html"))
    for source in SOURCES:
        found += sorted((ROOT / source).glob("**/templates/**/*.html"))
        found += sorted((ROOT / source).glob("**/templates/**/*.txt"))
    return found


def python_modules() -> list[Path]:
    found = []
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            if not set(path.relative_to(ROOT).parts) & set(PYTHON_LEFT_OUT):
                found.append(path)
    return found


def test_no_template_shows_an_unmarked_string():
    findings = [finding for path in templates() for finding in template_findings(path, ROOT)]
    assert not findings, f"{len(findings)} unmarked strings in templates:\n" + "\n".join(map(str, findings[:80]))


def test_no_python_module_shows_an_unmarked_string():
    findings = [finding for path in python_modules() for finding in python_findings(path, ROOT)]
    assert not findings, f"{len(findings)} unmarked strings in Python:\n" + "\n".join(map(str, findings[:80]))
