"""Slaps results as CSV: one row per match (docs/import.md).

Columns: ``played_at,player_a,player_a_id,player_b,player_b_id,winner,rated,league,status``;
``played_at``, ``player_a``, ``player_b`` and ``winner`` are required.
Players are named; ``*_id`` is a federation or club number, optional.
``winner`` is ``a`` or ``b`` (or the winner's name); ``rated`` is true
unless it says false; ``league`` a league's slug (blank: the game's entry
league); ``status`` what an export says of the result (``games.csvio.STATUSES``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import tzinfo
from typing import Any, BinaryIO

from django.utils.translation import gettext as _

from games.csvio import (
    Row,
    RowError,
    cell_person,
    cell_rated_status,
    cell_time,
    csv_plan,
    person_cells,
    status_cells,
)
from games.imports import ImportPlan, PlayerRef
from leagues.models import Game

SLAPS_COLUMNS = (
    "played_at",
    "player_a",
    "player_a_id",
    "player_b",
    "player_b_id",
    "winner",
    "rated",
    "league",
    "status",
)
SLAPS_REQUIRED = ("played_at", "player_a", "player_b", "winner")


def slaps_csv_read(data: bytes | BinaryIO, *, game: Game, zone: tzinfo | None) -> ImportPlan:
    """The file's plan, a match a row (``games.csvio.csv_plan``)."""
    return csv_plan(data, columns=SLAPS_COLUMNS, required=SLAPS_REQUIRED, start=lambda row: _body(row, game, zone))


def _body(row: Row, game: Game, zone: tzinfo | None) -> dict[str, Any]:
    a, b = cell_person(row, "player_a"), cell_person(row, "player_b")
    winner = row.get("winner")
    if winner.lower() == "a" or (winner == a.name and winner != b.name):
        won = a
    elif winner.lower() == "b" or (winner == b.name and winner != a.name):
        won = b
    else:
        raise RowError(
            _("winner %(winner)s is neither a nor b (nor one player's name).") % {"winner": repr(winner[:40])}
        )
    body = {
        "game": game.slug,
        "played_at": cell_time(row.get("played_at"), zone),
        "rated": cell_rated_status(row),
        "players": [a, b],
        "winner": won,
    }
    if row.get("league"):
        body["league"] = row.get("league")
    return body


def slaps_csv_cells(bodies: Iterable[dict[str, Any]]) -> Iterator[dict[str, object]]:
    """The rows the reader reads, cells by column, of result bodies whose players are ``PlayerRef``s."""
    for body in bodies:
        a, b = body["players"]
        winner: PlayerRef = body["winner"]
        yield {
            "played_at": body["played_at"],
            **person_cells("player_a", a),
            **person_cells("player_b", b),
            "winner": "a" if winner == a else "b",
            "league": body.get("league", ""),
            **status_cells(body),
        }


def slaps_body_players(body: dict[str, Any], swap) -> dict[str, Any]:
    return {**body, "players": [swap(player) for player in body["players"]], "winner": swap(body["winner"])}
