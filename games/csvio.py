"""Reading and writing the games' CSV files: what every game's columns share.

A file is UTF-8 (a spreadsheet's "CSV UTF-8", its byte order mark allowed),
a header of column names, then a row per line (a quoted cell may span
lines). A game's module (``games/<x>/csv.py``) names its columns and reads
each row; this module reads the file as a stream, a line at a time (a 20 MB
file is never one string), decodes, checks the header, numbers the lines, reads
times with their zone and players by name and federation number, and keeps
a written cell from being taken for a formula when a spreadsheet opens it.
"""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, BinaryIO

from django.utils.translation import gettext as _

from config.csvout import csv_uncell
from games.imports import ImportPlan, PlayerRef, Problem, ProblemList, at_line, at_lines, file_stream

# A text cell starting with one of config.csvout.FORMULA_STARTS is run as a formula by spreadsheets (CSV
# injection, OWASP): written with a leading apostrophe (config.csvout, for every CSV the site writes), which a
# reader strips again (csv_uncell).
TRUE = {"", "1", "true", "yes", "y", "rated"}
FALSE = {"0", "false", "no", "n", "friendly"}
# A result's state as an export gives it (games.exporting.result_status): rated; waiting for its rating, its
# rating period or a second referee; disputed by that referee; void; friendly (never rated).
RATED, WAITING, DISPUTED, VOID, FRIENDLY = "rated", "waiting", "disputed", "void", "friendly"
STATUSES = (RATED, WAITING, DISPUTED, VOID, FRIENDLY)


class RowError(ValueError):
    """A cell this row cannot take; the reader adds the line."""


@dataclass(frozen=True)
class Row:
    line: int
    cells: dict[str, str]

    def get(self, column: str) -> str:
        return self.cells.get(column, "")


class CsvUnreadable(Exception):
    """The file cannot be read at all (not UTF-8, a NUL byte): its one problem, and nothing of it imports."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


# A carriage return alone ends a line too (a file saved with old Mac line ends), as universal newlines read it.
_LONE_CR = re.compile(r"(?<=\r)(?!\n)")


def _lines(source: BinaryIO) -> Iterator[str]:
    """The file's lines, decoded one at a time, each with its line end (``csv.reader`` joins a quoted cell's).

    Split at each ``\n`` byte, which UTF-8 never uses inside a character, so a line decodes on its own and
    the first line that does not names itself. Raises ``CsvUnreadable`` there, or at the first NUL byte.
    """
    for number, raw in enumerate(source, start=1):
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]  # a spreadsheet's "CSV UTF-8"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CsvUnreadable(
                Problem(at_line(number), _('The file is not UTF-8 text: save it as "CSV UTF-8" and import it again.'))
            ) from None
        if "\x00" in line:
            raise CsvUnreadable(Problem(at_line(number), _("The file holds a NUL byte: it is not a CSV text file.")))
        if "\r" in line.rstrip("\r\n"):
            yield from (piece for piece in _LONE_CR.split(line) if piece)
        else:
            yield line


def csv_plan(
    data: bytes | BinaryIO,
    *,
    columns: tuple[str, ...],
    required: tuple[str, ...],
    start: Callable[[Row], dict[str, Any]],
    add: Callable[[dict[str, Any], Row, Row], None] | None = None,
    key: Callable[[Row], Hashable] | None = None,
) -> ImportPlan:
    """A game's CSV file as an import's plan, read a line at a time (``csv_rows``): the loop every game's
    ``csv_read`` shares, the game giving how a row is read.

    Each row belongs to the result its ``key`` names (by default its own line: a result a row). The first
    row of a result makes its body (``start(row)``); ``add(body, row, first)`` then reads every row of the
    result into the body, the first included (a Preferans game's deals). A ``RowError`` is a problem of its
    line, which is left out; a result none of whose rows was read is left out. A file that cannot be read
    at all (``CsvUnreadable``) imports nothing. Memory: the results' bodies and the problems kept.
    """
    plan = ImportPlan()
    held: dict[Hashable, tuple[Row | None, dict[str, Any], list[int]]] = {}
    try:
        for row in csv_rows(file_stream(data), columns=columns, required=required, problems=plan.problems):
            try:
                name = row.line if key is None else key(row)
                result = held.get(name)
                if result is None:
                    result = held[name] = (row if add is not None else None, start(row), [])
                if add is not None:
                    add(result[1], row, result[0])
            except RowError as error:
                plan.problems.append(Problem(at_line(row.line), str(error)))
                continue
            result[2].append(row.line)
    except CsvUnreadable as unreadable:
        return ImportPlan(problems=[unreadable.problem])
    for _first, body, lines in held.values():
        if lines:
            plan.results.append(body)
            plan.sources.append(at_line(lines[0]) if len(lines) == 1 else at_lines(lines[0], lines[-1]))
    return plan


def csv_rows(
    source: BinaryIO, *, columns: tuple[str, ...], required: tuple[str, ...], problems: ProblemList
) -> Iterator[Row]:
    """The file's rows by column name, read from ``source`` line by line as they are asked for.

    A problem of the header or of a row is added to ``problems`` (which keeps the first of them and counts
    the rest); a header with problems gives no rows. A file that cannot be read at all (not UTF-8, a NUL
    byte) raises ``CsvUnreadable`` wherever it is found: the reader then imports nothing of it, and says
    only that. Memory is a line's and the problems kept, whatever the file's length.
    """
    reader = csv.reader(_lines(source), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        problems.append(Problem(at_line(1), _("The header cannot be read: %(error)s.") % {"error": error}))
        return
    if not header or not any(cell.strip() for cell in header):
        problems.append(
            Problem(
                at_line(1),
                _("The file is empty: its first line names the columns (%(columns)s).")
                % {"columns": ", ".join(columns)},
            )
        )
        return
    names = [cell.strip().lower() for cell in header]
    unknown = [name for name in names if name not in columns]
    missing = [name for name in required if name not in names]
    if unknown:
        problems.append(
            Problem(
                at_line(1),
                _("Unknown column(s): %(unknown)s. The columns: %(columns)s.")
                % {"unknown": ", ".join(unknown), "columns": ", ".join(columns)},
            )
        )
    if missing:
        problems.append(
            Problem(
                at_line(1),
                _("Missing column(s): %(missing)s. The columns: %(columns)s.")
                % {"missing": ", ".join(missing), "columns": ", ".join(columns)},
            )
        )
    if len(set(names)) != len(names):
        problems.append(Problem(at_line(1), _("A column is named twice.")))
    if unknown or missing or len(set(names)) != len(names):
        return
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            # An opening quote never closed: the file was cut short, or a quote is stray.
            problems.append(
                Problem(at_line(reader.line_num), _("The file cannot be read from here: %(error)s.") % {"error": error})
            )
            break
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(names):
            problems.append(
                Problem(
                    at_line(reader.line_num),
                    _("%(cells)s cells for %(columns)s columns (the file may be cut short).")
                    % {"cells": len(cells), "columns": len(names)},
                )
            )
            continue
        yield Row(reader.line_num, {name: csv_uncell(cell.strip()) for name, cell in zip(names, cells, strict=True)})


def cell_time(value: str, zone: tzinfo | None) -> str:
    """An ISO 8601 time with its zone (or in ``zone``, the command's ``--timezone``), as the API takes it."""
    if not value:
        raise RowError(_("played_at is empty."))
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise RowError(
            _("played_at %(value)s is not a time such as 2026-11-01T18:00:00+01:00.") % {"value": repr(value[:40])}
        ) from None
    if moment.tzinfo is None:
        if zone is None:
            raise RowError(
                _("played_at %(value)s has no zone: add one (Z, +01:00) or give --timezone.")
                % {"value": repr(value[:40])}
            )
        moment = moment.replace(tzinfo=zone)
    return moment.isoformat()


def cell_rated(value: str) -> bool:
    lowered = value.lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    raise RowError(_("rated %(value)s is not true or false.") % {"value": repr(value[:20])})


def cell_rated_status(row: Row) -> bool:
    """Whether the row's result is rated (not a friendly), from ``rated`` and ``status`` (``STATUSES``)."""
    rated, status = row.get("rated"), row.get("status").lower()
    if not status:
        return cell_rated(rated)
    if status not in STATUSES or status == VOID:
        raise RowError(
            _("status %(value)s is not one of %(statuses)s.")
            % {"value": repr(status[:20]), "statuses": ", ".join(s for s in STATUSES if s != VOID)}
        )
    friendly = status == FRIENDLY
    if rated and cell_rated(rated) == friendly:
        raise RowError(
            _("rated %(value)s contradicts status %(status)s.") % {"value": repr(rated[:20]), "status": repr(status)}
        )
    return not friendly


def status_cells(body: dict) -> dict[str, str]:
    """``rated`` and ``status`` of a result body that carries its ``status``: ``rated`` is true only for a
    result rated, false for a friendly, blank for one not rated yet (waiting or disputed)."""
    status = body.get("status") or (RATED if body.get("rated", True) else FRIENDLY)
    return {"rated": {RATED: "true", FRIENDLY: "false"}.get(status, ""), "status": status}


def cell_person(row: Row, column: str) -> PlayerRef:
    """The player named in ``column``, with the federation number of ``column_id`` when the file has it."""
    name = " ".join(row.get(column).split())
    if not name:
        raise RowError(_("%(column)s is empty.") % {"column": column})
    return PlayerRef(name=name, federation_id=row.get(f"{column}_id"))


def person_cells(column: str, person: PlayerRef) -> dict[str, str]:
    return {column: person.name, f"{column}_id": person.federation_id}
