"""``manage.py tune_ratings --game SLUG``: the search for a game's best parameters on its own history.

Replays the game's stored results in memory (``ratings.evaluation``) under the candidates the search
tries (``ratings.parameter_search``), or with ``--param`` under a grid of given values: the ratings
learn on the fit part, candidates are chosen on the choosing part, and the chosen and the current
parameters are then read on the report part, which played no role in the choice. Prints a table, or
with ``--json`` one object: every candidate with its parameters and figures, the parts, the chosen
and the current one, ``report`` (log-loss, RMSE, ECE, drift of both on the report part), ``verdict``,
``recommended`` and ``search`` (rounds, replays, converged). The search's progress goes to stderr.
Nothing is written: an admin applies a candidate on the game's tuning page.
"""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from leagues.models import Game
from ratings.engines import EngineInputError
from ratings.evaluation import MAX_CANDIDATES, PARTS, parts_check
from ratings.parameter_search import BUDGET, BUDGET_LIMIT, Progress, game_tuning


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
    help = "Search for a game's best rating parameters on its own history (fit, choose, then report)."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")
        parser.add_argument(
            "--split",
            type=float,
            default=PARTS[0],
            help=f"The fit part's share of the results, the oldest (default {PARTS[0]}).",
        )
        parser.add_argument(
            "--choose",
            type=float,
            default=PARTS[1],
            help=f"The choosing part's share, after the fit part (default {PARTS[1]}); the report part is the rest.",
        )
        parser.add_argument(
            "--budget",
            type=int,
            default=BUDGET,
            help=f"The most replays the search may use, the current parameters' included (default {BUDGET}).",
        )
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="NAME=v1,v2,...",
            help="Values to try for a parameter (repeatable); instead of the search, the grid of their products.",
        )
        parser.add_argument(
            "--max-candidates",
            type=int,
            default=MAX_CANDIDATES,
            help=f"With --param: candidates besides the current parameters (default {MAX_CANDIDATES}).",
        )

    def handle(
        self,
        *args,
        game,
        json=False,
        split=PARTS[0],
        choose=PARTS[1],
        budget=BUDGET,
        param=(),
        max_candidates=MAX_CANDIDATES,
        **options,
    ):
        found = Game.objects.filter(slug=game).first()
        if found is None:
            raise CommandError(f"Unknown game {game!r}.")
        if not 0 < split < 1:
            raise CommandError(f"--split must be above 0 and below 1; got {split:g}.")
        try:
            parts_check(split, choose)
        except ValueError as error:
            raise CommandError(f"--split {split:g} --choose {choose:g}: {error}") from None
        if not 1 <= budget <= BUDGET_LIMIT:
            raise CommandError(f"--budget must be from 1 to {BUDGET_LIMIT}; got {budget}.")
        values: dict[str, list] = {}
        for text in param:
            name, numbers = parse_param(text)
            if name in values:
                raise CommandError(f"--param {name} is given twice.")
            values[name] = numbers
        try:
            tuning = game_tuning(
                game=found,
                values=values or None,
                split=split,
                choose=choose,
                budget=budget,
                max_candidates=max_candidates,
                progress=self._progress,
            )
        except (EngineInputError, ValidationError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            raise CommandError(message) from None
        result = {"game": found.slug, "rating_system": found.rating_system, **tuning.as_dict()}
        if json:
            self.stdout.write(_dumps(result))
            return
        self._table(result)

    def _progress(self, where: Progress) -> None:
        best = _number(where.best_log_loss)
        self.stderr.write(
            f"round {where.rounds}: {where.replays} of at most {where.budget} replays, step x{where.step:.3f}, "
            f"best choosing log-loss {best} (current {_number(where.current_log_loss)})"
        )

    def _table(self, result):
        parts = result["parts"]
        self.stdout.write(
            f"{result['game']}: fit on the oldest {parts['fit']:g} of the results, choose on the next "
            f"{parts['choose']:g} (from {result['split_at'] or '-'}), report on the newest {parts['report']:g} "
            f"(from {result['report_at'] or '-'}); active = a result within {result['active_days']} days"
        )
        search = result["search"]
        self.stdout.write(
            f"{search['method']}: {search['rounds']} round(s), {search['replays']} replays"
            + ("" if search.get("converged") is None else ", converged" if search["converged"] else ", not converged")
        )
        self.stdout.write(
            f"{'':2} {'#':>3} {'units':>7} {'log-loss':>9} {'RMSE':>7} {'scale':>8} {'drift':>8}  parameters changed"
        )
        current = result["candidates"][result["current"]]["parameters"] if result["current"] is not None else {}
        shown = range(len(result["candidates"]))
        if search["method"] == "search":  # the path the search took (--json lists every candidate it tried)
            shown = sorted({*search["path"], *([result["chosen"]] if result["chosen"] is not None else [])})
            self.stdout.write(f"the search's path, of {len(result['candidates'])} candidates tried (--json: all):")
        for index in shown:
            row = result["candidates"][index]
            mark = "*" if row["chosen"] else ("=" if row["current"] else " ")
            changed = ", ".join(f"{k}={v:g}" for k, v in row["parameters"].items() if current.get(k) != v)
            self.stdout.write(
                f"{mark:2} {index:>3} {row['newer_units']:>7} {_number(row['log_loss']):>9} {_number(row['rmse']):>7} "
                f"{_number(row['scale'], 1):>8} {_number(row['drift'], 1):>8}  {changed or '(current)'}"
            )
        self.stdout.write("* chosen (lowest log-loss on the choosing part), = current")
        for name in ("current", "chosen"):
            figures = result["report"][name]
            if figures:
                self.stdout.write(
                    f"report part, {name}: log-loss {_number(figures['log_loss'])}, RMSE {_number(figures['rmse'])}, "
                    f"ECE {_number(figures['ece'])}, drift {_number(figures['drift'], 1)}"
                )
        self.stdout.write(VERDICTS[result["verdict"]])


VERDICTS = {
    "better": "The chosen parameters forecast the report part better than the current ones: recommended.",
    "not_better": "The chosen parameters do no better than the current ones on the report part: nothing is "
    "recommended; keep the current parameters.",
    "current_best": "No candidate did better than the current parameters on the choosing part: keep them.",
    "nothing_scored": "There were no results to choose or report on: nothing is recommended.",
}


def _dumps(result) -> str:
    return json.dumps(result)
