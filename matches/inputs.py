"""A result body once cleaned, and the readers of its fields that every game shares.

A body is plain data (a JSON object, or a form turned into one); cleaning it
gives a ``MatchInput``: the game, when it was played, the seats, and the
game's *parts* beside its seats (a Preferans game's deals, a bridge session's
boards), keyed by the relation that stores them. What a part holds is its
game kind's business (``games/<game>/results.py``); this module knows only
that a result has seats and may have parts.

The readers here return a value or ``None`` and never raise: the cleaner that
calls them records the error in words the user can act on (``Errors``, keyed
by field). Nothing here queries the database except ``players_by_id``, which
reads a batch's players once for the batch (``batch_players``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.validators import slug_re
from django.utils.translation import ngettext

from config.decimals import CENT
from leagues.models import Bot, Game, League, Player

# Ids are PostgreSQL bigints: a larger number is no id, whatever the client sends.
MAX_ID = 2**63 - 1


class Errors(dict):
    """A body's errors so far: {field: [messages]}, the shape ``ValidationError`` takes."""

    def add(self, field: str, message: str) -> None:
        self.setdefault(field, []).append(message)


@dataclass(frozen=True)
class SeatInput:
    player: Player | None
    result: Decimal
    bot: Bot | None = None


@dataclass(frozen=True)
class GameInput:
    """What a game kind's cleaner returns: the seats, and its parts by relation name ({"deals": (...)})."""

    seats: tuple[SeatInput, ...] = ()
    parts: Mapping[str, tuple] = field(default_factory=dict)


@dataclass(frozen=True)
class MatchInput:
    game: Game
    played_at: datetime
    rated: bool
    seats: tuple[SeatInput, ...]
    parts: Mapping[str, tuple] = field(default_factory=dict)  # the game kind's, as its cleaner gave them
    league: League | None = None
    leagues: tuple[League, ...] = ()  # all the game's leagues, as read while cleaning


def is_slug(value: Any) -> bool:
    """Only well-formed slugs are looked up: anything else (a NUL byte, say) is simply unknown."""
    return isinstance(value, str) and slug_re.fullmatch(value) is not None


def parse_id(value: Any) -> int | None:
    """A row id given as a JSON integer or as digits ("12"), or None: ``True`` is no id."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii() and len(value.strip()) <= 20:
        number = int(value.strip())
    else:
        return None
    return number if 1 <= number <= MAX_ID else None


def parse_cents(value: Any, *, limit: Decimal) -> Decimal | None:
    """A finite number with at most two decimals (whole cents) within +-``limit``, or None.

    Given as a JSON number or as text; the one reading of Preferans whists and
    bridge IMPs, for the API, the entry pages and their previews alike.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        return None
    try:
        number = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    if not number.is_finite() or abs(number) > limit or number != number.quantize(CENT):
        return None
    return number.quantize(CENT)


#: The players a batch of results has read (``matches.cleaning.ResultBatch.players``), set by ``match_clean``
#: while a game's cleaner cleans one of the batch's results: ``players_by_id`` finds them there.
batch_players: ContextVar[dict[int, Player] | None] = ContextVar("batch_players", default=None)


def players_by_id(ids, errors: Errors, field: str) -> dict[int, Player] | None:
    """The players with these ids ({id: player}, one query), or None with an error on ``field`` naming
    the ids no player has.

    While a batch's result is cleaned (``batch_players``), the players the batch has read are not read
    again: only those it has not (and they are kept for its next results). An id no player has is
    refused all the same."""
    known = batch_players.get()
    if known is None:
        players = Player.objects.in_bulk(list(ids))
    else:
        unread = [player_id for player_id in ids if player_id not in known]
        if unread:
            known.update(Player.objects.in_bulk(unread))
        players = {player_id: known[player_id] for player_id in ids if player_id in known}
    missing = [str(player_id) for player_id in ids if player_id not in players]
    if missing:
        unknown = ngettext("Unknown player id: %(ids)s.", "Unknown player ids: %(ids)s.", len(missing))
        errors.add(field, unknown % {"ids": ", ".join(missing)})
        return None
    return players
