"""Preferans's engine input: a game's seats (bots as played) and its deals of whists, two queries a chunk."""

from __future__ import annotations

from collections import defaultdict

from games.preferans.models import Deal
from matches.models import Seat
from ratings.engines.preferans import BotSeat, PreferansGame
from ratings.history import MatchRow
from ratings.loaders import EngineInputs, ReplayContext


def preferans_seat_rows(*, match_ids: list[int]) -> dict[int, list[tuple[int | None, BotSeat | None]]]:
    """(player, bot as played) of every seat of the matches, in seat order, with one query.

    A bot seat is rated with the rating and maximum stored on the seat, never
    the Bot row's current values: editing a bot must not rewrite old games.
    """
    seats: dict[int, list] = defaultdict(list)
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "bot__slug", "bot_rating", "bot_max_rating")
    )
    bots: dict[tuple, BotSeat] = {}  # One BotSeat per (bot, values), shared by the seats that played it.
    for match_id, player_id, slug, rating, max_rating in rows:
        bot = None
        if slug is not None:
            key = (slug, rating, max_rating)
            bot = bots.get(key)
            if bot is None:
                bot = bots[key] = BotSeat(slug=slug, rating=float(rating), max_rating=float(max_rating))
        seats[match_id].append((player_id, bot))
    return seats


def preferans_inputs(chunk: list[MatchRow], context: ReplayContext) -> EngineInputs:
    """Each game's players (bots are not rated) and its seats and deals, in seat and deal order."""
    ids = [row.id for row in chunk]
    seats = preferans_seat_rows(match_ids=ids)
    deals: dict[int, list[tuple[float, ...]]] = defaultdict(list)
    for match_id, whists in (
        Deal.objects.filter(match_id__in=ids).order_by("match_id", "number").values_list("match_id", "whists")
    ):
        deals[match_id].append(tuple(float(whist) for whist in whists))
    inputs = []
    for row in chunk:
        table = seats[row.id]
        game_seats = tuple(bot if bot is not None else player_id for player_id, bot in table)
        players = tuple(player_id for player_id, _ in table if player_id)
        inputs.append((players, PreferansGame(seats=game_seats, deals=tuple(deals[row.id]))))
    return inputs
