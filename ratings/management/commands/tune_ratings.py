"""``manage.py tune_ratings --game SLUG``: a game's candidate parameters scored on its own history.

Replays the game's stored results in memory under each candidate (``ratings.evaluation``),
fits on the older part and scores on the newer part; prints a table, or with ``--json`` one
object listing every candidate with its parameters and figures, the split, the chosen one and
the current one. Nothing is written: an admin applies a candidate on the game's tuning page.
"""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from leagues.models import Game
from ratings.engines import EngineInputError
from ratings.evaluation import MAX_CANDIDATES, game_tuning


def _number(value, digits=4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def parse_param(text: str) -> tuple[str, list[float]]:
    """``NAME=v1,v2,...`` as (name, numbers), or CommandError saying what is wrong."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name or not values.strip():
        raise CommandError(f"--param takes NAME=v1,v2,...; got {text!r}.")
    numbers = []
    for value in values.split(","):
        try:
            numbers.append(float(value))
        except ValueError:
            raise CommandError(f"--param {name}: {value.strip()!r} is not a number.") from None
    return name, [int(n) if n.is_integer() else n for n in numbers]


class Command(BaseCommand):
    help = "Score candidate rating parameters on a game's own history (older part fitted, newer part scored)."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")
        parser.add_argument(
            "--split", type=float, default=0.5, help="The older part's share of the results (default 0.5)."
        )
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="NAME=v1,v2,...",
            help="Values to try for a parameter (repeatable); the grid is then their product.",
        )
        parser.add_argument(
            "--max-candidates",
            type=int,
            default=MAX_CANDIDATES,
            help=f"Candidates besides the current parameters (default {MAX_CANDIDATES}).",
        )

    def handle(self, *args, game, json=False, split=0.5, param=(), max_candidates=MAX_CANDIDATES, **options):
        found = Game.objects.filter(slug=game).first()
        if found is None:
            raise CommandError(f"Unknown game {game!r}.")
        if not 0 < split < 1:
            raise CommandError(f"--split must be above 0 and below 1; got {split:g}.")
        values: dict[str, list] = {}
        for text in param:
            name, numbers = parse_param(text)
            if name in values:
                raise CommandError(f"--param {name} is given twice.")
            values[name] = numbers
        try:
            tuning = game_tuning(game=found, values=values or None, split=split, max_candidates=max_candidates)
        except (EngineInputError, ValidationError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            raise CommandError(message) from None
        result = {"game": found.slug, "rating_system": found.rating_system, **tuning.as_dict()}
        if json:
            self.stdout.write(_dumps(result))
            return
        self._table(result)

    def _table(self, result):
        split_at = result["split_at"] or "-"
        self.stdout.write(
            f"{result['game']}: older {result['split']:g} of the results fitted, newer part (from {split_at}) scored; "
            f"active = a result within {result['active_days']} days"
        )
        self.stdout.write(
            f"{'':2} {'#':>3} {'units':>7} {'log-loss':>9} {'RMSE':>7} {'scale':>8} {'drift':>8}  parameters changed"
        )
        current = result["candidates"][result["current"]]["parameters"] if result["current"] is not None else {}
        for index, row in enumerate(result["candidates"]):
            mark = "*" if row["chosen"] else ("=" if row["current"] else " ")
            changed = ", ".join(f"{k}={v:g}" for k, v in row["parameters"].items() if current.get(k) != v)
            self.stdout.write(
                f"{mark:2} {index:>3} {row['newer_units']:>7} {_number(row['log_loss']):>9} {_number(row['rmse']):>7} "
                f"{_number(row['scale'], 1):>8} {_number(row['drift'], 1):>8}  {changed or '(current)'}"
            )
        self.stdout.write("* chosen (lowest log-loss on the newer part), = current")


def _dumps(result) -> str:
    return json.dumps(result)
