"""Admin's import of a results file, in three steps: upload, preview (nothing written), confirm (all or nothing).

``import_run_create`` keeps the uploaded file on an ``ImportRun`` with its
SHA-256 and queues ``import_run_check``: the same reading, people matching
and dry run as ``manage.py import_results --dry-run``, kept as the run's
``preview`` (``games.importing.import_preview``). ``import_run_confirm`` lets
the run's own user confirm the hash they previewed, once, with their "same
person" answer to each conflict the preview listed, and queues
``import_run_apply``, which stores every result through
``games.importing.import_apply`` (the one write path, one transaction) or
nothing. The results are the uploader's work: they are its referee.

Progress: both steps report results done of total through ``ProgressWriter``,
which writes the run's row on a connection of its own, in autocommit, so
the page polling the run sees it while the import's transaction is open,
and a rollback of the import leaves it standing. On a database where a
second connection would wait for the first (SQLite, ``make run`` with its
eager tasks) nothing is written until the step ends.
"""

from __future__ import annotations

import hashlib
import io
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from zoneinfo import ZoneInfo

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games.importing import (
    ImportRefused,
    ImportSource,
    PeopleMatch,
    conflict_problem,
    import_apply,
    import_people_match,
    import_plan_read,
    import_preview,
    imported_file_seen,
)
from games.imports import ImportPlan, Problem, at_file
from games.models import ImportedFile, ImportRun
from leagues.models import Game, League
from ratings.people import erased_name, player_erased

logger = logging.getLogger(__name__)

#: What a run keeps of its preview once its names may no longer be kept (imported, refused by expiry).
PREVIEW_COUNTS = {
    "results",
    "matched",
    "by_number",
    "by_name",
    "new",
    "ambiguous",
    "conflicts",
    "stored",
    "duplicates",
    "replaced",
    "problems_count",
    "problems_more",
    "blocking",
}
PROGRESS_EVERY_SECONDS = 0.25  # the page polls every second: more writes than this show nothing more


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ProgressWriter:
    """``progress(done, total)`` for ``import_apply``: the run's counts, written on a connection of its own.

    A connection in autocommit beside the import's: the UPDATE commits at
    once, whatever the import's transaction does later. The import's
    transaction touches the run's row only after the writer is closed (the
    run becomes done with its results), so the two never wait for each
    other; a lock timeout is the guard all the same. Writes are at most one
    per ``PROGRESS_EVERY_SECONDS``, and always the last one. A failed write
    stops the reporting, never the import.
    """

    def __init__(self, run_id: int):
        self.run_id = run_id
        self.last = 0.0
        self.side = None
        self.broken = connection.vendor != "postgresql"

    def __call__(self, done: int, total: int) -> None:
        if self.broken:
            return
        now = time.monotonic()
        if done != total and done != 1 and now - self.last < PROGRESS_EVERY_SECONDS:
            return
        self.last = now
        try:
            if self.side is None:
                self.side = connections.create_connection(connection.alias)
                with self.side.cursor() as cursor:
                    cursor.execute("SET lock_timeout = '2s'")
            with self.side.cursor() as cursor:
                cursor.execute(
                    "UPDATE games_importrun SET done = %s, total = %s, updated_at = %s WHERE id = %s",
                    [done, total, timezone.now(), self.run_id],
                )
        except DatabaseError:
            logger.warning("Import run %s: its progress could not be written; the import goes on.", self.run_id)
            self.broken = True

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
            self.side = None


@dataclass
class RunOptions:
    game: Game
    format: str
    league: League | None
    zone: str
    replace: bool = False  # the file corrects stored results: each replaces the one it corrects


def _task(name: str):
    """The Celery task ``games.tasks.<name>`` by name: the tasks call these services, so they do not import it
    (as ``ratings.services._task``)."""
    return current_app.tasks[f"games.tasks.{name}"]


def _queue(name: str, run_id: int) -> None:
    """Queue a step of the run; if the queue cannot be reached, the run fails saying so (nothing was stored).

    The step runs in the language of the request that queued it: the problems and the outcome it keeps on the
    run are said in the uploader's words (``games.tasks``).
    """
    try:
        _task(name).delay(run_id, language=get_language())
    except Exception:
        logger.exception("Import run %s: %s could not be queued.", run_id, name)
        ImportRun.objects.filter(pk=run_id).update(
            status=ImportRun.Status.FAILED,
            error=_("The task queue could not be reached: nothing was stored. Upload the file again."),
            updated_at=timezone.now(),
            finished_at=timezone.now(),
        )


def import_run_create(*, user, filename: str, data: bytes, options: RunOptions) -> ImportRun:
    """Keep the file on a new run (status checking) and queue its check once the run is committed.

    ``ValueError`` for a file over ``CARDRANK_IMPORT_MAX_BYTES``: it is not kept.
    """
    limit = settings.CARDRANK_IMPORT_MAX_BYTES
    if len(data) > limit:
        raise ValueError(
            _("The file is %(size)s bytes; imports take at most %(limit)s (CARDRANK_IMPORT_MAX_BYTES).")
            % {
                "size": number_format(len(data), force_grouping=True),
                "limit": number_format(limit, force_grouping=True),
            }
        )
    run = ImportRun.objects.create(
        user=user,
        game=options.game,
        league=options.league,
        referee=user,  # an import is its uploader's work
        replace=options.replace,
        format=options.format,
        zone=options.zone,
        filename=filename[:255],
        size=len(data),
        sha256=file_hash(data),
        data=data,
    )
    transaction.on_commit(lambda: _queue("import_run_check", run.pk))
    return run


class ConfirmationMissing(ValueError):
    """The confirmation leaves a conflict of the preview unanswered: nothing is queued."""


def import_run_confirm(*, run_id: int, user, sha256: str, same_person: list[str] = ()) -> bool:
    """Queue the import of the run ``user`` previewed with this hash; False (nothing queued) otherwise.

    Only the run's own user, only a run previewed without blocking
    problems, only the hash the preview showed, and only once: the status
    moves from previewed to queued in one UPDATE, so a second confirmation
    (a double click, another tab) finds nothing to move. ``same_person``
    are the federation numbers whose conflict the user confirmed as one
    person: every conflict the preview listed must be, or
    ``ConfirmationMissing`` names the first left out and nothing is queued.
    """
    numbers = sorted({str(number).strip() for number in same_person if str(number).strip()})
    run = ImportRun.objects.filter(pk=run_id).only("preview").first()
    preview = run.preview if run is not None else {}
    waiting = preview.get("conflict_people", [])
    if preview.get("conflicts", 0) > len(waiting):
        raise ConfirmationMissing(
            _("%(count)d people of the file wait for a confirmation, more than are listed: correct the file.")
            % {"count": preview["conflicts"]}
        )
    if missing := [person for person in waiting if person["federation_id"] not in numbers]:
        raise ConfirmationMissing(
            _("Confirm that %(name)s (%(number)s) is player #%(id)s %(player)s, or correct the file.")
            % {
                "name": missing[0]["name"],
                "number": missing[0]["federation_id"],
                "id": missing[0]["player"],
                "player": missing[0]["player_name"],
            }
            + " "
            + _("Nothing was queued.")
        )
    moved = ImportRun.objects.filter(
        pk=run_id, user=user, user__isnull=False, status=ImportRun.Status.PREVIEWED, sha256=sha256
    ).update(status=ImportRun.Status.QUEUED, done=0, same_person=numbers, updated_at=timezone.now())
    if not moved:
        return False
    transaction.on_commit(lambda: _queue("import_run_apply", run_id))
    return True


def _plan_of(run: ImportRun):
    """The run's file read into a plan, its bytes first checked against the hash the preview showed.

    The kept bytes are read as a file (a CSV a line at a time), never decoded whole into one string.
    """
    data = run.data
    if file_hash(data) != run.sha256:
        raise ImportRefused([Problem(at_file(), _("The stored file is not the one previewed (its hash differs)."))])
    zone = ZoneInfo(run.zone) if run.zone else None
    try:
        return import_plan_read(game=run.game, format=run.format, data=io.BytesIO(data), zone=zone)
    except ValueError as error:
        raise ImportRefused([Problem(at_file(), str(error))]) from None


def _source(run: ImportRun) -> ImportSource:
    return ImportSource(
        filename=run.filename,
        sha256=run.sha256,
        size=run.size,
        format=run.format,
        via=ImportedFile.Via.ADMIN,
        user=run.user,
        run_id=run.pk,
    )


def import_run_check(run_id: int) -> None:
    """Make the run's preview: what ``import_results --dry-run`` shows, kept on the run. Stores nothing else.

    A conflict (a person the file names who is not certainly the player found: ``games.importing.Conflict``)
    waits for the user's answer and does not refuse the run: the dry run goes on as if each were
    confirmed, so the preview shows every other problem too, and the confirmation must answer each
    (``import_run_confirm``). A file already imported into the game is refused.
    """
    run = ImportRun.objects.select_related("game", "league", "user").filter(pk=run_id).first()
    if run is None or run.status != ImportRun.Status.CHECKING:
        return  # a task delivered twice: the first did it
    problems: list[Problem] = []
    plan, matching, summary = ImportPlan(), PeopleMatch(), None
    waiting: list[Problem] = []
    progress = ProgressWriter(run.pk)
    try:
        plan = _plan_of(run)
        matching = import_people_match(plan)
        waiting = [conflict_problem(conflict) for conflict in matching.conflicts.values()]
        problems = [*plan.problems, *matching.problems]
        if seen := imported_file_seen(game=run.game, sha256=run.sha256):
            problems.insert(0, seen)
        if not plan.results and not plan.blocking:
            problems.append(Problem(at_file(), _("The file has no results to import.")))
        if not [problem for problem in problems if problem.blocking and problem not in waiting]:
            ImportRun.objects.filter(pk=run.pk).update(total=len(plan.results), done=0)
            # The command's dry run: every result stored through the one write path, then rolled back.
            summary = import_apply(
                plan=plan,
                game=run.game,
                referee=run.user,
                league=run.league,
                dry_run=True,
                progress=progress,
                source=_source(run),
                replace=run.replace,
                same_person=[ref.federation_id for ref in matching.conflicts],
            )
            problems += [note for note in summary.notes if note not in problems]
    except ImportRefused as refused:
        problems += [problem for problem in refused.problems if problem not in problems]
    except Exception:
        logger.exception("Import run %s: the check failed.", run.pk)
        problems.append(
            Problem(at_file(), _("The file could not be checked (an error on the server); nothing was stored."))
        )
    finally:
        progress.close()
    preview = import_preview(plan, matching, summary=summary, problems=problems)
    blocking = [problem for problem in problems if problem.blocking and problem not in waiting]
    ImportRun.objects.filter(pk=run.pk, status=ImportRun.Status.CHECKING).update(
        status=ImportRun.Status.REFUSED if blocking else ImportRun.Status.PREVIEWED,
        preview=preview,
        total=preview["results"],
        done=0 if blocking else preview["results"],
        updated_at=timezone.now(),
        finished_at=timezone.now() if blocking else None,
        **({"data": b""} if blocking else {}),  # refused: the bytes can never be imported (docs/import.md)
    )


def import_run_apply(run_id: int) -> None:
    """Store the confirmed run's results (all or nothing) and rate the game; the outcome kept on the run.

    The run becomes done in the import's own transaction, after its last
    progress write: the results and "done" commit together, so a worker that
    dies at any point leaves either both or neither (a run left importing has
    stored nothing, and its file may be uploaded again). A failure is written
    after the rollback.
    """
    moved = ImportRun.objects.filter(pk=run_id, status=ImportRun.Status.QUEUED).update(
        status=ImportRun.Status.RUNNING, done=0, updated_at=timezone.now()
    )
    if not moved:
        return  # delivered twice, or not confirmed
    run = ImportRun.objects.select_related("game", "league", "user").get(pk=run_id)
    progress = ProgressWriter(run.pk)
    error = ""
    try:
        plan = _plan_of(run)
        with transaction.atomic():
            summary = import_apply(
                plan=plan,
                game=run.game,
                referee=run.user,  # the uploader's work (the run's referee is the uploader)
                league=run.league,
                dry_run=False,
                progress=progress,
                source=_source(run),
                replace=run.replace,
                same_person=run.same_person,
            )
            progress.close()  # its last write is committed: nothing else touches the row from beside
            ImportRun.objects.filter(pk=run.pk, status=ImportRun.Status.RUNNING).update(
                status=ImportRun.Status.DONE,
                done=summary.results,
                summary={
                    "results": summary.results,
                    "stored": summary.stored,
                    "duplicates": len(summary.duplicates),
                    "replaced": len(summary.replaced),
                    "matched": summary.matched,
                    "new": summary.new,
                    "rated": summary.rated,
                },
                # Imported, the file's people and results are in the database: the run keeps the file's
                # name, size and hash, not its bytes nor the preview's names (erasing a person finds them there).
                preview={key: value for key, value in run.preview.items() if key in PREVIEW_COUNTS},
                data=b"",
                updated_at=timezone.now(),
                finished_at=timezone.now(),
            )
    except ImportRefused as refused:
        error = "\n".join(f"{problem.where}: {problem.message}" for problem in refused.problems[:50])
    except Exception as failure:
        logger.exception("Import run %s failed.", run.pk)
        error = _("The import failed on the server (%(error)s).") % {"error": type(failure).__name__}
    finally:
        progress.close()
    if error:
        # Failed, nothing was stored; the run keeps no bytes: the file is to be uploaded again.
        ImportRun.objects.filter(pk=run.pk, status=ImportRun.Status.RUNNING).update(
            status=ImportRun.Status.FAILED,
            error=error,
            data=b"",
            updated_at=timezone.now(),
            finished_at=timezone.now(),
        )


#: Statuses whose run still holds its file's bytes and waits on a person (the check, the confirmation).
WAITING = (ImportRun.Status.CHECKING, ImportRun.Status.PREVIEWED)


def import_runs_expire(*, now=None) -> int:
    """Drop the file of every run left unconfirmed (or never checked) for ``CARDRANK_IMPORT_PREVIEW_HOURS``.

    A previewed file holds people's names and results that are not in the
    database: it must not outlive the admin's attention (nor escape a
    person's erasure) for ever. The run fails, saying why, keeping its
    name, size, hash and the preview's counts; one UPDATE, so a
    confirmation racing it either moved the run to queued first (and it is
    imported) or finds it failed. Runs confirmed and waiting for a worker
    are left alone. Returns how many runs expired. Beat runs it hourly.
    """
    hours = settings.CARDRANK_IMPORT_PREVIEW_HOURS
    cutoff = (now or timezone.now()) - timedelta(hours=hours)
    expired = 0
    for run in ImportRun.objects.filter(status__in=WAITING, updated_at__lt=cutoff).only("pk", "preview"):
        expired += ImportRun.objects.filter(pk=run.pk, status__in=WAITING, updated_at__lt=cutoff).update(
            status=ImportRun.Status.FAILED,
            error=ngettext(
                "Not confirmed within %(hours)s hours: the file was dropped, nothing was stored. Upload it again.",
                "Not confirmed within %(hours)s hours: the file was dropped, nothing was stored. Upload it again.",
                hours,
            )
            % {"hours": hours},
            data=b"",
            preview={key: value for key, value in run.preview.items() if key in PREVIEW_COUNTS},
            updated_at=timezone.now(),
            finished_at=timezone.now(),
        )
    if expired:
        logger.info("Import runs: %d left unconfirmed for %d hours dropped their files.", expired, hours)
    return expired


#: Statuses whose run still holds its file's bytes, to be imported: waiting on a person, or on a worker.
HOLDING = (*WAITING, ImportRun.Status.QUEUED)


def _without_person(value, *, ids: set[int], numbers: set[str], pattern, placeholder: str):
    """A preview (plain JSON) with no entry that is the person (by player id, number or name), and their names
    replaced by ``placeholder`` in every text left (a problem's message, the file's description)."""
    if isinstance(value, dict):
        return {
            key: _without_person(item, ids=ids, numbers=numbers, pattern=pattern, placeholder=placeholder)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [
            _without_person(item, ids=ids, numbers=numbers, pattern=pattern, placeholder=placeholder)
            for item in value
            if not (isinstance(item, dict) and _is_person(item, ids=ids, numbers=numbers, pattern=pattern))
        ]
    if isinstance(value, str) and pattern is not None:
        return pattern.sub(placeholder, value)
    return value


def _is_person(entry: dict, *, ids: set[int], numbers: set[str], pattern) -> bool:
    if entry.get("player") in ids or entry.get("id") in ids:
        return True
    if str(entry.get("federation_id") or "") in numbers:
        return True
    return pattern is not None and isinstance(entry.get("name"), str) and bool(pattern.search(entry["name"]))


def _names_in(data: bytes, pattern) -> bool:
    """Whether a kept file names the person, read as UTF-8 or as Latin-1 (PBN files may declare it)."""
    return pattern is not None and any(
        pattern.search(data.decode(encoding, errors="replace")) for encoding in ("utf-8", "latin-1")
    )


def import_runs_forget(*, player_id: int, ids: set[int], names: set[str], numbers: set[str], pattern) -> int:
    """Erasing a person (``ratings.people.player_erase``) reaches the import runs: no run's preview or error keeps
    them (their entries dropped, their names replaced by the erased name), and no run keeps a file naming them:
    a run holding such a file (waiting, or queued for a worker) fails saying why, as expiry fails it, and drops
    the file. A run a worker is importing is left to finish. Returns how many runs failed.
    """
    placeholder = erased_name(player_id)
    numbers = {str(number) for number in numbers if number}
    failed = 0
    runs = ImportRun.objects.exclude(status=ImportRun.Status.DONE).only("pk", "status", "preview", "error")
    for run in runs.iterator(chunk_size=100):
        preview = _without_person(run.preview, ids=ids, numbers=numbers, pattern=pattern, placeholder=placeholder)
        error = pattern.sub(placeholder, run.error) if pattern is not None else run.error
        holding = run.status in HOLDING
        names_them = preview != run.preview or (
            holding and _names_in(bytes(ImportRun.objects.values_list("data", flat=True).get(pk=run.pk)), pattern)
        )
        if holding and names_them:
            moved = ImportRun.objects.filter(pk=run.pk, status__in=HOLDING).update(
                status=ImportRun.Status.FAILED,
                error=_(
                    "A person this file names was erased: the file was dropped, nothing was stored. "
                    "Upload it again without them."
                ),
                data=b"",
                preview={key: value for key, value in preview.items() if key in PREVIEW_COUNTS},
                updated_at=timezone.now(),
                finished_at=timezone.now(),
            )
            failed += moved
            if moved:
                continue
        if preview != run.preview or error != run.error:
            # Read again: a run a worker moved on meanwhile loses the names from what it shows all the same.
            current = ImportRun.objects.filter(pk=run.pk).values("preview", "error").first()
            if current is not None:
                ImportRun.objects.filter(pk=run.pk).update(
                    preview=_without_person(
                        current["preview"], ids=ids, numbers=numbers, pattern=pattern, placeholder=placeholder
                    ),
                    error=pattern.sub(placeholder, current["error"]) if pattern is not None else current["error"],
                )
    return failed


def _on_erasure(sender, *, player, ids, names, numbers, pattern, **kwargs) -> None:
    import_runs_forget(player_id=player.pk, ids=set(ids), names=set(names), numbers=set(numbers), pattern=pattern)


def connect_erasure() -> None:
    """Erasing a person reaches the import runs (``ratings.people.player_erased``); called from ``games.apps``."""
    player_erased.connect(_on_erasure, dispatch_uid="games.import_runs.erasure")
