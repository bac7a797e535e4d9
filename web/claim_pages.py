"""The pages of people's claims of player records (issue 27): "This is me" on a player's profile, the
referees' list of waiting claims (``/claims/``), and ``/me/``.

The rules are ``people.services``' (who may ask, decide, withdraw, undo);
these views read a form, call a service and show what it said. Each form is a
plain POST that redirects (or shows its error), and, sent by htmx, answers
with the partial it changed: the profile's claim box, or the claims list.

The profile's parts are cached for everyone (``web.pages.player_profile``);
the claim box depends on the viewer, so it is rendered on every request, out
of those parts (``claim_box``). It never shows who claimed a player: a
person's username and address are theirs.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from leagues.models import Player
from matches.entry import bounded_int, limit_writes
from people.models import PlayerClaim
from people.selectors import claim_last_decided_of, claim_pending_of, claims_pending, person_label, player_of
from people.services import (
    claim_decide,
    claim_request,
    claim_withdraw,
    player_unclaim,
    user_can_decide_claims,
)

CLAIMS_PER_PAGE = 20
DECISIONS = {"approve": True, "refuse": False}


def _their_player(user) -> Player | None:
    """The signed-in person's player: joined to their row on every request (``config.auth``), no query."""
    try:
        return user.player
    except Player.DoesNotExist:
        return None


def claim_box(request, player: Player, *, error: str = "", message: str = "") -> dict:
    """What the viewer sees of claims beside ``player``: ``state`` is one of ``mine`` (the viewer is this
    player), ``claimed`` (someone is), ``waiting`` (the viewer's claim of this player waits), ``elsewhere``
    (the viewer's claim of another player waits), ``ask`` (the viewer may claim it), or ``""`` (nothing to
    show: signed out, or the viewer is another player, or the player was erased)."""
    user = request.user
    box = {"player": player, "state": "", "claim": None, "refused": None, "error": error, "message": message}
    if player.user_id is not None:
        box["state"] = "mine" if user.is_authenticated and player.user_id == user.pk else "claimed"
        return box
    if not user.is_authenticated or player.erased_at is not None or _their_player(user) is not None:
        return box
    waiting = claim_pending_of(user_id=user.pk)
    if waiting is not None:
        box["state"], box["claim"] = ("waiting" if waiting.player_id == player.pk else "elsewhere"), waiting
        return box
    box["state"] = "ask"
    box["refused"] = claim_last_decided_of(user_id=user.pk, player_id=player.pk)
    return box


def _box_answer(request, player: Player, *, error: str = "", message: str = ""):
    """After a form on the profile: htmx gets the box again; a plain post goes back to the profile, or, on an
    error, gets the claim page that shows it (status 200, so that htmx swaps it in too)."""
    box = claim_box(request, player, error=error, message=message)
    if request.htmx:
        return render(request, "people/_claim_box.html", {"box": box})
    if error:
        return render(request, "people/claim.html", {"player": player, "box": box})
    return redirect(f"{player.get_absolute_url()}#me")


def _errors(problem: ValidationError | PermissionDenied) -> str:
    if isinstance(problem, ValidationError):
        return " ".join(problem.messages)
    return str(problem) or _("You may not do that.")


@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
@limit_writes
def player_claim(request, pk):
    """``/players/<id>/claim/``: the "This is me" form on a page of its own (without the profile's parts),
    and where it posts."""
    player = get_object_or_404(Player, pk=pk)
    if request.method == "GET":
        return render(request, "people/claim.html", {"player": player, "box": claim_box(request, player)})
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    message = request.POST.get("message", "")
    try:
        claim_request(user=request.user, player=player, message=message)
    except (ValidationError, PermissionDenied) as problem:
        return _box_answer(request, player, error=_errors(problem), message=message)
    return _box_answer(request, player)


@vary_on_headers("HX-Request")
@login_required
@require_POST
@limit_writes
def claim_withdraw_page(request, pk):
    """``/claims/<id>/withdraw/``: the person takes back their waiting claim."""
    claim = get_object_or_404(PlayerClaim.objects.select_related("player"), pk=pk)
    try:
        claim_withdraw(claim_id=claim.pk, by=request.user)
    except (ValidationError, PermissionDenied) as problem:
        return _box_answer(request, claim.player, error=_errors(problem))
    return _box_answer(request, claim.player)


@vary_on_headers("HX-Request")
@login_required
@require_POST
@limit_writes
def player_unclaim_page(request, pk):
    """``/players/<id>/unclaim/``: "This is not me" by the person (admins undo a link here too)."""
    player = get_object_or_404(Player, pk=pk)
    try:
        player = player_unclaim(player=player, by=request.user)
    except (ValidationError, PermissionDenied) as problem:
        return _box_answer(request, player, error=_errors(problem))
    return _box_answer(request, player)


def _decide(request) -> dict:
    """Approve or refuse the claim the form names; what the page then says (``done`` or ``error``)."""
    claim_id = bounded_int(request.POST.get("claim"), 0, 0, 2**62)
    decision = request.POST.get("decision", "")
    reason = request.POST.get("reason", "")
    if decision not in DECISIONS:
        return {"error": _("Approve or refuse: nothing else is done here."), "error_claim": claim_id}
    try:
        claim = claim_decide(claim_id=claim_id, by=request.user, approve=DECISIONS[decision], reason=reason)
    except (ValidationError, PermissionDenied) as problem:
        return {"error": _errors(problem), "error_claim": claim_id, "reason": reason}
    return {"done": PlayerClaim.objects.select_related("player").get(pk=claim.pk)}


@vary_on_headers("HX-Request")  # one URL, two answers: the list (htmx) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def claims_page(request):
    """``/claims/``: the waiting claims, oldest first, for referees and admins to approve or refuse."""
    if not user_can_decide_claims(request.user):
        raise PermissionDenied(_("Only referees and admins decide claims."))
    context = {"done": None, "error": "", "error_claim": None, "reason": ""}
    if request.method == "POST":
        context.update(_decide(request))
    paginator = Paginator(claims_pending(), CLAIMS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    for claim in page.object_list:
        claim.who = person_label(claim.user)
    context.update({"page": page, "claims": page.object_list})
    if context["error_claim"] not in {claim.pk for claim in page.object_list}:
        context["error_claim"] = None  # the claim left the list (decided meanwhile): the error shows on top
    if request.htmx:
        return render(request, "people/claims.html#list", context)
    return render(request, "people/claims.html", context)


@login_required
def me_page(request):
    """``/me/``: the signed-in person's player's profile, or how to claim one (and their waiting claim)."""
    player = player_of(user_id=request.user.pk)
    if player is not None:
        return redirect(player.get_absolute_url())
    return render(request, "people/me.html", {"claim": claim_pending_of(user_id=request.user.pk)})
