"""``manage.py rating_quality``: how well ratings predicted results, per game and league."""

import json

from django.core.management.base import BaseCommand, CommandError

from leagues.models import Game, League
from ratings.quality import QualityRow, rating_quality, rating_quality_overview


def _number(value, digits=4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


class Command(BaseCommand):
    help = "Report RMSE, log-loss and calibration of the stored ratings' predictions, per game and league."

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
        self.stdout.write(f"{'game':<12} {'league':<20} {'units':>8} {'RMSE':>8} {'baseline':>8} {'log-loss':>9}")
        for row in rows:
            report = row.report
            self.stdout.write(
                f"{row.game.slug:<12} {row.league.slug if row.league else '(all)':<20} {report.count:>8} "
                f"{_number(report.rmse):>8} {_number(report.baseline_rmse):>8} {_number(report.log_loss):>9}"
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
            return [QualityRow(league.game, league, rating_quality(game=league.game, league=league))]
        if game_slug:
            game = Game.objects.filter(slug=game_slug).first()
            if game is None:
                raise CommandError(f"Unknown game {game_slug!r}.")
            rows = [QualityRow(game, None, rating_quality(game=game))]
            rows += [QualityRow(game, lg, rating_quality(game=game, league=lg)) for lg in game.leagues.all()]
            return rows
        return rating_quality_overview()


def _dumps(rows: list[QualityRow]) -> str:
    return json.dumps(
        [
            {"game": row.game.slug, "league": row.league.slug if row.league else None, **row.report.as_dict()}
            for row in rows
        ]
    )
