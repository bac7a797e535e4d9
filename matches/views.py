"""Result entry pages (referees) and the public match page.

The entry form posts the same shape the API takes to ``match_submit``;
errors come back inline, keyed by field, without a full reload (HTMX swaps the
form partial). Without JavaScript the form posts normally and redirects to the
new match (post/redirect/get).
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from leagues.models import Game, Player
from leagues.services import player_create
from matches import selectors
from matches.services import match_submit, user_can_submit


def _referee_required(request):
    if not user_can_submit(request.user):
        raise PermissionDenied("Only referees can enter results.")


def _slaps_form_context(*, values=None, errors=None, saved=None):
    values = values or {}
    now = timezone.localtime().replace(second=0, microsecond=0)
    return {
        "game": get_object_or_404(Game, slug="slaps"),
        "players": Player.objects.order_by("name", "id").only("id", "name"),
        "values": {
            "player_a": values.get("player_a", ""),
            "player_b": values.get("player_b", ""),
            "winner": values.get("winner", ""),
            "played_at": values.get("played_at") or now.strftime("%Y-%m-%dT%H:%M"),
            "rated": values.get("rated", "true"),
        },
        "errors": errors or {},
        "saved": saved,
    }


def slaps_form_to_body(post) -> dict:
    """Turn the entry form's fields into the API's Slaps body."""
    player_a, player_b = post.get("player_a", ""), post.get("player_b", "")
    winner = {"a": player_a, "b": player_b}.get(post.get("winner", ""), "")
    return {
        "game": "slaps",
        "played_at": post.get("played_at", ""),
        "rated": post.get("rated", "true"),
        "players": [player_a, player_b] if (player_a or player_b) else [],
        "winner": winner,
    }


@login_required
@require_http_methods(["GET", "POST"])
def slaps_result_entry(request):
    _referee_required(request)
    if request.method == "GET":
        return render(request, "matches/slaps_entry.html", _slaps_form_context())
    values = request.POST.dict()
    try:
        match = match_submit(referee=request.user, data=slaps_form_to_body(request.POST))
    except ValidationError as error:
        context = _slaps_form_context(values=values, errors=error.message_dict)
        if request.htmx:
            return render(request, "matches/slaps_entry.html#entry-form", context)
        return render(request, "matches/slaps_entry.html", context, status=400)
    if not request.htmx:
        return redirect(match)
    # Keep the time and the rated/friendly choice for the next result at the table.
    keep = {"played_at": values.get("played_at", ""), "rated": values.get("rated", "true")}
    context = _slaps_form_context(values=keep, saved=selectors.match_detail(match_id=match.pk))
    response = render(request, "matches/slaps_entry.html#entry-form", context)
    response["HX-Trigger"] = "result-saved"
    return response


@login_required
@require_POST
def player_quick_create(request):
    """Add a player from the entry page; returns the refreshed form with them selectable."""
    _referee_required(request)
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
    context = _slaps_form_context(values=values, errors=errors)
    if request.htmx:
        return render(request, "matches/slaps_entry.html#entry-form", context)
    return render(request, "matches/slaps_entry.html", context, status=400 if errors else 200)


def match_page(request, pk):
    match = get_object_or_404(selectors.match_detail_queryset(), pk=pk)
    return render(request, "matches/match.html", {"match": match})


def recent_matches_page(request):
    return render(request, "matches/recent.html", {"matches": selectors.matches_recent(limit=50)})
