"""Calculator pages: type numbers, see the formula's inputs and result update (HTMX)."""

from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from leagues.models import Game
from ratings.services import rating_calculate_elo, rating_calculate_preferans


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


def preferans_calculator(request):
    from ratings.engines.preferans import PreferansParameters
    from ratings.services import rating_parameters

    values = {
        "rating": request.GET.get("rating", "1500"),
        "opponents": request.GET.get("opponents", "1600,1400"),
        "whists": request.GET.get("whists", "4"),
    }
    result, errors = None, {}
    try:
        result = rating_calculate_preferans(data=values, grid=True)
    except ValidationError as error:
        errors = error.message_dict
    game = Game.objects.filter(rating_system="preferans").order_by("pk").first()
    parameters = rating_parameters(game=game) if game else PreferansParameters()
    context = {"values": values, "result": result, "errors": errors, "p": parameters}
    template = "ratings/preferans_calculator.html#result" if request.htmx else "ratings/preferans_calculator.html"
    return render(request, template, context)
