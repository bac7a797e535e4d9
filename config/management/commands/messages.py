"""``manage.py messages`` (``make messages``): update every catalogue, compile them, build the JavaScript one.

Each app keeps its own catalogue (Tabbycat's layout, ``docs/translation.md``):
``<app>/locale/<lang>/LC_MESSAGES/django.po`` holds the strings of that app's Python and templates; a game's
(``games/bridge/locale/``) its own; ``config/locale`` the shared frame's: ``templates/``, ``config/`` and, in
the ``djangojs`` domain, ``static/js/``. Django's ``makemessages`` files each string under the first locale
path whose folder holds it, so it is run once per catalogue, from that catalogue's folder (the frame's from
a folder of links to the frame's folders: ``_reading``), with ``--no-wrap`` and source lines left out (``--no-location``
would lose where a string is used; we keep the file, not the line, so a moved line changes nothing).

Then ``compilemessages`` writes every ``.mo`` file, and django-statici18n the JavaScript catalogues
(``static/jsi18n/<lang>/djangojs.js``). All of them are committed: ``make run`` needs no gettext tools.
The catalogue test (``tests/test_translation.py``) fails when any of this is out of date.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import chdir, contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

#: The folders whose strings are an app's own: each has ``locale/``. Everything else that a person reads
#: (templates/, static/js/, config/) is the frame's, in config/locale.
APP_FOLDERS = (
    "leagues",
    "ratings",
    "matches",
    "games",
    "games/slaps",
    "games/preferans",
    "games/bridge",
    "people",
    "notices",
    "hooks",
    "web",
)
#: What is not ours or not shipped: never compiled.
NOT_SHIPPED = (
    ".venv",
    "tests",
    "benchmarks",
    "docs",
    "staticfiles",
    "mutants",
    "files",
    "node_modules",
)
#: Never read by a run.
IGNORE_ALWAYS = ("locale", "migrations", "__pycache__")


def targets(base: Path) -> list[tuple[Path, Path, list[str], list[str]]]:
    """``(folder to read, its locale folder, patterns left out, domains)`` for every catalogue."""
    found = [(base, base / "config" / "locale", [*IGNORE_ALWAYS, "vendor", "jsi18n"], ["django", "djangojs"])]
    for folder in APP_FOLDERS:
        inner = [other.removeprefix(folder + "/") for other in APP_FOLDERS if other.startswith(folder + "/")]
        # An app's own scripts (a game's static/js) have their own JavaScript catalogue.
        scripts = any((base / folder / "static").rglob("*.js"))
        domains = ["django", "djangojs"] if scripts else ["django"]
        found.append((base / folder, base / folder / "locale", [*inner, *IGNORE_ALWAYS], domains))
    return found


#: The frame's folders: what its run reads (through links, below).
FRAME_FOLDERS = ("templates", "config", "static")


@contextmanager
def _reading(folder: Path, locale: Path, base: Path):
    """The folder a catalogue's run reads. An app's is its folder. The frame's is the top, less the apps;
    makemessages' ignore patterns match a folder's name wherever it is (``leagues`` would also leave out
    ``templates/leagues``), so the frame's run reads a temporary folder of links to ``FRAME_FOLDERS``
    instead (followed: ``symlinks``), under the same relative paths."""
    if locale != base / "config" / "locale":
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="cardrank-messages-") as temporary:
        for name in FRAME_FOLDERS:
            os.symlink(base / name, Path(temporary) / name)
        yield Path(temporary)


def tidy_header(path: Path, language: str) -> None:
    """The header makemessages writes is a template marked fuzzy (msgfmt then drops it, and with it the
    plural rule): made ours, and kept stable, so that a run that finds no new string changes no file."""
    import polib  # a development dependency: `make messages` is run by developers, not by the site

    if not path.exists():
        return
    catalogue = polib.pofile(str(path), wrapwidth=0)
    catalogue.header = "Cardrank's catalogue (docs/translation.md). Update with `make messages`."
    catalogue.metadata_is_fuzzy = False
    for name in ("POT-Creation-Date", "PO-Revision-Date", "Last-Translator", "Language-Team", "Report-Msgid-Bugs-To"):
        catalogue.metadata.pop(name, None)
    catalogue.metadata["Project-Id-Version"] = "cardrank"
    catalogue.metadata["Language"] = language
    catalogue.save(str(path))


class Command(BaseCommand):
    help = "Update every catalogue (makemessages --no-wrap), compile them and build the JavaScript catalogues."

    def add_arguments(self, parser):
        parser.add_argument("--no-compile", action="store_true", help="Update the .po files only.")
        parser.add_argument(
            "--only",
            action="append",
            metavar="FOLDER",
            help="Only this catalogue: an app's folder (leagues, games/bridge) or 'config' for the frame's.",
        )
        parser.add_argument("--domain", choices=["django", "djangojs"], help="Only this domain's catalogues.")

    def handle(self, *args, no_compile=False, only=None, domain=None, **options):
        base = Path(settings.BASE_DIR)
        locales = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
        chosen = [
            target
            for target in targets(base)
            if not only or str(target[1].parent.relative_to(base)) in {name.strip("/") for name in only}
        ]
        if not chosen:
            raise CommandError(f"No catalogue named {', '.join(only)}: an app's folder, or config.")
        if domain:
            chosen = [
                (folder, locale, ignore, [domain]) for folder, locale, ignore, domains in chosen if domain in domains
            ]
        for folder, locale, ignore, domains in chosen:
            os.makedirs(locale, exist_ok=True)
            # makemessages files a string under the first LOCALE_PATHS folder whose parent holds it, else
            # the first one: this catalogue's folder alone.
            with _reading(folder, locale, base) as read, chdir(read), override_settings(LOCALE_PATHS=[str(locale)]):
                for domain in domains:
                    call_command(
                        "makemessages",
                        locale=locales,
                        domain=domain,
                        ignore_patterns=ignore,
                        no_wrap=True,
                        symlinks=True,
                        add_location="file",
                        verbosity=options["verbosity"] - 1,
                        **({"extensions": ["js"]} if domain == "djangojs" else {"extensions": ["html", "txt", "py"]}),
                    )
            for language in locales:
                for domain in domains:
                    tidy_header(locale / language / "LC_MESSAGES" / f"{domain}.po", language)
        if no_compile:
            return
        with chdir(base):
            call_command("compilemessages", ignore_patterns=list(NOT_SHIPPED), verbosity=0)
            call_command("compilejsi18n", locale=None, verbosity=0)
        self.stdout.write(self.style.SUCCESS("Catalogues updated and compiled."))
