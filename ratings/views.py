"""Calculator pages: type numbers, see the formula's inputs and result update (HTMX)."""

from django.core.exceptions import ValidationError
from django.shortcuts import render

from ratings.services import rating_calculate_elo


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
