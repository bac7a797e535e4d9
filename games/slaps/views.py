"""Slaps's entry page: two players, the winner, rated or friendly; and adding a player from it.

The page is reached through ``results/<game>/`` (``web.entry_pages.result_entry``,
which checks the referee and limits the writes) for any game of the Slaps
kind; it turns its fields into the API's Slaps body and back. The player
quick-create form keeps its own route (``results/players/``) and answers with
the same form, the new player chosen, or with the players who already have
that name, to choose one instead or to confirm a second person of that name.
The players are chosen with pickers (``games.pickers``), not a list of everyone.

A refused result comes back with the cleaner's errors said in the referee's
words, each on the field it is about (``slaps_page_errors``): "Choose the
second player", "Choose who won", never a player's id. The league is chosen
on the page when the game has several (the entry league unless another is).
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from games.entry import (
    entry_initial_values,
    entry_league_chosen,
    entry_league_errors,
    entry_leagues,
    entry_submit,
)
from games.pickers import Picked, is_player_id, picker_names, picker_read, players_named
from leagues.models import Game, Player
from leagues.services import player_create, player_name_clean
from matches.entry import form_now, limit_writes, referee_required
from matches.models import Match

PAGE = "games/slaps/entry.html"
#: The game a quick-create post without a ``game`` field re-renders (clients older than that field).
DEFAULT_GAME = "slaps"
#: The page's player pickers (``games.pickers``): the fields the form posts each player's id in.
PICKERS = ("player_a", "player_b")


def _form_context(game: Game, *, values=None, errors=None, saved=None, duplicates=None, new_name="") -> dict:
    values = values or {}
    chosen = {slot: values.get(slot, "") for slot in PICKERS}
    names = picker_names(chosen.values())
    leagues = entry_leagues(game)
    return {
        "game": game,
        "values": {
            **chosen,
            "winner": values.get("winner", ""),
            "played_at": values.get("played_at") or form_now(),
            "rated": values.get("rated", "true"),
            "league": entry_league_chosen(leagues, values.get("league", "")),
        },
        "leagues": leagues,
        # The pickers show the chosen player's name, else what was typed (a name no player has).
        "names": {slot: names.get(chosen[slot], values.get(f"{slot}_text", "")) for slot in PICKERS},
        "errors": errors or {},
        "saved": saved,
        "duplicates": duplicates or [],
        "new_name": new_name,
    }


def _picked(post) -> dict[str, Picked]:
    return {slot: picker_read(post, slot) for slot in PICKERS}


def form_to_body(game: Game, post, picked: dict[str, Picked] | None = None) -> dict:
    """Turn the entry form's fields into the API's Slaps body (the players as the pickers read them)."""
    picked = picked or _picked(post)
    player_a, player_b = picked["player_a"].value, picked["player_b"].value
    winner = {"a": player_a, "b": player_b}.get(post.get("winner", ""), "")
    body = {
        "game": game.slug,
        "played_at": post.get("played_at", ""),
        "rated": post.get("rated", "true"),
        "players": [player_a, player_b] if (player_a or player_b) else [],
        "winner": winner,
    }
    if post.get("league"):
        body["league"] = post["league"]
    return body


def slaps_page_errors(errors: dict, picked: dict[str, Picked], post) -> dict[str, list[str]]:
    """A refused result's errors as the entry page says them: in words, on the field each is about.

    ``errors`` are the cleaner's (keyed by the API's fields, ``players`` and ``winner``, and speaking of
    ids); the page reads what the form shows instead and says, on ``player_a``, ``player_b`` and
    ``winner``, what to do about every problem at once (the cleaner stops at the first). A players'
    error the form does not explain stays under ``players``. The other fields' errors pass unchanged.
    """
    page = {field: list(messages) for field, messages in errors.items() if field not in ("players", "winner")}
    choose = {"player_a": _("Choose the first player"), "player_b": _("Choose the second player")}
    for slot, pick in picked.items():
        if pick.problem:  # a typed name the page could not read (JavaScript off)
            page[slot] = [pick.problem]
        elif not is_player_id(pick.value):
            page[slot] = [choose[slot]]
    first, second = picked["player_a"], picked["player_b"]
    if "player_b" not in page and first.value and first.value == second.value:
        name = picker_names([second.value]).get(second.value, second.name)
        page["player_b"] = [_("Choose a different second player: %(name)s is already the first.") % {"name": name}]
    if "players" in errors and not ("player_a" in page or "player_b" in page):
        # The ids read, but no player has one (removed since it was chosen): say which field to choose again.
        known = picker_names([pick.value for pick in picked.values()])
        gone = [slot for slot, pick in picked.items() if pick.value not in known]
        again = {
            "player_a": _("Choose the first player again: that player is no longer in the list."),
            "player_b": _("Choose the second player again: that player is no longer in the list."),
        }
        for slot in gone:
            page[slot] = [again[slot]]
        if not gone:
            page["players"] = list(errors["players"])
    if "winner" in errors or ("players" in errors and post.get("winner") not in ("a", "b")):
        page["winner"] = [_("Choose who won")]
    return page


def _page_errors(request, game: Game, errors: dict, picked: dict[str, Picked]) -> dict:
    errors = entry_league_errors(
        errors, game=game, chosen=request.POST.get("league", ""), player_ids=[pick.value for pick in picked.values()]
    )
    return slaps_page_errors(errors, picked, request.POST)


def entry(request, game: Game):
    if request.method == "GET":
        return render(request, PAGE, _form_context(game, values=entry_initial_values(request)))
    picked = _picked(request.POST)
    values = {**request.POST.dict(), **{slot: pick.value for slot, pick in picked.items()}}
    # After a save, keep the time and the rated/friendly choice for the next result at the table.
    keep = {key: values.get(key, "") for key in ("played_at", "rated", "league")}
    return entry_submit(
        request,
        body=form_to_body(game, request.POST, picked),
        page=PAGE,
        on_error=lambda errors: _form_context(game, values=values, errors=_page_errors(request, game, errors, picked)),
        on_saved=lambda match: _form_context(game, values=keep, saved=match),
    )


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_POST
@limit_writes
def player_quick_create(request):
    """Add a player from the entry page; returns the refreshed form with them chosen.

    A name some player already has (case and spaces aside) is not created at once: the form comes
    back listing them, each to choose instead (``choose=<id>``), and a "create anyway" button
    (``confirm=1``) for a second person of that name.
    """
    referee_required(request)
    game = get_object_or_404(Game, slug=request.POST.get("game") or DEFAULT_GAME)
    if game.kind is None or game.kind.templates.get("entry") != PAGE:
        raise Http404("That game's entry page is not this one.")
    picked = _picked(request.POST)
    values = {**request.POST.dict(), **{slot: pick.value for slot, pick in picked.items()}}
    errors, duplicates, new_name = {}, [], ""
    player = None
    choose = request.POST.get("choose", "")
    if choose:
        player = Player.objects.filter(pk=int(choose)).first() if is_player_id(choose) else None
        if player is None:
            errors = {"new_player": [_("That player no longer exists.")]}
    else:
        try:
            new_name = player_name_clean(request.POST.get("name"))
            duplicates = [] if request.POST.get("confirm") == "1" else players_named(new_name)
            if not duplicates:
                player = player_create(name=new_name)
        except ValidationError as error:
            errors = {"new_player": error.message_dict.get("name", error.messages)}
    if player is not None:
        for slot in PICKERS:
            if not values.get(slot):
                values[slot] = str(player.pk)
                values[f"{slot}_text"] = player.name
                break
    shown = new_name if duplicates else ""  # the name stays in its field while the referee decides
    context = _form_context(game, values=values, errors=errors, duplicates=duplicates, new_name=shown)
    if request.htmx:
        return render(request, f"{PAGE}#entry-form", context)
    return render(request, PAGE, context, status=400 if errors else 200)


def slaps_entry_initial(match: Match) -> dict[str, str]:
    """A stored Slaps match as its entry form's fields: the two players in seat order and the winner's side."""
    seats = list(match.seats.all())
    winner = next((side for side, seat in zip("ab", seats, strict=False) if seat.result > 0), "")
    return {"player_a": str(seats[0].player_id), "player_b": str(seats[1].player_id), "winner": winner}
