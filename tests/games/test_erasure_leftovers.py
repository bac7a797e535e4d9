"""What erasing a person reaches beyond their player record (ratings.people.player_erase), and who sees a preview.

Admin's history lines of any record whose name carried the person's (now or
earlier), disputes' notes (on the result and in the audit log), the import
runs' previews and errors, and the files runs keep: none keeps the name, and
a run keeping a file that names them fails, dropping it. A run's preview
names the file's people, so only its uploader and superusers see the run.
Expected texts are written here by hand.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import ImportRun
from leagues.models import League
from matches.confirmation import match_dispute
from matches.models import AuditEntry, Match
from ratings.models import PlayerRating
from ratings.people import player_erase
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory
from tests.games.test_admin_import import run_page, upload
from tests.games.test_import_results import slaps_csv

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def _log(user, obj, text: str) -> LogEntry:
    return LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=str(obj.pk),
        object_repr=text,
        action_flag=CHANGE,
        change_message="[]",
    )


def _slaps(winner, loser) -> dict:
    return {"game": "slaps", "played_at": PLAYED.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def test_every_admin_history_line_naming_the_person_names_them_by_the_erased_name(slaps, referee, admin_user):
    zoe, bob = PlayerFactory(name="Zoë Privacy"), PlayerFactory(name="Bob Kept")
    rating = PlayerRating.objects.create(
        game=slaps, player=zoe, league=League.objects.get(game=slaps, tier="amateur"), rating=1000, peak_rating=1000
    )
    _log(admin_user, zoe, "Zoe Oldname")  # their record under the name they had before
    _log(admin_user, zoe, "Zoë Privacy")
    _log(admin_user, rating, "Zoë Privacy (1000)")  # another record whose name carries theirs
    _log(admin_user, rating, "zoe oldname (1000)")  # their earlier name, in another case
    _log(admin_user, bob, "Bob Kept")
    _log(admin_user, bob, "Zoe Oldnameson")  # a longer name that only starts like theirs

    player_erase(player=zoe, by=admin_user)

    erased = f"Erased player #{zoe.pk}"
    reprs = sorted(LogEntry.objects.values_list("object_repr", flat=True))
    assert reprs == sorted([erased, erased, f"{erased} (1000)", f"{erased} (1000)", "Bob Kept", "Zoe Oldnameson"])


def test_a_dispute_note_naming_the_person_names_them_by_the_erased_name(reference_data, admin_user):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    first, second = RefereeFactory(username="first"), RefereeFactory(username="second")
    zoe, bob = PlayerFactory(name="Zoë Privacy"), PlayerFactory(name="Bob Kept")
    match_id = api_for(first).post("/api/matches/", _slaps(bob, zoe), format="json").json()["id"]
    other = api_for(first).post("/api/matches/", _slaps(bob, PlayerFactory(name="Cid")), format="json").json()["id"]
    match_dispute(match_id=match_id, by=second, note="ZOË PRIVACY won: the sheet says so, not Bob Kept.")
    match_dispute(match_id=other, by=second, note="Cid won, not Bob Kept.")

    player_erase(player=zoe, by=admin_user)

    expected = f"Erased player #{zoe.pk} won: the sheet says so, not Bob Kept."
    assert Match.objects.get(pk=match_id).dispute_note == expected
    assert AuditEntry.objects.get(match_id=match_id, action="disputed").data == {"note": expected}
    assert Match.objects.get(pk=other).dispute_note == "Cid won, not Bob Kept."
    assert AuditEntry.objects.get(match_id=other, action="disputed").data == {"note": "Cid won, not Bob Kept."}


@pytest.fixture
def importer(reference_data):
    return _importer("importer")


def _importer(username: str):
    user = RefereeFactory(username=username, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    return user


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _uploaded(client, capture, rows) -> ImportRun:
    response = upload(client, capture, name="h.csv", data=slaps_csv(rows).encode())
    assert response.status_code == 302, response.content.decode()[:2000]
    return ImportRun.objects.order_by("-id").first()


def test_erasing_drops_the_person_from_every_preview_and_fails_runs_keeping_a_file_naming_them(
    importer, admin_user, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    ada = PlayerFactory(name="Ada Novak", federation_id="00123")
    PlayerFactory(name="Ben Berg")
    web = _browser(importer)
    naming = _uploaded(web, capture, [("Ada Novak", "Ben Berg", "a"), ("Ben Berg", "Cleo Costa", "b")])
    other = _uploaded(web, capture, [("Ben Berg", "Cleo Costa", "a")])
    assert (naming.status, other.status) == ("previewed", "previewed")
    assert "Ada Novak" in json.dumps(naming.preview)
    # A run refused earlier, and one confirmed and waiting for a worker, both naming her.
    refused = ImportRun.objects.create(
        user=importer,
        game=naming.game,
        format="csv",
        filename="old.csv",
        size=1,
        sha256="1" * 64,
        status="refused",
        preview=naming.preview,
        error="line 2: Ada Novak twice",
    )
    queued = ImportRun.objects.create(
        user=importer,
        game=naming.game,
        format="csv",
        filename="q.csv",
        size=naming.size,
        sha256=naming.sha256,
        data=bytes(naming.data),
        status="queued",
    )

    player_erase(player=ada, by=admin_user)

    for run in (naming, queued):
        run.refresh_from_db()
        assert run.status == "failed"
        assert bytes(run.data) == b""
        assert run.error.startswith("A person this file names was erased: the file was dropped")
        assert "Ada" not in json.dumps(run.preview)
    refused.refresh_from_db()
    assert refused.status == "refused"
    assert "Ada" not in json.dumps(refused.preview)
    assert "00123" not in json.dumps(refused.preview)
    assert "Ben Berg" in json.dumps(refused.preview)  # the others stay
    assert refused.error == f"line 2: Erased player #{ada.pk} twice"
    other.refresh_from_db()
    assert other.status == "previewed"  # a file not naming her is left alone
    assert bytes(other.data)
    assert "Ada" not in web.get(run_page(naming)).content.decode()


def test_a_run_is_seen_by_its_uploader_and_superusers_only(importer, admin_user, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    web = _browser(importer)
    run = _uploaded(web, capture, [("Ada Novak", "Ben Berg", "a")])
    status = reverse("admin:games_importrun_status", args=[run.pk])
    changelist = reverse("admin:games_importrun_changelist")
    stranger = _browser(_importer("stranger"))

    assert stranger.get(run_page(run)).status_code == 404
    assert stranger.get(status).status_code == 404
    assert stranger.get(reverse("admin:games_importrun_history", args=[run.pk])).status_code in (302, 403, 404)
    confirm = stranger.post(reverse("admin:games_importrun_confirm", args=[run.pk]), {"sha256": run.sha256})
    assert confirm.status_code == 404
    listed = stranger.get(changelist).content.decode()
    assert "h.csv" not in listed
    assert "Ada Novak" not in listed
    own = _upload_as(stranger, capture)
    assert "mine.csv" in stranger.get(changelist).content.decode()
    assert stranger.get(run_page(own)).status_code == 200

    for client in (web, _browser(admin_user)):
        assert client.get(run_page(run)).status_code == 200
        assert "Ada Novak" in client.get(run_page(run)).content.decode()
        assert client.get(status).status_code == 200
        assert "h.csv" in client.get(changelist).content.decode()
    assert "mine.csv" not in web.get(changelist).content.decode()
    run.refresh_from_db()
    assert run.status == "previewed"


def _upload_as(client, capture) -> ImportRun:
    response = upload(client, capture, name="mine.csv", data=slaps_csv([("Ben Berg", "Cleo Costa", "a")]).encode())
    assert response.status_code == 302
    return ImportRun.objects.order_by("-id").first()
