"""The referees' confirmations list (``/results/confirm/``): results waiting for a second referee, each
shown whole, to confirm or dispute with a click (Tabbycat's ballot confirmation).

The rules are ``matches.confirmation``'s (who may confirm or dispute what). The
page lives in ratings, not matches, because a confirmation answers with the
rating changes it produced, which are ratings' (``docs/architecture.md``:
code that needs a lower and a higher app belongs in the higher one). One
template with a partial: an HTMX post gets the list (and the menu's count,
out of band), a plain post the whole page, so it works without JavaScript.
"""

from decimal import ROUND_HALF_UP, Decimal

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Prefetch, prefetch_related_objects
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from matches.confirmation import match_confirm, match_dispute
from matches.entry import bounded_int, limit_writes, referee_required
from matches.models import Match
from matches.selectors import matches_awaiting_confirmation, matches_to_confirm_count
from ratings.models import RatingChange
from ratings.selectors import match_detail_rated, rating_decimals

ACTIONS = ("confirm", "dispute")


def _signed(delta: Decimal) -> str:
    """+16, a true minus sign for a loss (U+2212), ±0: as the pages' ``signed`` filter writes a change."""
    if delta > 0:
        return f"+{delta}"
    return f"\u2212{-delta}" if delta < 0 else f"\u00b1{delta}"


def _rating_changes(match: Match) -> list[dict]:
    """Each player's change over the match, in seat order: their first unit's rating before and their last
    unit's rating after (a Preferans game's deals, a bridge session's boards), as the match page totals them.

    Shown to the game's decimals (Slaps: whole numbers, the others two), and the change is the difference
    of the two numbers shown, so "1500.10 → 1502.59 +2.49" always adds up as read.
    """
    places = Decimal(1).scaleb(-rating_decimals(match.game))
    totals: dict[int, list] = {}
    for change in match.rating_changes.all():
        totals.setdefault(change.player_id, [change.rating_before, change.rating_after])[1] = change.rating_after
    rows = []
    for seat in match.seats.all():
        if seat.player_id in totals:
            before, after = (value.quantize(places, rounding=ROUND_HALF_UP) for value in totals[seat.player_id])
            rows.append({"player": seat.player, "before": before, "after": after, "delta": _signed(after - before)})
    return rows


def _act(request) -> dict:
    """Confirm or dispute the result the form names; what the page then says (``done``, or ``error``)."""
    action = request.POST.get("action", "confirm")
    note = request.POST.get("note", "")
    match_id = bounded_int(request.POST.get("match"), 0, 0, 2**62)
    # The version the page showed: a result corrected since is neither confirmed nor disputed unseen.
    seen = request.POST.get("version", "")
    version = bounded_int(seen, 0, 0, 2**62) if seen else None
    try:
        if action not in ACTIONS:
            raise ValidationError(gettext("Confirm or dispute: nothing else is done here."))
        if action == "dispute":
            match_dispute(match_id=match_id, by=request.user, note=note, version=version)
        else:
            match_confirm(match_id=match_id, by=request.user, version=version)
    except Match.DoesNotExist:
        return {"error": gettext("That result no longer exists.")}
    except ValidationError as problem:
        return {"error": " ".join(problem.messages), "error_match": match_id, "note": note, "action": action}
    # After the commit: the rating task has run by now when Celery is eager (dev, tests) or quick.
    match = match_detail_rated(match_id=match_id)
    done = {"action": action, "match": match, "changes": _rating_changes(match)}
    done["rated_later"] = match.due_at is not None and match.due_at > timezone.now()
    return {"done": done}


def _waiting() -> list[dict]:
    """The waiting results, each with what its kind's match page adds (``extra``: bridge's pair ranking).

    Nothing waiting is rated, so no ledger row is read (an empty prefetch asks nothing).
    """
    matches = matches_awaiting_confirmation()
    prefetch_related_objects(matches, Prefetch("rating_changes", queryset=RatingChange.objects.none()))
    return [
        {"match": match, "extra": match.game.kind.match_page_context(match) if match.game.kind else {}}
        for match in matches
    ]


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def confirmations(request):
    """Results of two-step leagues waiting for a second referee: confirm one, or dispute it with a note."""
    referee_required(request)
    context = {"error": None, "error_match": None, "note": "", "action": None, "done": None}
    if request.method == "POST":
        context.update(_act(request))
    items = _waiting()
    context["to_confirm"] = [item for item in items if not item["match"].disputed_at]
    context["disputed"] = [item for item in items if item["match"].disputed_at]
    if context["error_match"] not in {item["match"].pk for item in items}:
        context["error_match"] = None  # the result left the list (rated, voided): the error shows on top
    if request.htmx:
        # The menu's count changes with the list: sent along, swapped out of band.
        context["waiting"] = matches_to_confirm_count(user_id=request.user.pk)
        return render(request, "matches/confirmations.html#list", context)
    return render(request, "matches/confirmations.html", context)
