"""Imports a club can trust (docs/import.md): a file imported twice stores nothing, people are never
silently joined, an import is its uploader's work, and nobody confirms their own import.

Hostile input throughout: the same bytes twice (from the command, from admin, both at once on
PostgreSQL), a re-exported evening whose results are already stored, namesakes with different
numbers, a number whose stored player has another name, one number given to two names, an upload
naming another referee, the importer confirming their own import. Each gets a clear refusal and
stores nothing. Expected values are written here from the files the tests write.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.importing import (
    ImportRefused,
    ImportSource,
    PeopleMatch,
    import_apply,
    import_format_for,
    import_plan_read,
    import_preview,
    name_same,
    problems_grouped,
)
from games.imports import ImportPlan, Problem
from games.models import ImportedFile, ImportRun
from leagues.models import Game, League, Player
from matches.confirmation import match_confirm, match_dispute
from matches.models import AuditEntry, Match
from matches.services import match_submit
from ratings.models import RatingChange
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory, UserFactory
from tests.games.test_bridge_import import DATA, FILES, REAL_FILES
from tests.games.test_import_results import PREFERANS_CSV, START, slaps_csv, write

pytestmark = pytest.mark.django_db

ADD = reverse("admin:games_importrun_add")
ROWS = [("Ada Novak", "Ben Berg", "a"), ("Ben Berg", "Cleo Costa", "b"), ("Cleo Costa", "Ada Novak", "a")]


def command(path, *args: str) -> str:
    out = StringIO()
    try:
        call_command("import_results", str(path), *args, stdout=out, stderr=out)
    except CommandError as error:
        raise AssertionError(out.getvalue()) from error
    return out.getvalue()


def refused(path, *args: str) -> str:
    """The command's refusal (its output and error); asserts it stored nothing: no result, player or file."""
    counts = Match.objects.count(), Player.objects.count(), ImportedFile.objects.count(), AuditEntry.objects.count()
    out = StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_results", str(path), *args, stdout=out, stderr=out)
    after = Match.objects.count(), Player.objects.count(), ImportedFile.objects.count(), AuditEntry.objects.count()
    assert after == counts
    return out.getvalue() + str(error.value)


# --- the same file twice ------------------------------------------------------------------------------------


def test_the_same_file_twice_from_the_command_is_refused_naming_what_it_stored(tmp_path, reference_data):
    """No account named and none called "referee" (a fresh install): the operator imports; a second import of
    the same bytes, under any name, dry run or not, is refused and stores nothing."""
    path = write(tmp_path, "evening.csv", slaps_csv(ROWS))
    out = command(path, "--game", "slaps")
    assert "Imported 3 results (3 new players); 3 rated." in out
    ids = sorted(Match.objects.values_list("id", flat=True))
    assert len(ids) == 3
    assert set(Match.objects.values_list("referee", flat=True)) == {None}  # the command-line operator
    entries = AuditEntry.objects.filter(action=AuditEntry.Action.SUBMITTED)
    assert set(entries.values_list("actor", flat=True)) == {None}
    assert {entry.data["source"]["via"] for entry in entries} == {"command line"}
    assert {entry.data["source"]["file"] for entry in entries} == {"evening.csv"}
    record = ImportedFile.objects.get()
    assert (record.filename, record.via, record.user, record.results, record.duplicates) == (
        "evening.csv",
        "command",
        None,
        3,
        0,
    )
    assert sorted(record.matches.values_list("id", flat=True)) == ids
    day = timezone.localdate().isoformat()
    expected = f"already imported on {day} as results {ids[0]} to {ids[-1]} (3, by the command line)"

    for again in (path, write(tmp_path, "evening-again.csv", slaps_csv(ROWS))):
        output = refused(again, "--game", "slaps")
        assert expected in output
        assert "Nothing was imported." in output
    assert expected in refused(path, "--game", "slaps", "--dry-run")
    assert RatingChange.objects.count() == 6  # the first import's, once


def test_one_result_files_name_it_and_other_games_may_take_the_same_file(tmp_path, referee):
    path = write(tmp_path, "one.csv", slaps_csv(ROWS[:1]))
    command(path, "--game", "slaps", "--referee", referee.username)
    match = Match.objects.get()
    output = refused(path, "--game", "slaps")
    assert f"as match {match.pk} (by {referee.username})" in output
    # Per game: the same bytes into another game of the same kind are that game's first import.
    twin = Game.objects.create(slug="slaps-b", name="Slaps B", rating_system="elo")
    League.objects.create(game=twin, slug="slaps-b-amateur", name="B amateur", tier="amateur")
    command(path, "--game", "slaps-b")
    assert ImportedFile.objects.count() == 2


def test_results_already_stored_by_the_entry_page_or_another_file_are_skipped(tmp_path, referee):
    """A re-exported evening: the same results in another file (other bytes) store nothing new; a result
    entered on the page and then found in a file is stored once."""
    ada, ben = PlayerFactory(name="Ada Novak"), PlayerFactory(name="Ben Berg")
    entered = match_submit(
        referee=referee,
        data={"game": "slaps", "played_at": START.isoformat(), "players": [ada.pk, ben.pk], "winner": ada.pk},
    )
    # The same result, its time written in another zone, the winner by name, plus one new result.
    text = (
        "played_at,player_a,player_b,winner\n"
        f"{START.astimezone(timezone.get_fixed_timezone(60)).isoformat()},Ada Novak,Ben Berg,Ada Novak\n"
        f"{(START + timedelta(hours=1)).isoformat()},Ben Berg,Ada Novak,a\n"
    )
    path = write(tmp_path, "club.csv", text)
    dry = command(path, "--game", "slaps", "--dry-run")
    assert f"already stored: line 2 is match {entered.pk}" in dry
    assert "Dry run: 1 results would be imported; nothing was stored. 1 already stored, skipped." in dry
    out = command(path, "--game", "slaps")
    assert "Imported 1 results (0 new players); 2 rated. 1 already stored, skipped." in out
    assert Match.objects.count() == 2
    record = ImportedFile.objects.get()
    assert (record.results, record.duplicates, record.matches.count()) == (2, 1, 1)
    assert entered.pk not in record.matches.values_list("id", flat=True)


def test_a_re_exported_preferans_evening_stores_nothing_again(tmp_path, referee):
    """Exported (whists written 4 where the file had 4.0, times in UTC), the same games are the same results."""
    command(write(tmp_path, "pref.csv", PREFERANS_CSV), "--game", "preferans", "--timezone", "Europe/Ljubljana")
    exported = tmp_path / "again.csv"
    call_command(
        "export_results", "--game", "preferans", "--format", "csv", "--output", str(exported), stdout=StringIO()
    )
    assert exported.read_bytes() != PREFERANS_CSV.encode()
    out = command(exported, "--game", "preferans")
    assert "Imported 0 results (0 new players)" in out
    assert "2 already stored, skipped." in out
    assert Match.objects.filter(game__slug="preferans").count() == 2
    # A deal changed by one whist is another result: stored beside, with a note.
    changed = exported.read_text().replace(",4,-2,-2,", ",3,-1,-2,", 1)  # whists are numbers: no apostrophe
    out = command(write(tmp_path, "changed.csv", changed), "--game", "preferans")
    assert "Imported 1 results" in out
    assert "a stored result at the same time differs from this one: both are kept" in out


# --- replacing what a corrected file corrects ----------------------------------------------------------------


def test_a_corrected_file_replaces_its_result_only_when_asked(tmp_path, admin_user):
    command(write(tmp_path, "first.csv", slaps_csv(ROWS[:1])), "--game", "slaps")
    stored = Match.objects.get()
    ada_first = RatingChange.objects.get(match=stored, player__name="Ada Novak").delta
    assert ada_first == 16  # K 32, equal ratings: Ada won, +16
    corrected = write(tmp_path, "corrected.csv", slaps_csv([("Ada Novak", "Ben Berg", "b")]))

    out = command(corrected, "--game", "slaps", "--dry-run")
    assert "a stored result at the same time differs from this one: both are kept (to replace it" in out
    out = command(corrected, "--game", "slaps", "--replace", "--referee", admin_user.username)
    assert f"replaces: line 2 corrects match {stored.pk}" in out
    assert "1 replaced stored results." in out
    assert Match.objects.count() == 1
    stored.refresh_from_db()
    assert stored.winner_seat.player.name == "Ben Berg"
    assert RatingChange.objects.get(match=stored, player__name="Ada Novak").delta == -16  # replayed: Ada lost
    correction = AuditEntry.objects.get(match=stored, action=AuditEntry.Action.CORRECTED)
    assert correction.actor == admin_user
    assert correction.data["source"]["file"] == "corrected.csv"
    assert list(ImportedFile.objects.get(filename="corrected.csv").replaced.all()) == [stored]


def test_replace_refuses_a_time_that_holds_several_stored_results(tmp_path, referee):
    two = "played_at,player_a,player_b,winner\n" + "".join(
        f"{START.isoformat()},{a},{b},a\n" for a, b in (("Ada", "Ben"), ("Cleo", "Dan"))
    )
    command(write(tmp_path, "two.csv", two), "--game", "slaps")
    corrected = write(tmp_path, "fix.csv", f"played_at,player_a,player_b,winner\n{START.isoformat()},Ada,Ben,b\n")
    output = refused(corrected, "--game", "slaps", "--replace")
    assert "1 result(s) of the file and 2 stored" in output
    assert "which replaces which cannot be told" in output
    assert set(Match.objects.values_list("seats__result", flat=True)) == {Decimal(1), Decimal(0)}


def test_replacing_needs_a_right_to_correct(tmp_path, referee):
    command(write(tmp_path, "first.csv", slaps_csv(ROWS[:1])), "--game", "slaps")
    corrected = write(tmp_path, "fix.csv", slaps_csv([("Ada Novak", "Ben Berg", "b")]))
    output = refused(corrected, "--game", "slaps", "--replace", "--referee", referee.username)
    assert f"{referee.username} may not correct results" in output


# --- people ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("SALOMAA Mika", "Mika Salomaa", True),
        ("mika salomaa", "Mika Salomaa", True),
        ("Salomaa, Míka", "Mika SALOMAA", True),
        ("Jørn Johansen", "JOHANSEN Jørn", True),
        ("Egil Hansen", "Mika Salomaa", False),
        ("Ada Novak-Berg", "Ada Novak", False),  # a name changed is for the admin to confirm
        ("Ada Novak", "Ada", False),
    ],
)
def test_names_are_the_same_beyond_case_accents_and_order(first, second, same):
    assert name_same(first, second) is same


def test_new_namesakes_with_different_numbers_are_two_players(tmp_path, reference_data):
    text = (
        "played_at,player_a,player_a_id,player_b,player_b_id,winner\n"
        "2026-03-01T18:00Z,Ada Novak,1,Ben Berg,,a\n"
        "2026-03-01T19:00Z,Ada Novak,2,Ben Berg,,b\n"
    )
    command(write(tmp_path, "s.csv", text), "--game", "slaps")
    assert sorted(Player.objects.filter(name="Ada Novak").values_list("federation_id", flat=True)) == ["1", "2"]


def test_namesakes_with_different_numbers_are_never_joined_into_one_stored_player(tmp_path, reference_data):
    """A stored Ada Novak without a number, and a file naming Ada Novak 1 and Ada Novak 2: until the admin says
    which one the stored Ada is, nothing is stored; then that one is her and the other is created."""
    stored = PlayerFactory(name="Ada Novak")
    text = (
        "played_at,player_a,player_a_id,player_b,player_b_id,winner\n"
        "2026-03-01T18:00Z,Ada Novak,1,Ben Berg,,a\n"
        "2026-03-01T19:00Z,Ada Novak,2,Ben Berg,,b\n"
    )
    path = write(tmp_path, "s.csv", text)
    output = refused(path, "--game", "slaps")
    assert f"player #{stored.pk} Ada Novak has no number, and the file names several people Ada Novak" in output
    assert f"to confirm: Ada Novak (1) in the file; #{stored.pk} Ada Novak stored" in output
    assert f"to confirm: Ada Novak (2) in the file; #{stored.pk} Ada Novak stored" in output
    stored.refresh_from_db()
    assert stored.federation_id == ""

    out = command(path, "--game", "slaps", "--same-person", "2")
    assert f"matched: Ada Novak (2) = #{stored.pk} Ada Novak, by name, confirmed the same person" in out
    assert "new: Ada Novak (1)" in out
    stored.refresh_from_db()
    assert stored.federation_id == "2"
    other = Player.objects.get(name="Ada Novak", federation_id="1")
    seated = {m.played_at.hour: set(m.seats.values_list("player_id", flat=True)) for m in Match.objects.all()}
    ben = Player.objects.get(name="Ben Berg").pk
    assert seated == {18: {other.pk, ben}, 19: {stored.pk, ben}}


def test_a_number_whose_player_has_another_name_waits_for_the_admins_word(tmp_path, reference_data):
    mika = PlayerFactory(name="Mika Salomaa", federation_id="1439")
    text = "played_at,player_a,player_a_id,player_b,winner\n2026-03-01T18:00Z,Egil Hansen,1439,Ben Berg,a\n"
    path = write(tmp_path, "s.csv", text)
    output = refused(path, "--game", "slaps")
    assert f"the file gives number 1439 to Egil Hansen, but player #{mika.pk} Mika Salomaa holds it" in output
    assert f"to confirm: Egil Hansen (1439) in the file; #{mika.pk} Mika Salomaa (1439) stored" in output
    assert "--same-person 1439" in output
    assert not Player.objects.filter(name="Egil Hansen").exists()

    # Another number confirmed confirms nothing.
    output = refused(path, "--game", "slaps", "--same-person", "9999")
    assert "--same-person 9999: No person of the file with this number needs a confirmation" in output

    out = command(path, "--game", "slaps", "--same-person", "1439")
    assert f"matched: Egil Hansen (1439) = #{mika.pk} Mika Salomaa, by number, confirmed the same person" in out
    mika.refresh_from_db()
    assert mika.name == "Mika Salomaa"  # the stored name stays
    assert Match.objects.get().seats.order_by("position").first().player == mika


def test_the_same_name_in_another_order_or_case_is_matched_by_number_without_asking(tmp_path, reference_data):
    mika = PlayerFactory(name="Mika Salomaa", federation_id="1439")
    text = "played_at,player_a,player_a_id,player_b,winner\n2026-03-01T18:00Z,SALOMAA Mika,1439,Ben Berg,a\n"
    out = command(write(tmp_path, "s.csv", text), "--game", "slaps")
    assert f"matched: SALOMAA Mika (1439) = #{mika.pk} Mika Salomaa, by number" in out


def test_one_number_given_to_two_names_in_a_file_is_refused(tmp_path, reference_data):
    text = "played_at,player_a,player_a_id,player_b,player_b_id,winner\n2026-03-01T18:00Z,Ada Novak,77,Ben Berg,77,a\n"
    output = refused(write(tmp_path, "s.csv", text), "--game", "slaps")
    assert "number 77: the file gives this number to Ada Novak, Ben Berg: a number is one person's." in output


def test_the_preview_lists_every_matched_person_bounded(tmp_path, reference_data):
    """Every person of an evening (a bridge session seats at most 200) is listed; a history of more, its first 250."""
    players = [PlayerFactory(name=f"Player {n:03d}") for n in range(260)]
    rows = [(players[2 * i].name, players[2 * i + 1].name, "a") for i in range(130)]
    out = command(write(tmp_path, "s.csv", slaps_csv(rows)), "--game", "slaps", "--dry-run")
    assert "130 results; players: 260 matched, 0 new, 0 ambiguous." in out
    listed = [line for line in out.splitlines() if line.startswith("  matched: ")]
    assert len(listed) == 250
    assert listed[0] == f"  matched: Player 000 = #{players[0].pk} Player 000, by name"
    assert "… and 10 more matched." in out


# --- what the preview says ------------------------------------------------------------------------------------


def test_repeated_problems_are_grouped_with_their_count_and_first_places(tmp_path, reference_data):
    rows = "".join(f"2026-03-01T1{n}:00Z,Ada,Ben,c\n" for n in range(8))
    output = refused(write(tmp_path, "s.csv", "played_at,player_a,player_b,winner\n" + rows), "--game", "slaps")
    message = "winner 'c' is neither a nor b (nor one player's name)."
    assert f"  problem (8): {message} (line 2, line 3, line 4, line 5, line 6 and 3 more)" in output
    assert output.count(message) == 1


def test_problems_grouped_keeps_blocking_first_and_counts_each():
    problems = [
        Problem("line 3 (board 1)", "a bye is not a rated duel.", False),
        Problem("line 4", "the score x is not a number."),
        Problem("line 9 (board 2)", "a bye is not a rated duel.", False),
    ]
    assert problems_grouped(problems) == [
        {"message": "the score x is not a number.", "blocking": True, "count": 1, "where": ["line 4"], "more": 0},
        {
            "message": "a bye is not a rated duel.",
            "blocking": False,
            "count": 2,
            "where": ["line 3 (board 1)", "line 9 (board 2)"],
            "more": 0,
        },
    ]


def test_the_admin_preview_shows_what_the_file_is_and_grouped_notes(reference_data):
    """``plan.about`` (a bridge reader fills event, date, sections, boards, pairs, scoring) as the preview keeps
    it, and a note repeated 28 times as one line with its count."""
    plan = ImportPlan(
        about={"event": "Turku club evening", "date": "2013-08-20", "boards": 28, "scoring": "Butler"},
        problems=[
            Problem(f"line {70 + 25 * n} (board {n + 1})", "a bye is not a rated duel.", False) for n in range(28)
        ],
    )
    preview = import_preview(plan, PeopleMatch(), problems=plan.problems)
    assert preview["about"] == {
        "event": "Turku club evening",
        "date": "2013-08-20",
        "boards": "28",
        "scoring": "Butler",
    }
    user = UserFactory(is_staff=True, is_superuser=True)
    run = ImportRun.objects.create(
        user=user,
        game=Game.objects.get(slug="bridge"),
        format="pbn",
        filename="turku.pbn",
        size=1,
        sha256="b" * 64,
        data=b"x",
        status=ImportRun.Status.PREVIEWED,
        preview=preview,
    )
    client = Client()
    client.force_login(user)
    page = client.get(reverse("admin:games_importrun_change", args=[run.pk])).content.decode()
    assert "<dt>event</dt><dd>Turku club evening</dd>" in page
    assert "<dt>scoring</dt><dd>Butler</dd>" in page
    assert "<strong>note (28)</strong>: a bye is not a rated duel." in page
    assert (
        "line 70 (board 1), line 95 (board 2), line 120 (board 3), line 145 (board 4), line 170 (board 5), and 23 more"
        in page
    )


# --- admin ------------------------------------------------------------------------------------------------------


@pytest.fixture
def importer(reference_data):
    user = RefereeFactory(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    return user


def upload(client, capture, *, name, data, game="slaps", **fields):
    with capture(execute=True):
        return client.post(
            ADD, {"game": Game.objects.get(slug=game).pk, "file": SimpleUploadedFile(name, data), **fields}
        )


def confirm(client, capture, run, **fields):
    with capture(execute=True):
        return client.post(reverse("admin:games_importrun_confirm", args=[run.pk]), {"sha256": run.sha256, **fields})


def test_the_same_file_uploaded_twice_in_admin_is_refused(importer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    web = Client()
    web.force_login(importer)
    data = slaps_csv(ROWS).encode()
    # Both previewed before either is confirmed (a second tab, a retry after a timeout).
    assert upload(web, capture, name="evening.csv", data=data).status_code == 302
    assert upload(web, capture, name="evening (1).csv", data=data).status_code == 302
    first, second = ImportRun.objects.order_by("id")
    assert {first.status, second.status} == {"previewed"}
    confirm(web, capture, first)
    first.refresh_from_db()
    assert first.status == "done"
    ids = sorted(Match.objects.values_list("id", flat=True))

    confirm(web, capture, second)
    second.refresh_from_db()
    assert second.status == "failed"
    assert f"already imported on {timezone.localdate().isoformat()} as results {ids[0]} to {ids[-1]}" in second.error
    assert f"by {importer.username}" in second.error
    assert Match.objects.count() == 3

    # Uploaded a third time: the preview refuses it, as a blocking problem.
    assert upload(web, capture, name="evening.csv", data=data).status_code == 302
    third = ImportRun.objects.order_by("id").last()
    assert third.status == "refused"
    page = web.get(reverse("admin:games_importrun_change", args=[third.pk])).content.decode()
    assert "This file was already imported on" in page
    assert 'name="sha256"' not in page
    assert Match.objects.count() == 3
    record = ImportedFile.objects.get()
    assert (record.via, record.user, record.run_id) == ("admin", importer, first.pk)


def test_admin_shows_the_results_already_stored_and_skips_them(importer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    ada, ben = PlayerFactory(name="Ada Novak"), PlayerFactory(name="Ben Berg")
    entered = match_submit(
        referee=importer,
        data={"game": "slaps", "played_at": START.isoformat(), "players": [ada.pk, ben.pk], "winner": ada.pk},
    )
    web = Client()
    web.force_login(importer)
    upload(web, capture, name="s.csv", data=slaps_csv(ROWS[:2]).encode())
    run = ImportRun.objects.get()
    assert (run.status, run.preview["stored"], run.preview["duplicates"]) == ("previewed", 1, 1)
    page = web.get(reverse("admin:games_importrun_change", args=[run.pk])).content.decode()
    assert "1 result to store; 1 already stored, skipped." in page
    assert f'line 2 → <a href="{reverse("match-detail", args=[entered.pk])}">#{entered.pk}</a>' in page
    confirm(web, capture, run)
    run.refresh_from_db()
    assert (run.status, run.summary["stored"], run.summary["duplicates"]) == ("done", 1, 1)
    assert Match.objects.count() == 2


def test_a_conflict_in_admin_needs_its_same_person_box(importer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    mika = PlayerFactory(name="Mika Salomaa", federation_id="1439")
    web = Client()
    web.force_login(importer)
    data = b"played_at,player_a,player_a_id,player_b,winner\n2026-03-01T18:00Z,Egil Hansen,1439,Ben Berg,a\n"
    upload(web, capture, name="s.csv", data=data)
    run = ImportRun.objects.get()
    assert run.status == "previewed"  # waiting for the answer, not refused
    page = web.get(reverse("admin:games_importrun_change", args=[run.pk])).content.decode()
    assert "Egil Hansen (1439) in the file" in page
    assert f"#{mika.pk} Mika Salomaa (1439)</a> holds this number" in page
    assert '<input type="checkbox" name="same_person" value="1439">' in page

    response = confirm(web, capture, run)  # the box left unticked
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == "previewed"
    assert not Match.objects.exists()
    assert not Player.objects.filter(name="Egil Hansen").exists()
    followed = web.get(response["Location"]).content.decode()
    assert f"Confirm that Egil Hansen (1439) is player #{mika.pk} Mika Salomaa" in followed

    confirm(web, capture, run, same_person="1439")
    run.refresh_from_db()
    assert run.status == "done", run.error
    assert Match.objects.get().seats.order_by("position").first().player == mika


def test_replace_in_admin_is_the_uploaders_choice_and_right(importer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    web = Client()
    web.force_login(importer)
    upload(web, capture, name="first.csv", data=slaps_csv(ROWS[:1]).encode())
    confirm(web, capture, ImportRun.objects.get())
    stored = Match.objects.get()
    corrected = slaps_csv([("Ada Novak", "Ben Berg", "b")]).encode()

    response = upload(web, capture, name="fix.csv", data=corrected, replace="on")
    assert response.status_code == 400
    assert "you may not correct results" in response.content.decode()
    assert ImportRun.objects.count() == 1

    importer.user_permissions.add(Permission.objects.get(codename="void_match", content_type__app_label="matches"))
    web.force_login(importer)
    upload(web, capture, name="fix.csv", data=corrected, replace="on")
    run = ImportRun.objects.get(filename="fix.csv")
    assert run.status == "previewed"
    assert run.preview["replaced_results"] == [{"where": "line 2", "match": stored.pk}]
    page = web.get(reverse("admin:games_importrun_change", args=[run.pk])).content.decode()
    assert f'line 2 replaces <a href="{reverse("match-detail", args=[stored.pk])}">#{stored.pk}</a>' in page
    confirm(web, capture, run)
    run.refresh_from_db()
    assert (run.status, run.summary["stored"], run.summary["replaced"]) == ("done", 0, 1)
    stored.refresh_from_db()
    assert stored.winner_seat.player.name == "Ben Berg"
    assert Match.objects.count() == 1


# --- nobody confirms their own import -----------------------------------------------------------------------


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


def test_the_importer_cannot_confirm_their_import_through_the_api(
    two_step, importer, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    web = Client()
    web.force_login(importer)
    upload(web, capture, name="s.csv", data=slaps_csv(ROWS[:1]).encode())
    confirm(web, capture, ImportRun.objects.get())
    match = Match.objects.get()
    assert match.awaiting_confirmation

    own = api_for(importer).post(f"/api/matches/{match.pk}/confirm/")
    assert own.status_code == 400
    assert "second referee" in own.json()["non_field_errors"][0]
    match.refresh_from_db()
    assert (match.awaiting_confirmation, match.confirmed_by) == (True, None)
    assert not RatingChange.objects.exists()
    with capture(execute=True):
        assert api_for(RefereeFactory()).post(f"/api/matches/{match.pk}/confirm/").status_code == 200
    assert RatingChange.objects.filter(match=match).count() == 2


def test_whoever_imported_a_result_cannot_confirm_it_whoever_is_its_referee(two_step, tmp_path, referee):
    """An import recorded under another account (a file imported before imports were their uploader's, or a
    service call naming one): the uploader its audit entry names may still not confirm it, nor dispute it."""
    uploader = RefereeFactory()
    data = slaps_csv(ROWS[:1]).encode()
    game = Game.objects.get(slug="slaps")
    plan = import_plan_read(game=game, format="csv", data=data)
    source = ImportSource.of(filename="s.csv", data=data, format="csv", via="admin", user=uploader)
    import_apply(plan=plan, game=game, referee=referee, source=source)
    match = Match.objects.get()
    assert match.referee == referee
    with pytest.raises(Exception, match="you imported this result"):
        match_confirm(match_id=match.pk, by=uploader)
    with pytest.raises(Exception, match="you imported this one"):
        match_dispute(match_id=match.pk, by=uploader, note="wrong winner")
    with pytest.raises(Exception, match="you entered"):
        match_confirm(match_id=match.pk, by=referee)
    match.refresh_from_db()
    assert (match.awaiting_confirmation, match.disputed_at) == (True, None)
    assert match_confirm(match_id=match.pk, by=RefereeFactory()).confirmed_by is not None


# --- two imports of one file at once (PostgreSQL, two real connections) ---------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_imports_of_one_file_store_it_once(reference_data):
    """The first import holds its transaction open (in its progress callback, its file's record written);
    the second, on another connection, finds no record yet, reaches the unique (game, sha256) and waits;
    the first commits; the second is refused, naming what the first stored, and stores nothing."""
    game = Game.objects.get(slug="slaps")
    data = slaps_csv(ROWS).encode()
    holding, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def first_progress(done, total):
        if done == 1:
            holding.set()
            release.wait(30)

    def run(name, progress):
        try:
            plan = import_plan_read(game=game, format="csv", data=data)
            source = ImportSource.of(filename=f"{name}.csv", data=data, format="csv", via="command")
            outcome[name] = import_apply(plan=plan, game=game, referee=None, source=source, progress=progress)
        except ImportRefused as refusal:
            outcome[name] = refusal
        finally:
            connection.close()

    first = threading.Thread(target=run, args=("first", first_progress))
    first.start()
    assert holding.wait(30)
    second = threading.Thread(target=run, args=("second", None))
    second.start()
    watcher = connections.create_connection("default")
    try:
        for _ in range(300):  # until the second waits on the first's lock
            with watcher.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
                if cursor.fetchone()[0]:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the second import never waited for the first")
    finally:
        watcher.close()
    release.set()
    first.join(30)
    second.join(30)

    assert outcome["first"].stored == 3
    assert isinstance(outcome["second"], ImportRefused)
    assert "This file was already imported on" in str(outcome["second"])
    assert Match.objects.count() == 3
    assert Player.objects.count() == 3
    assert ImportedFile.objects.get().filename == "first.csv"


# --- the real bridge files, through the services as they are -------------------------------------------------


@REAL_FILES
@pytest.mark.parametrize("facts", FILES, ids=[facts.file.split("_")[0] for facts in FILES])
def test_a_real_bridge_file_imported_twice_stores_one_session(facts, referee):
    """The same bytes are refused, naming the session stored; the same session in other bytes (the file saved
    again: one more line at its end) stores nothing either, every result of it already stored."""
    bridge = Game.objects.get(slug="bridge")
    data = (DATA / facts.file).read_bytes()
    format = import_format_for(facts.file)

    def imported(data: bytes):
        plan = import_plan_read(game=bridge, format=format, data=data)
        source = ImportSource.of(filename=facts.file, data=data, format=format, via="command", user=referee)
        return import_apply(plan=plan, game=bridge, referee=referee, source=source)

    assert imported(data).stored == 1
    session = Match.objects.get(game=bridge)
    players, changes = Player.objects.count(), RatingChange.objects.count()
    with pytest.raises(ImportRefused, match=f"already imported on .* as session {session.pk} "):
        imported(data)
    again = imported(data + b"\n")
    assert (again.stored, again.duplicates) == (0, [("result 1", session.pk)])
    assert Match.objects.filter(game=bridge).count() == 1
    assert (Player.objects.count(), RatingChange.objects.count()) == (players, changes)
