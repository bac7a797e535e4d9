"""Slaps's entry page: two players, the winner, rated or friendly; and adding a player from it.

The page is reached through ``results/<game>/`` (``games.entry.result_entry``,
which checks the referee and limits the writes) for any game of the Slaps
kind; it turns its fields into the API's Slaps body and back. The player
quick-create form keeps its own route (``results/players/``) and answers with
the same form, the new player chosen.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from games.entry import entry_submit
from leagues.models import Game, Player
from leagues.services import player_create
from matches.entry import form_now, limit_writes, referee_required

PAGE = "games/slaps/entry.html"
#: The game a quick-create post without a ``game`` field re-renders (clients older than that field).
DEFAULT_GAME = "slaps"


def _form_context(game: Game, *, values=None, errors=None, saved=None) -> dict:
    values = values or {}
    return {
        "game": game,
        "players": Player.objects.order_by("name", "id").only("id", "name"),
        "values": {
            "player_a": values.get("player_a", ""),
            "player_b": values.get("player_b", ""),
            "winner": values.get("winner", ""),
            "played_at": values.get("played_at") or form_now(),
            "rated": values.get("rated", "true"),
        },
        "errors": errors or {},
        "saved": saved,
    }


def form_to_body(game: Game, post) -> dict:
    """Turn the entry form's fields into the API's Slaps body."""
    player_a, player_b = post.get("player_a", ""), post.get("player_b", "")
    winner = {"a": player_a, "b": player_b}.get(post.get("winner", ""), "")
    return {
        "game": game.slug,
        "played_at": post.get("played_at", ""),
        "rated": post.get("rated", "true"),
        "players": [player_a, player_b] if (player_a or player_b) else [],
        "winner": winner,
    }


def entry(request, game: Game):
    if request.method == "GET":
        return render(request, PAGE, _form_context(game))
    values = request.POST.dict()
    # After a save, keep the time and the rated/friendly choice for the next result at the table.
    keep = {"played_at": values.get("played_at", ""), "rated": values.get("rated", "true")}
    return entry_submit(
        request,
        body=form_to_body(game, request.POST),
        page=PAGE,
        on_error=lambda errors: _form_context(game, values=values, errors=errors),
        on_saved=lambda match: _form_context(game, values=keep, saved=match),
    )


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_POST
@limit_writes
def player_quick_create(request):
    """Add a player from the entry page; returns the refreshed form with them selectable."""
    referee_required(request)
    game = get_object_or_404(Game, slug=request.POST.get("game") or DEFAULT_GAME)
    if game.kind is None or game.kind.templates.get("entry") != PAGE:
        raise Http404("That game's entry page is not this one.")
    values = request.POST.dict()
    errors = {}
    try:
        player = player_create(name=request.POST.get("name"))
    except ValidationError as error:
        errors = {"new_player": error.message_dict.get("name", error.messages)}
    else:
        for slot in ("player_a", "player_b"):
            if not values.get(slot):
                values[slot] = str(player.pk)
                break
    context = _form_context(game, values=values, errors=errors)
    if request.htmx:
        return render(request, f"{PAGE}#entry-form", context)
    return render(request, PAGE, context, status=400 if errors else 200)
