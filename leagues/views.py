"""Public pages: home, league leaderboards, player profiles.

Each page has one template with named partials; an HTMX request gets only
the partial it swaps (django-htmx-patterns), a plain request the full page,
so every link also works without JavaScript.
"""

from django.shortcuts import get_object_or_404, render

from leagues.models import Game, League, Player
from matches.selectors import matches_recent
from ratings import selectors
from ratings.caching import rating_version_site
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
    search = (request.GET.get("q") or "").replace("\x00", "").strip()[:100]
    page = selectors.leaderboard_page(
        league=league, sort=sort, search=search, page=request.GET.get("page"), page_size=LEADERBOARD_PAGE_SIZE
    )
    context = {
        "league": league,
        "leagues": League.objects.filter(game=league.game).order_by("tier"),
        "sort": sort,
        "search": search,
        "page": page,
        "rows": page.rows,
        "provisional_after": selectors.provisional_matches(league.game),
    }
    template = "leagues/leaderboard.html#board" if request.htmx else "leagues/leaderboard.html"
    return render(request, template, context)


def player_profile(request, pk):
    player = get_object_or_404(Player, pk=pk)
    # One read of the ratings version for every cached part of the page.
    version = rating_version_site()
    ratings = selectors.player_ratings(player=player, version=version)
    provisional = {rating.game_id: selectors.provisional_matches(rating.game) for rating in ratings}
    for rating in ratings:
        rating.provisional_after = provisional[rating.game_id]
        rating.provisional = rating.rated_matches < rating.provisional_after
    chart = selectors.player_chart_series(player=player, version=version)
    return render(
        request,
        "leagues/player.html",
        {
            "player": player,
            "ratings": ratings,
            "recent": selectors.player_recent_matches(player=player),
            "promotions": selectors.player_promotions(player=player, version=version),
            "chart": chart,
            "chart_series": {series.game: series.points for series in chart},
            "bridge": selectors.player_bridge_records(player=player),
        },
    )
