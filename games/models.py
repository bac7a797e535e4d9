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

from leagues.models import Game, League


class ImportRun(models.Model):
    class Status(models.TextChoices):
        CHECKING = "checking", "Checking"  # the preview is being made: the file read, people matched, a dry run
        REFUSED = "refused", "Refused"  # the preview found blocking problems: nothing can be stored
        PREVIEWED = "previewed", "Previewed"  # waiting for its user's confirmation
        QUEUED = "queued", "Queued"  # confirmed: waiting for a worker
        RUNNING = "running", "Importing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"  # the import stopped: nothing was stored

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="import_runs")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="import_runs")
    league = models.ForeignKey(League, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    referee = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    format = models.CharField(max_length=16)
    zone = models.CharField(max_length=64, blank=True, help_text="The IANA zone of times the file gives without one.")
    filename = models.CharField(max_length=255)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    data = models.BinaryField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CHECKING)
    #: Results stored (or checked) so far, of ``total``: written outside the import's transaction.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    preview = models.JSONField(default=dict, blank=True)  # what the check found (games.import_runs.preview_of)
    summary = models.JSONField(default=dict, blank=True)  # what the import stored
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("import_results", "Can import results files in admin")]
        constraints = [
            models.CheckConstraint(condition=models.Q(done__lte=models.F("total")), name="importrun_done_lte_total"),
            models.CheckConstraint(condition=~models.Q(sha256=""), name="importrun_has_hash"),
        ]

    def __str__(self):
        return f"{self.filename} into {self.game.name} ({self.get_status_display()})"

    @property
    def in_progress(self) -> bool:
        return self.status in {self.Status.CHECKING, self.Status.QUEUED, self.Status.RUNNING}
