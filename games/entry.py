"""The one route to every game's entry page, and how an entry page submits a result and answers.

``results/<game>/`` (``result_entry``) signs in, checks the referee and
limits the writes, then hands the request to the game's kind
(``kind.entry_view``, ``games/<game>/views.py``). The page only turns its
form into the API's body and back, and hands the body to ``entry_submit``.
Errors come back inline, keyed by field, without a full reload (HTMX swaps
the page's ``#entry-form`` partial); without JavaScript the form posts
normally and redirects to the new match (post/redirect/get).
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from games.context_processors import games_of
from matches.entry import limit_writes, referee_required
from matches.services import match_submit
from ratings.selectors import match_detail_rated_of


@vary_on_headers("HX-Request")  # one URL, two answers: the partial (HTMX) or the page
@login_required
@require_http_methods(["GET", "POST"])
@limit_writes
def result_entry(request, game):
    """The entry page of the game the URL names, served by its kind; 404 for a game whose kind has none."""
    referee_required(request)
    game = next((found for found in games_of(request) if found.slug == game), None)
    if game is None:
        raise Http404("No such game.")
    kind = game.kind
    if kind is None or not kind.has_entry_page:
        raise Http404("This game has no entry page.")
    return kind.entry_view(request, game)


def entry_submit(request, *, body: dict, page: str, on_error, on_saved):
    """Submit an entry page's result through ``match_submit`` and answer as every entry page does.

    Errors come back inline in the form partial (HTMX) or as the whole page
    with status 400; a saved result gives a fresh form (HTMX, with an
    ``HX-Trigger: result-saved`` event) or a redirect to the new match.
    ``on_error(errors)`` and ``on_saved(match)`` build the template contexts.
    """
    try:
        match = match_submit(referee=request.user, data=body)
    except ValidationError as error:
        context = on_error(error.message_dict)
        if request.htmx:
            return render(request, f"{page}#entry-form", context)
        return render(request, page, context, status=400)
    if not request.htmx:
        return redirect(match)
    response = render(request, f"{page}#entry-form", on_saved(match_detail_rated_of(match)))
    response["HX-Trigger"] = "result-saved"
    return response
