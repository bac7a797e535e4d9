"""Public pages over head-to-head records: a player's full head-to-head list in a game, a league's crosstable
of its best players, and the compare page (two players, or two bridge pairs).

The reads are ``ratings.compare``'s; the game's kind says what a record holds and names the partial that
shows its rows (``templates.head_to_head``), so no page branches on a game.
"""

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext

from leagues.models import Game, League, Player
from ratings.compare import (
    compare_game,
    compare_sides,
    comparison_record,
    league_crosstable_kept,
    player_head_to_head,
    side_ids,
)

HEAD_TO_HEAD_PAGE_SIZE = 50


def head_to_head_page(request, pk):
    """``players/<pk>/head-to-head/?game=SLUG&page=N``: every opponent of the player in the game, most
    meetings first, ``HEAD_TO_HEAD_PAGE_SIZE`` a page. An unknown or missing game is 404, as the page of a
    game that is not there; a page number out of range shows the nearest page."""
    player = get_object_or_404(Player, pk=pk)
    try:
        game = compare_game(request.GET.get("game"))
    except ValidationError as error:
        raise Http404(gettext("No such game.")) from error
    paginator = Paginator(player_head_to_head(player=player, game=game), HEAD_TO_HEAD_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    context = {"player": player, "game": game, "kind": game.kind, "page": page, "rows": page.object_list}
    return render(request, "ratings/head_to_head.html", context)


def crosstable_page(request, slug):
    """``leagues/<slug>/crosstable/``: the records among the league's best rated players, each cell won-lost
    and linked to the two players' compare page."""
    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    table, as_of = league_crosstable_kept(league=league)  # kept by a task (ratings.figures): never computed here
    context = {"league": league, "game": league.game, "kind": league.game.kind, "table": table, "as_of": as_of}
    return render(request, "ratings/crosstable.html", context)


def compare_page(request):
    """``compare/?game=SLUG&a=ID&b=ID`` (bridge: ``a=ID,ID&b=ID,ID``, two pairs): both sides' ratings, their
    record, the expected score and their latest meetings. Without a query it shows the form; with a query it
    does not understand, the form says why (400); a side naming no player is 404."""
    games = list(Game.objects.order_by("name"))
    values = {name: (request.GET.get(name) or "")[:100] for name in ("game", "a", "b")}
    context = {"games": games, "values": values, "errors": {}, "comparison": None}
    if not (values["a"] and values["b"]):
        # A link that names a game or one side (the profile's, the leaderboard's) opens the form filled in.
        return render(request, "ratings/compare.html", context)
    try:
        game = compare_game(values["game"])
        context["game"] = game
        size = game.kind.compare_side_size
        errors = {}
        sides = {}
        for name in ("a", "b"):
            try:
                sides[name] = side_ids(values[name], name=name, size=size)
            except ValidationError as error:
                errors.update(error.message_dict)
        if errors:
            raise ValidationError(errors)
        comparison = compare_sides(game=game, a=sides["a"], b=sides["b"])
    except ValidationError as error:
        context["errors"] = error.message_dict
        return render(request, "ratings/compare.html", context, status=400)
    except Player.DoesNotExist as error:
        raise Http404(gettext("No such player.")) from error
    context.update(comparison=comparison, record=comparison_record(comparison), kind=game.kind)
    return render(request, "ratings/compare.html", context)
