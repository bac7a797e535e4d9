"""Public pages: home, league leaderboards, player profiles, a match with its rating changes.

What they show is read from the ratings (standings, ledger rows, the ratings
version their caches are keyed on) and from the results (``docs/architecture.md``).
Their templates stay ``templates/leagues/``.

Each page has one template with named partials; an HTMX request gets only
the partial it swaps (django-htmx-patterns), a plain request the full page,
so every link also works without JavaScript.
"""

from collections.abc import Callable
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.views.decorators.vary import vary_on_headers

from leagues.kinds import KINDS
from leagues.models import Game, League, Player
from matches.selectors import matches_parts_read, matches_recent, results_version_site
from ratings import selectors
from ratings.caching import cached, cached_many, rating_version_of_state, rating_version_site
from ratings.compare import PROFILE_HEAD_TO_HEAD, player_head_to_head
from ratings.selectors import HISTORY_PAGE_SIZE, Sort, match_detail_rated_queryset
from web.claim_pages import claim_box
from web.forms import HistoryFilterForm
from web.list_pages import profile_list_lines

LEADERBOARD_PAGE_SIZE = 25


def home(request):
    games = Game.objects.prefetch_related("leagues").order_by("name")
    return render(
        request,
        "leagues/home.html",
        {"games": games, "recent_matches": matches_recent(limit=10)},
    )


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
def league_leaderboard(request, slug):
    # The league and its game's ratings version in one query.
    league = get_object_or_404(League.objects.select_related("game", "game__rating_state"), slug=slug)
    version = rating_version_of_state(getattr(league.game, "rating_state", None))
    sort = Sort.clean(request.GET.get("sort"))
    search = selectors.leaderboard_search(request.GET.get("q"))
    # The toggle: inactive players too (marked). Like the sort, anything but "true" is the default view.
    everyone = league.inactive_after_days is not None and request.GET.get("include_inactive") == "true"
    activity = selectors.league_activity(league=league, everyone=everyone)
    number = selectors.leaderboard_page_number(
        league=league,
        sort=sort,
        search=search,
        page=request.GET.get("page"),
        page_size=LEADERBOARD_PAGE_SIZE,
        version=version,
        activity=activity,
    )
    query = urlencode({"sort": sort, "q": search, **({"include_inactive": "true"} if everyone else {})})

    def board() -> str:
        page = selectors.leaderboard_page(
            league=league,
            sort=sort,
            search=search,
            page=number,
            page_size=LEADERBOARD_PAGE_SIZE,
            version=version,
            activity=activity,
        )
        context = {
            "sort": sort,
            "search": search,
            "page": page,
            "rows": page.rows,
            "provisional_after": selectors.provisional_matches(league.game),
            "activity": activity,
            "query": query,
        }
        return render_to_string("leagues/leaderboard.html#board", context)

    # The #board partial is the same for every visitor: cached as HTML under the ratings version and
    # the activity's key (who is active changes with the day). The page around it (the signed-in user,
    # CSRF token) is rendered per request.
    # A search is computed each time: its text is the visitor's, not a bounded key (leaderboard_cacheable).
    key = ("leaderboard-html", league.pk, sort, search, number, activity.key, version)
    keep = selectors.leaderboard_cacheable(search=search, page_size=LEADERBOARD_PAGE_SIZE)
    board_html = mark_safe(cached(key, board, keep=keep))  # noqa: S308 - our own rendered template
    if request.htmx:
        # The table's CSV link (outside the board) follows the toggle too: swapped out of band.
        csv_link = render_to_string(
            "leagues/leaderboard.html#table-csv", {"league": league, "everyone": everyone, "oob": True}
        )
        return HttpResponse(board_html + csv_link)
    leagues = cached(("league-tabs", league.game_id, version), lambda: list(league.game.leagues.order_by("tier")))
    context = {
        "league": league,
        "leagues": leagues,
        "sort": sort,
        "search": search,
        "everyone": everyone,
        "board_html": board_html,
    }
    return render(request, "leagues/leaderboard.html", context)


def _profile_cards(player: Player, version: str, today) -> dict:
    ratings = selectors.player_ratings(player=player, version=version, today=today)
    for rating in ratings:
        rating.provisional_after = selectors.provisional_matches(rating.game)
        rating.provisional = rating.rated_matches < rating.provisional_after
    return {"player": player, "ratings": ratings}


def _profile_chart(player: Player, version: str) -> dict:
    chart = selectors.player_chart_series(player=player, version=version)
    return {"player": player, "chart": chart}


def _profile_recent(player: Player) -> dict:
    recent = selectors.player_recent_matches(player=player)
    games = sorted({item.match.game for item in recent}, key=lambda game: game.name)
    return {"player": player, "recent": recent, "recent_games": games}


def _profile_head_to_head(player: Player, version: str) -> dict:
    """Each game's first head-to-head rows (the opponents met most), for the games the player is rated in
    and whose kind shows them here (bridge lists its opposing pairs in its own section): one aggregate
    query a game."""
    sections = []
    for rating in selectors.player_ratings(player=player, version=version):
        kind = rating.game.kind
        if not kind.profile_head_to_head:
            continue
        rows = player_head_to_head(player=player, game=rating.game)
        if rows:
            sections.append(
                {"game": rating.game, "kind": kind, "rows": rows[:PROFILE_HEAD_TO_HEAD], "count": len(rows)}
            )
    return {"player": player, "head_to_head": sections}


def player_profile(request, pk):
    """A player's profile: the parts are cached as HTML under what each shows.

    Ratings, ranks, promotions and the chart change only with the ratings
    (the site's ratings version); recent matches and the games' own sections
    (bridge: partnerships) also show
    friendly, waiting and voided results, so they are keyed on the results
    version as well. Four queries when warm: the player, the two versions and
    the player's lines in the official rating lists, read on every request since
    publishing a list moves neither version; the signed-in header is rendered
    per request.

    The charts (one a game) come right after the rating cards, before the
    long tables; a game's section may list only its first rows and link to
    ``player_records`` for all of them; every match is on ``player_history``.
    """
    player = get_object_or_404(Player, pk=pk)
    # Versions first, data after: a part is never older than its key.
    ratings = rating_version_site()
    results = results_version_site()
    today = selectors.activity_today()

    def part(name: str, context: Callable[[], dict]) -> Callable[[], str]:
        return lambda: render_to_string(f"leagues/player.html#{name}", context()).strip()

    parts = cached_many(
        {
            "cards": (
                # The day too: whether the player is inactive in a league changes with it.
                ("profile-cards", player.pk, player.name, today.isoformat(), ratings),
                part("cards", lambda: _profile_cards(player, ratings, today)),
            ),
            "promotions": (
                ("profile-promotions", player.pk, ratings),
                part("promotions", lambda: {"promotions": selectors.player_promotions(player=player, version=ratings)}),
            ),
            # What each game adds (bridge: partnerships and head-to-head), by its kind.
            **{
                f"section-{kind.slug}-{name}": (
                    ("profile-section", kind.slug, name, player.pk, ratings, results),
                    lambda template=template, read=read: render_to_string(
                        template, {"player": player, **read(player)}
                    ).strip(),
                )
                for kind in KINDS.values()
                for name, template, read in kind.profile_sections()
            },
            "chart": (("profile-chart", player.pk, ratings), part("chart", lambda: _profile_chart(player, ratings))),
            # Rated results only, but opponents' names too: keyed on the results version as well.
            "head_to_head": (
                ("profile-head-to-head", player.pk, ratings, results),
                part("head_to_head", lambda: _profile_head_to_head(player, ratings)),
            ),
            "recent": (
                ("profile-recent", player.pk, ratings, results),
                part("recent", lambda: _profile_recent(player)),
            ),
        }
    )
    safe = {name: mark_safe(html) for name, html in parts.items()}  # noqa: S308 - our own rendered templates
    sections = [html for name, html in safe.items() if name.startswith("section-")]
    # The rating lists' lines are read each time (one query), outside the cached parts: publishing a list
    # changes neither version the parts are kept under.
    context = {"player": player, "parts": safe, "sections": sections, "list_lines": profile_list_lines(player)}
    # Who is looking matters here ("This is me", "Claimed", a waiting claim): never in a cached part.
    context["box"] = claim_box(request, player)
    return render(request, "leagues/player.html", context)


def player_records(request, pk, kind, name):
    """All the rows of one of a game's profile sections (bridge: every opposing pair met), where the
    profile shows the first few. Not cached: a full list is asked for rarely."""
    player = get_object_or_404(Player, pk=pk)
    found = next(
        (
            (template, read)
            for kind_slug, game_kind in KINDS.items()
            if kind_slug == kind
            for section, template, read in game_kind.profile_sections()
            if section == name
        ),
        None,
    )
    if found is None:
        raise Http404(gettext("No such section."))
    template, read = found
    section = mark_safe(render_to_string(template, {"player": player, "full": True, **read(player)}).strip())  # noqa: S308
    return render(request, "leagues/player_records.html", {"player": player, "section": section})


@vary_on_headers("HX-Request")  # the filter form swaps #history by HTMX: one URL, two answers
def player_history(request, pk):
    """Every match of the player, newest first, a page of ``HISTORY_PAGE_SIZE`` at a time, filtered by
    game, league, dates and opponent (``HistoryFilterForm``). A filter that is not understood answers 400
    with the form saying why, and shows nothing (to HTMX, 200: htmx swaps only a 2xx answer, and the form
    inside the swapped part shows the errors); a page number out of range shows the nearest page."""
    player = get_object_or_404(Player, pk=pk)
    form = HistoryFilterForm(request.GET or None)
    status = 200
    filters = selectors.HistoryFilter()
    if form.is_bound:
        if form.is_valid():
            filters = form.filters()
        else:
            status = 400
    page = None
    rows = []
    if status == 200:
        paginator = Paginator(selectors.player_history_matches(player=player, filters=filters), HISTORY_PAGE_SIZE)
        page = paginator.get_page(request.GET.get("page"))
        rows = selectors.player_history_rows(player=player, matches=page.object_list)
    query = urlencode(filters.query())
    context = {"player": player, "form": form, "page": page, "rows": rows, "query": query, "filters": filters}
    if request.htmx:
        return render(request, "leagues/player_history.html#history", context)
    return render(request, "leagues/player_history.html", context, status=status)


def match_page(request, pk):
    match = get_object_or_404(match_detail_rated_queryset(), pk=pk)
    matches_parts_read([match])
    totals = {}
    for change in match.rating_changes.all():
        first, _ = totals.get(change.player_id, (change, None))
        totals[change.player_id] = (first, change)
    seats = [
        {"seat": seat, "total": totals.get(seat.player_id) if seat.player_id else None} for seat in match.seats.all()
    ]
    kind = match.game.kind
    context = {"match": match, "seats": seats, "title": kind.match_title(match), **kind.match_page_context(match)}
    return render(request, "matches/match.html", context)
