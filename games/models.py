"""An import of a results file through admin: the file kept server-side from its preview to its confirmation.

Admin's import (``games.admin``, docs/import.md) is three steps, and the file
must survive between them without trusting the browser: the upload stores
its bytes here with their SHA-256; the check (a Celery task) reads them into
a preview, storing nothing else; the confirmation names the run and the hash
it previewed, and only its own user may give it. The import's progress is
written to this row from outside the import's transaction
(``games.import_runs.ProgressWriter``), so the page sees it while the results
are still invisible, and all or nothing holds.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from leagues.models import Game, League
from matches.models import Match


class ImportRun(models.Model):
    class Status(models.TextChoices):
        CHECKING = "checking", _("Checking")  # the preview is being made: the file read, people matched, a dry run
        REFUSED = "refused", _("Refused")  # the preview found blocking problems: nothing can be stored
        PREVIEWED = "previewed", _("Previewed")  # waiting for its user's confirmation
        QUEUED = "queued", _("Queued")  # confirmed: waiting for a worker
        RUNNING = "running", _("Importing")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")  # the import stopped: nothing was stored

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="import_runs",
        verbose_name=_("user"),
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="import_runs", verbose_name=_("game"))
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("league")
    )
    #: The results' referee: the uploader (an import is its uploader's work); runs before that rule may name another.
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("referee")
    )
    replace = models.BooleanField(
        verbose_name=_("replace"),
        default=False,
        help_text=_("Asked at the upload: each result of the file replaces the stored one it corrects."),
    )
    #: The federation numbers whose conflict (the file's name is not the stored player's) the user confirmed
    #: as one person with their confirmation (``games.importing.import_people_match``'s ``same_person``).
    same_person = models.JSONField(default=list, blank=True, verbose_name=_("same person"))
    format = models.CharField(max_length=16, verbose_name=_("format"))
    zone = models.CharField(
        max_length=64,
        blank=True,
        help_text=_("The IANA zone of times the file gives without one."),
        verbose_name=_("zone"),
    )
    filename = models.CharField(max_length=255, verbose_name=_("filename"))
    size = models.PositiveIntegerField(verbose_name=_("size"))
    sha256 = models.CharField(max_length=64, verbose_name=_("sha256"))
    data = models.BinaryField(verbose_name=_("data"))
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CHECKING, verbose_name=_("status"))
    #: Results stored (or checked) so far, of ``total``: written outside the import's transaction.
    done = models.PositiveIntegerField(default=0, verbose_name=_("done"))
    total = models.PositiveIntegerField(default=0, verbose_name=_("total"))
    # what the check found (games.import_runs.preview_of)
    preview = models.JSONField(default=dict, blank=True, verbose_name=_("preview"))
    summary = models.JSONField(verbose_name=_("summary"), default=dict, blank=True)  # what the import stored
    error = models.TextField(blank=True, verbose_name=_("error"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("import run")
        verbose_name_plural = _("import runs")
        ordering = ["-created_at", "-id"]
        permissions = [("import_results", _("Can import results files in admin"))]
        constraints = [
            models.CheckConstraint(condition=models.Q(done__lte=models.F("total")), name="importrun_done_lte_total"),
            models.CheckConstraint(condition=~models.Q(sha256=""), name="importrun_has_hash"),
        ]

    def __str__(self):
        return _("%(file)s into %(game)s (%(status)s)") % {
            "file": self.filename,
            "game": self.game.name,
            "status": self.get_status_display(),
        }

    @property
    def in_progress(self) -> bool:
        return self.status in {self.Status.CHECKING, self.Status.QUEUED, self.Status.RUNNING}


class ImportedFile(models.Model):
    """A file imported into a game, by its bytes' SHA-256: the same file is never imported twice.

    Written in the import's own transaction, before its results (``games.importing.import_apply``):
    the unique (game, sha256) makes a second import of the file, even one racing the first from
    another process, wait for the first and then be refused, storing nothing. ``matches`` are the
    results the file stored, ``replaced`` the stored results it corrected (``--replace``); results it
    found already stored are in neither.
    """

    class Via(models.TextChoices):
        COMMAND = "command", _("manage.py import_results")
        ADMIN = "admin", _("Admin's upload")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="imported_files", verbose_name=_("game"))
    sha256 = models.CharField(max_length=64, verbose_name=_("sha256"))
    filename = models.CharField(max_length=255, verbose_name=_("filename"))
    size = models.PositiveIntegerField(verbose_name=_("size"))
    format = models.CharField(max_length=16, verbose_name=_("format"))
    imported_at = models.DateTimeField(default=timezone.now, verbose_name=_("imported at"))
    #: Who imported it: the uploader in admin, the account ``--referee`` names on the command line, or
    #: nobody (null) for the command-line operator.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="imported_files",
        verbose_name=_("user"),
    )
    via = models.CharField(max_length=16, choices=Via.choices, verbose_name=_("via"))
    run = models.ForeignKey(
        ImportRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("run")
    )
    results = models.PositiveIntegerField(default=0, help_text=_("Results the file holds."), verbose_name=_("results"))
    duplicates = models.PositiveIntegerField(
        default=0, help_text=_("Results of the file already stored: skipped."), verbose_name=_("duplicates")
    )
    matches = models.ManyToManyField(Match, blank=True, related_name="imported_from", verbose_name=_("matches"))
    replaced = models.ManyToManyField(Match, blank=True, related_name="replaced_by_files", verbose_name=_("replaced"))

    class Meta:
        verbose_name = _("imported file")
        verbose_name_plural = _("imported files")
        ordering = ["-imported_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "sha256"], name="importedfile_once_per_game"),
            models.CheckConstraint(condition=~models.Q(sha256=""), name="importedfile_has_hash"),
        ]

    def __str__(self):
        return _("%(file)s into %(game)s on %(day)s") % {
            "file": self.filename,
            "game": self.game.name,
            "day": f"{self.imported_at:%Y-%m-%d}",
        }
