"""Result entry (referees), the confirmations list and the public match pages.

Each game's entry page lives with its kind (``games/<game>/views.py``); the
one route ``results/<game>/`` finds the game and hands the request to its
kind, after the checks every entry page shares (``matches.entry``). The
match page asks the kind for what its game adds (``match_page_context``)
and includes the kind's template partials.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from leagues.models import Game
from matches import selectors
from matches.confirmation import match_confirm
from matches.entry import bounded_int, limit_writes, referee_required
from matches.models import Match
from ratings.selectors import match_detail_rated_queryset


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def result_entry(request, game):
    """The entry page of the game the URL names, served by its kind; 404 for a game whose kind has none."""
    referee_required(request)
    game = get_object_or_404(Game, slug=game)
    kind = game.kind
    if kind is None or not kind.has_entry_page:
        raise Http404("This game has no entry page.")
    return kind.entry_view(request, game)


def match_page(request, pk):
    match = get_object_or_404(match_detail_rated_queryset(), pk=pk)
    totals = {}
    for change in match.rating_changes.all():
        first, _ = totals.get(change.player_id, (change, None))
        totals[change.player_id] = (first, change)
    seats = [
        {"seat": seat, "total": totals.get(seat.player_id) if seat.player_id else None} for seat in match.seats.all()
    ]
    context = {"match": match, "seats": seats, **match.game.kind.match_page_context(match)}
    return render(request, "matches/match.html", context)


def recent_matches_page(request):
    return render(request, "matches/recent.html", {"matches": selectors.matches_recent(limit=50)})


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def confirmations(request):
    """Results of two-step leagues waiting for a second referee; confirm one with a click (HTMX)."""
    referee_required(request)
    error = None
    if request.method == "POST":
        try:
            # The version the page showed: a result corrected since is not confirmed unseen.
            seen = request.POST.get("version", "")
            version = bounded_int(seen, 0, 0, 2**62) if seen else None
            match_confirm(
                match_id=bounded_int(request.POST.get("match"), 0, 0, 2**62), by=request.user, version=version
            )
        except Match.DoesNotExist:
            error = "That result no longer exists."
        except ValidationError as problem:
            error = " ".join(problem.messages)
    context = {"matches": selectors.matches_awaiting_confirmation(), "error": error}
    template = "matches/confirmations.html#list" if request.htmx else "matches/confirmations.html"
    return render(request, template, context)
