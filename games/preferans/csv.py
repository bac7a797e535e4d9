"""Preferans results as CSV: one row per deal, the rows of a game sharing its key (docs/import.md).

Columns: ``game,played_at,seat_1,seat_1_id,…,seat_4,seat_4_id,whists_1,…,whists_4,rated,league,status``.
``game`` is any key the rows of one game share (a number, a date and table);
the first row of a game gives its time, seats, ``rated``, ``league`` and ``status``, and
later rows may repeat them or leave them blank. A seat is a player's name (its
``_id`` a federation or club number, optional) or ``bot:SLUG`` (a bot by its
difficulty, e.g. ``bot:normal``); a table of three leaves seat 4 and
``whists_4`` blank. Each row's whists are in seat order and sum to zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import tzinfo
from decimal import Decimal
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
from games.preferans.results import PREFERANS_SEATS, WHIST_LIMIT, signed_decimal
from leagues.models import Game
from matches.inputs import parse_cents

SEATS = range(1, PREFERANS_SEATS[1] + 1)
PREFERANS_COLUMNS = (
    "game",
    "played_at",
    *(column for n in SEATS for column in (f"seat_{n}", f"seat_{n}_id")),
    *(f"whists_{n}" for n in SEATS),
    "rated",
    "league",
    "status",
)
PREFERANS_REQUIRED = ("game", "played_at", "seat_1", "seat_2", "whists_1", "whists_2")
BOT = "bot:"
GAME_CELLS = ("played_at", "rated", "league", "status")  # with the seats: one value per game


def preferans_csv_read(data: bytes | BinaryIO, *, game: Game, zone: tzinfo | None) -> ImportPlan:
    """The file's plan, a game the rows that share its key, a deal a row (``games.csvio.csv_plan``)."""

    def key(row: Row) -> str:
        if not row.get("game"):
            raise RowError(_("game is empty: rows of one game share a key in the game column."))
        return row.get("game")

    def add(body: dict[str, Any], row: Row, first: Row) -> None:
        _same_game(row, first)
        body["deals"].append(_deal(row, len(body["seats"])))

    return csv_plan(
        data,
        columns=PREFERANS_COLUMNS,
        required=PREFERANS_REQUIRED,
        start=lambda row: _game_body(row, game, zone),
        add=add,
        key=key,
    )


def _seats(row: Row) -> list[dict[str, Any]]:
    seats = []
    for n in SEATS:
        cell = row.get(f"seat_{n}")
        if not cell:
            if any(row.get(f"seat_{later}") for later in SEATS if later > n):
                raise RowError(
                    _("%(column)s is empty but a later seat is not: fill the seats in order.") % {"column": f"seat_{n}"}
                )
            break
        if cell.lower().startswith(BOT):
            seats.append({"bot": cell[len(BOT) :].strip()})
        else:
            seats.append({"player": cell_person(row, f"seat_{n}")})
    if len(seats) < PREFERANS_SEATS[0]:
        raise RowError(
            _("A Preferans table has %(low)s to %(high)s seats.")
            % {"low": PREFERANS_SEATS[0], "high": PREFERANS_SEATS[1]}
        )
    return seats


def _game_body(row: Row, game: Game, zone: tzinfo | None) -> dict[str, Any]:
    body = {
        "game": game.slug,
        "played_at": cell_time(row.get("played_at"), zone),
        "rated": cell_rated_status(row),
        "seats": _seats(row),
        "deals": [],
    }
    if row.get("league"):
        body["league"] = row.get("league")
    return body


def _same_game(row: Row, first: Row) -> None:
    """A later row of a game repeats the game's cells or leaves them blank."""
    for column in (*GAME_CELLS, *(c for c in PREFERANS_COLUMNS if c.startswith("seat_"))):
        if row.get(column) and row.get(column) != first.get(column):
            raise RowError(
                _("%(column)s %(value)s differs from line %(line)s of game %(game)s.")
                % {
                    "column": column,
                    "value": repr(row.get(column)[:40]),
                    "line": first.line,
                    "game": repr(first.get("game")[:40]),
                }
            )


def _deal(row: Row, seats: int) -> list[str]:
    whists = [row.get(f"whists_{n}") for n in SEATS]
    given, rest = whists[:seats], whists[seats:]
    if any(rest):
        raise RowError(_("%(seats)s seats but whists for more.") % {"seats": seats})
    values = [parse_cents(value, limit=WHIST_LIMIT) for value in given]
    if None in values:
        raise RowError(_("whists are numbers with at most two decimals, each within ±10,000 (blank is not 0)."))
    if sum(values, Decimal(0)) != 0:
        raise RowError(
            _("the whists sum to %(total)s, not 0 (each deal is zero-sum).")
            % {"total": signed_decimal(sum(values, Decimal(0)))}
        )
    return given


def preferans_csv_cells(bodies: Iterable[dict[str, Any]]) -> Iterator[dict[str, object]]:
    """The rows the reader reads, cells by column, of result bodies whose players are ``PlayerRef``s: a row
    per deal, each game's rows keyed by its number in ``bodies`` (from 1)."""
    for number, body in enumerate(bodies, start=1):
        cells: dict[str, object] = {
            "game": number,
            "played_at": body["played_at"],
            "league": body.get("league", ""),
            **status_cells(body),
        }
        for n, seat in enumerate(body["seats"], start=1):
            person = seat.get("player")
            cells.update(
                person_cells(f"seat_{n}", person)
                if isinstance(person, PlayerRef)
                else {f"seat_{n}": f"{BOT}{seat['bot']}"}
            )
        for deal in body["deals"]:
            yield {**cells, **{f"whists_{n}": _number(value) for n, value in enumerate(deal, start=1)}}


def _number(value: Any) -> int | Decimal:
    """Whists as a number cell (never text: ``config.csvout`` escapes only text), ``-3`` or ``1.25``."""
    number = Decimal(str(value))
    return int(number) if number == number.to_integral_value() else number.normalize()


def preferans_body_players(body: dict[str, Any], swap) -> dict[str, Any]:
    return {
        **body,
        "seats": [{"player": swap(seat["player"])} if "player" in seat else dict(seat) for seat in body["seats"]],
    }
