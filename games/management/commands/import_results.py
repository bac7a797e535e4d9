"""``manage.py import_results PATH --game SLUG``: a club's history in, all or nothing (docs/import.md).

Reads the file (the format from its extension unless ``--format`` names it),
prints the preview (players matched, new and ambiguous; every problem with
its line) and, unless something blocks it or ``--dry-run`` is given, stores
every result through the one write path and rates the game once. Anything
blocking: the problems are printed, nothing is stored, and the command exits
non-zero.
"""

from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from games.importing import (
    ImportRefused,
    import_apply,
    import_format_for,
    import_formats,
    import_people_match,
    import_plan_read,
)
from leagues.models import Game, League

PROGRESS_EVERY = 500
BAR_WIDTH = 20
LIST_AT_MOST = 50  # new players named in the preview; a history of thousands lists the first


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
        parser.add_argument("--referee", default="referee", help="The account recorded as the results' referee.")

    def handle(self, *args, path, game, format, league, dry_run, timezone, referee, **options):
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
        account = get_user_model().objects.filter(username=referee).first()
        if account is None:
            raise CommandError(f"No account {referee!r} to record as the referee: give --referee USERNAME.")
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
        try:
            plan = import_plan_read(game=game_obj, format=format, data=file.read_bytes(), zone=zone)
        except ValueError as error:
            raise CommandError(str(error)) from None

        matching = import_people_match(plan)
        self.stdout.write(
            f"{len(plan.results)} results; players: {len({p.pk for p in matching.matched.values()})} matched, "
            f"{len(matching.new_people)} new, {len(matching.ambiguous)} ambiguous."
        )
        new = matching.new_people
        for ref in new[:LIST_AT_MOST]:
            number = f" ({ref.federation_id})" if ref.federation_id else ""
            self.stdout.write(f"  new: {ref.name}{number}")
        if len(new) > LIST_AT_MOST:
            self.stdout.write(f"  … and {len(new) - LIST_AT_MOST} more new players.")
        shown = [*plan.problems, *matching.problems]
        for problem in shown:
            label = "problem" if problem.blocking else "note"
            self.stdout.write(f"  {label}: {problem.where}: {problem.message}")

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
                plan=plan, game=game_obj, referee=account, league=league_obj, dry_run=dry_run, progress=progress
            )
        except ImportRefused as refused:
            for problem in refused.problems:
                if problem not in shown:  # found while storing (a result a league refuses): not in the preview
                    self.stderr.write(f"{problem.where}: {problem.message}")
            raise CommandError("Nothing was imported.") from None
        if dry_run:
            self.stdout.write(f"Dry run: {summary.results} results would be imported; nothing was stored.")
        else:
            self.stdout.write(f"Imported {summary.results} results ({summary.new} new players); {summary.rated} rated.")
