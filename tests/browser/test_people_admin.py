"""An admin merges two records of one person, and erases another, in a real browser under the CSP."""

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

    page.locator(f"input[name=_selected_action][value='{bob.pk}']").check()
    page.locator("select[name=action]").select_option("erase_players")
    page.get_by_role("button", name="Go", exact=True).click()
    page.get_by_text("Erased 1 player(s)").wait_for()
    assert page.get_by_text(f"Erased player #{bob.pk}").count() >= 1
    page.wait_for_load_state("networkidle")
    problems.assert_none()
