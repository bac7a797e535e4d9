"""The official rating lists' pages (issue 27): a game's archive of lists, one list, its movers, its CSV.

A *list* is a game's ratings frozen at the end of its *closing day* (``ratings.lists`` publishes it,
``ratings.list_selectors`` reads it); a published list never changes, but for an erased player's name.
Its *version* is 1 unless an admin republished the day; ``?version=N`` shows an older one.

Every read is bounded: the archive and a list are read a page at a time, the movers a few rows each way,
and the CSV streams the rows as it reads them. The pages are not cached: each is a handful of indexed
queries, none of them growing with the rows shown (the player links are one ``EXISTS`` in the rows'
query). Ratings are shown to the game's decimals (``ratings.selectors.rating_decimals``: whole numbers
for an Elo game, two decimals otherwise), a change with its sign.
"""

from __future__ import annotations

import datetime
import re
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.views.decorators.vary import vary_on_headers

from config.csvout import csv_lines, download, with_bom
from leagues.models import Game, Player
from ratings.list_selectors import (
    LIST_SORTS,
    player_list_lines,
    rating_list_later_corrections,
    rating_list_movers,
    rating_list_of,
    rating_list_rows,
    rating_list_versions,
    rating_lists_of,
)
from ratings.models import RatingList, RatingListRow
from ratings.selectors import leaderboard_search, rating_decimals, rating_number

#: Lists on a page of a game's archive, and rows on a page of a list.
ARCHIVE_PAGE_SIZE = 24
LIST_PAGE_SIZE = 50
#: The list's download, a row per player, best first.
CSV_COLUMNS = (
    "rank",
    "player_id",
    "player",
    "rating",
    "peak",
    "units",
    "change",
    "new",
    "provisional",
    "inactive",
)
CSV_CHUNK = 2000  # rows read per query
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")  # fromisoformat alone also takes 20261130 and 2026-W48-1
VERSION = re.compile(r"[1-9]\d{0,4}")  # a version is a small positive number


# --- showing a list's numbers ----------------------------------------------------------------------------


def _places(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def shown_rating(value: Decimal | None, decimals: int) -> str:
    """A rating to the game's decimals, in the reader's locale: ``1016``, ``1502.59`` (``1502,59`` in Russian)."""
    return "" if value is None else number_format(_places(value, decimals), decimals)


def shown_change(value: Decimal | None, decimals: int) -> str:
    """A change to the game's decimals with its sign: ``+16``, ``-15`` with a true minus sign (U+2212), ``±0``;
    empty for none (a player new on the list)."""
    if value is None:
        return ""
    change = _places(value, decimals)
    shown = number_format(abs(change), decimals)  # a decimal comma in Russian
    if change > 0:
        return f"+{shown}"
    return f"\u2212{shown}" if change < 0 else f"\u00b1{shown}"


def _dress(rows, decimals: int) -> list[RatingListRow]:
    """The rows with their numbers as the page shows them (``shown_rating``, ``shown_peak``, ``shown_change``)."""
    rows = list(rows)
    for row in rows:
        row.shown_rating = shown_rating(row.rating, decimals)
        row.shown_peak = shown_rating(row.peak, decimals)
        row.shown_change = shown_change(row.change, decimals)
    return rows


def _with_player_link(rows):
    """The rows, each knowing whether its player still exists (``linked``): a merge deletes the player it
    drops, whose line stays on the list by the name it was published with. One ``EXISTS`` in the rows' query."""
    return rows.annotate(linked=Exists(Player.objects.filter(pk=OuterRef("player_id"))))


# --- reading the URL -------------------------------------------------------------------------------------


def _day(text: str) -> datetime.date:
    """The closing day of the URL, ``YYYY-MM-DD``; anything else is a page that does not exist."""
    if not DAY.fullmatch(text):
        raise Http404(gettext("A list's day is YYYY-MM-DD."))
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise Http404(gettext("No such day.")) from None


def _rating_list(request, slug: str, day: str) -> tuple[Game, RatingList, bool]:
    """The game, its list of ``day`` (the current version, or ``?version=N``) and whether a version was asked
    for; 404 for an unknown game, a bad day, a day without a list or a version that is not there."""
    game = get_object_or_404(Game, slug=slug)
    closing = _day(day)
    asked = request.GET.get("version", "")
    if asked and not VERSION.fullmatch(asked):
        raise Http404(gettext("A version is a number from 1."))
    rating_list = rating_list_of(game=game, day=closing, version=int(asked) if asked else None)
    if rating_list is None:
        raise Http404(gettext("No list of that day."))
    return game, rating_list, bool(asked)


# --- the pages -------------------------------------------------------------------------------------------


def rating_lists_page(request, slug):
    """``GET games/SLUG/lists/[?page=N]``: the game's published lists, newest first, ``ARCHIVE_PAGE_SIZE`` a
    page (a page that is not a number is the first, one past the end the last)."""
    game = get_object_or_404(Game, slug=slug)
    lists = rating_lists_of(game=game).only("game_id", "day", "version", "players", "published_at")
    page = Paginator(lists, ARCHIVE_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "ratings/rating_lists.html", {"game": game, "page": page})


@vary_on_headers("HX-Request")  # the search swaps the table by HTMX: one URL, two answers
def rating_list_page(request, slug, day):
    """``GET games/SLUG/lists/YYYY-MM-DD/[?version=N][&q=TEXT][&sort=KEY][&page=N]``: one list, a page of
    ``LIST_PAGE_SIZE`` rows, sorted by ``LIST_SORTS`` (rank by default) and searched by name. An HTMX
    request gets the table alone, and the form's sort field out of band."""
    game, rating_list, asked = _rating_list(request, slug, day)
    sort = request.GET.get("sort", "rank")
    sort = sort if sort in LIST_SORTS else "rank"
    search = leaderboard_search(request.GET.get("q"))
    paginator = Paginator(_with_player_link(rating_list_rows(rating_list, search=search, sort=sort)), LIST_PAGE_SIZE)
    if not search:
        paginator.count = rating_list.players  # a list's size is written with it and never changes: no COUNT
    page = paginator.get_page(request.GET.get("page"))
    decimals = rating_decimals(game)
    version = {"version": rating_list.version} if asked else {}
    context = {
        "game": game,
        "rating_list": rating_list,
        "page": page,
        "rows": _dress(page.object_list, decimals),
        "sort": sort,
        "search": search,
        # What each link keeps: the version always, the search, and the sort where it does not set it itself.
        "query": urlencode({**version, "q": search, "sort": sort}),
        "sort_urls": {
            name: urlencode({**version, "q": search, "sort": key})
            for name, key in [("rank", "rank"), ("name", "name"), ("change", "change"), ("falls", "-change")]
        },
        "version_query": urlencode(version),
    }
    if request.htmx:
        table = render_to_string("ratings/rating_list.html#table", context, request=request)
        sort_field = render_to_string("ratings/rating_list.html#sort-field", {**context, "oob": True})
        return HttpResponse(table + sort_field)
    versions = rating_list_versions(rating_list)
    context |= {
        "versions": versions,
        "current": versions[-1],
        "later_corrections": rating_list_later_corrections(rating_list),
    }
    return render(request, "ratings/rating_list.html", context)


def rating_list_movers_page(request, slug, day):
    """``GET games/SLUG/lists/YYYY-MM-DD/movers/[?version=N]``: the list's biggest gains and falls since the
    previous list and its best new entries (``rating_list_movers``)."""
    game, rating_list, asked = _rating_list(request, slug, day)
    decimals = rating_decimals(game)
    movers = rating_list_movers(rating_list)
    linked = set(
        Player.objects.filter(
            pk__in={row.player_id for row in [*movers.gains, *movers.falls, *movers.new]}
        ).values_list("pk", flat=True)
    )
    sections = []
    for key, title, rows in [
        ("gains", gettext("Biggest gains"), movers.gains),
        ("falls", gettext("Biggest falls"), movers.falls),
        ("new", gettext("New on the list"), movers.new),
    ]:
        for row in rows:
            row.linked = row.player_id in linked
        sections.append({"key": key, "title": title, "rows": _dress(rows, decimals)})
    context = {
        "game": game,
        "rating_list": rating_list,
        "sections": sections,
        "version_query": urlencode({"version": rating_list.version} if asked else {}),
    }
    return render(request, "ratings/rating_list_movers.html", context)


def rating_list_csv(request, slug, day):
    """``GET games/SLUG/lists/YYYY-MM-DD.csv[?version=N]``: the whole list (``CSV_COLUMNS``), best first,
    streamed as it is read (UTF-8 with a byte order mark, cells safe from formulas: ``config.csvout``)."""
    game, rating_list, asked = _rating_list(request, slug, day)
    decimals = rating_decimals(game)
    rows = (
        RatingListRow.objects.filter(rating_list=rating_list)
        .order_by("rank", "name", "player_id")
        .values_list(*(column if column != "player" else "name" for column in CSV_COLUMNS))
    )

    def lines():
        for rank, player_id, name, rating, peak, units, change, new, provisional, inactive in rows.iterator(
            chunk_size=CSV_CHUNK
        ):
            yield {
                "rank": rank,
                "player_id": player_id,
                "player": name,
                "rating": rating_number(rating, decimals=decimals),
                "peak": rating_number(peak, decimals=decimals),
                "units": units,
                "change": rating_number(change, decimals=decimals),
                "new": "yes" if new else "no",
                "provisional": "yes" if provisional else "no",
                "inactive": "yes" if inactive else "no",
            }

    suffix = f"-v{rating_list.version}" if asked else ""
    filename = f"{game.slug}-rating-list-{rating_list.day.isoformat()}{suffix}.csv"
    return download(with_bom(csv_lines(CSV_COLUMNS, lines())), filename=filename)


def profile_list_lines(player: Player) -> list[RatingListRow]:
    """The player's line in each list (``player_list_lines``, one query), their numbers as the list shows them:
    the profile's "Rating lists" section. Read on every request, outside the profile's cached parts: a list
    is published without touching the ratings or results versions those parts are kept under."""
    lines = player_list_lines(player=player)
    decimals: dict[int, int] = {}
    for line in lines:
        game = line.rating_list.game
        _dress([line], decimals.setdefault(game.pk, rating_decimals(game)))
    return lines
