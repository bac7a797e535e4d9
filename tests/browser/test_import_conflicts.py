"""A conflict in a real browser, on a phone: the preview shows both names and a "same person" box, fits
360 px, and the import goes through only once the box is ticked (docs/import.md, People)."""

import pytest

from leagues.models import Player
from matches.models import Match
from tests.browser.test_admin_import import importer, sign_in  # noqa: F401 - the fixture, used by name
from tests.browser.test_csp import SETTLED, Problems

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CSV = b"""played_at,player_a,player_a_id,player_b,player_b_id,winner
2026-03-01T18:00:00+01:00,Egil Hansen,00123,Ben Berg,,a
"""


def test_a_conflict_is_answered_with_its_box_on_a_phone(production, page, importer):  # noqa: F811
    problems = Problems()
    problems.watch(page)
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page)
    page.goto("/admin/games/importrun/add/")
    page.get_by_label("Game").select_option(label="Slaps")
    page.get_by_label("File").set_input_files(files=[{"name": "club.csv", "mimeType": "text/csv", "buffer": CSV}])
    page.get_by_role("button", name="Upload and preview").click()
    page.wait_for_url("**/admin/games/importrun/*/change/")
    block = page.locator("#import-run")
    assert block.get_attribute("data-status") == "previewed"
    text = block.inner_text()
    assert "Egil Hansen (00123) in the file" in text
    assert "Ada Novak (00123)" in text
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360

    page.get_by_role("button", name="Import 1 result").click()  # the box left unticked
    page.wait_for_url("**/admin/games/importrun/*/change/")
    assert "Confirm that Egil Hansen (00123) is player" in page.locator(".messagelist").inner_text()
    assert Match.objects.count() == 0

    page.get_by_label("Egil Hansen (00123) is").check()
    page.get_by_role("button", name="Import 1 result").click()
    page.wait_for_url("**/admin/games/importrun/*/change/")
    page.wait_for_function("() => document.querySelector('#import-run').dataset.status === 'done'")
    assert Match.objects.get().seats.order_by("position").first().player == Player.objects.get(name="Ada Novak")
    page.wait_for_function(SETTLED)
    problems.assert_none()
