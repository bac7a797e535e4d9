"""Writing CSV for people's spreadsheets: cells safe from formulas, rows streamed, a download's headers.

Shared plumbing (it imports no app): the games' result files
(``games.csvio``) and the ratings' leaderboard and history files
(``ratings.exports``) write through it, so every CSV the site gives out
escapes cells the same way. A text cell a spreadsheet would run as a formula
(starting ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: CSV
injection, OWASP) is written with a leading apostrophe; numbers are written
as they are (a rating delta of -12 stays a number, whists of -3 too). A
text that only looks escaped (``'=x``: apostrophes, then a formula's start)
takes one more apostrophe, so ``csv_uncell`` gives every text back byte for
byte. Downloads are UTF-8
with a byte order mark, so Excel reads accented names right; the importer
reads it back (``utf-8-sig``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from urllib.parse import quote

from django.http import StreamingHttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"
ROWS_PER_CHUNK = 500  # rows joined into one piece of a streamed answer: fewer writes, still little memory


def csv_cell(value: object) -> str:
    """A value as a cell: numbers as they are, other text defused when a spreadsheet would run it."""
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return str(value)
    text = "" if value is None else str(value)
    return f"'{text}" if text.lstrip("'").startswith(FORMULA_STARTS) else text


def csv_uncell(cell: str) -> str:
    """The text ``csv_cell`` wrote: one leading apostrophe off a cell that, without its apostrophes, starts
    like a formula (``'=x`` is ``=x``, ``''=x`` is ``'=x``); any other cell as it is (``'tis``)."""
    return cell[1:] if cell.startswith("'") and cell.lstrip("'").startswith(FORMULA_STARTS) else cell


def csv_lines(columns: tuple[str, ...], rows: Iterable[Mapping[str, object]]) -> Iterator[str]:
    """The CSV of ``rows`` under a header of ``columns``, a few hundred rows per piece, as it is read."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for count, row in enumerate(rows, start=1):
        writer.writerow([csv_cell(row.get(column, "")) for column in columns])
        if count % ROWS_PER_CHUNK == 0:
            yield _take(out)
    text = _take(out)
    if text:
        yield text


def _take(out: io.StringIO) -> str:
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text


def with_bom(pieces: Iterable[str]) -> Iterator[str]:
    yield BOM
    yield from pieces


def download(pieces: Iterable[str], *, filename: str, content_type: str = "text/csv") -> StreamingHttpResponse:
    """A streamed file answer: sent as it is written, so a 100,000-row file never sits in memory whole."""
    response = StreamingHttpResponse(
        (piece.encode("utf-8") for piece in pieces), content_type=f"{content_type}; charset=utf-8"
    )
    ascii_name = filename.encode("ascii", "replace").decode().replace("?", "_").replace('"', "_")
    response["Content-Disposition"] = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"
    return response
