"""The download links work in a real browser: a visitor takes a league's table and a player's history as
files, named, opening as the spreadsheet-safe CSV the API documents."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from leagues.models import Game
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def club():
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    ann, bob = PlayerFactory(name="Ann Žnidar"), PlayerFactory(name="=Bob")
    slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    return ann


def test_the_table_and_a_history_download_from_their_pages(page, club):
    page.goto("/leagues/slaps-amateur/")
    with page.expect_download() as table:
        page.get_by_role("link", name="Download the table (CSV)").click()
    assert table.value.suggested_filename == "slaps-amateur-leaderboard.csv"
    lines = Path(table.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("rank,player_id,player,federation_id,rating")
    # Seed 000 with both at 1000: E = 0.5, K = 32: Ann 1016, Bob 984.
    assert lines[1].split(",")[2:5:2] == ["Ann Žnidar", "1016"]
    assert lines[2].split(",")[2] == "'=Bob"  # never run as a formula

    page.goto(f"/players/{club.pk}/")
    with page.expect_download() as history:
        page.get_by_role("link", name="Download Ann Žnidar's rating history (CSV)").click()
    assert history.value.suggested_filename == f"player-{club.pk}-history.csv"
    rows = Path(history.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert len(rows) == 2
    assert ",'=Bob,1000,1016,16" in rows[1]
