"""Pages through the kinds: one entry route for every game, the menu from the kinds, and partials by place.

A game of a fourth kind, defined here only (seats with scores, no entry
page, none of its own templates), gets sensible pages from ``BaseKind``'s
defaults, and the pages never name the three known games.
"""

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.base import BaseKind
from leagues.kinds import kind_register, kind_unregister
from leagues.models import Game
from matches.models import Match, Seat
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


class ScoresKind(BaseKind):
    """A seats-only game whose seats score points: every page from the defaults."""

    slug = "test-scores"


@pytest.fixture
def scores_game(reference_data):
    kind_register(ScoresKind())
    yield Game.objects.create(slug="darts", name="Darts", rating_system=ScoresKind.slug)
    kind_unregister(ScoresKind.slug)


@pytest.fixture
def page(referee):
    client = Client()
    client.force_login(referee)
    return client


def darts_friendly(game):
    ann, bob = PlayerFactory(name="Ann Archer"), PlayerFactory(name="Bob Bowman")
    match = Match.objects.create(
        game=game, played_at=timezone.now() - timedelta(hours=1), rated=False, status=Match.Status.FRIENDLY
    )
    Seat.objects.create(match=match, position=1, player=ann, result=Decimal("301.25"))
    Seat.objects.create(match=match, position=2, player=bob, result=Decimal(180))
    return match, ann


@pytest.mark.parametrize("slug", ["slaps", "preferans", "bridge"])
def test_every_games_entry_page_is_one_route_named_by_its_slug(slug, page):
    assert reverse("result-entry", args=[slug]) == f"/results/{slug}/"
    html = page.get(f"/results/{slug}/").content.decode()
    assert f'action="/results/{slug}/"' in html


def test_an_unknown_game_or_a_kind_without_an_entry_page_has_none(page, scores_game):
    assert page.get("/results/no-such-game/").status_code == 404
    assert page.get("/results/darts/").status_code == 404
    assert page.post("/results/darts/", {}).status_code == 404


def test_the_entry_page_serves_the_game_the_url_names(page, reference_data):
    Game.objects.create(slug="blitz", name="Blitz", rating_system="elo")
    html = page.get("/results/blitz/").content.decode()
    assert "Enter a Blitz result" in html
    assert 'hx-post="/results/blitz/"' in html
    assert '<input type="hidden" name="game" value="blitz">' in html
    # The player quick-create answers with the page of the game the form names.
    added = page.post("/results/players/", {"name": "Cy Newcomer", "game": "blitz"}, HTTP_HX_REQUEST="true")
    assert 'hx-post="/results/blitz/"' in added.content.decode()
    # ... and only for a game whose entry page it is.
    assert page.post("/results/players/", {"name": "Di Newcomer", "game": "bridge"}).status_code == 404


def test_the_menu_lists_each_kinds_entry_page_with_its_label(page, scores_game):
    Game.objects.create(slug="blitz", name="Blitz", rating_system="elo")
    html = page.get("/matches/").content.decode()
    links = [
        '<a class="button" href="/results/slaps/">Enter Slaps</a>',
        '<a class="button" href="/results/preferans/">Record Preferans</a>',
        '<a class="button" href="/results/bridge/">Record bridge</a>',
        '<a class="button" href="/results/blitz/">Enter Blitz</a>',
    ]
    positions = [html.index(link) for link in links]
    assert positions == sorted(positions)
    assert "/results/darts/" not in html  # no entry page: no link


def test_the_menu_costs_a_visitor_no_query(client, reference_data, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert "/results/slaps/" not in client.get("/accounts/login/").content.decode()


def test_a_fourth_games_pages_come_from_the_kinds_defaults(client, scores_game):
    match, ann = darts_friendly(scores_game)

    detail = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Darts match #" in detail
    assert "<th>Player</th><th>Result</th>" in detail
    assert "Expected" not in detail
    assert "<td>301.25</td>" in detail
    assert "<td>180</td>" in detail

    listed = client.get("/matches/").content.decode()
    assert ">Ann Archer</a> 301.25, <a" in listed
    assert ">Bob Bowman</a> 180</td>" in listed

    profile = client.get(f"/players/{ann.pk}/").content.decode()
    assert ">Bob Bowman</a></td>" in profile
    assert '<td data-label="Result">301.25' in profile
    assert "whists" not in profile


def test_no_shared_template_branches_on_a_game():
    """Shared templates include the partial their kind names; only templates/games/ knows a game."""
    root = Path(settings.BASE_DIR) / "templates"
    branching = re.compile(r"rating_system\s*[!=]=|==\s*\"(?:elo|preferans|bridge|slaps)\"")
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if path.relative_to(root).parts[0] != "games" and branching.search(path.read_text())
    ]
    assert not offenders


def test_a_game_without_a_registered_kind_is_named_by_the_deploy_check(reference_data):
    from games.checks import game_kinds_check

    assert game_kinds_check(databases=["default"]) == []  # the three games have their kinds
    Game.objects.create(slug="canasta", name="Canasta", rating_system="canasta-plugin")
    warnings = game_kinds_check(databases=["default"])
    assert [warning.id for warning in warnings] == ["games.W001"]
    assert "Canasta (canasta)" in warnings[0].msg
    assert "CARDRANK_EXTRA_GAME_KINDS" in warnings[0].hint
