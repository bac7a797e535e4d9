"""Importing a club's history: read a file into a plan, match its people, store it all or nothing, once.

``import_plan_read`` reads a file in one of the game's formats (its kind's
``import_readers``, and JSON, the dump ``games.exporting`` writes, for every
game) into an ``ImportPlan`` without storing anything. ``import_people_match``
says who each person named is: the player with their federation number (if
the names agree, ``name_same``), else the one player with their name (case
and spaces aside), else someone new. Several players with one name are
ambiguous, and a number whose player has another name, or one player
without a number whom namesakes with different numbers would share, is a
conflict: both block the import until resolved (a conflict by the admin's
"same person", ``same_person``): people are never silently joined.
``import_apply`` stores the plan in one transaction through the one write
path (``matches.services.match_record_many``: every result cleaned as
``match_record`` cleans it, the rows written a thousand results at a time),
then rates the game once: any error rolls everything back. The same file (its SHA-256,
``ImportedFile``) is imported once per game, and a result already stored is
skipped (``games.base.BaseKind.result_key``); a corrected file replaces the
results it corrects only when asked (``replace``). ``import_preview`` is what
the command prints and admin's preview shows.
"""

from __future__ import annotations

import hashlib
import io
import json
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, BinaryIO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from config.permissions import user_can_void
from games.imports import ImportPlan, PlayerRef, Problem, at_file, at_line, at_player, at_result, file_bytes
from games.models import ImportedFile
from leagues.kinds import KINDS
from leagues.models import Game, League, Player
from leagues.services import PlayerRefused, players_create
from matches.bodies import match_input_as_body
from matches.cleaning import ResultBatch, match_clean
from matches.models import Match
from matches.selectors import match_as_body, match_detail_queryset, matches_parts_read
from matches.services import BatchItemRefused, match_correct_record, match_record_many
from matches.versions import results_version_bump
from ratings.services import ratings_process_game

DUMP_FORMAT = "cardrank-results"
QUERY_CHUNK = 1000  # numbers, names or times per query: an IN list of a 100,000-player history stays small
PROBLEMS_AT_MOST = 500  # rows of problems a preview lists; the counts are whole


class ImportRefused(Exception):
    """The import stores nothing: these problems block it."""

    def __init__(self, problems: list[Problem]):
        super().__init__("; ".join(f"{problem.where}: {problem.message}" for problem in problems))
        self.problems = problems


#: The formats every game may read, as a kind's ``importer_files`` gives its own: its CSV (when it has
#: one) and the JSON dump.
SHARED_FILES = {
    "csv": (".csv", gettext_lazy("CSV (the game's columns)")),
    "json": (".json", gettext_lazy("JSON (a Cardrank dump)")),
}


def import_files() -> dict[str, tuple[str, str]]:
    """Every format a registered game reads, by name: (the file extension that names it, its label)."""
    files = dict(SHARED_FILES)
    for kind in KINDS.values():
        files.update(kind.importer_files)
    return files


def import_format_for(filename: str) -> str | None:
    """The format a file's extension names (``import_files``), or None: then the format must be named."""
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return next((name for name, (extension, _label) in import_files().items() if extension == suffix), None)


def import_formats(game: Game) -> dict[str, Callable[..., ImportPlan]]:
    return {**game.kind.import_readers(), "json": _json_read}


def import_plan_read(*, game: Game, format: str, data: bytes | BinaryIO, zone: tzinfo | None = None) -> ImportPlan:
    """The plan of a file in ``format``; ``ValueError`` for a format the game does not read or a file too big.

    ``data`` is the file's bytes or the file itself, open for reading in binary from its start (the
    command's path, admin's kept upload): a CSV is read from it a line at a time, never whole.
    """
    readers = import_formats(game)
    if format not in readers:
        raise ValueError(
            _("%(game)s results cannot be read as %(format)s: the formats are %(formats)s.")
            % {"game": game.name, "format": repr(format), "formats": ", ".join(readers)}
        )
    limit = settings.CARDRANK_IMPORT_MAX_BYTES
    size = _size(data)
    if size > limit:
        raise ValueError(
            _("The file is %(size)s bytes; imports take at most %(limit)s (CARDRANK_IMPORT_MAX_BYTES).")
            % {"size": number_format(size, force_grouping=True), "limit": number_format(limit, force_grouping=True)}
        )
    return readers[format](data, game=game, zone=zone)


def _size(data: bytes | BinaryIO) -> int:
    if isinstance(data, bytes | bytearray | memoryview):
        return len(data)
    start = data.tell()
    size = data.seek(0, io.SEEK_END) - start
    data.seek(start)
    return size


def name_key(name: str) -> str:
    """A name as matching compares it: one spelling (NFC), single spaces, any case."""
    return unicodedata.normalize("NFC", " ".join(name.split())).lower()


def name_words(name: str) -> tuple[str, ...]:
    """A name's words as a number's check compares them: without accents, case or punctuation, in any order.

    "SALOMAA Mika", "Mika Salomaa", "mika salomaa" and "Salomaa, Míka" are one name; "Egil Hansen" is
    another. Looser than ``name_key`` (which finds players by name, in the database): this only says
    whether the name a file gives with a federation number is the name of the player holding it.
    """
    text = unicodedata.normalize("NFKD", name)
    text = "".join(char for char in text if not unicodedata.combining(char)).casefold()
    return tuple(sorted("".join(char if char.isalnum() else " " for char in text).split()))


def name_same(first: str, second: str) -> bool:
    return name_words(first) == name_words(second)


@dataclass(frozen=True)
class Conflict:
    """A person the import will not match without the admin's word (``same_person``).

    ``why`` is ``"number"``: the player holding the file's number has another name (``name_same``); or
    ``"name"``: a player without a number has the name, and the file gives it to several people with
    different numbers, only one of whom can be that player.
    """

    ref: PlayerRef
    player: Player
    why: str


#: How a person was matched (``PeopleMatch.how``).
BY_NUMBER, BY_NAME = "number", "name"
BY_NUMBER_CONFIRMED, BY_NAME_CONFIRMED = "number, confirmed the same person", "name, confirmed the same person"
#: How a person was matched, as the preview says it ("by number").
HOW_WORDS = {
    BY_NUMBER: pgettext_lazy("matched by", "number"),
    BY_NAME: pgettext_lazy("matched by", "name"),
    BY_NUMBER_CONFIRMED: pgettext_lazy("matched by", "number, confirmed the same person"),
    BY_NAME_CONFIRMED: pgettext_lazy("matched by", "name, confirmed the same person"),
}


@dataclass
class PeopleMatch:
    """Who each person a plan names is: an existing player (and how found), someone new (one per key),
    ambiguous (several players have the name), or a conflict waiting for the admin's confirmation."""

    matched: dict[PlayerRef, Player] = field(default_factory=dict)
    how: dict[PlayerRef, str] = field(default_factory=dict)  # BY_NUMBER, BY_NAME, or confirmed
    new: dict[PlayerRef, tuple[str, str]] = field(default_factory=dict)  # the new person's key
    ambiguous: dict[PlayerRef, list[Player]] = field(default_factory=dict)
    conflicts: dict[PlayerRef, Conflict] = field(default_factory=dict)
    #: Other reasons the file's people cannot be told apart (one number given to two names).
    clashes: list[Problem] = field(default_factory=list)
    #: Numbers confirmed as the same person that matched no conflict: a note (a typo confirms nothing).
    unused: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        problems = [
            Problem(
                at_player(repr(ref.name)),
                _(
                    "%(count)d players have this name (ids %(ids)s): give their federation numbers in the file, "
                    "or rename one."
                )
                % {"count": len(players), "ids": ", ".join(str(p.pk) for p in players)},
            )
            for ref, players in self.ambiguous.items()
        ]
        problems += [conflict_problem(conflict) for conflict in self.conflicts.values()]
        problems += self.clashes
        problems += [
            Problem(
                f"--same-person {number}",
                _("No person of the file with this number needs a confirmation: nothing was confirmed."),
                blocking=False,
            )
            for number in self.unused
        ]
        return problems

    @property
    def new_people(self) -> list[PlayerRef]:
        """One ``PlayerRef`` per new person (the first that names them), in the order they first appear."""
        first: dict[tuple[str, str], PlayerRef] = {}
        for ref, key in self.new.items():
            first.setdefault(key, ref)
        return list(first.values())


def conflict_problem(conflict: Conflict) -> Problem:
    ref, player = conflict.ref, conflict.player
    values = {"name": ref.name, "number": ref.federation_id, "id": player.pk, "player": player.name}
    if conflict.why == BY_NUMBER:
        message = _(
            "the file gives number %(number)s to %(name)s, but player #%(id)s %(player)s holds it. If they are one "
            "person, confirm it (same person: --same-person %(number)s); otherwise correct the number in the file."
        )
    else:
        message = _(
            "player #%(id)s %(player)s has no number, and the file names several people %(name)s with different "
            "numbers: confirm which one is player #%(id)s (same person: --same-person %(number)s) and the others "
            "are created, or give player #%(id)s their number in admin."
        )
    return Problem(at_player(f"{ref.name!r} ({ref.federation_id})"), message % values)


def import_people_match(plan: ImportPlan, *, same_person: Iterable[str] = ()) -> PeopleMatch:
    """Who each person ``plan`` names is (module docstring); two queries per thousand people, whatever the file.

    ``same_person``: federation numbers whose conflict the admin confirmed (``Conflict``): the file's
    person with that number is the player the conflict names.
    """
    confirmed = {str(number).strip() for number in same_person if str(number).strip()}
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
    claims: dict[int, list[PlayerRef]] = {}  # a player without a number: the numbered people found by their name
    used: set[str] = set()
    for ref in people:
        number = ref.federation_id
        if number and number in by_number:
            player = by_number[number]
            if name_same(ref.name, player.name):
                matching.matched[ref], matching.how[ref] = player, BY_NUMBER
            elif number in confirmed:
                matching.matched[ref], matching.how[ref] = player, BY_NUMBER_CONFIRMED
                used.add(number)
            else:
                matching.conflicts[ref] = Conflict(ref, player, BY_NUMBER)
            continue
        same_name = by_name.get(name_key(ref.name), [])
        if number:
            # A player with another number is another person of the same name.
            same_name = [player for player in same_name if not player.federation_id]
        if len(same_name) == 1:
            matching.matched[ref], matching.how[ref] = same_name[0], BY_NAME
            if number:
                claims.setdefault(same_name[0].pk, []).append(ref)
        elif same_name:
            matching.ambiguous[ref] = same_name
        else:
            matching.new[ref] = ("number", number) if number else ("name", name_key(ref.name))
    for refs in claims.values():
        if len({ref.federation_id for ref in refs}) < 2:
            continue  # one number found this player by name: they take it
        # Namesakes with different numbers: only one can be the player without a number.
        chosen = [ref for ref in refs if ref.federation_id in confirmed]
        for ref in refs:
            player = matching.matched.pop(ref)
            matching.how.pop(ref)
            if len(chosen) != 1:
                matching.conflicts[ref] = Conflict(ref, player, BY_NAME)
            elif ref is chosen[0]:
                matching.matched[ref], matching.how[ref] = player, BY_NAME_CONFIRMED
                used.add(ref.federation_id)
            else:
                matching.new[ref] = ("number", ref.federation_id)
    # One number given to two different names in the file: one of them is wrong.
    named: dict[str, list[PlayerRef]] = {}
    for ref in people:
        if ref.federation_id:
            named.setdefault(ref.federation_id, []).append(ref)
    for number, refs in named.items():
        if any(not name_same(ref.name, refs[0].name) for ref in refs[1:]):
            matching.clashes.append(
                Problem(
                    _("number %(number)s") % {"number": number},
                    _("the file gives this number to %(names)s: a number is one person's. Correct the file.")
                    % {"names": ", ".join(ref.name for ref in refs[:5])},
                )
            )
    matching.unused = sorted(confirmed - used - {ref.federation_id for ref in matching.conflicts})
    return matching


@dataclass(frozen=True)
class ImportSource:
    """The file an import stores, and who imports it: recorded as an ``ImportedFile`` in the import's
    transaction, and in each result's audit entry (``source``)."""

    filename: str
    sha256: str
    size: int
    format: str
    via: str  # ImportedFile.Via
    user: Any = None  # who imports it; None: the command-line operator
    run_id: int | None = None

    @classmethod
    def of(
        cls, *, filename: str, data: bytes | BinaryIO, format: str, via: str, user=None, run_id=None
    ) -> ImportSource:
        """The source of a file given as its bytes or open in binary (read through in blocks, then back at
        its start: hashing it never holds it whole)."""
        if isinstance(data, bytes | bytearray | memoryview):
            sha256, size = hashlib.sha256(data).hexdigest(), len(data)
        else:
            start = data.tell()
            sha256 = hashlib.file_digest(data, "sha256").hexdigest()
            size = data.tell() - start
            data.seek(start)
        return cls(filename[:255], sha256, size, format, via, user, run_id)

    def audit(self) -> dict[str, Any]:
        """What each result's audit entry says of where it came from (``matches.services.match_record``)."""
        via = "command line" if self.via == ImportedFile.Via.COMMAND else "admin upload"
        return {
            "via": via,
            "file": self.filename,
            "sha256": self.sha256,
            "by": getattr(self.user, "pk", None),
            **({"run": self.run_id} if self.run_id else {}),
        }


def imported_file_seen(*, game: Game, sha256: str) -> Problem | None:
    """The blocking problem of a file already imported into ``game`` (by its bytes' SHA-256), or None."""
    record = ImportedFile.objects.filter(game=game, sha256=sha256).select_related("user").first()
    return None if record is None else Problem(at_file(), _already_imported(record, game))


def _already_imported(record: ImportedFile, game: Game) -> str:
    ids = sorted(record.matches.values_list("id", flat=True))
    values = {
        "date": timezone.localtime(record.imported_at).date().isoformat(),
        "noun": game.kind.result_noun if game.kind else "result",
        "first": ids[0] if ids else 0,
        "last": ids[-1] if ids else 0,
        "count": len(ids),
        "who": record.user.get_username() if record.user else _("the command line"),
    }
    if len(ids) == 1:
        message = _("This file was already imported on %(date)s as %(noun)s %(first)s (by %(who)s).")
    elif ids:
        message = _(
            "This file was already imported on %(date)s as results %(first)s to %(last)s (%(count)d, by %(who)s)."
        )
    else:
        message = _("This file was already imported on %(date)s (by %(who)s); its results were all stored before.")
    return (message % values) + " " + _("Nothing is stored twice.")


@dataclass
class ImportSummary:
    """What an import stored (or, in a dry run, would store).

    ``results`` the file holds; ``stored`` of them are new; ``duplicates`` (where in the file, the stored
    match) were already stored and are skipped; ``replaced`` (where, the stored match) correct a stored
    result (``replace``); ``matched`` and ``new`` players; ``rated`` matches rated.
    """

    results: int
    matched: int
    new: int
    rated: int = 0
    stored: int = 0
    duplicates: list[tuple[str, int]] = field(default_factory=list)
    replaced: list[tuple[str, int]] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)


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
    source: ImportSource | None = None,
    replace: bool = False,
    same_person: Iterable[str] = (),
) -> ImportSummary:
    """Store every result of ``plan`` in ``game`` (under ``league`` when given), or nothing.

    ``referee`` is recorded as the results' referee and their audit entries' actor: the person importing
    (None: the command-line operator, who has no account). ``source`` is the file: one already imported
    into the game is refused, and it is recorded (``ImportedFile``) in the same transaction, first, so
    a second import of it racing this one waits, then is refused. A result already stored (the same
    ``result_key`` at the same time, ``_stored_alike``) is skipped; with ``replace``, a result whose
    time holds exactly one other stored result corrects it (``match_correct_record``: replay, audit).

    Raises ``ImportRefused`` with the problems when the plan has blocking
    ones, the file was imported before, a name is ambiguous, a person waits
    for ``same_person``, or a result is refused when stored (a
    ``ValidationError`` of one body: its place in the file and the message).
    A dry run stores everything, without rating, then rolls it back: what
    it reports is what the import would do.
    """
    if plan.blocking:
        raise ImportRefused(plan.blocking)
    if source is not None and (seen := imported_file_seen(game=game, sha256=source.sha256)):
        raise ImportRefused([seen])
    if replace and referee is not None and not user_can_void(referee):
        raise ImportRefused(
            [
                Problem(
                    "replace",
                    _("Replacing stored results corrects them: %(user)s may not correct results.")
                    % {"user": referee.get_username()},
                )
            ]
        )
    matching = import_people_match(plan, same_person=same_person)
    if blocking := [problem for problem in matching.problems if problem.blocking]:
        raise ImportRefused(blocking)
    summary = ImportSummary(
        results=len(plan.results),
        matched=len({player.pk for player in matching.matched.values()}),
        new=len(matching.new_people),
        notes=[problem for problem in matching.problems if not problem.blocking],
    )
    audit = source.audit() if source is not None else None
    try:
        with transaction.atomic():
            record = _file_record(source, game) if source is not None else None
            batch = ResultBatch()
            ids = _people_store(matching, batch=batch)

            def body(index: int) -> dict[str, Any]:
                """The file's result ``index`` as the write path takes it: player ids, the game, the league."""
                data = {**game.kind.body_players(plan.results[index], lambda ref: ids[ref]), "game": game.slug}
                if league is not None:
                    data["league"] = league.slug
                return data

            duplicates, replacing = _stored_alike(game, plan, body, batch=batch, replace=replace, summary=summary)
            total, done = len(plan.results), 0
            for index in sorted(duplicates):
                summary.duplicates.append((_where(plan, index), duplicates[index]))
                done += 1
                if progress is not None:
                    progress(done, total)
            replaced = []
            for index in sorted(replacing):
                try:
                    match_correct_record(match_id=replacing[index], by=referee, data=body(index), source=audit)
                except ValidationError as error:
                    raise ImportRefused([Problem(_where(plan, index), _messages(error))]) from error
                summary.replaced.append((_where(plan, index), replacing[index]))
                replaced.append(replacing[index])
                done += 1
                if progress is not None:
                    progress(done, total)
            # The rest, new results, through the write path a chunk at a time (each cleaned, rows written together).
            fresh = (
                (index, body(index)) for index in range(total) if index not in duplicates and index not in replacing
            )
            stored = []
            try:
                for _index, match_id in match_record_many(referee=referee, items=fresh, batch=batch, source=audit):
                    stored.append(match_id)
                    done += 1
                    if progress is not None:
                        progress(done, total)
            except BatchItemRefused as refused:
                raise ImportRefused([Problem(_where(plan, refused.key), _messages(refused.error))]) from refused.error
            summary.stored = len(stored)
            if record is not None:
                ImportedFile.objects.filter(pk=record.pk).update(results=total, duplicates=len(duplicates))
                # The through rows directly, in batches: ``add`` would first look up 100,000 ids in one IN list.
                for relation, match_ids in ((ImportedFile.matches, stored), (ImportedFile.replaced, replaced)):
                    through = relation.through
                    through.objects.bulk_create(
                        (through(importedfile_id=record.pk, match_id=match_id) for match_id in match_ids),
                        batch_size=1000,
                    )
            if dry_run:
                raise _DryRun
            results_version_bump(game_ids=[game.pk])  # once for the batch, last (match_record_many's batch)
            summary.rated = ratings_process_game(game_id=game.pk)
    except _DryRun:
        pass
    return summary


def _where(plan: ImportPlan, index: int) -> str:
    return plan.sources[index] if index < len(plan.sources) else at_result(index + 1)


def _file_record(source: ImportSource, game: Game) -> ImportedFile:
    """The file's record, written first in the import's transaction (``ImportedFile``'s unique (game, sha256)).

    A second import of the same file in another transaction waits here for this one's commit, then
    fails the constraint: it is refused, naming what the first stored, before storing anything.
    """
    try:
        with transaction.atomic():
            return ImportedFile.objects.create(
                game=game,
                sha256=source.sha256,
                filename=source.filename,
                size=source.size,
                format=source.format,
                user=source.user,
                via=source.via,
                run_id=source.run_id,
            )
    except IntegrityError:
        seen = imported_file_seen(game=game, sha256=source.sha256)
        raise ImportRefused([seen or Problem(at_file(), _("This file is being imported by another import."))]) from None


def _played_at(value: Any) -> datetime | None:
    """A body's time as ``matches.cleaning`` reads it (an aware datetime), or None if it is not one."""
    if isinstance(value, str):
        try:
            value = parse_datetime(value.strip())
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return (timezone.make_aware(value) if timezone.is_naive(value) else value).astimezone(UTC)


def _stored_alike(
    game: Game,
    plan: ImportPlan,
    body: Callable[[int], dict],
    *,
    batch: ResultBatch,
    replace: bool,
    summary: ImportSummary,
) -> tuple[dict[int, int], dict[int, int]]:
    """The file's results already stored (index -> the stored match), and with ``replace`` those that
    replace a stored result (index -> the match they correct); ``body(index)`` is the file's result as
    the write path takes it.

    Compared with the game's stored results that count (not void) at the same ``played_at``, read in one
    query (and the parts' prefetches) per ``QUERY_CHUNK`` times; only a result whose time holds a stored
    one is cleaned here to compare it (``BaseKind.result_key`` of the two bodies). Equal keys are the same
    result, each stored one standing for one of the file's. What replaces what (docs/import.md): at a
    time where, duplicates aside, the file has one result and the game one stored result, the file's
    replaces the stored one; more than one on either side cannot be paired, and blocks the import.
    Without ``replace``, a stored result left beside a file's at the same time gets a note.
    """
    times: dict[datetime, list[int]] = {}
    for index, result in enumerate(plan.results):
        moment = _played_at(result.get("played_at"))  # the file's, as ``body`` keeps it
        if moment is not None:
            times.setdefault(moment, []).append(index)
    if not times:
        return {}, {}
    stored: dict[datetime, list[Match]] = {}
    moments = sorted(times)
    for start in range(0, len(moments), QUERY_CHUNK):
        chunk = moments[start : start + QUERY_CHUNK]
        queryset = match_detail_queryset().filter(game=game, played_at__in=chunk).exclude(status=Match.Status.VOID)
        found = list(queryset.order_by("id"))
        matches_parts_read(found)
        for match in found:
            stored.setdefault(match.played_at.astimezone(UTC), []).append(match)
    kind = game.kind
    duplicates: dict[int, int] = {}
    replacing: dict[int, int] = {}
    problems: list[Problem] = []
    for moment, matches in stored.items():
        waiting = {match.pk: kind.result_key(match_as_body(match)) for match in matches}
        left = []
        for index in times.get(moment, []):
            try:
                cleaned = match_clean(data=body(index), batch=batch)
            except ValidationError as error:
                raise ImportRefused([Problem(_where(plan, index), _messages(error))]) from error
            key = kind.result_key(match_input_as_body(cleaned))
            twin = next((pk for pk, stored_key in waiting.items() if stored_key == key), None)
            if twin is None:
                left.append(index)
            else:
                duplicates[index] = twin
                del waiting[twin]
        if not left or not waiting:
            continue
        others = ", ".join(f"#{pk}" for pk in list(waiting)[:5])
        if not replace:
            for index in left:
                summary.notes.append(
                    Problem(
                        f"{_where(plan, index)} ({others})",
                        _(
                            "a stored result at the same time differs from this one: both are kept (to replace it, "
                            "import with replace)."
                        ),
                        blocking=False,
                    )
                )
        elif len(left) == 1 and len(waiting) == 1:
            replacing[left[0]] = next(iter(waiting))
        else:
            problems.append(
                Problem(
                    ", ".join(_where(plan, index) for index in left[:5]),
                    _(
                        "%(file)d result(s) of the file and %(stored)d stored (%(ids)s) at %(time)s: which replaces "
                        "which cannot be told. Void the stored ones you mean to replace, or import without replace."
                    )
                    % {"file": len(left), "stored": len(waiting), "ids": others, "time": moment.isoformat()},
                )
            )
    if problems:
        raise ImportRefused(problems)
    return duplicates, replacing


def _people_store(matching: PeopleMatch, *, batch: ResultBatch) -> dict[PlayerRef, int]:
    """Each person's player id: new people created (once each, ``players_create``), a matched player's
    missing number kept; every one of them given to ``batch``, whose results then read no player again."""
    ids = {ref: player.pk for ref, player in matching.matched.items()}
    numbered: dict[int, Player] = {}
    for ref, player in matching.matched.items():
        if ref.federation_id and not player.federation_id:
            player.federation_id = ref.federation_id
            numbered[player.pk] = player
    Player.objects.bulk_update(numbered.values(), ["federation_id"], batch_size=QUERY_CHUNK)
    new = matching.new_people
    try:
        players = players_create(people=[(ref.name, ref.federation_id) for ref in new])
    except PlayerRefused as error:
        raise ImportRefused([Problem(at_player(repr(new[error.index].name[:100])), _messages(error))]) from error
    created = {matching.new[ref]: player.pk for ref, player in zip(new, players, strict=True)}
    ids.update({ref: created[key] for ref, key in matching.new.items()})
    batch.players_add([*matching.matched.values(), *players])
    return ids


#: People of each kind, and results, listed in a preview at most; the counts are whole. Every person of one
#: evening is listed (a bridge session seats at most 50 tables' 200 players); a club's history, its first.
LIST_AT_MOST = 250
#: Places listed for a group of problems with one message ("28 byes: line 120, line 145, ..."), at most.
PLACES_AT_MOST = 5


def problems_grouped(problems: Iterable[Problem]) -> list[dict[str, Any]]:
    """Problems with one message as one row: its count and its first places, blocking ones first.

    A session's 28 byes are one note "a bye ... (28)", not 28 lines; each row is
    ``{"message", "blocking", "count", "where": [the first PLACES_AT_MOST places], "more": count - listed}``.
    """
    groups: dict[tuple[bool, str], dict[str, Any]] = {}
    for problem in problems:
        group = groups.setdefault(
            (problem.blocking, problem.message),
            {"message": problem.message, "blocking": problem.blocking, "count": 0, "where": []},
        )
        group["count"] += 1
        if len(group["where"]) < PLACES_AT_MOST:
            group["where"].append(problem.where)
    for group in groups.values():
        group["more"] = group["count"] - len(group["where"])
    return sorted(groups.values(), key=lambda group: not group["blocking"])


def import_preview(
    plan: ImportPlan, matching: PeopleMatch, *, summary: ImportSummary | None = None, problems: list[Problem]
) -> dict[str, Any]:
    """What the command's output and admin's preview show of a file, as plain data (admin keeps it as JSON).

    What the file is (``plan.about``); the counts; each matched person with the player found (name, id,
    how), the new, the ambiguous and the conflicts waiting for a confirmation (each list at most
    ``LIST_AT_MOST``); with the dry run's ``summary``, the results already stored and those replaced;
    ``problems`` grouped (``problems_grouped``), and how many more the file has (``problems_more``: its
    reader kept the first ``games.imports.PROBLEMS_KEPT``, and counted the rest).
    """
    matched = list(matching.matched.items())
    numbered = [ref for ref, how in matching.how.items() if how in (BY_NUMBER, BY_NUMBER_CONFIRMED)]
    by_number = {matching.matched[ref].pk for ref in numbered}
    new = matching.new_people
    preview: dict[str, Any] = {
        "about": {str(key): str(value) for key, value in plan.about.items()},
        "results": len(plan.results),
        "matched": len({player.pk for _ref, player in matched}),
        "by_number": len(by_number),
        "by_name": len({player.pk for _ref, player in matched if player.pk not in by_number}),
        "new": len(new),
        "ambiguous": len(matching.ambiguous),
        "conflicts": len(matching.conflicts),
        "matched_people": [
            {
                "name": ref.name,
                "federation_id": ref.federation_id,
                "player": player.pk,
                "player_name": player.name,
                "how": str(HOW_WORDS.get(matching.how[ref], matching.how[ref])),
            }
            for ref, player in matched[:LIST_AT_MOST]
        ],
        "new_people": [{"name": ref.name, "federation_id": ref.federation_id} for ref in new[:LIST_AT_MOST]],
        "ambiguous_people": [
            {
                "name": ref.name,
                "federation_id": ref.federation_id,
                "candidates": [
                    {"id": player.pk, "name": player.name, "federation_id": player.federation_id} for player in players
                ],
            }
            for ref, players in list(matching.ambiguous.items())[:LIST_AT_MOST]
        ],
        "conflict_people": [
            {
                "name": ref.name,
                "federation_id": ref.federation_id,
                "player": conflict.player.pk,
                "player_name": conflict.player.name,
                "player_federation_id": conflict.player.federation_id,
                "why": conflict.why,
            }
            for ref, conflict in list(matching.conflicts.items())[:LIST_AT_MOST]
        ],
    }
    if summary is not None:
        preview["stored"] = summary.stored
        preview["duplicates"] = len(summary.duplicates)
        preview["replaced"] = len(summary.replaced)
        preview["duplicate_results"] = [
            {"where": where, "match": match_id} for where, match_id in summary.duplicates[:LIST_AT_MOST]
        ]
        preview["replaced_results"] = [
            {"where": where, "match": match_id} for where, match_id in summary.replaced[:LIST_AT_MOST]
        ]
    groups = problems_grouped(problems)
    preview["problems"] = groups[:PROBLEMS_AT_MOST]
    preview["problem_groups"] = len(groups)
    # The file's problems past the first PROBLEMS_KEPT were only counted while reading (``ProblemList``).
    preview["problems_more"] = plan.problems.more
    preview["problems_count"] = len(problems) + plan.problems.more
    preview["blocking"] = sum(1 for problem in problems if problem.blocking) + plan.problems.more_blocking
    return preview


def _messages(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
    return " ".join(error.messages)


def _json_read(data: bytes | BinaryIO, *, game: Game, zone: tzinfo | None) -> ImportPlan:
    """A dump from ``export_results --format json`` (``games.exporting``), of this game or another of its kind.

    A malformed file (not UTF-8, not JSON, nested deeper than ``DUMP_MAX_DEPTH``, a value of the wrong
    type where the dump has a list or an object) is a problem naming it, never an exception. Read whole
    (JSON is one value), within the import's size limit.
    """
    data = file_bytes(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return ImportPlan(problems=[Problem(at_line(line), _("The file is not UTF-8 text."))])
    try:
        dump = json.loads(text)
    except json.JSONDecodeError as error:
        return ImportPlan(problems=[Problem(at_line(error.lineno), _("Not JSON: %(error)s.") % {"error": error.msg})])
    except RecursionError:
        return ImportPlan(problems=[_too_deep()])
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        return ImportPlan(problems=[Problem(at_file(), _("The file holds a number too long to be read."))])
    if _deeper_than(dump, DUMP_MAX_DEPTH):
        return ImportPlan(problems=[_too_deep()])
    if not isinstance(dump, dict) or dump.get("format") != DUMP_FORMAT:
        return ImportPlan(
            problems=[
                Problem(
                    at_file(), _('Not a Cardrank dump: "format" is not %(format)s.') % {"format": repr(DUMP_FORMAT)}
                )
            ]
        )
    source = dump.get("game") or {}
    if not isinstance(source, dict) or source.get("rating_system") != game.rating_system:
        system = source.get("rating_system") if isinstance(source, dict) else None
        return ImportPlan(
            problems=[
                Problem(
                    pgettext("where a problem of an import is", "game"),
                    _("A dump of a %(system)s game, not of %(game)s.") % {"system": repr(system), "game": game.name},
                )
            ]
        )
    try:
        people = {
            _hashable(row["id"]): PlayerRef(_dump_text(row["name"]), _dump_text(row.get("federation_id") or ""))
            for row in _dump_list(dump["players"])
        }
        tiers = {_hashable(row["slug"]): _hashable(row["tier"]) for row in _dump_list(dump.get("leagues", []))}
        results = _dump_list(dump["results"])
    except KeyError as error:
        return ImportPlan(problems=[Problem(at_file(), _("The dump lacks %(key)s.") % {"key": error})])
    except (TypeError, AttributeError, ValueError):
        return ImportPlan(
            problems=[
                Problem(
                    at_file(),
                    _(
                        'The dump\'s "players", "leagues" and "results" are lists of objects, as export_results '
                        "writes them; a player's name and number are text."
                    ),
                )
            ]
        )
    leagues = dict(League.objects.filter(game=game).values_list("tier", "slug"))
    own = set(leagues.values())
    plan = ImportPlan()
    twins = [ref for ref, count in Counter(people.values()).items() if count > 1]
    for ref in twins:
        # Two players of the dump would become one: the file cannot tell them apart.
        plan.problems.append(
            Problem(
                at_player(repr(ref.name[:100])),
                _("The dump has two players of this name and number: give them numbers."),
            )
        )
    for number, body in enumerate(results, start=1):
        where = at_result(number)
        if not isinstance(body, dict):
            plan.problems.append(Problem(where, _("A result is an object, as export_results writes it.")))
            continue
        # The result's state when it was exported: the import rates it by the rules of the game it goes into.
        body = {key: value for key, value in body.items() if key != "status"}
        try:
            body = game.kind.body_players(body, lambda player_id: people[player_id])
        except (KeyError, TypeError, AttributeError):
            plan.problems.append(Problem(where, _("It names a player the dump's players do not list.")))
            continue
        league = body.get("league")
        if isinstance(league, str) and league in tiers and league not in own:
            # The same tier of this game: a dump moves to another game with its leagues' shape.
            body["league"] = leagues.get(tiers[league], league)
        plan.results.append({**body, "game": game.slug})
        plan.sources.append(where)
    return plan


# How deep a dump nests: a result's body is a few levels down (a bridge table's adjusted score the deepest).
DUMP_MAX_DEPTH = 32


def _too_deep() -> Problem:
    return Problem(
        at_file(),
        _("The JSON nests deeper than %(depth)s levels: it is not a Cardrank dump.") % {"depth": DUMP_MAX_DEPTH},
    )


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _dump_list(value: Any) -> list:
    if not isinstance(value, list):
        raise TypeError(value)
    return value


def _dump_text(value: Any) -> str:
    """A name or number of the dump: text (a number written as a number is taken as its text)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TypeError(value)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict | list):
        raise TypeError(value)
    return value
