"""Rating pages every game shares: the calculators' index and the rating-quality reports.

Each game's calculator page lives with its kind (``games/<x>/calculator.py``).
"""

from django.shortcuts import render

from leagues.models import Game
from ratings.calculators import calculator_links


def calculators(request):
    """The calculators the games offer (``GameKind.calculator_url_name``), one link each."""
    return render(request, "ratings/calculators.html", {"calculators": calculator_links()})


def quality_overview(request):
    from ratings.quality import rating_quality_overview

    return render(request, "ratings/quality.html", {"rows": rating_quality_overview()})


def quality_detail(request, slug):
    from django.shortcuts import get_object_or_404

    from leagues.models import League
    from ratings.drift import rating_drift_cached
    from ratings.quality import rating_quality_row

    game = get_object_or_404(Game, slug=slug)
    league = None
    if request.GET.get("league"):
        league = get_object_or_404(League, game=game, slug=request.GET["league"])
    row = rating_quality_row(game=game, league=league)
    report = row.report
    drift = rating_drift_cached(game=game)
    calibration = [
        {"label": f"{b.low:.1f}-{b.high:.1f}", "count": b.count, "predicted": b.predicted, "observed": b.observed}
        for b in report.bins
    ]
    return render(
        request,
        "ratings/quality_detail.html",
        {
            "game": game,
            "league": league,
            "leagues": game.leagues.all(),
            "report": report,
            "row": row,
            "calibration": calibration,
            "chart": {
                "labels": [row["label"] for row in calibration],
                "predicted": [row["predicted"] for row in calibration],
                "observed": [row["observed"] for row in calibration],
            },
            "drift": drift,
            "drift_chart": {
                "labels": [point.start.isoformat() for point in drift.points],
                "means": [point.mean_rating for point in drift.points],
                "active": [point.active_players for point in drift.points],
            },
        },
    )
