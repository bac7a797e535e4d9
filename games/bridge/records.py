"""Bridge on a player's profile: their partnerships and head-to-head records against opposing pairs.

A profile section of the bridge kind (``BridgeKind.profile_sections``): the
profile page (``web.pages.player_profile``) shows every kind's sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, F, Q
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from games.bridge.models import BoardTable
from leagues.models import Player
from matches.models import Match
from ratings.headtohead import HeadToHeadRow, Opponent
from ratings.models import RatingChange


@dataclass
class PairRecord:
    """A player's record with a partner, or against an opposing pair, on bridge boards."""

    players: tuple[Player, ...]
    deals: int = 0
    first_played: datetime | None = None
    last_played: datetime | None = None
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pending: int = 0

    def add(self, played_at: datetime, score: float | None) -> None:
        self.deals += 1
        self.first_played = min(filter(None, (self.first_played, played_at)))
        self.last_played = max(filter(None, (self.last_played, played_at)))
        if score is None:
            self.pending += 1
        elif score > 0.5:
            self.wins += 1
        elif score < 0.5:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def name(self) -> str:
        return " & ".join(player.name for player in self.players)


def player_bridge_records(*, player: Player) -> tuple[list[PairRecord], list[PairRecord]]:
    """The player's partnerships and head-to-head records against opposing pairs.

    A board's result for the player is their rated score on it (the mean of
    their duels: above 1/2 a win, 1/2 a draw, below a loss); boards not yet
    rated count as pending. Three queries (the tables, the ledger's scores, the names), whatever
    the history's length; one for a player who never sat at a bridge table.
    """
    seated = Q(ns_1=player) | Q(ns_2=player) | Q(ew_1=player) | Q(ew_2=player)
    tables = (
        BoardTable.objects.filter(seated, adjusted__isnull=True)  # an adjusted table was not played
        .filter(board__match__status__in=[Match.Status.SUBMITTED, Match.Status.RATED])
        .values_list("board__match_id", "board__position", "board__match__played_at", "ns_1", "ns_2", "ew_1", "ew_2")
    )
    rows = list(tables)
    if not rows:
        return [], []
    scores = {
        (match_id, unit): score
        for match_id, unit, score in RatingChange.objects.filter(
            player=player, match_id__in={row[0] for row in rows}
        ).values_list("match_id", "unit", "details__score")
    }
    ids = {pid for row in rows for pid in row[3:]}
    names = Player.objects.in_bulk(ids)
    partners: dict[int, PairRecord] = {}
    opponents: dict[tuple[int, int], PairRecord] = {}
    for match_id, position, played_at, ns_1, ns_2, ew_1, ew_2 in rows:
        ours, theirs = ((ns_1, ns_2), (ew_1, ew_2)) if player.pk in (ns_1, ns_2) else ((ew_1, ew_2), (ns_1, ns_2))
        partner = ours[1] if ours[0] == player.pk else ours[0]
        score = scores.get((match_id, position - 1))
        partners.setdefault(partner, PairRecord(players=(names[partner],))).add(played_at, score)
        opponents.setdefault(theirs, PairRecord(players=(names[theirs[0]], names[theirs[1]]))).add(played_at, score)

    def order(record: PairRecord):
        return (-record.deals, record.name)

    return sorted(partners.values(), key=order), sorted(opponents.values(), key=order)


def bridge_board_opponents(match, player_id: int, unit: int) -> list[str]:
    """The pairs ``player_id`` met on the match's board number ``unit`` (from 0, in order of play), by name:
    one pair a table the player sat at (the player's history CSV). Reads the prefetched boards and tables."""
    boards = list(match.boards.all())
    if not 0 <= unit < len(boards):
        return []
    names = []
    for table in boards[unit].tables.all():
        if player_id in (table.ns_1_id, table.ns_2_id):
            names.append(f"{table.ew_1.name} & {table.ew_2.name}")
        elif player_id in (table.ew_1_id, table.ew_2_id):
            names.append(f"{table.ns_1.name} & {table.ns_2.name}")
    return names


def bridge_change_notes(matches, player: Player) -> dict[int, dict]:
    """What a bridge session's plain-words line on the profile says (``BridgeKind.profile_change_notes``):
    the player's partners and how many opposing pairs they met (one query, the tables of all ``matches``),
    and from the ledger rows in hand the boards won, drawn and lost, the net IMPs (each board's IMPs
    are the mean over its duels, as rated: seed 003) and the share of the points scored against the
    share expected."""
    if not matches:
        return {}
    seated = Q(ns_1=player) | Q(ns_2=player) | Q(ew_1=player) | Q(ew_2=player)
    tables = (
        BoardTable.objects.filter(seated, board__match__in=[match.pk for match in matches])
        .select_related("ns_1", "ns_2", "ew_1", "ew_2")
        .annotate(match_id=F("board__match_id"))
        .order_by("board__position", "pk")
    )
    partners: dict[int, dict[int, Player]] = {}
    pairs: dict[int, set[frozenset]] = {}
    for table in tables:
        ns, ew = (table.ns_1, table.ns_2), (table.ew_1, table.ew_2)
        ours, theirs = (ns, ew) if player.pk in (table.ns_1_id, table.ns_2_id) else (ew, ns)
        partner = ours[1] if ours[0].pk == player.pk else ours[0]
        partners.setdefault(table.match_id, {}).setdefault(partner.pk, partner)
        pairs.setdefault(table.match_id, set()).add(frozenset(seat.pk for seat in theirs))
    notes = {}
    for match in matches:
        rated = [change for change in match.player_changes if "score" in change.details]
        scores = [float(change.details["score"]) for change in rated]
        notes[match.pk] = {
            "partners": list(partners.get(match.pk, {}).values()),
            "partner_names": get_text_list([partner.name for partner in partners.get(match.pk, {}).values()], _("and")),
            "pairs": len(pairs.get(match.pk, ())),
            "won": sum(1 for score in scores if score > 0.5),
            "drawn": sum(1 for score in scores if score == 0.5),
            "lost": sum(1 for score in scores if score < 0.5),
            "imps": sum(float(change.details.get("imps", 0)) for change in match.player_changes),
            # The share of the duels' points scored, and the share expected of the pair's rating (E).
            "scored": sum(scores) / len(scores) if scores else None,
            "expected": sum(float(change.details["expected"]) for change in rated) / len(rated) if rated else None,
        }
    return notes


# --- head-to-head and compare (BridgeKind; ratings.headtohead's rows) -------------------------------


def _board_changes(player_ids, match_ids) -> dict[tuple[int, int, int], tuple]:
    """(match, unit, player) -> (delta, score, imps) of the players' ledger rows in those matches: one query."""
    return {
        (match_id, unit, player_id): (delta, score, imps)
        for match_id, unit, player_id, delta, score, imps in RatingChange.objects.filter(
            player_id__in=player_ids, match_id__in=match_ids
        ).values_list("match_id", "unit", "player_id", "delta", "details__score", "details__imps")
    }


def _tally(boards, changes, players) -> dict:
    """A record's numbers over ``boards`` ((match, unit, played_at) each) from ``players``' ledger rows: the
    board's score of the first player (both partners play the same duels) for won, drawn or lost, the mean
    of the players' deltas for the rating change, and the IMPs of the first (net, as rated: seed 003)."""
    record = {"meetings": 0, "wins": 0, "draws": 0, "losses": 0, "last_met": None, "change": Decimal(0)}
    record["imps"] = Decimal(0)
    for match_id, unit, played_at in boards:
        first = changes.get((match_id, unit, players[0]))
        if first is None:
            continue  # not rated (yet): a record reads rated boards only
        record["meetings"] += 1
        record["last_met"] = max(filter(None, (record["last_met"], played_at)))
        score = float(first[1]) if first[1] is not None else 0.5
        record["wins" if score > 0.5 else "losses" if score < 0.5 else "draws"] += 1
        deltas = [changes[(match_id, unit, pk)][0] for pk in players if (match_id, unit, pk) in changes]
        record["change"] += sum(deltas, Decimal(0)) / len(deltas)
        record["imps"] += Decimal(str(first[2] or 0))
    return record


def bridge_head_to_head(*, player: Player, game) -> list[HeadToHeadRow]:
    """The player's record against every opposing pair met on a rated board, most boards first. A board is
    won, drawn or lost by the player's rated score on it (the mean of their duels, as on the profile's
    table); the rating change is the player's delta on the boards where the pair was met; the points are
    the player's net IMPs there. Three queries (the tables, the ledger rows, the names)."""
    seated = Q(ns_1=player) | Q(ns_2=player) | Q(ew_1=player) | Q(ew_2=player)
    rows = list(
        BoardTable.objects.filter(seated, board__match__game=game, board__match__status=Match.Status.RATED)
        .values_list("board__match_id", "board__position", "board__match__played_at", "ns_1", "ns_2", "ew_1", "ew_2")
        .order_by()
    )
    if not rows:
        return []
    changes = _board_changes([player.pk], {row[0] for row in rows})
    by_pair: dict[tuple[int, int], list] = {}
    for match_id, position, played_at, ns_1, ns_2, ew_1, ew_2 in rows:
        theirs = (ew_1, ew_2) if player.pk in (ns_1, ns_2) else (ns_1, ns_2)
        by_pair.setdefault(theirs, []).append((match_id, position - 1, played_at))
    names = Player.objects.in_bulk({pk for pair in by_pair for pk in pair})
    result = []
    for pair, boards in by_pair.items():
        record = _tally(boards, changes, [player.pk])
        if not record["meetings"]:
            continue
        result.append(_pair_row(tuple(Opponent(pk, names[pk].name) for pk in pair), record))
    return sorted(result, key=lambda row: (-row.meetings, row.name))


def _pair_row(opponents: tuple[Opponent, ...], record: dict) -> HeadToHeadRow:
    """A pair's record (``_tally``) against the opposing pair, as a head-to-head row (IMPs as its points)."""
    return HeadToHeadRow(
        opponents=opponents,
        meetings=record["meetings"],
        wins=record["wins"],
        draws=record["draws"],
        losses=record["losses"],
        last_met=record["last_met"],
        rating_change=record["change"],
        points_for=record["imps"],
    )


def _pair_meets(a: tuple[int, int], b: tuple[int, int]) -> Q:
    a, b = tuple(sorted(a)), tuple(sorted(b))  # a table stores each pair in id order
    return Q(ns_1=a[0], ns_2=a[1], ew_1=b[0], ew_2=b[1]) | Q(ns_1=b[0], ns_2=b[1], ew_1=a[0], ew_2=a[1])


def bridge_pair_record(*, game, a: tuple[int, int], b: tuple[int, int]) -> tuple[HeadToHeadRow, HeadToHeadRow] | None:
    """Pair ``a``'s record against pair ``b`` and ``b``'s against ``a``, over the rated boards where they
    sat at one table; None if they never did. Each pair's rating change is the mean of its partners' deltas
    on those boards (a pair's rating is its partners' mean). Two queries."""
    boards = list(
        BoardTable.objects.filter(_pair_meets(a, b), board__match__game=game, board__match__status=Match.Status.RATED)
        .values_list("board__match_id", "board__position", "board__match__played_at")
        .order_by()
    )
    if not boards:
        return None
    boards = [(match_id, position - 1, played_at) for match_id, position, played_at in boards]
    changes = _board_changes([*a, *b], {board[0] for board in boards})
    names = {pk: player.name for pk, player in Player.objects.in_bulk([*a, *b]).items()}
    rows = []
    for ours, theirs in ((a, b), (b, a)):
        record = _tally(boards, changes, list(ours))
        if not record["meetings"]:
            return None
        rows.append(_pair_row(tuple(Opponent(pk, names[pk]) for pk in theirs), record))
    return rows[0], rows[1]


def bridge_pair_meetings(*, game, a: tuple[int, int], b: tuple[int, int], limit: int) -> list[Match]:
    """The latest rated sessions where the two pairs sat at one table, newest first."""
    ids = BoardTable.objects.filter(_pair_meets(a, b)).values("board__match_id")
    return list(
        Match.objects.filter(pk__in=ids, game=game, status=Match.Status.RATED)
        .select_related("game")
        .prefetch_related("seats__player", "seats__bot", "boards")
        .order_by("-played_at", "-pk")[:limit]
    )


def bridge_deals_together(*, game, pairs: list[tuple[int, int]]) -> list[int]:
    """The rated boards each pair has played together (the engine's partnership bonus counts them): one query."""
    counts = {}
    anywhere = Q()
    for index, pair in enumerate(pairs):
        low, high = sorted(pair)
        together = Q(ns_1=low, ns_2=high) | Q(ew_1=low, ew_2=high)
        counts[f"pair_{index}"] = Count("pk", filter=together)
        anywhere |= together  # only the pairs' own tables are read (the pair indexes)
    tables = BoardTable.objects.filter(
        anywhere, board__match__game=game, board__match__status=Match.Status.RATED, adjusted__isnull=True
    )
    found = tables.aggregate(**counts)
    return [found[f"pair_{index}"] for index in range(len(pairs))]
