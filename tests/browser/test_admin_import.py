"""An admin imports a small Slaps CSV in a real browser: upload -> preview -> confirm -> progress -> done,
under the Content-Security-Policy, and the run's page follows a worker's progress by polling (htmx) without
reloading.

Tasks run eagerly in this process (tests/conftest.py), so the upload's check and the confirmed import are
done when their pages show; the polling half writes a run's progress as a worker does, with
``games.import_runs.ProgressWriter`` on its own connection.
"""

import pytest
from django.contrib.auth.models import Permission

from games.import_runs import ProgressWriter
from games.models import ImportRun
from leagues.models import Game
from matches.models import Match
from tests.browser.test_csp import SETTLED, Problems
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CSV = b"""played_at,player_a,player_a_id,player_b,player_b_id,winner
2026-03-01T18:00:00+01:00,Ada Novak,00123,Ben Berg,,a
2026-03-01T18:30:00+01:00,Ben Berg,,Cleo Costa,,b
2026-03-01T19:00:00+01:00,Cleo Costa,,Ada Novak,00123,a
"""


@pytest.fixture
def importer():
    reference_data_ensure()
    user = RefereeFactory(username="club-admin", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="import_results", content_type__app_label="games"),
        Permission.objects.get(codename="view_game", content_type__app_label="leagues"),
    )
    PlayerFactory(name="Ada Novak", federation_id="00123")
    return user


def sign_in(page) -> None:
    page.goto("/admin/login/?next=/admin/")
    page.get_by_label("Username").fill("club-admin")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/")


def test_an_admin_uploads_previews_confirms_and_sees_it_done(production, page, importer):
    problems = Problems()
    problems.watch(page)
    sign_in(page)

    slaps = Game.objects.get(slug="slaps")
    page.goto(f"/admin/leagues/game/{slaps.pk}/change/")
    page.get_by_role("link", name="Import results").click()
    page.wait_for_url("**/admin/games/importrun/add/?game=*")
    assert page.get_by_label("Game").input_value() == str(slaps.pk)
    page.get_by_label("File").set_input_files(files=[{"name": "club.csv", "mimeType": "text/csv", "buffer": CSV}])
    page.get_by_label("Time zone").select_option("Europe/Ljubljana")
    page.get_by_role("button", name="Upload and preview").click()

    page.wait_for_url("**/admin/games/importrun/*/change/")
    block = page.locator("#import-run")
    assert block.get_attribute("data-status") == "previewed"
    assert (
        "3 results; players: 1 matched (1 by federation number, 0 by name), 2 new, 0 ambiguous." in block.inner_text()
    )
    assert Match.objects.count() == 0
    page.get_by_role("button", name="Import 3 results").click()

    page.wait_for_url("**/admin/games/importrun/*/change/")
    page.wait_for_function("() => document.querySelector('#import-run').dataset.status === 'done'")
    assert "Imported 3 results (1 players matched, 2 new); 3 rated." in block.inner_text()
    assert page.locator("#import-progress").evaluate("bar => [bar.value, bar.max]") == [3, 3]
    assert Match.objects.filter(game=slaps).count() == 3

    # On a phone: the upload form fits 360 px and every field keeps its label.
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/admin/games/importrun/add/")
    for label in ("Game", "File", "Format", "League", "Time zone", "Replace the results it corrects"):
        assert page.get_by_label(label).is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    page.wait_for_function(SETTLED)
    problems.assert_none()


@pytest.mark.postgres  # ProgressWriter writes on a connection of its own on PostgreSQL only
def test_the_runs_page_follows_a_workers_progress_without_reloading(production, page, importer):
    run = ImportRun.objects.create(
        user=importer,
        game=Game.objects.get(slug="slaps"),
        referee=importer,
        format="csv",
        filename="big.csv",
        size=len(CSV),
        sha256="f" * 64,
        data=CSV,
        status=ImportRun.Status.RUNNING,
        total=400,
    )
    problems = Problems()
    problems.watch(page)
    sign_in(page)
    page.goto(f"/admin/games/importrun/{run.pk}/change/")
    page.evaluate("window.__stillHere = true")
    bar = page.locator("#import-progress")
    assert bar.evaluate("bar => [bar.value, bar.max]") == [0, 400]

    # The worker stores results inside its transaction and writes the progress beside it.
    progress = ProgressWriter(run.pk)
    progress(1, 400)
    page.wait_for_function("() => document.querySelector('#import-progress').value === 1")
    progress(400, 400)
    page.wait_for_function("() => document.querySelector('#import-progress').value === 400")
    assert "rating the game" in page.locator("#import-run").inner_text()
    progress.close()
    ImportRun.objects.filter(pk=run.pk).update(
        status=ImportRun.Status.DONE, summary={"results": 400, "matched": 0, "new": 24, "rated": 400}
    )
    page.wait_for_function("() => document.querySelector('#import-run').dataset.status === 'done'")
    assert "Imported 400 results (0 players matched, 24 new); 400 rated." in page.locator("#import-run").inner_text()
    assert page.evaluate("window.__stillHere") is True  # swapped in place, never reloaded
    page.wait_for_function(SETTLED)
    problems.assert_none()
