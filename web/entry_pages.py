"""The one route to every game's entry page: ``results/<game>/``, served by the game's kind.

``result_entry`` signs in, checks the referee (or, for a correction, the right to correct) and limits the
writes, then hands the request to the game's kind (``kind.entry_view``, ``games/<game>/views.py``). How an
entry page submits and answers, and what every entry page shares, are ``games.entry``'s.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from config.permissions import user_can_void
from games.context_processors import games_of
from games.entry import Correction, played_at_field
from leagues.models import Game, League
from matches.entry import limit_writes, referee_required
from matches.inputs import parse_id
from matches.models import Match
from matches.selectors import match_as_body, match_detail


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def result_entry(request, game):
    """The entry page of the game the URL names, served by its kind; 404 for a game whose kind has none."""
    correct = request.GET.get("correct") or request.POST.get("correct")
    if correct:
        if not user_can_void(request.user):
            raise PermissionDenied(gettext("Only admins can correct results."))
    else:
        referee_required(request)
    slug = game
    game = next((found for found in games_of(request) if found.slug == slug), None)
    if game is None:
        # The kept games (``games.setup``) miss one added where their stamp was not renewed (a process on
        # another cache, ``QuerySet.update``): the database says whether it exists.
        game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise Http404(gettext("No such game."))
    kind = game.kind
    if kind is None or not kind.has_entry_page:
        raise Http404(gettext("This game has no entry page."))
    if correct:
        match_id = parse_id(correct)
        if match_id is None or not Match.objects.filter(pk=match_id, game=game).exists():
            raise Http404(gettext("No such result of this game."))
        match = match_detail(match_id=match_id)
        if match.status == Match.Status.VOID:
            messages.error(request, gettext("A voided match cannot be corrected."))
            return redirect(reverse("admin:matches_match_change", args=[match.pk]))
        initial = kind.entry_initial(match)
        if initial is None:
            messages.info(
                request,
                gettext("The %(game)s entry page cannot show this result: correct it here, as JSON.")
                % {"game": game.name},
            )
            return redirect(reverse("admin:matches_match_correct", args=[match.pk]))
        request.correction = Correction(
            match=match,
            stored=match_as_body(match),
            initial={
                "played_at": played_at_field(match.played_at),
                "rated": "true" if match.rated else "false",
                "league": match.league.slug if match.league_id else "",
                **initial,
            },
            leagues=list(League.objects.filter(game=game).order_by("tier", "slug")),
        )
    return kind.entry_view(request, game)
