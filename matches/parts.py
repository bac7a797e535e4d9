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
    seats = Seat.objects.bulk_create(seats_build(match, cleaned, bots_as_played or {}))
    hold(match, "seats", sorted(seats, key=lambda seat: seat.position))
    kind_of(cleaned.game).store_parts(match, cleaned)


#: Rows of one table in one INSERT at most (``matches_store_results``): well within PostgreSQL's 65,535
#: parameters whatever a row's width.
ROWS_A_QUERY = 1000


def matches_store_results(stored: list[tuple[Match, MatchInput]]) -> None:
    """``match_store_result`` for many new matches at once (``matches.services.match_record_many``): their
    seats in one INSERT a ``ROWS_A_QUERY``, each game's parts by its kind (``store_parts_many``).

    Nothing is held on the matches: a batch answers with none of them, and holding them would keep a
    whole import's rows in memory.
    """
    Seat.objects.bulk_create(
        (seat for match, cleaned in stored for seat in seats_build(match, cleaned, {})), batch_size=ROWS_A_QUERY
    )
    by_kind: dict[int, tuple[object, list[tuple[Match, MatchInput]]]] = {}
    for match, cleaned in stored:
        kind = kind_of(cleaned.game)
        by_kind.setdefault(id(kind), (kind, []))[1].append((match, cleaned))
    for kind, pairs in by_kind.values():
        kind.store_parts_many(pairs)


def match_unsaved(cleaned: MatchInput) -> Match:
    """The match ``cleaned`` would store, unsaved and never to be saved, holding its seats as stored: a kind
    reads it as it reads a stored one (``games.base.BaseKind.input_body``). Its id 0 only lets its
    relations answer what it holds (Django refuses the relations of a match without one)."""
    match = Match(pk=0, game=cleaned.game, played_at=cleaned.played_at, league=cleaned.league)
    hold(match, "seats", seats_build(match, cleaned, {}))
    return match


def seats_build(match: Match, cleaned: MatchInput, played: dict[int, tuple[Decimal, Decimal]]) -> list[Seat]:
    """The result's seats, unsaved; a bot's as ``match_store_result`` says (``bots_as_played``)."""
    as_played = {
        seat.bot.pk: played.get(seat.bot.pk, (seat.bot.rating, seat.bot.max_rating))
        for seat in cleaned.seats
        if seat.bot
    }
    return [
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
    ]
