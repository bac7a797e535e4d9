"""The referees' player picker's answer: ``GET players/search/``, the options of a picker as HTML.

The search itself, and reading what a picker posts, are the entry pages' (``games.pickers``): this is
the route the pickers' script (``static/js/picker.js``) asks as a referee types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.template.defaultfilters import floatformat
from django.utils.html import format_html
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from games.pickers import players_search, search_text
from leagues.models import Player
from matches.entry import referee_required

#: A picker's name (``name=``) names its options' ids: letters, digits, ``-`` and ``_`` only.
FIELD_NAME = re.compile(r"[^A-Za-z0-9_-]")
SLUG = re.compile(r"[-a-zA-Z0-9_]{1,50}")


@dataclass(frozen=True)
class Hit:
    player: Player
    rating: Decimal | None


def search_hits(text: str, *, game: str = "") -> list[Hit]:
    """``players_search``'s players, each with their rating in the game of slug ``game`` (none: not rated
    there yet, or no such game), read with them."""
    return [Hit(player=player, rating=player.rating) for player in players_search(text, game=game)]


@login_required
@require_GET
def player_search(request):
    """``GET players/search/?q=TEXT[&game=SLUG][&name=FIELD]``: the options of a picker, as HTML.

    For referees, like the entry pages it serves. ``game`` adds each player's rating in that game;
    ``name`` (the picker's input id) prefixes the options' ids, unique on a page of several pickers.
    Any text gets an answer: too long is cut, NUL dropped, no match an empty list.
    """
    referee_required(request)
    text = search_text(request.GET.get("q"))
    slug = request.GET.get("game", "")
    field = FIELD_NAME.sub("", request.GET.get("name", ""))[:40] or "player"
    return HttpResponse(options_html(search_hits(text, game=slug if SLUG.fullmatch(slug) else ""), field, text))


_OPTION = '<li role="option" id="{0}-option-{1}" data-id="{1}" data-name="{2}" aria-selected="false">{2}{3}</li>\n'


_NONE = '<li role="option" aria-disabled="true" class="picker-none">{}</li>\n'


def _option_details(hit: Hit) -> str:
    """`` <small>1042.5 · fed. 0042</small>``: the player's rating in the game and federation number, those
    they have; the rating as ``{{ rating|floatformat:"-2" }}`` shows it on every page."""
    rating = floatformat(hit.rating, "-2") if hit.rating is not None else ""
    number = hit.player.federation_id or ""
    if rating and number:
        return format_html(
            " <small>{}</small>",
            gettext("%(rating)s · fed. %(number)s") % {"rating": rating, "number": number},
        )
    if rating:
        return format_html(" <small>{}</small>", rating)
    return format_html(" <small>{}</small>", gettext("fed. %(number)s") % {"number": number}) if number else ""


def options_html(hits: list[Hit], field: str, text: str) -> str:
    """A picker's options (``player_search``'s answer): one ``<li role="option">`` a player, with
    ``data-id`` and ``data-name`` for ``static/js/picker.js`` and ids that begin with ``field``, the
    picker's input id; none found for some ``text`` is one disabled option that says so; no text, nothing.

    Built with ``format_html`` (every value escaped) rather than a template: the answer of every
    keystroke, whose fifteen options cost Django's template engine more CPU than the search's own
    statements (``docs/performance.md``).
    """
    if not hits:
        return format_html(_NONE, gettext("No player found for “%(text)s”.") % {"text": text}) if text else ""
    return "".join(
        format_html(_OPTION, field, str(hit.player.pk), hit.player.name, _option_details(hit)) for hit in hits
    )
