"""Player pickers: the search every entry page's player fields use, and reading what a picker posts.

A picker (``templates/games/_player_picker.html``, ``static/js/picker.js``) is a
text field that searches ``players/search/`` (``web.picker_pages``) as the referee types, and a hidden
field, named as the entry form's player field always was, that carries the
chosen player's id: the views and ``matches.services`` receive exactly what a
``<select>`` of every player posted, without a page of every player.

Without JavaScript the text field is posted as ``<name>_text`` and
``picker_read`` resolves it: a player's exact name (case-insensitive, when only
one player has it), else their exact federation number, else a number as the
player's id; anything else comes back as a problem the page shows on the
field. ``docs/entry.md`` describes it for referees.

The search (``players_search``) reads at most ``SEARCH_LIMIT`` players, with
their ratings: the exact federation number, names that begin with the text,
and, only when fewer begin with it and it has three characters or more, names
that contain it. Names are compared by their search key (``Player.search_name``,
``leagues.names.name_key``), made from the text the same way: any case, ё as its undotted
letter, a Latin look-alike inside a Cyrillic word as its Cyrillic letter, on every
database. On PostgreSQL that is two statements at most, and both name
searches are indexed (``leagues`` migration 0019): a prefix is a range of
``search_name`` (in the "C" collation), read in that order; a contained text uses
pg_trgm's index on ``search_name``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from django.db import connection
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.models import Game, Player
from leagues.names import name_key
from ratings.models import PlayerRating

#: The most players one search answers: a list a referee scans at a glance, a fragment of a few KB.
SEARCH_LIMIT = 15
#: The longest text searched: a name has at most 100 characters (``Player.name``).
TEXT_MAX = 100
#: Searching inside names starts at three characters: pg_trgm's index needs a trigram; shorter text
#: matches the start of names only (an index range), never a read of every player.
CONTAINS_MIN = 3


def _look_inside(text: str, *, found: int, begun: int, limit: int) -> bool:
    """Whether to look for ``text`` inside names as well, having ``found`` players of whom ``begun`` have
    names beginning with it: when fewer than ``limit`` were found and the text has ``CONTAINS_MIN``
    characters or more, unless it is a name typed from its start, two words or more that begin some names
    ("ann lee"). Those are the one being typed; the same words inside other names ("Mary Ann Lee") are
    rarely wanted, and a long text's trigrams are the index's longest lists (``docs/performance.md``)."""
    return found < limit and len(text) >= CONTAINS_MIN and not (begun and " " in text)


#: The longest federation number (``Player.federation_id``): longer text is not looked up as one.
FEDERATION_ID_MAX = Player._meta.get_field("federation_id").max_length


def search_text(value) -> str:
    """Typed text as searched: at most ``TEXT_MAX`` characters, trimmed, without NUL (PostgreSQL refuses
    it in text, so it could never match), inner spaces collapsed and composed (NFC) as stored names are."""
    if not isinstance(value, str):
        return ""
    text = " ".join(value.replace("\x00", "")[: TEXT_MAX * 4].split())
    return unicodedata.normalize("NFC", text)[:TEXT_MAX]  # names are stored in NFC (``player_name_clean``)


def players_named(name: str) -> list[Player]:
    """The players whose name is ``name`` but for case, ё's dots and look-alike letters (its search key, trimmed):
    at most ``SEARCH_LIMIT``, by id."""
    key = name_key(search_text(name))
    if not key:
        return []
    return list(Player.objects.filter(search_name=key).order_by("id")[:SEARCH_LIMIT])


def players_search(text: str, *, limit: int = SEARCH_LIMIT, game: str = "", public: bool = False) -> list[Player]:
    """The players a picker offers for ``text`` (already ``search_text``): the one with that exact
    federation number, then those whose name begins with it, then those whose name contains it, each
    group in name order (by search key: any case, ё undotted). At most ``limit``. Each has ``rating``, in the
    game of slug ``game`` (None: not rated there, or no game named).

    On PostgreSQL, where the search runs at every keystroke over the indexes of ``leagues`` migration 0019,
    it is two written-out statements (``_search_sql``): one for the number and the beginnings, each an
    index read with its limit, with the ratings; a second for names containing the text, only when fewer
    than ``limit`` begin with it and it has ``CONTAINS_MIN`` characters or more. Building the same search
    with the ORM cost several times the CPU of the statements (``docs/performance.md``). Elsewhere (SQLite,
    ``make run``) the ORM builds it (``_search_orm``, up to four queries); a test holds the two equal.

    ``public`` (anyone's search, ``web.find_pages``): names only, never a federation number, and no erased
    player (``ratings.people.player_erase``).
    """
    if not text:
        return []
    if connection.vendor == "postgresql":
        return _search_sql(text, limit=limit, game=game, public=public)
    return _search_orm(text, limit=limit, game=game, public=public)


def _first_each(players, limit: int) -> list[Player]:
    """``players`` without a second copy of one (the numbered player may also begin with the text)."""
    found: list[Player] = []
    for player in players:
        if all(player.pk != other.pk for other in found):
            found.append(player)
    return found[:limit]


def _search_orm(text: str, *, limit: int, game: str, public: bool = False) -> list[Player]:
    people = Player.objects.filter(erased_at__isnull=True) if public else Player.objects.all()
    numbered = people.filter(federation_id=text)[:1] if len(text) <= FEDERATION_ID_MAX and not public else []
    found: list[Player] = list(numbered)
    key = name_key(text)
    names = people.order_by("search_name", "id")
    prefix = names.filter(search_name__startswith=key).exclude(pk__in=[player.pk for player in found])
    begun = list(prefix[: limit - len(found)]) if key else []
    found += begun
    if key and _look_inside(key, found=len(found), begun=len(begun), limit=limit):
        # Both sides are keys already (``name_key``): a plain LIKE '%key%', the one the trigram index holds.
        inside = names.filter(search_name__contains=key).exclude(search_name__startswith=key)
        found += inside.exclude(pk__in=[player.pk for player in found])[: limit - len(found)]
    found = found[:limit]
    ratings = {}
    if game and found:
        rows = PlayerRating.objects.filter(game__slug=game, player__in=found).values_list("player_id", "rating")
        ratings = dict(rows)
    for player in found:
        player.rating = ratings.get(player.pk)
    return found


# The statements of ``_search_sql``. Table names come from the models; every value is a parameter.
# ``_LIKE`` is the typed text's search key (``name_key``, as ``search_name`` holds names) as a LIKE pattern
# matches it literally: \, % and _ escaped, as Django's ``startswith``/``contains`` do.
_PLAYER = Player._meta.db_table
_COLUMNS = ", ".join(f'p."{field.column}"' for field in Player._meta.concrete_fields)
_LIKE = r"REPLACE(REPLACE(REPLACE(%(key)s, '\', '\\'), '%%', '\%%'), '_', '\_')"
_KEY = 'p."search_name"'  # in the "C" collation (``leagues`` migration 0019), as ``player_search_name_idx``
_SHOWN = '(NOT %(public)s OR p."erased_at" IS NULL)'  # the public search shows no erased player
_RATING = (
    f'(SELECT r."rating" FROM "{PlayerRating._meta.db_table}" r'  # noqa: S608 - as below
    f' JOIN "{Game._meta.db_table}" g ON g."id" = r."game_id"'
    f' WHERE r."player_id" = p."id" AND g."slug" = %(game)s) AS "rating"'
)
_BEGINNING = (
    f'SELECT {_COLUMNS}, hit."grp", {_RATING} FROM ('  # noqa: S608 - names from the models; values are parameters
    f'(SELECT p."id", 0 AS "grp", {_KEY} AS "key" FROM "{_PLAYER}" p WHERE p."federation_id" = %(number)s LIMIT 1)'
    f' UNION ALL (SELECT p."id", 1, {_KEY} FROM "{_PLAYER}" p WHERE {_KEY} LIKE {_LIKE} || \'%%\' AND {_SHOWN}'
    f" ORDER BY 3, 1 LIMIT %(limit)s)) hit"
    f' JOIN "{_PLAYER}" p ON p."id" = hit."id" ORDER BY hit."grp", hit."key", p."id"'
)
_INSIDE = (
    f'SELECT {_COLUMNS}, {_RATING} FROM "{_PLAYER}" p'  # noqa: S608 - as above
    f" WHERE {_KEY} LIKE '%%' || {_LIKE} || '%%' AND NOT ({_KEY} LIKE {_LIKE} || '%%')"
    f' AND NOT p."id" = ANY(%(found)s) AND {_SHOWN} ORDER BY {_KEY}, p."id" LIMIT %(limit)s'
)


def _search_sql(text: str, *, limit: int, game: str, public: bool = False) -> list[Player]:
    # A number is looked up only for referees (NULL equals nothing); text longer than one can hold matches none.
    key = name_key(text)
    params = {"key": key, "number": None if public else text, "game": game, "limit": limit, "public": public}
    found = _first_each(Player.objects.raw(_BEGINNING, params), limit)
    begun = sum(1 for player in found if player.grp == 1)
    if key and _look_inside(key, found=len(found), begun=begun, limit=limit):
        inside = {**params, "limit": limit - len(found), "found": [player.pk for player in found]}
        found += list(Player.objects.raw(_INSIDE, inside))
    return found


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
        problem = ngettext(
            "%(count)s player is named “%(name)s” (%(ids)s): choose one.",
            "%(count)s players are named “%(name)s” (%(ids)s): choose one.",
            len(named),
        ) % {"count": len(named), "name": typed, "ids": ids}
        return Picked(value="", name=typed, problem=problem)
    numbered = Player.objects.filter(federation_id=typed).first()
    if numbered is not None:
        return Picked(value=str(numbered.pk), name=numbered.name)
    digits = typed.removeprefix("#")
    if is_player_id(digits):
        return Picked(value=digits, name=typed)  # an id: the services say if no player has it
    return Picked(value="", name=typed, problem=_("No player is named “%(name)s”.") % {"name": typed})


def picker_names(values) -> dict[str, str]:
    """The names of the players whose ids are among ``values`` (strings, as posted), by id: one query."""
    ids = {int(value) for value in values if isinstance(value, str) and is_player_id(value)}
    if not ids:
        return {}
    return {str(pk): name for pk, name in Player.objects.filter(pk__in=ids).values_list("pk", "name")}
