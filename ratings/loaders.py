"""Engine inputs, one loader per rating system: a chunk of matches in, (rated players, engine input) out.

``MATCH_LOADERS`` is keyed by the engine's slug, like the engines' registry;
each loader reads what its game stores (seats, deals, boards) with a fixed
number of queries per chunk. They move into the game kinds with the redesign.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal

from django.db.models import Count

from leagues.models import Game
from matches.models import BoardTable, Deal, Match, Seat
from ratings.engines.bridge import BridgeBoard, BridgeSession, BridgeTable
from ratings.engines.elo import EloMatch
from ratings.engines.preferans import BotSeat, PreferansGame
from ratings.history import LedgerKey, _before, _MatchRow


class _ApplyContext:
    """What a replay keeps in memory besides ratings: bridge pairs' deals together so far."""

    def __init__(self, *, game: Game, start: LedgerKey) -> None:
        self.game = game
        self.start = start
        self.pair_deals: dict[frozenset, int] = {}


# A loader reads a chunk of matches, in ledger order, into (rated players in seat order, engine input) pairs.
Loader = Callable[[list[_MatchRow], _ApplyContext], list[tuple[tuple[int, ...], object]]]


def _seat_rows(match_ids: list[int]) -> dict[int, list[tuple[int | None, int | None, Decimal]]]:
    """(player, bot, result) of every seat of the matches, in seat order, with one query."""
    seats: dict[int, list] = defaultdict(list)
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "bot_id", "result")
    )
    for match_id, player_id, bot_id, result in rows:
        seats[match_id].append((player_id, bot_id, result))
    return seats


def _preferans_seat_rows(match_ids: list[int]) -> dict[int, list[tuple[int | None, BotSeat | None]]]:
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


def _elo_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    seats = _seat_rows([row.id for row in chunk])
    inputs = []
    for row in chunk:
        first, second = seats[row.id]
        winner = first if first[2] >= second[2] else second
        inputs.append(((first[0], second[0]), EloMatch(players=(first[0], second[0]), winner=winner[0])))
    return inputs


def _preferans_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    ids = [row.id for row in chunk]
    seats = _preferans_seat_rows(ids)
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


def _bridge_pairs(match: Match) -> list[frozenset]:
    return [
        frozenset(pair)
        for board in match.boards.all()
        for table in board.tables.all()
        for pair in ((table.ns_1_id, table.ns_2_id), (table.ew_1_id, table.ew_2_id))
    ]


def _bridge_match_input(match: Match, context: _ApplyContext) -> BridgeSession:
    boards = tuple(
        BridgeBoard(
            tuple(
                BridgeTable(
                    ns=(table.ns_1_id, table.ns_2_id),
                    ew=(table.ew_1_id, table.ew_2_id),
                    ns_score=table.ns_score,
                    ns_imps=float(table.ns_imps) if table.ns_imps is not None else None,
                )
                for table in board.tables.all()
            )
        )
        for board in match.boards.all()
    )
    pairs = set(_bridge_pairs(match))
    session = BridgeSession(boards=boards, deals_together={pair: context.pair_deals.get(pair, 0) for pair in pairs})
    for pair in _bridge_pairs(match):
        context.pair_deals[pair] = context.pair_deals.get(pair, 0) + 1
    return session


def _bridge_pair_history(matches: list[Match], context: _ApplyContext) -> None:
    """Load, for pairs first met in these matches, the deals they played together before the replay's start."""
    wanted = {pair for match in matches for pair in _bridge_pairs(match)} - context.pair_deals.keys()
    if not wanted:
        return
    players = {player for pair in wanted for player in pair}
    history = BoardTable.objects.filter(
        board__match__game=context.game, board__match__status=Match.Status.RATED
    ).filter(_before(context.start, played_at_field="board__match__played_at", id_field="board__match_id"))
    counts: dict[frozenset, int] = dict.fromkeys(wanted, 0)
    for first, second in (("ns_1", "ns_2"), ("ew_1", "ew_2")):
        rows = (
            history.filter(**{f"{first}__in": players, f"{second}__in": players})
            .values_list(first, second)
            .annotate(deals=Count("pk"))
        )
        for player_a, player_b, deals in rows:
            pair = frozenset((player_a, player_b))
            if pair in counts:
                counts[pair] += deals
    context.pair_deals.update(counts)


def _bridge_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    # Bridge sessions are few and rich (boards of tables): model instances with prefetching are clearest.
    by_id = Match.objects.prefetch_related("seats", "boards__tables").in_bulk([row.id for row in chunk])
    matches = [by_id[row.id] for row in chunk]
    _bridge_pair_history(matches, context)
    return [
        (tuple(seat.player_id for seat in match.seats.all()), _bridge_match_input(match, context)) for match in matches
    ]


MATCH_LOADERS: dict[str, Loader] = {
    "elo": _elo_inputs,
    "preferans": _preferans_inputs,
    "bridge": _bridge_inputs,
}
