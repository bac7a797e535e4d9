"""The recent matches and the referees' confirmations list.

The entry pages are the kinds' (``games/entry.py``), and the match page,
which shows rating changes, is in ``ratings/pages.py``.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from leagues.models import Game
from matches import selectors
from matches.confirmation import match_confirm
from matches.entry import bounded_int, limit_writes, referee_required
from matches.models import Match

#: Matches on a page of ``/matches/``.
MATCHES_PAGE_SIZE = 25


def recent_matches_page(request):
    """``GET matches/[?game=SLUG][&page=N]``: every result, newest first, a page at a time, of one game or all.

    An unknown game shows every game (the filter says "All games"); a page that is not a number is the
    first, one past the end the last (``selectors.matches_list_page``)."""
    games = list(Game.objects.order_by("name", "id"))
    wanted = request.GET.get("game", "")
    game = next((game for game in games if isinstance(wanted, str) and game.slug == wanted), None)
    page = selectors.matches_list_page(game=game, number=request.GET.get("page"), page_size=MATCHES_PAGE_SIZE)
    context = {"matches": page.object_list, "page": page, "games": games, "game": game}
    return render(request, "matches/recent.html", context)


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
