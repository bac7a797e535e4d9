"""Importing a club's history: read a file into a plan, match its people, store it all or nothing.

``import_plan_read`` reads a file in one of the game's formats (its kind's
``import_readers``, and JSON, the dump ``games.exporting`` writes, for every
game) into an ``ImportPlan`` without storing anything. ``import_people_match``
says who each person named is: the player with their federation number, else
the one player with their name (case and spaces aside), else someone new;
several players with one name are ambiguous, and block the import: people are
never silently merged. ``import_apply`` stores the plan in one transaction
through the one write path (``matches.services.match_record``), as
``demo_data`` does, then rates the game once: any error rolls everything back.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import tzinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Lower

from games.imports import ImportPlan, PlayerRef, Problem
from leagues.kinds import KINDS
from leagues.models import Game, League, Player
from leagues.services import player_create
from matches.cleaning import ResultBatch
from matches.services import match_record
from matches.versions import results_version_bump
from ratings.services import ratings_process_game

DUMP_FORMAT = "cardrank-results"
QUERY_CHUNK = 1000  # numbers or names per query: an IN list of a 100,000-player history stays small


class ImportRefused(Exception):
    """The import stores nothing: these problems block it."""

    def __init__(self, problems: list[Problem]):
        super().__init__("; ".join(f"{problem.where}: {problem.message}" for problem in problems))
        self.problems = problems


#: The formats every game may read, as a kind's ``importer_files`` gives its own: its CSV (when it has
#: one) and the JSON dump.
SHARED_FILES = {"csv": (".csv", "CSV (the game's columns)"), "json": (".json", "JSON (a Cardrank dump)")}


def import_files() -> dict[str, tuple[str, str]]:
    """Every format a registered game reads, by name: (the file extension that names it, its label)."""
    files = dict(SHARED_FILES)
    for kind in KINDS.values():
        files.update(kind.importer_files)
    return files


def import_format_for(filename: str) -> str | None:
    """The format a file's extension names (``import_files``), or None: then the format must be named."""
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return next((name for name, (extension, _) in import_files().items() if extension == suffix), None)


def import_formats(game: Game) -> dict[str, Callable[..., ImportPlan]]:
    return {**game.kind.import_readers(), "json": _json_read}


def import_plan_read(*, game: Game, format: str, data: bytes, zone: tzinfo | None = None) -> ImportPlan:
    """The plan of a file in ``format``; ``ValueError`` for a format the game does not read or a file too big."""
    readers = import_formats(game)
    if format not in readers:
        raise ValueError(f"{game.name} results cannot be read as {format!r}: the formats are {', '.join(readers)}.")
    limit = settings.CARDRANK_IMPORT_MAX_BYTES
    if len(data) > limit:
        raise ValueError(
            f"The file is {len(data):,} bytes; imports take at most {limit:,} (CARDRANK_IMPORT_MAX_BYTES)."
        )
    return readers[format](data, game=game, zone=zone)


def name_key(name: str) -> str:
    """A name as matching compares it: one spelling (NFC), single spaces, any case."""
    return unicodedata.normalize("NFC", " ".join(name.split())).lower()


@dataclass
class PeopleMatch:
    """Who each person a plan names is: an existing player, someone new (one per key), or ambiguous."""

    matched: dict[PlayerRef, Player] = field(default_factory=dict)
    new: dict[PlayerRef, tuple[str, str]] = field(default_factory=dict)  # the new person's key
    ambiguous: dict[PlayerRef, list[Player]] = field(default_factory=dict)

    @property
    def problems(self) -> list[Problem]:
        return [
            Problem(
                f"player {ref.name!r}",
                f"{len(players)} players have this name (ids {', '.join(str(p.pk) for p in players)}): "
                "give their federation numbers in the file, or rename one.",
            )
            for ref, players in self.ambiguous.items()
        ]

    @property
    def new_people(self) -> list[PlayerRef]:
        """One ``PlayerRef`` per new person (the first that names them), in the order they first appear."""
        first: dict[tuple[str, str], PlayerRef] = {}
        for ref, key in self.new.items():
            first.setdefault(key, ref)
        return list(first.values())


def import_people_match(plan: ImportPlan) -> PeopleMatch:
    """Who each person ``plan`` names is (module docstring); two queries per thousand people, whatever the file."""
    people = plan.people()
    numbers = sorted({ref.federation_id for ref in people if ref.federation_id})
    keys = sorted({name_key(ref.name) for ref in people})
    by_number: dict[str, Player] = {}
    by_name: dict[str, list[Player]] = {}
    for start in range(0, len(numbers), QUERY_CHUNK):
        for player in Player.objects.filter(federation_id__in=numbers[start : start + QUERY_CHUNK]):
            by_number[player.federation_id] = player
    for start in range(0, len(keys), QUERY_CHUNK):
        chunk = keys[start : start + QUERY_CHUNK]
        for player in Player.objects.annotate(key=Lower("name")).filter(key__in=chunk).order_by("id"):
            by_name.setdefault(name_key(player.name), []).append(player)
    matching = PeopleMatch()
    for ref in people:
        if ref.federation_id and ref.federation_id in by_number:
            matching.matched[ref] = by_number[ref.federation_id]
            continue
        same_name = by_name.get(name_key(ref.name), [])
        if ref.federation_id:
            # A player with another number is another person of the same name.
            same_name = [player for player in same_name if not player.federation_id]
        if len(same_name) == 1:
            matching.matched[ref] = same_name[0]
        elif same_name:
            matching.ambiguous[ref] = same_name
        else:
            matching.new[ref] = ("number", ref.federation_id) if ref.federation_id else ("name", name_key(ref.name))
    return matching


@dataclass
class ImportSummary:
    """What an import stored (or, in a dry run, would store): results, players matched and new, matches rated."""

    results: int
    matched: int
    new: int
    rated: int = 0


class _DryRun(Exception):
    """Raised at the end of a dry run's transaction, to roll it back."""


def import_apply(
    *,
    plan: ImportPlan,
    game: Game,
    referee,
    league: League | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Store every result of ``plan`` in ``game`` (under ``league`` when given), or nothing.

    Raises ``ImportRefused`` with the problems when the plan has blocking
    ones, a name is ambiguous, or a result is refused when stored (a
    ``ValidationError`` of one body: its place in the file and the message).
    A dry run stores everything, without rating, then rolls it back: what
    it reports is what the import would do.
    """
    if plan.blocking:
        raise ImportRefused(plan.blocking)
    matching = import_people_match(plan)
    if matching.ambiguous:
        raise ImportRefused(matching.problems)
    summary = ImportSummary(
        results=len(plan.results),
        matched=len({player.pk for player in matching.matched.values()}),
        new=len(matching.new_people),
    )
    try:
        with transaction.atomic():
            ids = _people_store(matching)
            batch = ResultBatch()
            for index, body in enumerate(plan.results):
                data = {**game.kind.body_players(body, lambda ref: ids[ref]), "game": game.slug}
                if league is not None:
                    data["league"] = league.slug
                try:
                    match_record(referee=referee, data=data, queue_rating=False, batch=batch)
                except ValidationError as error:
                    where = plan.sources[index] if index < len(plan.sources) else f"result {index + 1}"
                    raise ImportRefused([Problem(where, _messages(error))]) from error
                if progress is not None:
                    progress(index + 1, len(plan.results))
            if dry_run:
                raise _DryRun
            results_version_bump(game_ids=[game.pk])  # once for the batch, last (match_record's batch)
            summary.rated = ratings_process_game(game_id=game.pk)
    except _DryRun:
        pass
    return summary


def _people_store(matching: PeopleMatch) -> dict[PlayerRef, int]:
    """Each person's player id: new people created (once each), a matched player's missing number kept."""
    ids = {ref: player.pk for ref, player in matching.matched.items()}
    for ref, player in matching.matched.items():
        if ref.federation_id and not player.federation_id:
            Player.objects.filter(pk=player.pk).update(federation_id=ref.federation_id)
    created: dict[tuple[str, str], int] = {}
    for ref in matching.new_people:
        try:
            created[matching.new[ref]] = player_create(name=ref.name, federation_id=ref.federation_id).pk
        except ValidationError as error:
            raise ImportRefused([Problem(f"player {ref.name[:100]!r}", _messages(error))]) from error
    ids.update({ref: created[key] for ref, key in matching.new.items()})
    return ids


def _messages(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
    return " ".join(error.messages)


def _json_read(data: bytes, *, game: Game, zone: tzinfo | None) -> ImportPlan:
    """A dump from ``export_results --format json`` (``games.exporting``), of this game or another of its kind."""
    try:
        dump = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return ImportPlan(problems=[Problem("file", "The file is not UTF-8 text.")])
    except json.JSONDecodeError as error:
        return ImportPlan(problems=[Problem(f"line {error.lineno}", f"Not JSON: {error.msg}.")])
    if not isinstance(dump, dict) or dump.get("format") != DUMP_FORMAT:
        return ImportPlan(problems=[Problem("file", f'Not a Cardrank dump: "format" is not {DUMP_FORMAT!r}.')])
    source = dump.get("game") or {}
    if source.get("rating_system") != game.rating_system:
        return ImportPlan(
            problems=[Problem("game", f"A dump of a {source.get('rating_system')!r} game, not of {game.name}.")]
        )
    try:
        people = {
            row["id"]: PlayerRef(str(row["name"]), str(row.get("federation_id") or "")) for row in dump["players"]
        }
        tiers = {row["slug"]: row["tier"] for row in dump.get("leagues", [])}
        results = list(dump["results"])
    except (KeyError, TypeError) as error:
        return ImportPlan(problems=[Problem("file", f"The dump lacks {error}.")])
    leagues = dict(League.objects.filter(game=game).values_list("tier", "slug"))
    own = set(leagues.values())
    plan = ImportPlan()
    twins = [ref for ref, count in Counter(people.values()).items() if count > 1]
    for ref in twins:
        # Two players of the dump would become one: the file cannot tell them apart.
        plan.problems.append(
            Problem(
                f"player {ref.name[:100]!r}", "The dump has two players of this name and number: give them numbers."
            )
        )
    for number, body in enumerate(results, start=1):
        where = f"result {number}"
        try:
            body = game.kind.body_players(body, lambda player_id: people[player_id])
        except (KeyError, TypeError, AttributeError):
            plan.problems.append(Problem(where, "It names a player the dump's players do not list."))
            continue
        league = body.get("league")
        if league in tiers and league not in own:
            # The same tier of this game: a dump moves to another game with its leagues' shape.
            body["league"] = leagues.get(tiers[league], league)
        plan.results.append({**body, "game": game.slug})
        plan.sources.append(where)
    return plan
