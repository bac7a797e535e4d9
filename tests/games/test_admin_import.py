"""Importing a results file in admin (games.admin, games.import_runs): upload -> preview -> confirm -> stored.

Driven with Django's test client as a club's admin would: the upload form,
the run's page (the preview, nothing stored), the confirmation (everything
stored, rated). Tasks run eagerly here (tests/conftest.py) once the upload
or the confirmation commits; a real worker is tests/integration/
test_admin_import_worker.py, a real browser tests/browser/test_admin_import.py.
The expected counts are written here or come from the command (the same
file imported by ``manage.py import_results`` into a twin game), never from
the admin path under test.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.import_runs import ProgressWriter, import_runs_expire
from games.models import ImportRun
from leagues.models import Game, Player
from matches.models import AuditEntry, Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, RefereeFactory, UserFactory
from tests.games.test_bridge_import import (
    BILLION_LAUGHS,
    DATA,
    EXTERNAL,
    FILES,
    PBN_HEAD,
    PBN_NAMES,
    PBN_SCORES,
    REAL_FILES,
    USEBIO,
)
from tests.games.test_import_results import ledger, slaps_csv, standings, twin_game

pytestmark = pytest.mark.django_db

ADD = reverse("admin:games_importrun_add")
SLAPS_ROWS = [("Ada Novak", "Ben Berg", "a"), ("Ben Berg", "Cleo Costa", "b"), ("Cleo Costa", "Ada Novak", "a")]


def run_page(run: ImportRun) -> str:
    return reverse("admin:games_importrun_change", args=[run.pk])


@pytest.fixture
def importer(reference_data):
    """A staff member allowed to import (not a superuser), who may also enter results."""
    user = RefereeFactory(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    return user


@pytest.fixture
def web(importer):
    client = Client()
    client.force_login(importer)
    return client


def upload(client, capture, *, name: str, data: bytes, game: str = "slaps", **fields) -> object:
    """POST the upload form; its check runs (eagerly) once the run commits."""
    body = {
        "game": Game.objects.get(slug=game).pk,
        "file": SimpleUploadedFile(name, data),
        "referee": fields.pop("referee", None) or client.session["_auth_user_id"],
        **fields,
    }
    with capture(execute=True):
        return client.post(ADD, body)


def uploaded(client, capture, **kwargs) -> ImportRun:
    response = upload(client, capture, **kwargs)
    assert response.status_code == 302, response.content.decode()[:2000]
    run = ImportRun.objects.get()
    assert response["Location"] == run_page(run)
    return run


def confirm(client, capture, run: ImportRun, sha256: str | None = None):
    with capture(execute=True):
        return client.post(reverse("admin:games_importrun_confirm", args=[run.pk]), {"sha256": sha256 or run.sha256})


def test_a_slaps_csv_goes_upload_preview_confirm_stored(web, importer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    PlayerFactory(name="Ada Novak", federation_id="00123")
    PlayerFactory(name="Ben Berg")
    text = slaps_csv(SLAPS_ROWS).replace("player_a,player_b", "player_a,player_b")
    lines = text.splitlines()
    lines[0] = "played_at,player_a,player_a_id,player_b,winner"
    lines[1:] = [
        ",".join([cells[0], cells[1], "00123" if cells[1] == "Ada Novak" else "", cells[2], cells[3]])
        for cells in (line.split(",") for line in lines[1:])
    ]
    data = ("\n".join(lines) + "\n").encode()

    form = web.get(ADD + f"?game={Game.objects.get(slug='slaps').pk}")
    assert form.status_code == 200
    assert b'enctype="multipart/form-data"' in form.content
    run = uploaded(web, capture, name="history.csv", data=data)

    run.refresh_from_db()
    assert (run.status, run.format, run.user, run.referee, run.size) == (
        "previewed",
        "csv",
        importer,
        importer,
        len(data),
    )
    assert Match.objects.count() == 0
    assert Player.objects.count() == 2
    page = web.get(run_page(run)).content.decode()
    assert "3 results; players: 2 matched (1 by federation number, 1 by name), 1 new, 0 ambiguous." in page
    assert "Cleo Costa" in page
    assert 'name="sha256" value="' + run.sha256 in page
    assert "hx-trigger" not in page  # nothing left to poll for

    response = confirm(web, capture, run)
    assert response.status_code == 302
    run.refresh_from_db()
    assert (run.status, run.done, run.total) == ("done", 3, 3)
    assert run.summary == {
        "results": 3,
        "stored": 3,
        "duplicates": 0,
        "replaced": 0,
        "matched": 2,
        "new": 1,
        "rated": 3,
    }
    # Imported, the run keeps what identifies the file, not its bytes nor the names it previewed.
    assert (bytes(run.data), run.size, len(run.sha256)) == (b"", len(data), 64)
    assert "Cleo" not in str(run.preview)
    assert run.preview["results"] == 3
    assert Match.objects.filter(game__slug="slaps").count() == 3
    assert set(Match.objects.values_list("referee", flat=True)) == {importer.pk}
    assert AuditEntry.objects.filter(actor=importer).count() == 3
    assert RatingChange.objects.count() == 6
    page = web.get(run_page(run)).content.decode()
    assert "Imported 3 results (2 players matched, 1 new); 3 rated." in page
    assert '<progress id="import-progress" max="3" value="3"' in page
    # A second confirmation of the same run stores nothing more.
    confirm(web, capture, run)
    assert Match.objects.count() == 3


def test_the_game_admin_links_to_the_import(admin_user):
    web = Client()
    web.force_login(admin_user)
    slaps = Game.objects.get(slug="slaps")
    page = web.get(reverse("admin:leagues_game_change", args=[slaps.pk])).content.decode()
    assert f'href="{ADD}?game={slaps.pk}"' in page
    assert f'href="{ADD}"' in web.get(reverse("admin:leagues_game_changelist")).content.decode()


def test_the_preview_shows_what_the_commands_dry_run_shows(tmp_path, web, importer, django_capture_on_commit_callbacks):
    """The same counts, new players and problems (with their lines) as ``import_results --dry-run``."""
    data = slaps_csv([*SLAPS_ROWS, ("Ada Novak", "Ada Novak", "a")]).encode()
    path = tmp_path / "history.csv"
    path.write_bytes(data)
    out = StringIO()
    with pytest.raises(Exception):  # noqa: B017,PT011 - the command refuses: the last row is one player twice
        call_command(
            "import_results",
            str(path),
            "--game",
            "slaps",
            "--dry-run",
            "--referee",
            importer.username,
            stdout=out,
            stderr=out,
        )
    [refusal] = [line for line in out.getvalue().splitlines() if line.startswith("line 5")]

    run = uploaded(web, django_capture_on_commit_callbacks, name="history.csv", data=data)
    run.refresh_from_db()
    assert run.status == "refused"
    page = web.get(run_page(run)).content.decode()
    assert "4 results; players: 0 matched, 3 new, 0 ambiguous." in out.getvalue()
    assert "4 results; players: 0 matched (0 by federation number, 0 by name), 3 new, 0 ambiguous." in page
    assert refusal.split(": ", 1)[1].replace("'", "&#x27;") in page
    assert "Nothing can be imported from this file" in page
    assert 'name="sha256"' not in page
    assert Match.objects.count() == 0
    assert Player.objects.count() == 0


def test_an_ambiguous_name_blocks_with_its_candidates(web, django_capture_on_commit_callbacks):
    twins = [PlayerFactory(name="Ada Novak"), PlayerFactory(name="ADA NOVAK")]

    run = uploaded(web, django_capture_on_commit_callbacks, name="h.csv", data=slaps_csv(SLAPS_ROWS).encode())
    run.refresh_from_db()
    assert run.status == "refused"
    assert run.preview["ambiguous"] == 1
    page = web.get(run_page(run)).content.decode()
    for twin in twins:
        assert reverse("admin:leagues_player_change", args=[twin.pk]) in page
    assert "2 players have this name" in page
    assert confirm(web, django_capture_on_commit_callbacks, run).status_code == 302
    run.refresh_from_db()
    assert run.status == "refused"
    assert Match.objects.count() == 0


def test_a_name_made_ambiguous_after_the_preview_fails_the_import_and_stores_nothing(
    web, django_capture_on_commit_callbacks
):
    run = uploaded(web, django_capture_on_commit_callbacks, name="h.csv", data=slaps_csv(SLAPS_ROWS).encode())
    PlayerFactory(name="Ben Berg")
    PlayerFactory(name="Ben Berg")

    confirm(web, django_capture_on_commit_callbacks, run)
    run.refresh_from_db()
    assert run.status == "failed"
    assert "Ben Berg" in run.error
    assert "2 players have this name" in run.error
    assert Match.objects.count() == 0
    assert Player.objects.filter(name="Ada Novak").count() == 0
    page = web.get(run_page(run)).content.decode()
    assert "nothing was stored" in page


# --- hostile files -----------------------------------------------------------------------------------------

HOSTILE = [
    ("latin1.csv", slaps_csv(SLAPS_ROWS).replace("Ada Novak", "Adá Növak").encode("latin-1"), "slaps", "UTF-8"),
    ("truncated.pbn", (PBN_HEAD + PBN_NAMES + PBN_SCORES)[:-9], "bridge", "table row with 4 values"),
    ("truncated.xml", USEBIO[:700], "bridge", "Not readable XML"),
    ("bomb.xml", BILLION_LAUGHS, "bridge", "entities or external references"),
    ("external.xml", EXTERNAL, "bridge", "entities or external references"),
    ("teams.xml", USEBIO.replace(b"MP_PAIRS", b"TEAMS_OF_FOUR"), "bridge", "only pairs events"),
    ("individual.pbn", PBN_HEAD + PBN_NAMES.replace(b"Names", b"Name") + PBN_SCORES, "bridge", "individual event"),
    ("teams.pbn", PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b"PairId_NS", b"TeamId_Home"), "bridge", "team event"),
    ("image.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "slaps", "UTF-8"),
]


@pytest.mark.parametrize(("name", "data", "game", "says"), HOSTILE, ids=[row[0] for row in HOSTILE])
def test_a_hostile_file_is_refused_on_the_preview_page_and_stores_nothing(
    web, django_capture_on_commit_callbacks, name, data, game, says
):
    players = Player.objects.count()

    run = uploaded(web, django_capture_on_commit_callbacks, name=name, data=data, game=game)

    run.refresh_from_db()
    assert run.status == "refused", run.preview
    assert bytes(run.data) == b""  # never importable: not kept
    page = web.get(run_page(run)).content.decode()
    assert 'class="errornote"' in page
    assert "Nothing was stored" in page
    assert says in page
    assert confirm(web, django_capture_on_commit_callbacks, run).status_code == 302
    assert Match.objects.count() == 0
    assert Player.objects.count() == players
    assert ImportRun.objects.get().status == "refused"


def test_a_file_over_the_limit_is_refused_by_the_form_and_not_kept(web, settings, django_capture_on_commit_callbacks):
    settings.CARDRANK_IMPORT_MAX_BYTES = 1000
    response = upload(web, django_capture_on_commit_callbacks, name="big.csv", data=b"x" * 1001)
    assert response.status_code == 400
    assert "The file is 1,001 bytes; imports take at most 1,000" in response.content.decode()
    assert ImportRun.objects.count() == 0
    response = upload(web, django_capture_on_commit_callbacks, name="empty.csv", data=b"")
    assert response.status_code == 400
    assert "The submitted file is empty." in response.content.decode()
    assert ImportRun.objects.count() == 0


def test_a_format_the_game_does_not_read_or_a_foreign_league_is_refused_by_the_form(
    web, django_capture_on_commit_callbacks
):
    response = upload(web, django_capture_on_commit_callbacks, name="x.pbn", data=PBN_HEAD, game="slaps")
    assert response.status_code == 400
    assert "Slaps results cannot be read as pbn" in response.content.decode()
    response = upload(web, django_capture_on_commit_callbacks, name="x.txt", data=b"a", game="slaps")
    assert "Choose the file&#x27;s format" in response.content.decode()
    bridge_league = Game.objects.get(slug="bridge").leagues.first()
    response = upload(
        web, django_capture_on_commit_callbacks, name="x.csv", data=b"a", game="slaps", league=bridge_league.pk
    )
    assert "is not a league of Slaps" in response.content.decode()
    assert ImportRun.objects.count() == 0


def test_the_format_can_be_overridden_and_times_read_in_the_chosen_zone(web, django_capture_on_commit_callbacks):
    data = b"played_at,player_a,player_b,winner\n2026-03-01 18:00,Ada Novak,Ben Berg,a\n"
    run = uploaded(
        web, django_capture_on_commit_callbacks, name="export.txt", data=data, format="csv", timezone="Europe/Ljubljana"
    )
    confirm(web, django_capture_on_commit_callbacks, run)
    match = Match.objects.get()
    assert match.played_at.isoformat() == "2026-03-01T17:00:00+00:00"


# --- who may ------------------------------------------------------------------------------------------------


def test_only_staff_with_the_permission_may_import(reference_data, django_capture_on_commit_callbacks):
    anonymous = Client()
    assert anonymous.get(ADD)["Location"].startswith("/admin/login/")
    staff = Client()
    staff.force_login(UserFactory(is_staff=True))
    assert staff.get(ADD).status_code == 403
    slaps = Game.objects.get(slug="slaps").pk
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(ADD, {"game": slaps, "file": SimpleUploadedFile("h.csv", b"x")})
    assert response.status_code == 403
    assert ImportRun.objects.count() == 0


def test_another_user_cannot_confirm_a_run(web, importer, django_capture_on_commit_callbacks):
    run = uploaded(web, django_capture_on_commit_callbacks, name="h.csv", data=slaps_csv(SLAPS_ROWS).encode())
    other = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(other)

    assert client.get(run_page(run)).status_code == 200
    assert 'name="sha256"' not in client.get(run_page(run)).content.decode()
    assert confirm(client, django_capture_on_commit_callbacks, run).status_code == 403
    run.refresh_from_db()
    assert run.status == "previewed"
    assert Match.objects.count() == 0


def test_only_the_previewed_file_is_confirmed(web, django_capture_on_commit_callbacks):
    run = uploaded(web, django_capture_on_commit_callbacks, name="h.csv", data=slaps_csv(SLAPS_ROWS).encode())

    confirm(web, django_capture_on_commit_callbacks, run, sha256="0" * 64)
    run.refresh_from_db()
    assert run.status == "previewed"
    assert Match.objects.count() == 0
    # The stored bytes changed behind the preview's back: the import refuses them.
    ImportRun.objects.filter(pk=run.pk).update(data=slaps_csv(SLAPS_ROWS[:1]).encode())
    confirm(web, django_capture_on_commit_callbacks, run)
    run.refresh_from_db()
    assert run.status == "failed"
    assert "not the one previewed" in run.error
    assert Match.objects.count() == 0


def test_the_upload_and_the_confirmation_need_the_csrf_token(importer, django_capture_on_commit_callbacks):
    client = Client(enforce_csrf_checks=True)
    client.force_login(importer)
    slaps = Game.objects.get(slug="slaps").pk
    response = client.post(ADD, {"game": slaps, "file": SimpleUploadedFile("h.csv", b"x"), "referee": importer.pk})
    assert response.status_code == 403
    assert ImportRun.objects.count() == 0


def test_an_upload_naming_another_referee_is_recorded_as_the_uploaders_work(
    web, importer, django_capture_on_commit_callbacks
):
    """A staff member who may import posts a superuser (or any referee) as "referee": the form has no such
    field, so the results, their audit entries and the run name the uploader, nobody else."""
    superuser = UserFactory(is_staff=True, is_superuser=True)
    other_referee = RefereeFactory()
    capture = django_capture_on_commit_callbacks
    form = web.get(ADD).content.decode()
    assert 'name="referee"' not in form
    for claimed in (superuser, other_referee):
        data = slaps_csv(
            [("Ada Novak", "Ben Berg", "a")] if claimed == superuser else [("Cleo Costa", "Ben Berg", "b")]
        )
        response = upload(web, capture, name=f"{claimed.pk}.csv", data=data.encode(), referee=claimed.pk)
        assert response.status_code == 302, response.content.decode()[:1000]
        run = ImportRun.objects.get(filename=f"{claimed.pk}.csv")
        assert run.referee == importer
        confirm(web, capture, run)
        run.refresh_from_db()
        assert run.status == "done", run.error
    assert set(Match.objects.values_list("referee", flat=True)) == {importer.pk}
    entries = AuditEntry.objects.filter(action=AuditEntry.Action.SUBMITTED)
    assert set(entries.values_list("actor", flat=True)) == {importer.pk}
    assert {entry.data["source"]["by"] for entry in entries} == {importer.pk}
    assert {entry.data["source"]["via"] for entry in entries} == {"admin upload"}
    assert not AuditEntry.objects.filter(actor__in=[superuser, other_referee]).exists()


# --- the real bridge files -----------------------------------------------------------------------------------


@REAL_FILES
@pytest.mark.parametrize("facts", FILES, ids=[facts.file.split("_")[0] for facts in FILES])
def test_a_real_bridge_file_stores_through_admin_what_the_command_stores(
    facts, web, importer, django_capture_on_commit_callbacks
):
    path = DATA / facts.file
    run = uploaded(web, django_capture_on_commit_callbacks, name=facts.file, data=path.read_bytes(), game="bridge")
    run.refresh_from_db()
    assert run.status == "previewed", run.preview
    assert (run.preview["results"], run.preview["new"], run.preview["blocking"]) == (1, 2 * facts.pairs, 0)
    notes = [problem for problem in run.preview["problems"] if not problem["blocking"]]
    assert notes == []  # every row is kept: adjusted rows and byes with their printed points
    assert web.get(run_page(run)).status_code == 200

    confirm(web, django_capture_on_commit_callbacks, run)
    run.refresh_from_db()
    assert run.status == "done", run.error
    bridge = Game.objects.get(slug="bridge")
    assert Match.objects.filter(game=bridge).count() == 1
    players = Player.objects.count()
    assert players == 2 * facts.pairs

    # The command, into a twin game with the same rules: the same people (matched, none created), the same
    # ledger row for row.
    twin = twin_game("bridge")
    out = StringIO()
    call_command(
        "import_results", str(path), "--game", twin.slug, "--referee", importer.username, stdout=out, stderr=out
    )
    assert Player.objects.count() == players
    assert Match.objects.filter(game=twin).count() == 1
    assert len(ledger(bridge)) > 0
    assert ledger(bridge) == ledger(twin)
    assert standings(bridge) == standings(twin)


# --- progress, outside the import's transaction (PostgreSQL) ------------------------------------------------


@pytest.mark.postgres  # progress is written on a second connection on PostgreSQL only
@pytest.mark.django_db(transaction=True)
def test_progress_is_seen_while_the_import_is_open_and_survives_its_rollback(reference_data):
    user = UserFactory()
    run = ImportRun.objects.create(
        user=user,
        game=Game.objects.get(slug="slaps"),
        format="csv",
        filename="h.csv",
        size=1,
        sha256="a" * 64,
        data=b"x",
    )
    seen = {}

    def look():
        # Another connection, as the page's poll is: the run's progress, and whether the import's rows show.
        try:
            seen["progress"] = ImportRun.objects.filter(pk=run.pk).values_list("done", "total").get()
            seen["player"] = Player.objects.filter(name="Mid Import").exists()
        finally:
            connection.close()

    progress = ProgressWriter(run.pk)

    def an_import_that_fails():
        with transaction.atomic():
            Player.objects.create(name="Mid Import")
            progress(1, 3)
            thread = threading.Thread(target=look)
            thread.start()
            thread.join(10)
            raise RuntimeError("the import fails: everything in its transaction rolls back")

    with pytest.raises(RuntimeError):
        an_import_that_fails()
    progress.close()

    assert seen == {"progress": (1, 3), "player": False}
    assert not Player.objects.filter(name="Mid Import").exists()
    assert ImportRun.objects.filter(pk=run.pk).values_list("done", "total").get() == (1, 3)


# --- the command's progress bar ------------------------------------------------------------------------------


class Terminal(StringIO):
    """What the command writes to, as a terminal: ``isatty`` is what it asks."""

    def isatty(self) -> bool:
        return True


def test_the_command_redraws_one_progress_bar_on_a_terminal(tmp_path, importer):
    rows = [("Ada Novak", "Ben Berg", "a")] * 250
    path = tmp_path / "long.csv"
    path.write_text(slaps_csv(rows))
    out = Terminal()

    call_command("import_results", str(path), "--game", "slaps", "--referee", importer.username, stdout=out)

    text = out.getvalue()
    bars = text.split("\r")[1:]
    assert len(bars) == 101  # 0% .. 100%, once each, on one line
    assert bars[0] == f"  [{' ' * 20}] 1/250 0%"
    assert bars[50] == f"  [{'#' * 10}{' ' * 10}] 125/250 50%"
    assert bars[-1].startswith(f"  [{'#' * 20}] 250/250 100%\n")
    assert "Imported 250 results" in bars[-1]


def test_a_run_in_progress_polls_and_odd_addresses_are_refused(web, importer):
    run = ImportRun.objects.create(
        user=importer,
        game=Game.objects.get(slug="slaps"),
        format="csv",
        filename="h.csv",
        size=1,
        sha256="a" * 64,
        data=b"x",
        status=ImportRun.Status.RUNNING,
        done=7,
        total=40,
    )
    status = reverse("admin:games_importrun_status", args=[run.pk])

    block = web.get(status).content.decode()
    assert f'hx-get="{status}" hx-trigger="every 1s" hx-swap="outerHTML"' in block
    assert '<progress id="import-progress" max="40" value="7">' in block
    assert "<html" not in block  # the block alone, swapped into the page
    assert web.get(f"/admin/games/importrun/{run.pk}x/change/").status_code == 404
    assert web.get("/admin/games/importrun/999999/status/").status_code == 404
    assert web.get(reverse("admin:games_importrun_confirm", args=[run.pk])).status_code == 405
    listing = web.get(reverse("admin:games_importrun_changelist"))
    assert listing.status_code == 200
    assert "h.csv" in listing.content.decode()


def test_a_preview_left_unconfirmed_drops_its_file_after_the_configured_hours(
    web, importer, settings, django_capture_on_commit_callbacks
):
    """A previewed file holds names that are in no table: after CARDRANK_IMPORT_PREVIEW_HOURS unconfirmed
    it is dropped (the run fails, saying why), and a confirmation after that stores nothing."""
    settings.CARDRANK_IMPORT_PREVIEW_HOURS = 3
    capture = django_capture_on_commit_callbacks
    run = uploaded(web, capture, name="history.csv", data=slaps_csv(SLAPS_ROWS).encode())
    run.refresh_from_db()
    assert run.status == ImportRun.Status.PREVIEWED
    assert bytes(run.data)
    assert "Ada Novak" in str(run.preview)
    sha256, counts = run.sha256, run.preview["results"]
    later = run.updated_at + timedelta(hours=2, minutes=59)
    assert import_runs_expire(now=later) == 0  # not yet: three hours
    run.refresh_from_db()
    assert run.status == ImportRun.Status.PREVIEWED
    assert bytes(run.data)

    # A confirmed run waiting for a worker is the admin's intent: kept.
    ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.QUEUED)
    assert import_runs_expire(now=timezone.now() + timedelta(hours=4)) == 0
    ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.PREVIEWED)

    assert import_runs_expire(now=timezone.now() + timedelta(hours=3, seconds=1)) == 1
    run.refresh_from_db()
    assert run.status == ImportRun.Status.FAILED
    assert run.error == "Not confirmed within 3 hours: the file was dropped, nothing was stored. Upload it again."
    assert bytes(run.data) == b""
    assert "Ada Novak" not in str(run.preview)
    assert run.preview["results"] == counts
    assert run.sha256 == sha256
    assert run.finished_at is not None
    assert import_runs_expire(now=timezone.now() + timedelta(days=2)) == 0  # once

    confirm(web, capture, run, sha256)
    assert not Match.objects.exists()
    assert not Player.objects.filter(name="Cleo Costa").exists()


def test_the_expiry_runs_hourly_on_beat(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["games-expire-import-runs"]
    assert entry == {"task": "games.tasks.import_runs_expire", "schedule": timedelta(hours=1)}
