"""``manage.py import_results PATH --game SLUG``: a club's history in, all or nothing, once (docs/import.md).

Reads the file (the format from its extension unless ``--format`` names it;
a CSV a line at a time, its first problems kept and the rest counted),
prints the preview (what the file is; players matched, with the player each
found and how, new, ambiguous and waiting for a confirmation; every problem,
grouped by message, with its lines) and, unless something blocks it or
``--dry-run`` is given, stores every result through the one write path and
rates the game once. Anything blocking (the file already imported, a person
who is not certainly the player found): the problems are printed, nothing
is stored, and the command exits non-zero.

The results are the work of the operator at the command line: no referee
account (the audit entries say "command line" and name the file), unless
``--referee`` names one.
"""

from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.importing import (
    LIST_AT_MOST,
    ImportRefused,
    ImportSource,
    import_apply,
    import_format_for,
    import_formats,
    import_people_match,
    import_plan_read,
    import_preview,
    imported_file_seen,
    problems_grouped,
)
from games.models import ImportedFile
from leagues.models import Game, League

PROGRESS_EVERY = 500
BAR_WIDTH = 20


def problem_lines(groups: list[dict]) -> list[str]:
    """Grouped problems (``games.importing.problems_grouped``) as the command prints them: one line each,
    "problem: line 7: ..." alone, "note (28): ...: line 3, line 9, ... and 23 more" for a group."""
    lines = []
    for group in groups:
        label = _("problem") if group["blocking"] else _("note")
        if group["count"] == 1:
            lines.append(f"  {label}: {group['where'][0]}: {group['message']}")
            continue
        places = ", ".join(group["where"])
        if group["more"] > 0:
            places += " " + _("and %(count)d more") % {"count": group["more"]}
        lines.append(f"  {label} ({group['count']}): {group['message']} ({places})")
    return lines


class Command(BaseCommand):
    help = "Import a file of results into a game: all of them, or none when anything blocks (see docs/import.md)."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument(
            "--format", help="csv, json or the game's own, e.g. pbn (default: from the file's extension)."
        )
        parser.add_argument(
            "--league", help="File every result under this league (default: the file's, else the entry league)."
        )
        parser.add_argument("--dry-run", action="store_true", help="Check everything and store nothing.")
        parser.add_argument("--timezone", help="The zone of times the file gives without one, e.g. Europe/Ljubljana.")
        parser.add_argument(
            "--referee",
            help="The account recorded as the results' referee (default: none, the command-line operator).",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="A result at the time of exactly one other stored result corrects it (a corrected file).",
        )
        parser.add_argument(
            "--same-person",
            action="append",
            default=[],
            metavar="NUMBER",
            help="Confirm that the file's person with this federation number is the player the preview names "
            "for it (repeat for each).",
        )

    def handle(self, *args, path, game, format, league, dry_run, timezone, referee, replace, same_person, **options):
        game_obj = Game.objects.filter(slug=game).first()
        if game_obj is None:
            raise CommandError(
                f"No game {game!r}: the games are {', '.join(Game.objects.values_list('slug', flat=True))}."
            )
        league_obj = None
        if league:
            league_obj = League.objects.filter(game=game_obj, slug=league).first()
            if league_obj is None:
                raise CommandError(f"{game_obj.name} has no league {league!r}.")
        zone = None
        if timezone:
            try:
                zone = ZoneInfo(timezone)
            except (ZoneInfoNotFoundError, ValueError):
                raise CommandError(f"Unknown time zone {timezone!r} (an IANA name such as Europe/Ljubljana).") from None
        account = None
        if referee:
            account = get_user_model().objects.filter(username=referee).first()
            if account is None:
                raise CommandError(
                    _("No account %(name)r to record as the referee: leave --referee out to import as the operator.")
                    % {"name": referee}
                )
        file = Path(path)
        if not file.is_file():
            raise CommandError(f"No file {path}.")
        format = format or import_format_for(file.name)
        if format is None:
            raise CommandError(f"Give --format: one of {', '.join(import_formats(game_obj))}.")
        limit = settings.CARDRANK_IMPORT_MAX_BYTES
        if file.stat().st_size > limit:
            raise CommandError(
                f"{path} is {file.stat().st_size:,} bytes; imports take at most {limit:,} (CARDRANK_IMPORT_MAX_BYTES)."
            )
        with file.open("rb") as data:  # read as a stream: hashed in blocks, a CSV parsed a line at a time
            source = ImportSource.of(
                filename=file.name, data=data, format=format, via=ImportedFile.Via.COMMAND, user=account
            )
            try:
                plan = import_plan_read(game=game_obj, format=format, data=data, zone=zone)
            except ValueError as error:
                raise CommandError(str(error)) from None

        matching = import_people_match(plan, same_person=same_person)
        shown = [*plan.problems, *matching.problems]
        if seen := imported_file_seen(game=game_obj, sha256=source.sha256):
            shown.insert(0, seen)
        self._preview(import_preview(plan, matching, problems=shown))

        tty = self.stdout.isatty()
        shown_percent = -1

        def progress(done, total):
            # On a terminal, one bar redrawn in place at each percent; in a log, a line every PROGRESS_EVERY.
            nonlocal shown_percent
            bar = f"  [{'#' * (BAR_WIDTH * done // total):<{BAR_WIDTH}}] {done}/{total}"
            if tty:
                percent = 100 * done // total
                if percent != shown_percent or done == total:
                    shown_percent = percent
                    self.stdout.write(f"\r{bar} {percent}%", ending="\n" if done == total else "")
                    self.stdout.flush()
            elif done % PROGRESS_EVERY == 0 or done == total:
                self.stdout.write(bar)

        try:
            summary = import_apply(
                plan=plan,
                game=game_obj,
                referee=account,
                league=league_obj,
                dry_run=dry_run,
                progress=progress,
                source=source,
                replace=replace,
                same_person=same_person,
            )
        except ImportRefused as refused:
            for problem in refused.problems:
                if problem not in shown:  # found while storing (a result a league refuses): not in the preview
                    self.stderr.write(f"{problem.where}: {problem.message}")
            raise CommandError(_("Nothing was imported.")) from None
        for line in problem_lines(problems_grouped(note for note in summary.notes if note not in shown)):
            self.stdout.write(line)
        noun = game_obj.kind.result_noun if game_obj.kind else "result"
        for where, match_id in summary.duplicates[:LIST_AT_MOST]:
            self.stdout.write(
                _("  already stored: %(where)s is %(noun)s %(id)d") % {"where": where, "noun": noun, "id": match_id}
            )
        for where, match_id in summary.replaced[:LIST_AT_MOST]:
            self.stdout.write(
                _("  replaces: %(where)s corrects %(noun)s %(id)d") % {"where": where, "noun": noun, "id": match_id}
            )
        skipped = ""
        if summary.duplicates:
            skipped += " " + _("%(count)d already stored, skipped.") % {"count": len(summary.duplicates)}
        if summary.replaced:
            skipped += " " + _("%(count)d replaced stored results.") % {"count": len(summary.replaced)}
        if dry_run:
            self.stdout.write(f"Dry run: {summary.stored} results would be imported; nothing was stored.{skipped}")
        else:
            self.stdout.write(
                f"Imported {summary.stored} results ({summary.new} new players); {summary.rated} rated.{skipped}"
            )

    def _preview(self, preview: dict) -> None:
        for key, value in preview["about"].items():
            self.stdout.write(f"{key}: {value}")
        counts = (
            f"{preview['results']} results; players: {preview['matched']} matched, {preview['new']} new, "
            f"{preview['ambiguous']} ambiguous."
        )
        if preview["conflicts"]:
            counts = counts[:-1] + ", " + _("%(count)d to confirm.") % {"count": preview["conflicts"]}
        self.stdout.write(counts)
        for person in preview["matched_people"]:
            number = f" ({person['federation_id']})" if person["federation_id"] else ""
            self.stdout.write(
                f"  matched: {person['name']}{number} = #{person['player']} {person['player_name']}, by {person['how']}"
            )
        if preview["matched"] > len(preview["matched_people"]):
            self.stdout.write(
                _("  … and %(count)d more matched.") % {"count": preview["matched"] - len(preview["matched_people"])}
            )
        for person in preview["new_people"]:
            number = f" ({person['federation_id']})" if person["federation_id"] else ""
            self.stdout.write(f"  new: {person['name']}{number}")
        if preview["new"] > len(preview["new_people"]):
            self.stdout.write(f"  … and {preview['new'] - len(preview['new_people'])} more new players.")
        for person in preview["conflict_people"]:
            held = f" ({person['player_federation_id']})" if person["player_federation_id"] else ""
            self.stdout.write(
                _("  to confirm: %(name)s (%(number)s) in the file; #%(id)s %(player)s%(held)s stored")
                % {
                    "name": person["name"],
                    "number": person["federation_id"],
                    "id": person["player"],
                    "player": person["player_name"],
                    "held": held,
                }
            )
        for line in problem_lines(preview["problems"]):
            self.stdout.write(line)
        if preview["problems_more"]:
            # The reader kept the file's first problems and counted the rest (games.imports.ProblemList).
            self.stdout.write(
                "  "
                + ngettext(
                    "… and %(count)s more problem in the file, not listed.",
                    "… and %(count)s more problems in the file, not listed.",
                    preview["problems_more"],
                )
                % {"count": f"{preview['problems_more']:,}"}
            )
