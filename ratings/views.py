"""Calculator pages: type numbers, see the formula's inputs and result update (HTMX)."""

from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.vary import vary_on_headers

from leagues.models import Game
from ratings.calculators import rating_calculate_elo, rating_calculate_preferans


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def elo_calculator(request):
    values = {
        "rating": request.GET.get("rating", "1100"),
        "opponent": request.GET.get("opponent", "1000"),
        "score": request.GET.get("score", "1"),
        "rated_matches": request.GET.get("rated_matches", "0"),
    }
    result, errors = None, {}
    try:
        result = rating_calculate_elo(data=values)
    except ValidationError as error:
        errors = error.message_dict
    context = {"values": values, "result": result, "errors": errors}
    template = "ratings/elo_calculator.html#result" if request.htmx else "ratings/elo_calculator.html"
    return render(request, template, context)


def calculators(request):
    return redirect("calculator-preferans")


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def preferans_calculator(request):
    from ratings.engines.preferans import PreferansParameters
    from ratings.parameters import rating_parameters

    values = {
        "rating": request.GET.get("rating", "1500"),
        "opponents": request.GET.get("opponents", "1600,1400"),
        "whists": request.GET.get("whists", "4"),
    }
    game = Game.objects.filter(rating_system="preferans").order_by("pk").first()  # whose parameters apply
    result, errors = None, {}
    try:
        result = rating_calculate_preferans(data=values, game=game, grid=True)
    except ValidationError as error:
        errors = error.message_dict
    try:
        parameters = rating_parameters(game=game) if game else PreferansParameters()
    except ValidationError:
        parameters = PreferansParameters()  # the page shows the error the calculation raised about them
    context = {"values": values, "result": result, "errors": errors, "p": parameters}
    template = "ratings/preferans_calculator.html#result" if request.htmx else "ratings/preferans_calculator.html"
    return render(request, template, context)


def quality_overview(request):
    from ratings.quality import rating_quality_overview

    return render(request, "ratings/quality.html", {"rows": rating_quality_overview()})


def quality_detail(request, slug):
    from django.shortcuts import get_object_or_404

    from leagues.models import League
    from ratings.quality import rating_quality

    game = get_object_or_404(Game, slug=slug)
    league = None
    if request.GET.get("league"):
        league = get_object_or_404(League, game=game, slug=request.GET["league"])
    report = rating_quality(game=game, league=league)
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
            "calibration": calibration,
            "chart": {
                "labels": [row["label"] for row in calibration],
                "predicted": [row["predicted"] for row in calibration],
                "observed": [row["observed"] for row in calibration],
            },
        },
    )
