"""Exporting a game's results: the files ``import_results`` reads back (``games.importing``).

Every result that counts (not voided), oldest first, as the body that would
submit it again (``matches.selectors.match_as_body``) with its people named
(``PlayerRef``: name and federation number) and its ``status`` as it is
(``result_status``: a result waiting for its rating or a second referee, or
disputed, is never called rated): CSV in the kind's columns, or a
JSON dump of the game (its settings and leagues, the players, the results),
from which an import into an empty game gives the same ratings.

An *export filter* (``ExportFilter``, built by ``export_filter``) narrows the
results to one league of the game and a range of dates: ``date_from`` and
``date_to`` are calendar days in the club's zone (``TIME_ZONE``), both
included. The files are written as they are read (``export_csv_pieces``,
``export_json_pieces``), a few hundred results at a time, so a 100,000-result
history is streamed, never held whole. Federation numbers are the club's data:
``with_ids=False`` leaves them out (a public download); the JSON dump always
carries them and is the staff's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from config.csvout import csv_lines
from games.csvio import DISPUTED, FRIENDLY, RATED, VOID, WAITING
from games.importing import DUMP_FORMAT
from games.imports import PlayerRef
from leagues.models import Game, League, Player
from matches.models import Match
from matches.selectors import match_as_body

CHUNK = 500  # results read per query (with their parts) and people looked up per query
# The days a filter takes: wide enough for any club's history, and clear of the calendar's ends, where a
# day's start in the club's zone would not convert to UTC.
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2999, 12, 31)


@dataclass(frozen=True)
class ExportFilter:
    """Which of a game's results an export holds: all of them, or one league's, between two days."""

    league: League | None = None
    date_from: date | None = None
    date_to: date | None = None

    def slug(self) -> str:
        """The filter in a file name: ``-slaps-pro-2026-01-01-2026-03-31``, or empty."""
        parts = [self.league.slug] if self.league else []
        if self.date_from or self.date_to:
            parts += [str(self.date_from or "start"), str(self.date_to or "now")]
        return "".join(f"-{part}" for part in parts)


def export_filter(
    *, game: Game, league: str | None = None, date_from: str | None = None, date_to: str | None = None
) -> ExportFilter:
    """The filter of a command's options or a query's parameters (text); ``ValidationError`` naming
    ``league``, ``from`` or ``to`` when one is not a league of the game or a date (YYYY-MM-DD)."""
    errors: dict[str, list[str]] = {}
    league_obj = None
    if league:
        league_obj = League.objects.filter(game=game, slug=league[:100]).first()
        if league_obj is None:
            slugs = ", ".join(League.objects.filter(game=game).order_by("slug").values_list("slug", flat=True))
            errors["league"] = [
                _("%(game)s has no league %(league)s: its leagues are %(slugs)s.")
                % {"game": game.name, "league": repr(league[:50]), "slugs": slugs}
            ]
    days = {}
    for name, value in (("from", date_from), ("to", date_to)):
        if value:
            try:
                day = date.fromisoformat(value)
            except ValueError:
                errors[name] = [_("%(value)s is not a date such as 2026-03-31.") % {"value": repr(value[:30])}]
                continue
            if not FIRST_DAY <= day <= LAST_DAY:
                errors[name] = [_("A day from %(first)s to %(last)s.") % {"first": FIRST_DAY, "last": LAST_DAY}]
                continue
            days[name] = day
    if "from" in days and "to" in days and days["from"] > days["to"]:
        errors["to"] = [_("%(to)s is before from (%(from)s).") % {"to": days["to"], "from": days["from"]}]
    if errors:
        raise ValidationError(errors)
    return ExportFilter(league=league_obj, date_from=days.get("from"), date_to=days.get("to"))


def _start_of(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(settings.TIME_ZONE))


def export_matches(game: Game, which: ExportFilter = ExportFilter()):
    """The game's results that count, in the filter, oldest first (ledger order), with what a body reads."""
    matches = (
        Match.objects.filter(game=game)
        .exclude(status=Match.Status.VOID)
        .select_related("game", "league")
        .prefetch_related("seats__bot", *game.kind.parts)
        .order_by("played_at", "id")
    )
    if which.league is not None:
        matches = matches.filter(league=which.league)
    if which.date_from is not None:
        matches = matches.filter(played_at__gte=_start_of(which.date_from))
    if which.date_to is not None:
        matches = matches.filter(played_at__lt=_start_of(which.date_to + timedelta(days=1)))
    return matches


def result_status(match: Match) -> str:
    """What a result is now (``games.csvio.STATUSES``): ``void``; ``disputed`` by a second referee;
    ``rated``; ``friendly`` (``rated`` false: never rated); else ``waiting`` (for a second referee, the
    close of its rating period or the rating task)."""
    if match.status == Match.Status.VOID:
        return VOID
    if match.disputed_at is not None:
        return DISPUTED
    if match.status == Match.Status.RATED:
        return RATED
    if match.status == Match.Status.FRIENDLY or not match.rated:
        return FRIENDLY
    return WAITING


def export_bodies(game: Game, which: ExportFilter = ExportFilter()) -> Iterator[dict[str, Any]]:
    """The results as bodies naming players by id, with their ``status``, oldest first, a chunk at a time."""
    for match in export_matches(game, which).iterator(chunk_size=CHUNK):
        yield {**match_as_body(match), "status": result_status(match)}


def _chunks(items: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _named(game: Game, bodies: Iterable[dict[str, Any]], *, with_ids: bool) -> Iterator[dict[str, Any]]:
    """The bodies with each player id replaced by a ``PlayerRef`` (one query per chunk of bodies)."""
    for chunk in _chunks(bodies):
        ids: set[int] = set()
        for body in chunk:
            game.kind.body_players(body, ids.add)
        refs = {
            pk: PlayerRef(name, federation_id if with_ids else "")
            for pk, name, federation_id in Player.objects.filter(pk__in=ids).values_list("pk", "name", "federation_id")
        }
        for body in chunk:
            yield game.kind.body_players(body, refs.__getitem__)


def export_csv_pieces(game: Game, which: ExportFilter = ExportFilter(), *, with_ids: bool = True) -> Iterator[str]:
    """The CSV the kind reads, piece by piece; a result of the entry league leaves ``league`` blank (the
    file's default), so the file moves to another game."""
    entry = League.objects.filter(game=game, tier=League.Tier.AMATEUR).values_list("slug", flat=True).first()
    bodies = (
        {key: value for key, value in body.items() if not (key == "league" and value == entry)}
        for body in export_bodies(game, which)
    )
    return csv_lines(game.kind.csv_columns, game.kind.csv_cells(_named(game, bodies, with_ids=with_ids)))


def export_json_pieces(game: Game, which: ExportFilter = ExportFilter()) -> Iterator[str]:
    """The JSON dump, piece by piece: the game and its leagues, the results (a line each), then the players
    they name (collected on the way: only their ids are held)."""
    head = {
        "format": DUMP_FORMAT,
        "version": 1,
        "game": {
            "slug": game.slug,
            "name": game.name,
            "rating_system": game.rating_system,
            "parameters": game.parameters,
            "start_rating": str(game.start_rating),
        },
        "leagues": [
            {
                "slug": league.slug,
                "name": league.name,
                "tier": league.tier,
                "promotion_threshold": _text(league.promotion_threshold),
                "rating_floor": _text(league.rating_floor),
                "rating_period_days": league.rating_period_days,
            }
            for league in League.objects.filter(game=game).order_by("tier", "slug")
        ],
    }
    opening = json.dumps(head, ensure_ascii=False, indent=1, default=str)
    yield opening[: opening.rindex("}")].rstrip() + ',\n "results": ['
    ids: set[int] = set()
    separator = "\n  "
    for chunk in _chunks(export_bodies(game, which)):
        lines = []
        for body in chunk:
            game.kind.body_players(body, ids.add)
            lines.append(separator + json.dumps(body, ensure_ascii=False, default=str))
            separator = ",\n  "
        yield "".join(lines)
    yield '\n ],\n "players": ['
    ordered = sorted(ids)
    separator = "\n  "
    for start in range(0, len(ordered), CHUNK):
        rows = Player.objects.filter(pk__in=ordered[start : start + CHUNK]).order_by("pk")
        lines = []
        for pk, name, federation_id in rows.values_list("pk", "name", "federation_id"):
            player = {"id": pk, "name": name, "federation_id": federation_id}
            lines.append(separator + json.dumps(player, ensure_ascii=False))
            separator = ",\n  "
        yield "".join(lines)
    yield "\n ]\n}\n"


def _text(value) -> str | None:
    return None if value is None else str(value)
