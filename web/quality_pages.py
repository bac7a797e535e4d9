"""Rating pages every game shares: the calculators' index and the rating-quality reports.

Each game's calculator page lives with its kind (``games/<x>/calculator.py``).
"""

from django.shortcuts import render
from django.utils.formats import number_format

from leagues.models import Game
from ratings.calculators import calculator_links


def calculators(request):
    """The calculators the games offer (``GameKind.calculator_url_name``), one link each."""
    return render(request, "ratings/calculators.html", {"calculators": calculator_links()})


def quality_overview(request):
    """Every game's kept quality rows (``ratings.quality.quality_kept``), each game with when they were computed."""
    from ratings.quality import quality_kept

    games = [quality_kept(game=game) for game in Game.objects.order_by("name")]
    return render(request, "ratings/quality.html", {"games": games})


def quality_detail(request, slug):
    """A game's (or one league's) kept quality report and its drift, as the figures' last run left them, and
    the game's parameters with what each does (in memory, from the game's row: no replay)."""
    from django.core.exceptions import ValidationError
    from django.shortcuts import get_object_or_404

    from leagues.models import League
    from ratings.drift import drift_kept
    from ratings.parameters import parameters_explained
    from ratings.quality import quality_kept

    game = get_object_or_404(Game, slug=slug)
    league = None
    if request.GET.get("league"):
        league = get_object_or_404(League, game=game, slug=request.GET["league"])
    kept = quality_kept(game=game)
    row = next((row for row in kept.rows if row.league == league), None)
    drift, drift_as_of = drift_kept(game=game)
    context = {"game": game, "league": league, "leagues": game.leagues.all(), "as_of": kept.computed_at, "row": row}
    context |= {"drift": drift, "drift_as_of": drift_as_of}
    try:
        context["parameters"] = parameters_explained(game=game)
    except ValidationError as error:
        # Stored overrides the engine refuses (written around admin): the page still answers, and says so.
        context["parameters_problem"] = error.message_dict["parameters"][0]
    if drift is not None:
        context["drift_chart"] = {
            "labels": [point.start.isoformat() for point in drift.points],
            "means": [point.mean_rating for point in drift.points],
            "active": [point.active_players for point in drift.points],
        }
    if row is not None:
        report = row.report
        calibration = [
            {
                # The bin's bounds in the reader's number format (0,0 to 0,1 in Russian), joined by an en dash: a
                # table's and a chart's label.
                "label": f"{number_format(b.low, 1)}\u2013{number_format(b.high, 1)}",
                "count": b.count,
                "predicted": b.predicted,
                "observed": b.observed,
            }
            for b in report.bins
        ]
        context |= {"report": report, "calibration": calibration}
        context["chart"] = {
            "labels": [row["label"] for row in calibration],
            "predicted": [row["predicted"] for row in calibration],
            "observed": [row["observed"] for row in calibration],
        }
    return render(request, "ratings/quality_detail.html", context)
