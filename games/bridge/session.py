"""A stored bridge session's pairs, ranked by the IMPs they won over the evening (the match page).

Vocabulary: a *pair* is two players who sat together at a table of a board
(NS or EW); its *net IMPs* on a board are the IMPs its table won against every
other table of the board (a duel per other table, the WBF scale), or, for a
board scored in IMPs, the IMPs given (NS at table 1 with EW at table 2 in a
team match). Reads the boards the match already holds (prefetched by the match
page's query); no query of its own.

The session page (``session_page_context``) titles the evening by its date and
its club, which in Cardrank's data model is the league the session is filed
under (a club's players and their rating rules; the game, Bridge, is the same
for every club), else the game when a session has no league. Pair numbers
are not stored (a traveller's numbers name players only while it is
entered), so pairs are named by their players.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.utils import dateformat, timezone

from config.decimals import CENT
from ratings.engines.bridge import imps as to_imps


@dataclass
class PairTotal:
    players: tuple  # the two Player rows, the pair's lowest id first
    imps: Decimal = Decimal(0)
    boards: int = 0
    rank: int = 0
    tied: bool = False
    _numbers: set = field(default_factory=set)
    #: Each player's rating change over the evening, as (player, change), the change whole and derived from
    #: the whole ratings a profile shows (1510 -> 1522 is +12); ``None`` while the session is not rated.
    changes: list = field(default_factory=list)

    @property
    def per_board(self) -> Decimal:
        return (self.imps / self.boards).quantize(CENT) if self.boards else Decimal(0)


def _table_nets(tables) -> list[tuple[Decimal, Decimal]]:
    """(NS net, EW net) per table of a board."""
    if all(table.ns_score is not None for table in tables) and len(tables) > 1:
        nets = [sum(to_imps(t.ns_score - u.ns_score) for u in tables if u is not t) for t in tables]
        return [(Decimal(net), Decimal(-net)) for net in nets]
    first = tables[0].ns_imps or Decimal(0)
    if len(tables) == 2:  # a team match: NS at table 1 and EW at table 2 are one team
        return [(first, -first), (-first, first)]
    return [(first, -first)] + [(Decimal(0), Decimal(0))] * (len(tables) - 1)


def session_pair_ranking(match) -> list[PairTotal]:
    pairs: dict[frozenset, PairTotal] = {}
    for board in match.boards.all():
        tables = list(board.tables.all())
        if not tables:
            continue
        for table, (ns_net, ew_net) in zip(tables, _table_nets(tables), strict=True):
            for first, second, net in ((table.ns_1, table.ns_2, ns_net), (table.ew_1, table.ew_2, ew_net)):
                key = frozenset((first.pk, second.pk))
                total = pairs.setdefault(key, PairTotal(players=tuple(sorted((first, second), key=lambda p: p.pk))))
                total.imps += net
                total.boards += 1
    ranked = sorted(pairs.values(), key=lambda total: (-total.imps, -total.boards, total.players[0].name))
    for position, total in enumerate(ranked):
        previous = ranked[position - 1] if position else None
        if previous is not None and previous.imps == total.imps:
            total.rank, total.tied, previous.tied = previous.rank, True, True
        else:
            total.rank = position + 1
    return ranked


def _whole(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def session_rating_changes(match) -> dict[int, int]:
    """Each player's rating change over the session, by player id, from the match's ledger rows (prefetched by
    the match page, in unit order): the whole rating after the last board less the whole rating before the
    first, as the ratings are shown."""
    spans: dict[int, tuple[Decimal, Decimal]] = {}
    for change in match.rating_changes.all():
        before, _ = spans.get(change.player_id, (change.rating_before, None))
        spans[change.player_id] = (before, change.rating_after)
    return {player_id: _whole(after) - _whole(before) for player_id, (before, after) in spans.items()}


def session_title(match) -> str:
    """The evening's title: its club (the league it is filed under, else the game) and its local date."""
    club = match.league.name if match.league_id else match.game.name
    return f"{club}, {dateformat.format(timezone.localtime(match.played_at), 'l j F Y')}"


def session_page_context(match) -> dict:
    """What the session page shows beside the match: its pairs ranked, each player's change, the counts."""
    ranking = session_pair_ranking(match)
    changes = session_rating_changes(match)
    for pair in ranking:
        pair.changes = [(player, changes.get(player.pk)) for player in pair.players]
    return {"pair_ranking": ranking, "session_boards": len(match.boards.all()), "session_pairs": len(ranking)}
