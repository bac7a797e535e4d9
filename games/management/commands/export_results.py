"""``manage.py export_results --game SLUG --format csv|json [--league SLUG] [--from DAY] [--to DAY]``: a game's
results, as ``import_results`` reads them (docs/import.md)."""

import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from games.exporting import export_csv_pieces, export_filter, export_json_pieces
from leagues.models import Game


class Command(BaseCommand):
    help = "Export a game's results as CSV (the importer's columns) or a JSON dump (see docs/import.md)."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--format", required=True, choices=["csv", "json"])
        parser.add_argument("--league", help="Only the results filed under this league of the game.")
        parser.add_argument(
            "--from", dest="date_from", metavar="YYYY-MM-DD", help="Only results from this day on (the club's zone)."
        )
        parser.add_argument(
            "--to",
            dest="date_to",
            metavar="YYYY-MM-DD",
            help="Only results up to this day, included.",
        )
        parser.add_argument("--output", help="Write to this file (default: standard output).")

    def handle(self, *args, game, format, output, league=None, date_from=None, date_to=None, **options):
        game_obj = Game.objects.filter(slug=game).first()
        if game_obj is None:
            raise CommandError(f"No game {game!r}.")
        if format == "csv" and not game_obj.kind.csv_columns:
            raise CommandError(f"{game_obj.name} has no CSV: export it as json.")
        try:
            which = export_filter(game=game_obj, league=league, date_from=date_from, date_to=date_to)
        except ValidationError as error:
            option = {"from": "--from", "to": "--to", "league": "--league"}
            raise CommandError(
                " ".join(
                    f"{option.get(name, name)}: {' '.join(messages)}" for name, messages in error.message_dict.items()
                )
            ) from error
        pieces = export_csv_pieces(game_obj, which) if format == "csv" else export_json_pieces(game_obj, which)
        if output:
            with Path(output).open("w", encoding="utf-8", newline="") as file:
                file.writelines(pieces)
            self.stdout.write(f"Wrote {output}.")
        else:
            for piece in pieces:
                self.stdout.write(piece, ending="")
            sys.stdout.flush()
