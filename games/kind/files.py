"""The files part of a kind: the game's file formats, read into an import and written by an export.

Who calls it: the importers and exporters (``games.importing``: a file read
into an ``ImportPlan``, a result recognised as one already stored;
``games.exporting``, ``games.export_files``: the JSON dump and the CSV), the
export's API, and a player's history CSV (``ratings.exports``, the
``opponents`` column).

What a game overrides: for a CSV, ``csv_columns``, ``csv_read`` and
``csv_cells``; for a scoring program's files, ``importers`` and
``importer_files``; ``body_players`` when its body names players beyond
``players``; ``history_opponents`` when a ledger row's opponents are not
every other seat; ``result_key`` when some of its fields are not the result.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import Any, BinaryIO, ClassVar

from django.utils.dateparse import parse_datetime

from games.imports import ImportPlan, file_bytes
from leagues.models import Game
from matches.models import Match


class FilesPart:
    """What the importers and exporters ask of a game: its formats, its CSV, the players a body names."""

    #: The file formats the game's results import from, by name (``--format``): each reads a file's
    #: bytes into an ``ImportPlan`` (results as API bodies naming ``PlayerRef`` people, and problems),
    #: storing nothing. None by default.
    importers: ClassVar[dict[str, Callable[[bytes], ImportPlan]]] = {}

    #: Each of ``importers``' formats, by name: the file extension that names it and its label on admin's
    #: upload form (``games.importing.import_files``), e.g. ``{"pbn": (".pbn", "PBN (a scoring program's)")}``.
    #: A format not listed here is still read when named, but never guessed from a file's name.
    importer_files: ClassVar[dict[str, tuple[str, str]]] = {}

    #: The game's CSV of results, written and read in these columns (``games/<x>/csv.py``); none: no CSV.
    csv_columns: ClassVar[tuple[str, ...]] = ()

    def csv_read(self, data: bytes | BinaryIO, *, game: Game, zone: tzinfo | None) -> ImportPlan:
        """A CSV file of results as an ``ImportPlan`` (times without a zone read in ``zone``, or refused),
        read as a stream, a line at a time (``games.csvio.csv_rows``)."""
        raise NotImplementedError(f"{self!r} has no CSV.")

    def import_readers(self) -> dict[str, Callable[..., ImportPlan]]:
        """The game's own file formats, by name: ``reader(data, *, game, zone) -> ImportPlan``
        (``games.importing`` adds JSON, which every game has): its CSV, and its ``importers``."""
        readers: dict[str, Callable[..., ImportPlan]] = {"csv": self.csv_read} if self.csv_columns else {}
        for name, parse in self.importers.items():
            # A scoring program's file carries its own dates: the game and the zone are not asked. It is
            # read whole (an XML tree, a PBN file's tags), within the import's size limit.
            readers[name] = lambda data, *, game, zone, parse=parse: parse(file_bytes(data))
        return readers

    def body_players(self, body: dict[str, Any], swap: Callable[[Any], Any]) -> dict[str, Any]:
        """``body`` with each player in it (an id, a ``PlayerRef``) replaced by ``swap(player)``: the export
        names people, an import gives their ids. A game of seats only lists them in ``players``."""
        return {**body, "players": [swap(player) for player in body["players"]]}

    def csv_cells(self, bodies: Iterable[dict[str, Any]]) -> Iterator[dict[str, object]]:
        """The CSV's rows (cells by ``csv_columns`` name) of result bodies whose players are ``PlayerRef``s,
        made as ``bodies`` is read: the export streams them (``games.exporting``)."""
        raise NotImplementedError(f"{self!r} has no CSV.")

    def history_opponents(self, match: Match, player_id: int, unit: int) -> list[str]:
        """Whom ``player_id`` played in ``unit`` of ``match`` (one ledger row), by name: the ``opponents``
        column of a player's history CSV (``ratings.exports``). The match comes with its seats (players
        and bots) and its parts read (``matches.selectors.match_detail_queryset``). A game of seats:
        every other seat."""
        return [seat.occupant.name for seat in match.seats.all() if seat.player_id != player_id]

    def result_key(self, body: Mapping[str, Any]) -> Hashable:
        """What makes two results one played result, for an import to recognise one already stored.

        ``body`` is in the form ``input_body`` and ``stored_body`` give (with ``played_at``, ``rated``,
        ``league`` and ``game`` beside: ``matches.bodies.match_input_as_body``, ``matches.selectors.match_as_body``).
        Two results with equal keys at the same ``played_at`` in one game are the same result
        (``games.importing.import_apply`` skips the file's copy). This default is every field but the
        filing (``game``, ``league``, ``rated``): the time, the players and the scores, as canonical JSON
        with numbers compared as numbers (``4``, ``4.0`` and ``Decimal("4.00")`` are one whist). A kind
        narrows it when some of its fields are not the result (bridge: only players and scores).
        """
        kept = {name: value for name, value in body.items() if name not in ("game", "league", "rated")}
        played_at = kept.get("played_at")
        if isinstance(played_at, str):
            played_at = parse_datetime(played_at)
        if isinstance(played_at, datetime):
            kept["played_at"] = played_at.astimezone(UTC).isoformat()
        return json.dumps(_plain(kept), sort_keys=True, separators=(",", ":"))


def _plain(value: Any) -> Any:
    """``value`` with every number a float (not a bool) and tuples as lists: what ``result_key`` compares."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | Decimal):
        return float(value) + 0.0  # + 0.0: -0.0 is 0.0
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value)
