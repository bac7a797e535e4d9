"""``manage.py rating_quality``: how well ratings predicted results, per game and league."""

import json

from django.core.management.base import BaseCommand, CommandError

from leagues.models import Game, League
from ratings.quality import QualityRow, rating_quality_overview, rating_quality_row, rating_quality_rows


def _number(value, digits=4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


class Command(BaseCommand):
    help = (
        "Report RMSE, log-loss and calibration of the ratings' forecasts under the current parameters, "
        "scored on the newer half of the history (the older half fits a scale the engine does not set)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--game", help="A game's slug (default: every game).")
        parser.add_argument("--league", help="A league's slug (needs --game or implies its game).")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of tables.")
        parser.add_argument("--calibration", action="store_true", help="Also print each calibration table.")

    def handle(self, *args, game=None, league=None, json=False, calibration=False, **options):
        rows = self._rows(game, league)
        if json:
            self.stdout.write(_dumps(rows))
            return
        self.stdout.write(
            f"{'game':<12} {'league':<20} {'forecasts':>9} {'RMSE':>8} {'baseline':>8} {'log-loss':>9} {'scale':>9}"
        )
        for row in rows:
            report = row.report
            self.stdout.write(
                f"{row.game.slug:<12} {row.league.slug if row.league else '(all)':<20} {report.count:>9} "
                f"{_number(report.rmse):>8} {_number(report.baseline_rmse):>8} {_number(report.log_loss):>9} "
                f"{_number(row.scale, 1):>8}{'*' if row.scale_fitted else ' '}"
            )
            if calibration and report.count:
                for b in report.bins:
                    if b.count:
                        self.stdout.write(
                            f"    predicted {b.low:.1f}-{b.high:.1f}: {b.count:>7} units, "
                            f"mean predicted {b.predicted:.3f}, observed {b.observed:.3f}"
                        )

    def _rows(self, game_slug, league_slug) -> list[QualityRow]:
        if league_slug:
            league = League.objects.select_related("game").filter(slug=league_slug).first()
            if league is None or (game_slug and league.game.slug != game_slug):
                raise CommandError(f"Unknown league {league_slug!r}.")
            return [rating_quality_row(game=league.game, league=league)]
        if game_slug:
            game = Game.objects.filter(slug=game_slug).first()
            if game is None:
                raise CommandError(f"Unknown game {game_slug!r}.")
            return rating_quality_rows(game=game, leagues=[None, *game.leagues.all()])
        return rating_quality_overview()


def _dumps(rows: list[QualityRow]) -> str:
    return json.dumps([row.as_dict() for row in rows])
