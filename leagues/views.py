"""Public pages: home, league leaderboards, player profiles.

Each page has one template with named partials; an HTMX request gets only
the partial it swaps (django-htmx-patterns), a plain request the full page,
so every link also works without JavaScript.
"""

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from leagues.models import Game, League, Player
from matches.selectors import matches_recent
from ratings import selectors
from ratings.selectors import Sort

LEADERBOARD_PAGE_SIZE = 25


def home(request):
    games = Game.objects.prefetch_related("leagues").order_by("name")
    return render(
        request,
        "leagues/home.html",
        {"games": games, "recent_matches": matches_recent(limit=10)},
    )


def league_leaderboard(request, slug):
    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    sort = Sort.clean(request.GET.get("sort"))
    search = (request.GET.get("q") or "").strip()[:100]
    paginator = Paginator(selectors.leaderboard(league=league, sort=sort, search=search), LEADERBOARD_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    offset = (page.number - 1) * LEADERBOARD_PAGE_SIZE
    rows = [
        {"rank": getattr(rating, "rank", offset + index + 1), "rating": rating} for index, rating in enumerate(page)
    ]
    context = {
        "league": league,
        "leagues": League.objects.filter(game=league.game).order_by("tier"),
        "sort": sort,
        "search": search,
        "page": page,
        "rows": rows,
        "provisional_after": selectors.provisional_matches(league.game),
    }
    template = "leagues/leaderboard.html#board" if request.htmx else "leagues/leaderboard.html"
    return render(request, template, context)


def player_profile(request, pk):
    player = get_object_or_404(Player, pk=pk)
    ratings = selectors.player_ratings(player=player)
    provisional = {rating.game_id: selectors.provisional_matches(rating.game) for rating in ratings}
    for rating in ratings:
        rating.provisional_after = provisional[rating.game_id]
        rating.provisional = rating.rated_matches < rating.provisional_after
    return render(
        request,
        "leagues/player.html",
        {
            "player": player,
            "ratings": ratings,
            "recent": selectors.player_recent_matches(player=player),
            "promotions": selectors.player_promotions(player=player),
            "chart_series": selectors.player_chart_series(player=player),
            "bridge": selectors.player_bridge_records(player=player),
        },
    )
