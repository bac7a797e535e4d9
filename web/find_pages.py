"""Finding a player from any page: the header's search box and its results page, for anyone.

``GET players/?q=TEXT`` answers the results page, a list of links to
profiles that works without JavaScript; the header's box
(``templates/_header_search.html``, ``static/js/header-search.js``) asks the
same URL with htmx as the visitor types and gets only the options of its
list (the page's ``options`` partial). Each player found shows the games they
are rated in, with their rating.

It reuses the referees' picker search (``games.pickers.players_search``) and
its indexes, in its public form: names only (a federation number is not
looked up), no erased player, at most ``FIND_LIMIT`` players; the text is cut
as the picker's is (``search_text``). Three queries whatever the number of
players: names beginning with the text, names containing it (three
characters or more, when fewer begin with it), and the ratings of the players
found with their games.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from games.pickers import TEXT_MAX, players_search, search_text
from leagues.models import Player
from ratings.models import PlayerRating

#: The most players one search shows: a short list to scan on a phone.
FIND_LIMIT = 10


@dataclass(frozen=True)
class Found:
    player: Player
    ratings: list[PlayerRating]  # the games the player is rated in, by game name (each with its game)


def players_find(text: str) -> list[Found]:
    """The players anyone finds for ``text`` (already ``search_text``), with their ratings: see the module."""
    players = players_search(text, limit=FIND_LIMIT, public=True)
    if not players:
        return []
    rows = PlayerRating.objects.filter(player__in=players).select_related("game").order_by("game__name", "game_id")
    by_player: dict[int, list[PlayerRating]] = {}
    for row in rows:
        by_player.setdefault(row.player_id, []).append(row)
    return [Found(player=player, ratings=by_player.get(player.pk, [])) for player in players]


@vary_on_headers("HX-Request")  # one URL, two answers: the header list's options (HTMX) or the page
@require_GET
def players_find_page(request):
    """``GET players/?q=TEXT``: the players found, as a page of links, or the header list's options (HTMX)."""
    text = search_text(request.GET.get("q"))
    context = {"found": players_find(text), "text": text, "text_max": TEXT_MAX, "limit": FIND_LIMIT}
    template = "games/find.html#options" if request.htmx else "games/find.html"
    return render(request, template, context)
