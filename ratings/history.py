"""A game's history as the rating code reads it: its order and its rows.

Ratings are a pure function of the rated results of a game in
``(played_at, match id)`` order; ``LedgerKey`` is a position in that order.
A replay reads matches as plain ``MatchRow`` values, a chunk at a time
(``match_chunks``). The bottom of the rating services: it imports no other
rating module but the models.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db.models import BooleanField, ExpressionWrapper, Q

from matches.models import Match, due_condition


@dataclass(frozen=True, order=True, slots=True)
class LedgerKey:
    """A position in a game's history: results are ordered by (played_at, match id)."""

    played_at: datetime
    match_id: int


def key_at_or_after(key: LedgerKey, *, played_at_field: str = "played_at", id_field: str = "match_id") -> Q:
    return Q(**{f"{played_at_field}__gt": key.played_at}) | Q(
        **{played_at_field: key.played_at, f"{id_field}__gte": key.match_id}
    )


def key_before(key: LedgerKey, *, played_at_field: str = "played_at", id_field: str = "match_id") -> Q:
    return ~key_at_or_after(key, played_at_field=played_at_field, id_field=id_field)


class MatchRow(NamedTuple):
    """What a replay reads of a match itself (plain values, no model instance)."""

    id: int
    played_at: datetime
    status: str
    league_id: int | None
    due_at: datetime | None
    due: bool  # ``due_condition``, evaluated by the database as the row is read

    def rateable(self) -> bool:
        """Rated already, or submitted and due."""
        if self.status == Match.Status.RATED:
            return True
        return self.due


MATCH_ROW_FIELDS = MatchRow._fields


def match_chunks(queryset, size: int, *, now: datetime) -> Iterable[list[MatchRow]]:
    """The matches of ``queryset`` in ledger order, as plain rows, ``size`` at a time; ``due`` as of ``now``.

    Each chunk is one query that seeks past the previous chunk's last match
    on the (game, played_at, id) index: no server-side cursor to declare,
    fetch and close, which an incremental run of one match would mostly pay for.
    """
    # Whether a row is due is selected with it, not filtered on: in the WHERE clause the rule's
    # ORs would tempt the planner off the (game, played_at, id) index the chunks seek on.
    queryset = queryset.annotate(due=ExpressionWrapper(due_condition(now), output_field=BooleanField()))
    last: MatchRow | None = None
    while True:
        page = queryset.order_by("played_at", "id")
        if last is not None:
            page = page.filter(Q(played_at__gt=last.played_at) | Q(played_at=last.played_at, id__gt=last.id))
        chunk = [MatchRow._make(values) for values in page.values_list(*MATCH_ROW_FIELDS)[:size]]
        if chunk:
            yield chunk
        if len(chunk) < size:
            return
        last = chunk[-1]
