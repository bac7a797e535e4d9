"""Storing a cleaned result's rows: its seats here, its parts (deals, boards) by its game kind.

Whatever is stored is also kept on the match as ``selectors.match_detail``
would load it (``hold``), so the reply to a submission is built from the
objects just written, without reading them back.
"""

from __future__ import annotations

from decimal import Decimal

from leagues.kinds import kind_of
from matches.inputs import MatchInput
from matches.models import Match, Seat


def hold(instance, related: str, objects: list) -> None:
    """Make ``instance.<related>.all()`` answer ``objects`` without a query, as ``prefetch_related`` leaves it.

    Django's own recipe (``prefetch_one_level``): the relation's queryset with its result cache filled.
    """
    queryset = getattr(instance, related).get_queryset()
    queryset._result_cache = list(objects)
    queryset._prefetch_done = True
    instance.__dict__.setdefault("_prefetched_objects_cache", {})[related] = queryset


def match_holds_parts(match: Match) -> bool:
    """Whether a match in hand holds its seats and its game's parts (``match_store_result`` left them on it)."""
    held = getattr(match, "_prefetched_objects_cache", {})
    # Seats first: a match read from the database holds nothing, and asking its kind would read its game.
    return "seats" in held and set(kind_of(match.game).parts) <= held.keys()


def match_store_result(
    match: Match, cleaned: MatchInput, *, bots_as_played: dict[int, tuple[Decimal, Decimal]] | None = None
) -> None:
    """Store the result's seats and its parts, and keep them on ``match`` as ``match_detail`` would load them.

    A bot seat keeps the bot's rating and maximum as played: its values now,
    or, for a bot already at the table of a result being corrected, the values
    stored with it then (``bots_as_played``, bot id -> (rating, maximum)), so
    a correction of a deal does not slip an edited bot into an old game.
    """
    played = bots_as_played or {}
    as_played = {
        seat.bot.pk: played.get(seat.bot.pk, (seat.bot.rating, seat.bot.max_rating))
        for seat in cleaned.seats
        if seat.bot
    }
    seats = Seat.objects.bulk_create(
        Seat(
            match=match,
            position=position,
            player=seat.player,
            bot=seat.bot,
            result=seat.result,
            # The bot as played, whatever admins make of it later.
            bot_rating=as_played[seat.bot.pk][0] if seat.bot else None,
            bot_max_rating=as_played[seat.bot.pk][1] if seat.bot else None,
        )
        for position, seat in enumerate(cleaned.seats, start=1)
    )
    hold(match, "seats", sorted(seats, key=lambda seat: seat.position))
    kind_of(cleaned.game).store_parts(match, cleaned)
