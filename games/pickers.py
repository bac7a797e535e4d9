"""Player pickers: the search every entry page's player fields use, and reading what a picker posts.

A picker (``templates/games/_player_picker.html``, ``static/js/picker.js``) is a
text field that searches ``players/search/`` as the referee types, and a hidden
field, named as the entry form's player field always was, that carries the
chosen player's id: the views and ``matches.services`` receive exactly what a
``<select>`` of every player posted, without a page of every player.

Without JavaScript the text field is posted as ``<name>_text`` and
``picker_read`` resolves it: a player's exact name (case-insensitive, when only
one player has it), else their exact federation number, else a number as the
player's id; anything else comes back as a problem the page shows on the
field. ``docs/entry.md`` describes it for referees.

The search (``players_search``) reads at most ``SEARCH_LIMIT`` players with a
fixed number of queries: the exact federation number, names that begin with
the text, then (three characters or more) names that contain it. On
PostgreSQL both name searches are indexed (``leagues`` migration 0009): a
prefix is a range of ``UPPER(name) COLLATE "C"``, read in that order; a
contained text uses pg_trgm's index on ``UPPER(name)``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.db.models import Value
from django.db.models.functions import Collate, Upper
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leagues.models import Player
from matches.entry import referee_required
from ratings.models import PlayerRating

#: The most players one search answers: a list a referee scans at a glance, a fragment of a few KB.
SEARCH_LIMIT = 15
#: The longest text searched: a name has at most 100 characters (``Player.name``).
TEXT_MAX = 100
#: Searching inside names starts at three characters: pg_trgm's index needs a trigram; shorter text
#: matches the start of names only (an index range), never a read of every player.
CONTAINS_MIN = 3
#: The longest federation number (``Player.federation_id``): longer text is not looked up as one.
FEDERATION_ID_MAX = Player._meta.get_field("federation_id").max_length
#: A picker's name (``name=``) names its options' ids: letters, digits, ``-`` and ``_`` only.
FIELD_NAME = re.compile(r"[^A-Za-z0-9_-]")
SLUG = re.compile(r"[-a-zA-Z0-9_]{1,50}")


def search_text(value) -> str:
    """Typed text as searched: at most ``TEXT_MAX`` characters, trimmed, without NUL (PostgreSQL refuses
    it in text, so it could never match), inner spaces collapsed and composed (NFC) as stored names are."""
    if not isinstance(value, str):
        return ""
    text = " ".join(value.replace("\x00", "")[: TEXT_MAX * 4].split())
    return unicodedata.normalize("NFC", text)[:TEXT_MAX]  # names are stored in NFC (``player_name_clean``)


def _name_key():
    """``UPPER(name)``, in byte order on PostgreSQL: the expression ``player_name_prefix_idx`` indexes."""
    key = Upper("name")
    return Collate(key, "C") if connection.vendor == "postgresql" else key


def players_named(name: str) -> list[Player]:
    """The players whose name is ``name`` but for case (trimmed): at most ``SEARCH_LIMIT``, by id."""
    text = search_text(name)
    if not text:
        return []
    found = Player.objects.annotate(key=_name_key()).filter(key=Upper(Value(text)))
    return list(found.order_by("id")[:SEARCH_LIMIT])


def players_search(text: str, *, limit: int = SEARCH_LIMIT, public: bool = False) -> list[Player]:
    """The players a picker offers for ``text`` (already ``search_text``): the one with that exact
    federation number, then those whose name begins with it, then those whose name contains it, each
    group in name order (case-insensitive). At most ``limit``; three queries at most.

    ``public`` (anyone's search, ``games.find``): names only, never a federation number, and no erased
    player (``ratings.people.player_erase``): two queries at most."""
    if not text:
        return []
    people = Player.objects.filter(erased_at__isnull=True) if public else Player.objects.all()
    numbered = people.filter(federation_id=text)[:1] if len(text) <= FEDERATION_ID_MAX and not public else []
    found: list[Player] = list(numbered)
    upper = Upper(Value(text))
    names = people.annotate(key=_name_key()).order_by("key", "id")
    prefix = names.filter(key__startswith=upper).exclude(pk__in=[player.pk for player in found])
    found += prefix[: limit - len(found)]
    if len(found) < limit and len(text) >= CONTAINS_MIN:
        # ``icontains`` is UPPER(name) LIKE UPPER('%text%'): the expression the trigram index holds.
        inside = names.filter(name__icontains=text).exclude(key__startswith=upper)
        found += inside.exclude(pk__in=[player.pk for player in found])[: limit - len(found)]
    return found[:limit]


@dataclass(frozen=True)
class Hit:
    player: Player
    rating: Decimal | None


def search_hits(text: str, *, game: str = "") -> list[Hit]:
    """``players_search``'s players, each with their rating in the game of slug ``game`` (none: not rated
    there yet, or no such game), read in one query joined on the game's slug."""
    players = players_search(text)
    ratings = {}
    if game and players:
        rows = PlayerRating.objects.filter(game__slug=game, player__in=players).values_list("player_id", "rating")
        ratings = dict(rows)
    return [Hit(player=player, rating=ratings.get(player.pk)) for player in players]


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
    context = {"hits": search_hits(text, game=slug if SLUG.fullmatch(slug) else ""), "text": text, "field": field}
    return render(request, "games/_player_options.html", context)


def is_player_id(value: str) -> bool:
    """Whether ``value`` reads as a player's id: ASCII digits, short enough for a database integer."""
    return 0 < len(value) <= 18 and value.isascii() and value.isdigit()


@dataclass
class Picked:
    """What one picker posted: the player's id for the services ("" for none), the name the field
    shows again, and why the typed text named no player (JavaScript off)."""

    value: str
    name: str
    problem: str = ""


def picker_read(data, name: str) -> Picked:
    """Read the picker ``name`` of a posted form: its hidden id, else the text typed in it (see the module)."""
    chosen = data.get(name, "")
    chosen = chosen.strip() if isinstance(chosen, str) else ""
    typed = search_text(data.get(f"{name}_text", ""))
    if chosen or not typed:
        return Picked(value=chosen, name=typed)
    named = players_named(typed)
    if len(named) == 1:
        return Picked(value=str(named[0].pk), name=named[0].name)
    if len(named) > 1:
        ids = ", ".join(f"#{player.pk}" for player in named)
        return Picked(value="", name=typed, problem=f"{len(named)} players are named “{typed}” ({ids}): choose one.")
    numbered = Player.objects.filter(federation_id=typed).first()
    if numbered is not None:
        return Picked(value=str(numbered.pk), name=numbered.name)
    digits = typed.removeprefix("#")
    if is_player_id(digits):
        return Picked(value=digits, name=typed)  # an id: the services say if no player has it
    return Picked(value="", name=typed, problem=f"No player is named “{typed}”.")


def picker_names(values) -> dict[str, str]:
    """The names of the players whose ids are among ``values`` (strings, as posted), by id: one query."""
    ids = {int(value) for value in values if isinstance(value, str) and is_player_id(value)}
    if not ids:
        return {}
    return {str(pk): name for pk, name in Player.objects.filter(pk__in=ids).values_list("pk", "name")}
