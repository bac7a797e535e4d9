"""An admin merges two records of one person, and erases another after its confirmation page, in a real
browser under the CSP; the confirmation at a phone's width (360 px) and a laptop's (1366 px)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Game, Player
from ratings.models import PlayerRating
from ratings.services import ratings_process_game
from tests.browser.test_csp import Problems, visit
from tests.factories import AdminFactory, PlayerFactory, reference_data_ensure, slaps_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_admin_merges_two_players_and_erases_one(production, page):
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    ann, ann_again, bob = PlayerFactory(name="Ann Lee"), PlayerFactory(name="A. Lee"), PlayerFactory(name="Bob Ek")
    t0 = timezone.now() - timedelta(days=1)
    slaps_match(winner=ann, loser=bob, played_at=t0)
    slaps_match(winner=ann_again, loser=bob, played_at=t0 + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    AdminFactory(username="people-admin")
    problems = Problems()
    problems.watch(page)

    visit(page, "/accounts/login/")
    page.get_by_label("Username").fill("people-admin")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")

    visit(page, "/admin/leagues/player/")
    for player in (ann, ann_again):
        page.locator(f"input[name=_selected_action][value='{player.pk}']").check()
    page.locator("select[name=action]").select_option("merge_players")
    page.get_by_role("button", name="Go", exact=True).click()
    page.get_by_text("Which player to keep").wait_for()
    page.get_by_label("Ann Lee").check()  # the radio, by its label
    page.get_by_role("button", name="Merge").click()
    page.get_by_text("A. Lee was merged into Ann Lee").wait_for()
    assert not Player.objects.filter(pk=ann_again.pk).exists()
    assert PlayerRating.objects.get(player=ann).rated_matches == 2

    page.wait_for_load_state("networkidle")
    problems.assert_none()


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def choose_erase(page, player) -> None:
    visit(page, "/admin/leagues/player/")
    page.locator(f"input[name=_selected_action][value='{player.pk}']").check()
    page.locator("select[name=action]").select_option("erase_players")
    page.get_by_role("button", name="Go", exact=True).click()
    page.get_by_role("heading", name="Erase 1 player?").wait_for()


@pytest.mark.parametrize("width", [360, 1366])
def test_an_admin_erases_a_player_only_after_the_confirmation(production, page, width):
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    ann, bob = PlayerFactory(name="Ann Lee"), PlayerFactory(name="Bob Ek", federation_id="4711")
    t0 = timezone.now() - timedelta(days=1)
    slaps_match(winner=ann, loser=bob, played_at=t0)
    slaps_match(winner=bob, loser=ann, played_at=t0 + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    ratings = sorted(PlayerRating.objects.values_list("player_id", "rating"))
    AdminFactory(username="people-admin")
    page.set_viewport_size({"width": width, "height": 800})
    problems = Problems()
    problems.watch(page)

    visit(page, "/accounts/login/")
    page.get_by_label("Username").fill("people-admin")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")

    choose_erase(page, bob)
    row = page.locator(f"#erase-{bob.pk}")
    assert row.locator("th").inner_text() == "Bob Ek"
    cells = row.locator("td").all_inner_texts()
    assert cells[:3] == [str(bob.pk), "4711", "2"]  # id, federation number, the two results stored above
    assert cells[-1] == f"Erased player #{bob.pk}"
    assert page.get_by_text("It cannot be undone").is_visible()
    assert fits(page), "the confirmation scrolls inside its table's box, not the page"
    assert Player.objects.get(pk=bob.pk).name == "Bob Ek"  # the action alone erased nothing

    page.get_by_role("link", name="Cancel").click()
    page.wait_for_url("**/admin/leagues/player/")
    assert Player.objects.get(pk=bob.pk).name == "Bob Ek"

    choose_erase(page, bob)
    confirm = page.get_by_role("button", name="Confirm: erase 1 player")
    confirm.scroll_into_view_if_needed()
    assert confirm.is_visible()
    confirm.click()
    page.get_by_text("Erased 1 player: their name and numbers are gone").wait_for()
    bob.refresh_from_db()
    assert (bob.name, bob.federation_id) == (f"Erased player #{bob.pk}", "")
    assert page.get_by_text(f"Erased player #{bob.pk}").count() >= 1
    assert sorted(PlayerRating.objects.values_list("player_id", "rating")) == ratings
    page.wait_for_load_state("networkidle")
    problems.assert_none()
