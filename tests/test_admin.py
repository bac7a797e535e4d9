"""Django admin: every page loads, results cannot be edited, voiding replays."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches.models import Match
from ratings.models import PlayerRating, Promotion, RatingChange
from ratings.services import ratings_process_game
from tests.factories import LEAGUE_SEASON_FORM, PlayerFactory, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


@pytest.mark.parametrize(
    "model",
    [
        "leagues/game",
        "leagues/league",
        "leagues/player",
        "leagues/bot",
        "matches/match",
        "ratings/playerrating",
        "ratings/ratingchange",
        "ratings/promotion",
        "ratings/ratingstate",
        "auth/user",
        "auth/group",
    ],
)
def test_changelists_load(admin_browser, slaps, model):
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    assert admin_browser.get(f"/admin/{model}/").status_code == 200


def test_ledger_and_results_are_read_only(admin_browser, slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    change = RatingChange.objects.first()
    assert admin_browser.get("/admin/matches/match/add/").status_code == 403
    assert admin_browser.get("/admin/ratings/ratingchange/add/").status_code == 403
    page = admin_browser.get(f"/admin/ratings/ratingchange/{change.pk}/change/")
    assert page.status_code == 200
    assert b'name="rating_after"' not in page.content
    response = admin_browser.post(f"/admin/matches/match/{match.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Match.objects.filter(pk=match.pk).exists()


def test_void_action_replays(admin_browser, slaps, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    match = slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(
            "/admin/matches/match/", {"action": "void_matches", "_selected_action": [match.pk]}, follow=True
        )
    assert response.status_code == 200
    assert b"Voided 1 match" in response.content
    match.refresh_from_db()
    assert match.status == Match.Status.VOID
    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()


def test_game_parameters_are_validated(admin_browser, slaps):
    data = {
        "name": "Slaps",
        "slug": "slaps",
        "rating_system": "elo",
        "start_rating": "1000",
        "parameters": '{"k_provisonal": 40}',
        "leagues-TOTAL_FORMS": "0",
        "leagues-INITIAL_FORMS": "0",
    }
    response = admin_browser.post(f"/admin/leagues/game/{slaps.pk}/change/", data)
    assert response.status_code == 200
    assert b"Unknown parameter: k_provisonal." in response.content
    slaps.refresh_from_db()
    assert slaps.parameters == {}


def test_changing_a_threshold_in_admin_replays_the_game(admin_browser, slaps, django_capture_on_commit_callbacks):
    """Ann beat Bob (both 1000, E = 0.5, K = 32): 1016. Lowering the amateur threshold to 1010 replays
    the game: 1016 >= 1010, so she is promoted at that match; Bob (984) is not. The whole ledger, the
    promotion included, is the oracle's reading of the new league settings."""
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    assert PlayerRating.objects.get(player=ann).league.tier == "amateur"
    league = slaps.leagues.get(tier="amateur")
    data = {
        "game": slaps.pk,
        "slug": league.slug,
        "name": league.name,
        "tier": "amateur",
        "promotion_threshold": "1010",
        "rating_period_days": "0",
        "rating_period_anchor": "2026-01-05",
        **LEAGUE_SEASON_FORM,
        "seasons-TOTAL_FORMS": "0",  # the league's seasons, an inline on its page
        "seasons-INITIAL_FORMS": "0",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(f"/admin/leagues/league/{league.pk}/change/", data)
    assert response.status_code == 302
    assert PlayerRating.objects.get(player=ann).league.tier == "pro"
    assert PlayerRating.objects.get(player=bob).league.tier == "amateur"
    assert Promotion.objects.get(game=slaps).player == ann
    assert assert_ledger_is_the_oracles(game=slaps) == 2


def test_game_page_lists_engine_parameters(admin_browser, reference_data):
    from leagues.models import Game

    preferans = Game.objects.get(slug="preferans")
    html = admin_browser.get(f"/admin/leagues/game/{preferans.pk}/change/").content.decode()
    assert "<code>smoothing_scale</code> = 1000.0" in html
    assert "<code>kv_above</code> = 6.0" in html


def test_bots_are_managed_in_admin(admin_browser, reference_data):
    from leagues.models import Bot, Game

    preferans = Game.objects.get(slug="preferans")
    data = {"game": preferans.pk, "slug": "shark", "name": "Shark bot", "rating": "2600", "max_rating": "2500"}
    admin_browser.post("/admin/leagues/bot/add/", data)
    assert not Bot.objects.filter(slug="shark").exists(), "max below rating is refused"
    data["max_rating"] = "3400"
    data["active"] = "on"
    assert admin_browser.post("/admin/leagues/bot/add/", data).status_code == 302
    assert Bot.objects.get(slug="shark").max_rating == 3400


def test_a_bot_is_offered_only_games_whose_kind_seats_bots(admin_browser, reference_data):
    from leagues.models import Bot, Game

    slaps = Game.objects.get(slug="slaps")
    form = admin_browser.get("/admin/leagues/bot/add/").content.decode()
    assert ">Preferans</option>" in form
    assert ">Slaps</option>" not in form
    assert ">Bridge</option>" not in form
    data = {"game": slaps.pk, "slug": "slapper", "name": "Slaps bot", "rating": "1500", "max_rating": "1600"}
    refused = admin_browser.post("/admin/leagues/bot/add/", data)
    assert refused.status_code == 200  # the form again, with the error
    assert not Bot.objects.filter(slug="slapper").exists()


def test_a_new_rating_period_makes_waiting_sessions_wait_for_it(
    admin_browser, referee, django_capture_on_commit_callbacks
):
    from leagues.models import League
    from matches.services import match_submit

    players = [p.pk for p in PlayerFactory.create_batch(4)]
    played_at = timezone.now() - timedelta(hours=1)
    body = {
        "game": "bridge",
        "played_at": played_at.isoformat(),
        "boards": [{"number": 1, "tables": [{"ns": players[:2], "ew": players[2:], "ns_imps": 4}]}],
    }
    with django_capture_on_commit_callbacks(execute=True):
        match = match_submit(referee=referee, data=body)
    match.refresh_from_db()
    assert match.status == Match.Status.RATED
    league = League.objects.get(slug="bridge-amateur")
    data = {
        "game": league.game_id,
        "slug": league.slug,
        "name": league.name,
        "tier": "amateur",
        "promotion_threshold": "1800",
        "rating_period_days": "7",
        "rating_period_anchor": timezone.now().date().isoformat(),
        **LEAGUE_SEASON_FORM,
        "seasons-TOTAL_FORMS": "0",
        "seasons-INITIAL_FORMS": "0",
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_browser.post(f"/admin/leagues/league/{league.pk}/change/", data).status_code == 302
    match.refresh_from_db()
    league.refresh_from_db()
    assert match.due_at == league.period_bounds(match.played_at)[1]
