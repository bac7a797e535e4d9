"""Bridge on a player's profile: their partnerships and head-to-head records against opposing pairs.

A profile section of the bridge kind (``BridgeKind.profile_sections``): the
profile page (``ratings.pages.player_profile``) shows every kind's sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Q

from leagues.models import Player
from matches.models import BoardTable, Match
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
        BoardTable.objects.filter(seated)
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
