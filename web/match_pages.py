"""The recent matches.

The entry pages are the kinds' (``web/entry_pages.py`` routes to them); the match page, which
shows rating changes, is in ``web/pages.py``, and the referees'
confirmations list, which answers a confirmation with them, in
``web/confirm_pages.py``.
"""

from django.shortcuts import render

from leagues.models import Game
from matches import selectors

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
