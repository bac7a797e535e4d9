"""Public pages and the referee entry page, with pinned query counts."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import Player
from matches.models import Match
from ratings.models import PlayerRating
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, UserFactory, slaps_match

pytestmark = pytest.mark.django_db
T0 = timezone.now() - timedelta(days=3)


def history(slaps, players, matches):
    for index in range(matches):
        a, b = players[index % len(players)], players[(index * 7 + 1) % len(players)]
        if a != b:
            slaps_match(winner=a, loser=b, played_at=T0 + timedelta(minutes=index))
    ratings_process_game(game_id=slaps.pk)


def test_home_lists_games_and_leagues(client, reference_data):
    html = client.get("/").content.decode()
    for text in ["Slaps", "Preferans", "Bridge", "/leagues/slaps-amateur/", "/leagues/slaps-pro/"]:
        assert text in html


def test_home_names_each_games_rating_system_by_its_engines_label(client, reference_data):
    """The labels have one home, the engine registry: the games' choices and the pages take them from there."""
    from django.utils.html import escape

    from leagues.models import Game
    from ratings.engines import REGISTRY

    assert Game._meta.get_field("rating_system").choices == [(s.slug, s.label) for s in REGISTRY.values()]
    html = client.get("/").content.decode()
    for game in Game.objects.all():
        assert escape(REGISTRY[game.rating_system].label) in html


def test_leaderboard_sorts_searches_and_pages(client, slaps, django_assert_max_num_queries):
    players = PlayerFactory.create_batch(40)
    history(slaps, players, 200)
    with django_assert_max_num_queries(6):
        response = client.get("/leagues/slaps-amateur/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Page 1 of 2" in html
    top = PlayerRating.objects.order_by("-rating", "player__name").select_related("player").first()
    assert html.index(top.player.name) < html.index("Page 1 of 2")

    # HTMX asks for the board alone, sorted by peak.
    partial = client.get("/leagues/slaps-amateur/?sort=peak", HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="board" data-sort="peak">')
    assert "<html" not in partial
    best_peak = PlayerRating.objects.order_by("-peak_rating", "player__name").select_related("player").first()
    assert partial.index(best_peak.player.name) < partial.index("</tbody>")

    # Search keeps each player's true rank in the league.
    target = PlayerRating.objects.order_by("-rating", "player__name").select_related("player")[5]
    with django_assert_max_num_queries(6):
        searched = client.get(f"/leagues/slaps-amateur/?q={target.player.name}").content.decode()
    assert '<td class="num">6</td>' in searched
    assert "No player in this league matches" in client.get("/leagues/slaps-amateur/?q=zzzz").content.decode()
    assert client.get("/leagues/nope/").status_code == 404


def test_leaderboard_query_count_does_not_grow_with_the_league(client, slaps, django_assert_num_queries):
    history(slaps, PlayerFactory.create_batch(10), 30)
    # league with its ratings version, league tabs, the league's histogram, the page's rows (cold cache)
    with django_assert_num_queries(4) as small:
        client.get("/leagues/slaps-amateur/?sort=peak")
    history(slaps, PlayerFactory.create_batch(60), 200)
    with django_assert_num_queries(len(small.captured_queries)):
        client.get("/leagues/slaps-amateur/?sort=peak")


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_profile_shows_rating_rank_provisional_and_explanations(client, slaps, django_assert_max_num_queries):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    slaps_match(winner=ann, loser=bob, played_at=T0)
    friendly = slaps_match(winner=bob, loser=ann, played_at=T0 + timedelta(hours=1), rated=False)
    ratings_process_game(game_id=slaps.pk)
    with django_assert_max_num_queries(13):
        html = client.get(f"/players/{ann.pk}/").content.decode()
    # Seed 000, both at 1000: E = 0.5, K = 32 (provisional): 1000 + 32(1 - 0.5) = 1016; the friendly counts for nothing.
    assert '<span class="rating">1016</span>' in html
    assert "provisional" in html
    assert "#1 in" in html
    assert "expected 50% against 1000, K = 32" in html
    assert "+16" in html
    assert "friendly: not rated" in html
    assert f'data-match="{friendly.pk}"' in html
    assert 'id="rating-series-slaps"' in html


@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_profile_query_count_does_not_grow_with_history(client, slaps, django_assert_num_queries):
    players = PlayerFactory.create_batch(4)
    history(slaps, players, 20)
    # cold cache: the player, the ratings and results versions, ratings with ranks, the league's
    # histogram, promotions, bridge tables, the chart, the head-to-head (one a game played), recent matches (3),
    # the rating lists' lines (never cached); warm: 4 (tests/ratings)
    with django_assert_num_queries(13) as small:
        client.get(f"/players/{players[0].pk}/")
    history(slaps, players, 150)
    with django_assert_num_queries(len(small.captured_queries)):
        client.get(f"/players/{players[0].pk}/")


def test_established_player_has_no_provisional_mark(client, slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    for index in range(32):
        slaps_match(winner=ann, loser=bob, played_at=T0 + timedelta(minutes=index))
    ratings_process_game(game_id=slaps.pk)
    html = client.get(f"/players/{ann.pk}/").content.decode()
    assert "provisional" not in html.split('id="charts-heading"')[0]


# --- referee result entry -------------------------------------------------------------------


@pytest.fixture
def referee_browser(referee):
    browser = Client()
    browser.force_login(referee)
    return browser


def form(ann, bob, **overrides):
    data = {"player_a": ann.pk, "player_b": bob.pk, "winner": "a", "played_at": "2026-11-01T18:00", "rated": "true"}
    data.update(overrides)
    return data


def test_entry_page_needs_a_referee(client, reference_data):
    response = client.get("/results/slaps/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    visitor = Client()
    visitor.force_login(UserFactory())
    assert visitor.get("/results/slaps/").status_code == 403
    assert visitor.post("/results/slaps/", {}).status_code == 403


def test_htmx_entry_saves_and_rates(referee_browser, slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    response = referee_browser.post("/results/slaps/", form(ann, bob), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Trigger"] == "result-saved"
    assert html.lstrip().startswith('<div id="entry">')
    match = Match.objects.get()
    assert f"match #{match.pk}" in html
    assert match.played_at.isoformat().startswith("2026-11-01T18:00")


def test_entry_without_javascript_redirects_to_the_match(referee_browser, slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    response = referee_browser.post("/results/slaps/", form(ann, bob, winner="b"))
    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert match.winner_seat.player == bob


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"player_b": "same"}, "player_b"),
        ({"player_b": ""}, "player_b"),
        ({"player_b": "999999"}, "player_b"),
        ({"winner": ""}, "winner"),
        ({"played_at": "31/31/2026"}, "played_at"),
        ({"played_at": ""}, "played_at"),
        ({"rated": "perhaps"}, "rated"),
    ],
)
def test_entry_errors_appear_inline_and_store_nothing(referee_browser, slaps, overrides, field):
    ann, bob = PlayerFactory(), PlayerFactory()
    if overrides.get("player_b") == "same":
        overrides = {"player_b": ann.pk}
    response = referee_browser.post("/results/slaps/", form(ann, bob, **overrides), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="entry">')
    assert f'id="error-{field}"' in html or 'class="errors"' in html
    assert not Match.objects.exists()
    # Without HTMX the full page comes back with status 400.
    assert referee_browser.post("/results/slaps/", form(ann, bob, **overrides)).status_code == 400


def test_add_a_player_from_the_entry_page(referee_browser, slaps):
    ann = PlayerFactory(name="Ann")
    response = referee_browser.post(
        "/results/players/", {"name": "Newcomer Nell", "player_a": ann.pk}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    nell = Player.objects.get(name="Newcomer Nell")
    # The first empty picker (Player B) now carries her id, and shows her name.
    assert f'<input type="hidden" name="player_b" value="{nell.pk}" data-picker-value>' in html
    assert 'id="player_b" name="player_b_text" value="Newcomer Nell"' in html
    assert f'<input type="hidden" name="player_a" value="{ann.pk}" data-picker-value>' in html
    bad = referee_browser.post("/results/players/", {"name": "  "}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="error-new_player"' in bad


def test_names_with_html_are_escaped(client, slaps):
    evil, bob = PlayerFactory(name="<script>alert(1)</script>"), PlayerFactory()
    slaps_match(winner=evil, loser=bob)
    ratings_process_game(game_id=slaps.pk)
    for url in ["/", "/leagues/slaps-amateur/", f"/players/{evil.pk}/", f"/players/{bob.pk}/", "/matches/"]:
        html = client.get(url).content.decode()
        assert "<script>alert(1)</script>" not in html, url


def test_calculator_page_updates_by_htmx(client, reference_data):
    html = client.get("/calculator/elo/?rating=1000&opponent=1400&score=1", HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<div id="result">')
    assert '<dd id="calc-new">1029</dd>' in html
    assert "Enter a number" in client.get("/calculator/elo/?rating=x", HTTP_HX_REQUEST="true").content.decode()
