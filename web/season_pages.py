"""A league's seasons (issue 27): the honours board and a season's table.

The tables are worked out by tasks (``games.seasons``) and read here a page at a time; a running season's
table says when it was last worked out, a closed one that it is frozen. Nothing is computed on a request.
"""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from leagues.models import League, Player, Season
from leagues.season_selectors import season_honours, season_lines, season_moved, seasons_of
from ratings.selectors import leaderboard_search

SEASONS_PAGE_SIZE = 12
TABLE_PAGE_SIZE = 50


def shown_points(value: Decimal, *, signed: bool = False) -> str:
    """Points without trailing zeros (``4``, ``4.5``); a rating gained with its sign (a true minus for a fall)."""
    text = f"{abs(value).normalize():f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if not signed:
        return f"-{text}" if value < 0 else text
    return f"+{text}" if value > 0 else (f"\u2212{text}" if value < 0 else f"\u00b1{text}")


def rule_words(league: League) -> str:
    """The league's table rule in a sentence."""
    points = {
        "win": shown_points(league.season_win_points),
        "draw": shown_points(league.season_draw_points),
        "loss": shown_points(league.season_loss_points),
    }
    if league.season_rule == League.SeasonRule.RATING:
        words = _("Ranked by the rating gained in the season's results.")
    elif league.season_rule == League.SeasonRule.BEST:
        words = _(
            "Ranked by the points of each player's best %(best)s results: %(win)s a win, %(draw)s a draw, "
            "%(loss)s a loss; at a table of more, each opponent counts as a share of the result."
        ) % {**points, "best": league.season_best_of}
    else:
        words = (
            _(
                "Ranked by points: %(win)s a win, %(draw)s a draw, %(loss)s a loss; at a table of more, each "
                "opponent counts as a share of the result."
            )
            % points
        )
    if league.season_min_results > 1:
        words += " " + _("Players with at least %(count)s results are listed.") % {"count": league.season_min_results}
    return words


def league_seasons_page(request, slug):
    """``GET leagues/SLUG/seasons/[?page=N]``: the honours board, the latest season first: each closed
    season's champion and podium and the players it moved; a running season links to its table."""
    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    page = Paginator(seasons_of(league=league), SEASONS_PAGE_SIZE).get_page(request.GET.get("page"))
    honours = season_honours(list(page.object_list))
    signed = league.season_rule == League.SeasonRule.RATING
    for entry in honours:
        for line in entry.podium:
            line.shown_points = shown_points(line.points, signed=signed)
    return render(
        request,
        "leagues/seasons.html",
        {"league": league, "page": page, "honours": honours, "rule": rule_words(league)},
    )


def season_page(request, slug, pk):
    """``GET leagues/SLUG/seasons/ID/[?q=TEXT][&page=N]``: a season's table, ``TABLE_PAGE_SIZE`` lines a
    page, searched by name; the players it moved are marked."""
    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    season = get_object_or_404(Season, league=league, pk=pk)
    search = leaderboard_search(request.GET.get("q"))
    lines = season_lines(season=season, search=search).annotate(
        linked=Exists(Player.objects.filter(pk=OuterRef("player_id")))
    )
    page = Paginator(lines, TABLE_PAGE_SIZE).get_page(request.GET.get("page"))
    moved = season_moved(season=season)
    signed = league.season_rule == League.SeasonRule.RATING
    rows = list(page.object_list)
    for line in rows:
        line.shown_points = shown_points(line.points, signed=signed)
        line.moved = moved.get(line.player_id, "")
    return render(
        request,
        "leagues/season.html",
        {
            "league": league,
            "season": season,
            "page": page,
            "rows": rows,
            "search": search,
            "query": urlencode({"q": search}),
            "rule": rule_words(league),
            "rating_rule": signed,
            "draws": league.game.kind.shows_draws,
        },
    )
