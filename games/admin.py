"""Importing a results file in admin: upload -> preview (nothing written) -> confirm -> progress (docs/import.md).

``ImportRun`` is the admin's model for it. Its "add" page is the upload
(game, file, format, league, time zone, and whether the file replaces the
results it corrects); a run's page shows the preview as the check makes it,
the confirmation (with a "same person" box for each conflict the preview
lists) to the run's own user, then the import's progress and outcome,
polled with htmx while a worker is at it. The results are the uploader's
work: they are recorded as its referee; the form names nobody else.
Games link here from their admin pages ("Import results"). *Imported
files* lists every file imported (``ImportedFile``), read-only.
Only staff with ``games.import_results`` (a superuser has it) may upload,
see runs and confirm, and only their own runs: a run's preview names the
file's people, so its page, its status and the list show it to its uploader
and to superusers only (anyone else finds no such run), and only its uploader
confirms it.
"""

from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from config.permissions import user_can_void
from games.import_runs import ConfirmationMissing, RunOptions, import_run_confirm, import_run_create
from games.importing import import_files, import_format_for, import_formats
from games.models import ImportedFile, ImportRun
from leagues.models import Game, League

PERMISSION = "games.import_results"


def format_choices() -> list[tuple[str, str]]:
    """The upload's formats: every registered game's (``games.importing.import_files``), read when the form is
    made, since kinds are registered after admin's modules are imported."""
    files = import_files()
    extensions = ", ".join(extension for extension, _label in files.values())
    return [("", _("From the file's extension (%(extensions)s)") % {"extensions": extensions})] + [
        (name, label) for name, (_format, label) in files.items()
    ]


def _file_help() -> str:
    return _("At most %(bytes)s bytes, UTF-8 (PBN: its declared encoding).") % {
        "bytes": number_format(settings.CARDRANK_IMPORT_MAX_BYTES, force_grouping=True)
    }


class ImportUploadForm(forms.Form):
    game = forms.ModelChoiceField(Game.objects.order_by("name"), label=gettext_lazy("Game"))
    file = forms.FileField(label=gettext_lazy("File"), help_text=lazy(_file_help, str)())
    format = forms.ChoiceField(choices=format_choices, required=False, label=gettext_lazy("Format"))
    league = forms.ModelChoiceField(
        League.objects.select_related("game").order_by("game__name", "tier"),
        required=False,
        label=gettext_lazy("League"),
        help_text=gettext_lazy(
            "File every result under this league of the game (default: the file's, else the entry league)."
        ),
    )
    timezone = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy("The zone of times the file gives without one; without it such a time is refused."),
    )
    replace = forms.BooleanField(
        required=False,
        label=gettext_lazy("Replace the results it corrects"),
        help_text=gettext_lazy(
            "A corrected file: each of its results replaces the one stored result of the game at the same time "
            "(a correction, replayed and in the audit log), as the preview shows. Needs the right to correct "
            "results. Unticked, a result at the time of a different stored one is stored beside it."
        ),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["timezone"].choices = [("", _("None: every time has its zone"))] + [
            (zone, zone) for zone in sorted(available_timezones())
        ]
        self.fields["league"].label_from_instance = lambda league: f"{league.game.name}: {league.name}"

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.CARDRANK_IMPORT_MAX_BYTES
        if upload.size > limit:
            raise forms.ValidationError(
                _("The file is %(size)s bytes; imports take at most %(limit)s (CARDRANK_IMPORT_MAX_BYTES).")
                % {
                    "size": number_format(upload.size, force_grouping=True),
                    "limit": number_format(limit, force_grouping=True),
                }
            )
        return upload

    def clean_replace(self):
        replace = self.cleaned_data["replace"]
        if replace and not user_can_void(self.user):
            raise forms.ValidationError(
                _("Replacing stored results corrects them: you may not correct results (matches.void_match).")
            )
        return replace

    def clean(self):
        cleaned = super().clean()
        game, upload, league = cleaned.get("game"), cleaned.get("file"), cleaned.get("league")
        if game is None:
            return cleaned
        if league is not None and league.game_id != game.pk:
            self.add_error(
                "league", _("%(league)s is not a league of %(game)s.") % {"league": league.name, "game": game.name}
            )
        if upload is not None:
            format = cleaned.get("format") or import_format_for(upload.name)
            formats = list(import_formats(game))
            if format is None:
                self.add_error(
                    "format",
                    _("Choose the file's format: %(game)s reads %(formats)s.")
                    % {"game": game.name, "formats": ", ".join(formats)},
                )
            elif format not in formats:
                self.add_error(
                    "format",
                    _("%(game)s results cannot be read as %(format)s: it reads %(formats)s.")
                    % {"game": game.name, "format": format, "formats": ", ".join(formats)},
                )
            cleaned["format"] = format
        return cleaned


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    list_display = ["created_at", "filename", "game", "status", "done", "total", "user"]
    list_filter = ["status", "game"]
    list_select_related = ["game", "user"]
    search_fields = ["filename", "sha256"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        runs = super().get_queryset(request).defer("data")
        return runs if request.user.is_superuser else runs.filter(user=request.user, user__isnull=False)

    def has_view_permission(self, request, obj=None):
        if obj is not None and not request.user.is_superuser and obj.user_id != request.user.pk:
            return False  # its preview names the file's people: the uploader's (and superusers') only
        return request.user.has_perm(PERMISSION)

    def has_add_permission(self, request):
        return request.user.has_perm(PERMISSION)

    def has_change_permission(self, request, obj=None):
        return False  # a run changes only through its steps

    def has_module_permission(self, request):
        return request.user.has_perm(PERMISSION)

    def get_urls(self):
        view = self.admin_site.admin_view
        own = [
            path("<int:pk>/status/", view(self.status_view), name="games_importrun_status"),
            path("<int:pk>/confirm/", view(require_POST(self.confirm_view)), name="games_importrun_confirm"),
        ]
        return own + super().get_urls()

    def _context(self, request, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}

    def add_view(self, request, form_url="", extra_context=None):
        """Step 1, the upload: the run is created and its check queued; its page shows the preview."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            form = ImportUploadForm(request.POST, request.FILES, user=request.user)
            if form.is_valid():
                data = form.cleaned_data
                options = RunOptions(
                    game=data["game"],
                    format=data["format"],
                    league=data["league"],
                    zone=data["timezone"],
                    replace=data["replace"],
                )
                try:
                    run = import_run_create(
                        user=request.user, filename=data["file"].name, data=data["file"].read(), options=options
                    )
                except ValueError as error:
                    form.add_error("file", str(error))
                else:
                    return redirect(reverse("admin:games_importrun_change", args=[run.pk]))
        else:
            initial = {}
            if request.GET.get("game", "").isdigit():  # the game whose admin page linked here
                initial["game"] = int(request.GET["game"])
            form = ImportUploadForm(initial=initial, user=request.user)
        context = self._context(request, title=_("Import results"), form=form)
        return render(request, "admin/games/importrun/upload.html", context, status=400 if form.errors else 200)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """Steps 2 and 3: the run's preview, its confirmation, its progress and outcome."""
        run = self._run(request, object_id)
        return render(request, "admin/games/importrun/run.html", self._context(request, title=str(run), run=run))

    def status_view(self, request, pk):
        """The run's block alone, which the page polls (htmx, every second) while the run is in progress."""
        run = self._run(request, pk)
        return render(request, "admin/games/importrun/_run.html", self._context(request, run=run))

    def confirm_view(self, request, pk):
        """Step 3: queue the import of the file the user previewed (its hash), once; theirs only."""
        run = self._run(request, pk)
        if run.user_id != request.user.pk:
            raise PermissionDenied(_("Only the user who uploaded this file may confirm its import."))
        try:
            queued = import_run_confirm(
                run_id=run.pk,
                user=request.user,
                sha256=request.POST.get("sha256", ""),
                same_person=request.POST.getlist("same_person"),
            )
        except ConfirmationMissing as missing:
            self.message_user(request, str(missing), messages.ERROR)
            return redirect(reverse("admin:games_importrun_change", args=[run.pk]))
        if queued:
            self.message_user(
                request,
                _("Importing %(file)s: the page follows its progress.") % {"file": run.filename},
                messages.SUCCESS,
            )
        else:
            self.message_user(
                request,
                _(
                    "Nothing was queued: this run is not waiting for a confirmation of this file "
                    "(already confirmed, refused, or the file differs from the one previewed)."
                ),
                messages.ERROR,
            )
        return redirect(reverse("admin:games_importrun_change", args=[run.pk]))

    def _run(self, request, pk) -> ImportRun:
        if not self.has_view_permission(request):
            raise PermissionDenied
        if not str(pk).isdigit():
            raise Http404
        return get_object_or_404(self.get_queryset(request).select_related("game", "league", "user"), pk=pk)


@admin.register(ImportedFile)
class ImportedFileAdmin(admin.ModelAdmin):
    """Every file imported, by either way in: read-only, the record that refuses a file imported twice."""

    list_display = ["imported_at", "filename", "game", "via", "user", "results", "duplicates"]
    list_filter = ["via", "game"]
    list_select_related = ["game", "user"]
    search_fields = ["filename", "sha256"]
    date_hierarchy = "imported_at"
    fields = [
        "game",
        "filename",
        "size",
        "format",
        "sha256",
        "imported_at",
        "via",
        "user",
        "run",
        "results",
        "duplicates",
        "stored",
    ]
    readonly_fields = fields

    @admin.display(description=gettext_lazy("Results stored"))
    def stored(self, record):
        """The stored results by count and id range: a file of 100,000 results is not listed one by one."""
        ids = record.matches.order_by("id").values_list("id", flat=True)
        count = ids.count()
        if not count:
            return _("none")
        return _("%(count)d: ids %(first)d to %(last)d") % {"count": count, "first": ids.first(), "last": ids.last()}

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(PERMISSION)

    def has_module_permission(self, request):
        return request.user.has_perm(PERMISSION)

    def has_add_permission(self, request):
        return False  # written by an import, in its transaction

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # deleting it would let the file in twice
