"""``Vary: HX-Request`` wherever one URL answers an HTMX partial or a whole page, through HTTP on the
production settings: a cache (the browser's, a proxy's) keyed without the header could otherwise hand the
partial out as the page, or the page into a swap.
"""

import pytest
from django.test import Client
from django.utils.cache import has_vary_header

from leagues.models import Player
from matches.models import Match
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, RefereeFactory, slaps_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(slaps):
    """Two players, one rated Slaps match between them: a leaderboard with rows."""
    match = slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
    ratings_process_game(game_id=slaps.pk)
    return match


def referee_page_client() -> Client:
    client = Client()
    client.force_login(RefereeFactory())
    return client


def both_answers(client, method: str, url: str, data=None):
    """The whole page and the HTMX partial of one URL (same method, same data)."""
    send = getattr(client, method)
    return send(url, data or {}), send(url, data or {}, HTTP_HX_REQUEST="true")


def assert_varies_on_htmx(full, partial, url):
    assert full.status_code in (200, 400), (url, full.status_code)
    assert partial.status_code == 200, (url, partial.status_code)
    # They really differ (else Vary would not matter), and each says the header chose it.
    assert full.content != partial.content, url
    assert b"<html" in full.content
    assert b"<html" not in partial.content, url
    for response in (full, partial):
        assert has_vary_header(response, "HX-Request"), (url, response.get("Vary"))
    # Whatever HTTP caching one answers with, the other answers with too.
    assert full.get("Cache-Control") == partial.get("Cache-Control"), url


def test_public_pages_that_answer_a_partial_vary_on_hx_request(production, played):
    client = Client()
    for url in ["/leagues/slaps-amateur/", "/leagues/slaps-amateur/?sort=peak&page=1", "/calculator/elo/?score=0"]:
        full, partial = both_answers(client, "get", url)
        assert_varies_on_htmx(full, partial, url)
    full, partial = both_answers(client, "get", "/calculator/preferans/", {"whists": "3"})
    assert_varies_on_htmx(full, partial, "/calculator/preferans/")


def test_entry_pages_that_answer_a_partial_vary_on_hx_request(production, slaps):
    client = referee_page_client()
    posts = [
        ("/results/slaps/", {"player_a": "", "winner": "a"}),  # refused: the form again, with its errors
        ("/results/players/", {"name": ""}),
        ("/results/preferans/", {"action": "add_row"}),
        ("/results/preferans/", {"action": "refresh"}),
        ("/results/bridge/", {"action": "add_board"}),
        ("/results/bridge/", {"action": "refresh", "tables": "3"}),
        ("/results/confirm/", {"match": "999999"}),
    ]
    for url, data in posts:
        full, partial = both_answers(client, "post", url, data)
        assert_varies_on_htmx(full, partial, url)
    assert not Match.objects.exists()
    assert not Player.objects.exists()
    # The entry pages' own GET answers say so too: a cache keyed without the header could hand a partial out.
    for url in ["/results/slaps/", "/results/preferans/", "/results/bridge/", "/results/confirm/"]:
        assert has_vary_header(client.get(url), "HX-Request"), url
