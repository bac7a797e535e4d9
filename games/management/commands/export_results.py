"""``manage.py export_results --game SLUG --format csv|json``: a game's results, as ``import_results`` reads them."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.exporting import export_csv, export_json
from leagues.models import Game


class Command(BaseCommand):
    help = "Export a game's results as CSV (the importer's columns) or a JSON dump (see docs/import.md)."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--format", required=True, choices=["csv", "json"])
        parser.add_argument("--output", help="Write to this file (default: standard output).")

    def handle(self, *args, game, format, output, **options):
        game_obj = Game.objects.filter(slug=game).first()
        if game_obj is None:
            raise CommandError(f"No game {game!r}.")
        if format == "csv" and not game_obj.kind.csv_columns:
            raise CommandError(f"{game_obj.name} has no CSV: export it as json.")
        text = export_csv(game_obj) if format == "csv" else export_json(game_obj)
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stdout.write(f"Wrote {output}.")
        else:
            self.stdout.write(text, ending="")
