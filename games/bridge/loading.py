"""Bridge's engine input: a session's boards of tables, and each pair's deals together before it.

Partnership history (``BridgeSession.deals_together``) runs across sessions:
the replay's state (``ReplayContext.state``, made by ``BridgeKind.replay_state``)
holds the deals each pair has played together so far, {frozenset of two
player ids: deals}; pairs first met in a chunk are counted from the rated
sessions before the replay's start with two queries.
"""

from __future__ import annotations

from django.db.models import Count

from games.bridge.models import BoardTable
from matches.models import Match
from ratings.engines.bridge import BridgeBoard, BridgeSession, BridgeTable
from ratings.history import MatchRow
from ratings.loaders import EngineInputs, ReplayContext


def _played(board) -> list:
    """The board's played tables: an adjusted score (not played) is in the club's standings, never rated."""
    return [table for table in board.tables.all() if table.adjusted is None]


def _rated(board) -> list:
    """The tables the engine compares: the played ones, none when a lone table has a score and no IMPs
    (a board that only one table played, the rest adjusted or not reached: nothing to compare)."""
    tables = _played(board)
    if len(tables) == 1 and tables[0].ns_imps is None:
        return []
    return tables


def _bridge_pairs(match: Match) -> list[frozenset]:
    return [
        frozenset(pair)
        for board in match.boards.all()
        for table in _played(board)
        for pair in ((table.ns_1_id, table.ns_2_id), (table.ew_1_id, table.ew_2_id))
    ]


def _bridge_match_input(match: Match, pair_deals: dict[frozenset, int]) -> BridgeSession:
    # Every board is passed, even one with nothing to rate: the ledger's unit is the board's place.
    boards = tuple(
        BridgeBoard(
            tuple(
                BridgeTable(
                    ns=(table.ns_1_id, table.ns_2_id),
                    ew=(table.ew_1_id, table.ew_2_id),
                    ns_score=table.ns_score,
                    ns_imps=float(table.ns_imps) if table.ns_imps is not None else None,
                )
                for table in _rated(board)
            )
        )
        for board in match.boards.all()
    )
    pairs = set(_bridge_pairs(match))
    session = BridgeSession(boards=boards, deals_together={pair: pair_deals.get(pair, 0) for pair in pairs})
    for pair in _bridge_pairs(match):
        pair_deals[pair] = pair_deals.get(pair, 0) + 1
    return session


def _bridge_pair_history(matches: list[Match], context: ReplayContext) -> None:
    """Load, for pairs first met in these matches, the deals they played together before the replay's start."""
    pair_deals: dict[frozenset, int] = context.state
    wanted = {pair for match in matches for pair in _bridge_pairs(match)} - pair_deals.keys()
    if not wanted:
        return
    players = {player for pair in wanted for player in pair}
    history = BoardTable.objects.filter(
        board__match__game=context.game, board__match__status=Match.Status.RATED, adjusted__isnull=True
    ).filter(context.before_start(played_at_field="board__match__played_at", id_field="board__match_id"))
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
    pair_deals.update(counts)


def bridge_inputs(chunk: list[MatchRow], context: ReplayContext) -> EngineInputs:
    """Each session's players in seat order and its boards, with the pairs' deals together so far."""
    # Bridge sessions are few and rich (boards of tables): model instances with prefetching are clearest.
    by_id = Match.objects.prefetch_related("seats", "boards__tables").in_bulk([row.id for row in chunk])
    matches = [by_id[row.id] for row in chunk]
    _bridge_pair_history(matches, context)
    return [
        (tuple(seat.player_id for seat in match.seats.all()), _bridge_match_input(match, context.state))
        for match in matches
    ]
