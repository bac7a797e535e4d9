"""How an entry page submits a result and answers, and what every entry page shares.

``results/<game>/`` (``web.entry_pages.result_entry``) signs in, checks the referee and
limits the writes, then hands the request to the game's kind
(``kind.entry_view``, ``games/<game>/views.py``). The page only turns its
form into the API's body and back, and hands the body to ``entry_submit``.
Errors come back inline, keyed by field, without a full reload (HTMX swaps
the page's ``#entry-form`` partial); without JavaScript the form posts
normally and redirects to the new match (post/redirect/get).

**Corrections** use the same page: ``results/<game>/?correct=<pk>`` (or a
``correct`` field in the post), for users who may correct results
(``user_can_void``). The form starts from the stored result (the kind's
``entry_initial``; the time, rated and league are filled in here) and
``entry_submit`` saves it through ``match_correct``, which validates it as it
validates every correction: errors show on the form as on entry, and a form
saved unchanged changes nothing. ``result_entry`` puts the ``Correction`` on
the request (``request.correction``), as django-htmx puts ``request.htmx``:
the kind's view reads its initial fields from it (``entry_initial_values``)
and its template includes ``games/_correction.html`` inside its form. A match
the page cannot show (``entry_initial`` gives None: a bridge session whose
boards are not numbered from 1, a game without the method) is corrected in
admin as JSON.

What every entry page shares beside that: the game's **leagues** to choose
from (``entry_leagues``, the entry league chosen unless another is),
**numbers typed with a decimal comma** ("1,5" is 1.5: ``entry_decimal``), and
``entry_check``, the errors saving would answer, without storing, so a page
asks its questions ("Save only 3 deals?") only of a result that would be
saved. The draft the browser keeps while a referee types is
``static/js/entry-draft.js``'s (``games/_entry_draft.html``).
"""

import re
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.pickers import is_player_id
from games.setup import kept
from leagues.models import Game, League, Player
from matches.cleaning import match_clean
from matches.models import Match
from matches.selectors import match_as_body, match_detail
from matches.services import match_correct, match_submit
from ratings.intake import player_leagues_in_game
from ratings.selectors import match_detail_rated_of


@dataclass(frozen=True)
class Correction:
    """A stored result the entry page is correcting."""

    match: Match
    stored: dict  # the result as stored (``match_as_body``): saved unchanged, nothing changes
    initial: dict[str, str]  # the form's fields filled in from it
    leagues: list[League]  # the game's leagues, for the form's league field

    @property
    def shown_played_at(self) -> str:
        return self.initial["played_at"]


def played_at_field(played_at) -> str:
    """A stored time as a ``datetime-local`` field shows it, in the site's time zone: to the minute, or to
    the second when it has seconds (what is finer is kept when the field comes back unchanged)."""
    local = timezone.localtime(played_at)
    return local.strftime("%Y-%m-%dT%H:%M" if local.second == 0 and local.microsecond == 0 else "%Y-%m-%dT%H:%M:%S")


#: A number typed with a decimal comma: digits, a comma, one or two decimals ("1,5", "-0,25", ",5").
#: "1,500" (three after the comma: a thousands separator as often as not) is left as typed, and refused.
DECIMAL_COMMA = re.compile(r"([+-]?\d*),(\d{1,2})")


def entry_decimal(text: str) -> str:
    """A number as a referee typed it, with a decimal point: "1,5" becomes "1.5"; anything else is
    returned as it is (the cleaner says what is wrong with it)."""
    if not isinstance(text, str):
        return text
    stripped = text.strip()
    match = DECIMAL_COMMA.fullmatch(stripped)
    if match is None or not any(character.isdigit() for character in stripped):
        return text
    return f"{match[1]}.{match[2]}"


#: Where a list of numbers typed in one field may be cut: a semicolon, a comma followed by a space, or spaces.
NUMBER_LIST_SEPARATORS = re.compile(r"\s*;\s*|\s*,\s+|\s+")


def entry_decimal_list(text: str) -> list[str]:
    """Numbers typed in one field as a list, each with a decimal point (``entry_decimal``).

    "1600,1400" is two numbers, as it always was; so are "1600, 1400", "1600; 1400" and "1600 1400". A
    decimal comma is read when the numbers are cut by a semicolon, a space or ", ": "1600,5; 1400,25" is
    1600.5 and 1400.25; one number with a decimal comma alone ("1600,5", one or two digits after the comma)
    is that number. Empty pieces are dropped.
    """
    text = text.strip()
    if DECIMAL_COMMA.fullmatch(text) and any(character.isdigit() for character in text.partition(",")[0]):
        return [entry_decimal(text)]
    parts = NUMBER_LIST_SEPARATORS.split(text) if ";" in text or re.search(r"\s", text) else text.split(",")
    return [entry_decimal(part.strip()) for part in parts if part.strip()]


def shown_figure(figure: str) -> str:
    """A figure written with a decimal point ("0.225", ``ratings.calculators.calculator_figure``) as a page
    shows it in the active language: "0,225" in Russian. Never for what code reads back."""
    return figure.replace(".", get_format("DECIMAL_SEPARATOR"))


def calculator_errors(errors: dict[str, list[str]], labels: dict) -> dict[str, list[str]]:
    """A calculator page's errors keyed by its fields' labels (what the person reads), not their names."""
    return {str(labels.get(field, field)): messages for field, messages in errors.items()}


@dataclass(frozen=True)
class EntryLeague:
    """One league of the game, as an entry page's league field offers it (plain data, for ``{% memo %}``)."""

    slug: str
    name: str
    entry: bool  # the entry (amateur) league: where a result is filed unless another is chosen


def entry_leagues(game: Game) -> list[EntryLeague]:
    """The game's leagues, entry tier first (the order the bridge page lists them), kept under the setup stamp."""

    def read():
        leagues = League.objects.filter(game=game).order_by("tier", "slug").values_list("slug", "name", "tier")
        return [EntryLeague(slug, name, tier == League.Tier.AMATEUR) for slug, name, tier in leagues]

    return kept("entry-leagues", read, game=game)


def entry_league_chosen(leagues: list[EntryLeague], posted: str) -> str:
    """The league an entry page shows chosen: the posted one if it is the game's, else the entry league."""
    if any(league.slug == posted for league in leagues):
        return posted
    return next((league.slug for league in leagues if league.entry), leagues[0].slug if leagues else "")


def entry_league_errors(errors: dict, *, game: Game, chosen: str, player_ids) -> dict:
    """``errors`` with the league's said in names, when the league chosen does not take these players.

    The cleaner's message is the API's (the league's slug, the players' ids, the field left out); the
    page says which of the players chosen are not in the league, by name, and which league to choose.
    Only the pro league refuses players (leagues are tiers: amateur, then pro, the top), so the players
    outside it are those whose rating is not held in it. Read only when the league was refused.
    """
    if "league" not in errors or not chosen:
        return errors
    leagues = list(League.objects.filter(game=game))
    league = next((league for league in leagues if league.slug == chosen), None)
    if league is None or league.tier == League.Tier.AMATEUR:
        return errors  # an unknown league: the cleaner's message lists the game's
    ids = sorted({int(value) for value in player_ids if isinstance(value, str) and is_player_id(value)})
    current = player_leagues_in_game(game=game.pk, player_ids=ids)
    outside = [pk for pk in ids if current.get(pk) != league.pk]
    if not outside:
        return errors
    names = ", ".join(Player.objects.filter(pk__in=outside).order_by("name").values_list("name", flat=True))
    message = ngettext(
        "%(league)s takes results between its own players, and %(names)s is not one of them.",
        "%(league)s takes results between its own players, and %(names)s are not among them.",
        len(outside),
    ) % {"league": league.name, "names": names}
    entry = next((other for other in leagues if other.tier == League.Tier.AMATEUR), None)
    if entry is not None:
        message += " " + _("Choose %(league)s.") % {"league": entry.name}
    return {**errors, "league": [message]}


def entry_initial_values(request) -> dict[str, str]:
    """The fields an entry page starts from on GET: the corrected result's, else none (a new result)."""
    correction = getattr(request, "correction", None)
    return dict(correction.initial) if correction is not None else {}


def entry_submit(request, *, body: dict, page: str, on_error, on_saved):
    """Submit an entry page's result through ``match_submit`` and answer as every entry page does.

    Errors come back inline in the form partial (HTMX) or as the whole page
    with status 400; a saved result gives a fresh form (HTMX, with an
    ``HX-Trigger: result-saved`` event) or a redirect to the new match.
    ``on_error(errors)`` and ``on_saved(match)`` build the template contexts.
    A correction (``request.correction``) is saved through ``match_correct`` instead (``_correction_save``).
    """
    correction = getattr(request, "correction", None)
    try:
        if correction is not None:
            return _correction_save(request, correction, body)
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


def entry_check(request, *, body: dict) -> dict[str, list[str]]:
    """The errors saving ``body`` would answer ({} when it would be saved), storing nothing.

    The cleaner ``match_submit`` and ``match_correct`` run (``match_clean``), read the same way: a page
    asks a question about a result ("Save only 3 deals?") only once the result itself is valid.
    """
    correction = getattr(request, "correction", None)
    try:
        if correction is not None:
            match_clean(data=_correction_body(request, correction, body), unnamed_league=correction.match.league)
        else:
            match_clean(data=body)
    except ValidationError as error:
        return error.message_dict
    return {}


def _correction_body(request, correction: Correction, body: dict) -> dict:
    """The body a correction saves: the time shown unchanged stands for the stored time (which may carry
    more than the field shows); the league is the form's league field, or none (``match_correct`` keeps the
    match's) when left empty."""
    body = dict(body)
    if body.get("played_at") == correction.shown_played_at:
        body["played_at"] = correction.stored["played_at"]
    if "league" not in body and request.POST.get("league"):
        body["league"] = request.POST["league"]
    return body


def _correction_save(request, correction: Correction, body: dict) -> HttpResponse:
    """Save a corrected result and go back to the match's admin page, saying whether anything changed."""
    body = _correction_body(request, correction, body)
    match = correction.match
    match_correct(match_id=match.pk, by=request.user, data=body)
    if match_as_body(match_detail(match_id=match.pk)) == correction.stored:
        messages.info(request, _("No change: the result is as stored; nothing was replayed."))
    else:
        messages.success(request, _("Result corrected; ratings are being replayed from it."))
    url = reverse("admin:matches_match_change", args=[match.pk])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)
