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
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.models import League, Player, Season
from leagues.season_selectors import season_honours, season_lines, season_moved, seasons_of
from ratings.selectors import leaderboard_search, rating_decimals
from web.list_pages import shown_change

SEASONS_PAGE_SIZE = 12
TABLE_PAGE_SIZE = 50


def shown_points(value: Decimal) -> str:
    """Points without trailing zeros, in the reader's locale: ``4``, ``4.5`` (``4,5`` in Russian)."""
    text = f"{abs(value).normalize():f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    text = text.replace(".", get_format("DECIMAL_SEPARATOR"))  # a decimal comma in Russian
    return f"-{text}" if value < 0 else text


def shown_line(value: Decimal, league: League) -> str:
    """A table's figure: points (``shown_points``), or a rating gained as the lists show a change (to the
    game's decimals, with its sign: ``web.list_pages.shown_change``)."""
    if league.season_rule == League.SeasonRule.RATING:
        return shown_change(value, rating_decimals(league.game))
    return shown_points(value)


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
        words += " " + ngettext(
            "Players with at least %(count)s result are listed.",
            "Players with at least %(count)s results are listed.",
            league.season_min_results,
        ) % {"count": league.season_min_results}
    return words


def league_seasons_page(request, slug):
    """``GET leagues/SLUG/seasons/[?page=N]``: the honours board, the latest season first: each closed
    season's champion and podium and the players it moved; a running season links to its table."""
    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    page = Paginator(seasons_of(league=league), SEASONS_PAGE_SIZE).get_page(request.GET.get("page"))
    honours = season_honours(list(page.object_list))
    for entry in honours:
        for line in entry.podium:
            line.shown_points = shown_line(line.points, league)
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
    rows = list(page.object_list)
    for line in rows:
        line.shown_points = shown_line(line.points, league)
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
            "rating_rule": league.season_rule == League.SeasonRule.RATING,
            "draws": league.game.kind.shows_draws,
        },
    )
