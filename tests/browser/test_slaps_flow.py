"""A referee signs in, enters Slaps results on the HTMX page, and the leaderboard
changes and re-sorts between current and peak rating — in a real browser."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Game
from ratings.models import PlayerRating
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"


def pick(page, input_id: str, typed: str, name: str) -> None:
    """Choose a player in a picker with the mouse: type, then click their option."""
    page.locator(f"#{input_id}").fill(typed)
    option = page.locator(f'#{input_id}-listbox [role=option][data-name="{name}"]')
    option.click()
    page.wait_for_function(SETTLED)


def board(page) -> list[tuple[str, int, int]]:
    rows = page.locator("#board tbody tr")
    result = []
    for index in range(rows.count()):
        row = rows.nth(index)
        result.append(
            (
                row.locator("td a").first.inner_text(),
                int(row.locator(".rating").inner_text()),
                int(row.locator(".peak").inner_text()),
            )
        )
    return result


@pytest.fixture
def club():
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    ann, bob, cid, dee = (PlayerFactory(name=name) for name in ["Ann", "Bob", "Cid", "Dee"])
    t0 = timezone.now() - timedelta(days=1)
    # Ann peaks at 1031 then falls; Dee leads on both; Bob recovers: current and peak orders differ.
    for minutes, (winner, loser) in enumerate([(ann, bob), (ann, cid), (dee, ann), (dee, ann), (bob, dee)]):
        slaps_match(winner=winner, loser=loser, played_at=t0 + timedelta(minutes=minutes))
    ratings_process_game(game_id=slaps.pk)
    referee = RefereeFactory(username="table-one")
    return {"ann": ann, "bob": bob, "cid": cid, "dee": dee, "referee": referee}


def test_referee_enters_results_and_the_leaderboard_follows(page, club):
    page.goto("/leagues/slaps-amateur/")
    before = board(page)
    assert [name for name, _, _ in before] == ["Dee", "Bob", "Ann", "Cid"]

    # Peak sort re-orders the board in place (HTMX), without a page load.
    page.evaluate("window.__stillHere = true")
    page.get_by_label("Peak rating").check()
    page.wait_for_selector('#board[data-sort="peak"]')
    page.wait_for_function(SETTLED)
    peak = board(page)
    assert [name for name, _, _ in peak] == ["Dee", "Ann", "Bob", "Cid"]
    assert [p for _, _, p in peak] == sorted((p for _, _, p in peak), reverse=True)
    assert page.evaluate("window.__stillHere") is True
    assert "sort=peak" in page.url

    # Sign in as the referee.
    page.goto("/accounts/login/?next=/results/slaps/")
    page.get_by_label("Username").fill("table-one")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/results/slaps/")

    # A mistake first: the same player on both sides. The error shows inline, no reload.
    page.evaluate("window.__stillHere = true")
    pick(page, "player_a", "ci", "Cid")
    pick(page, "player_b", "Cid", "Cid")
    page.get_by_label("Player A won").check()
    page.get_by_role("button", name="Save result").click()
    error = page.locator("#error-player_b")  # beside the second player's field, in words
    error.wait_for()
    page.wait_for_function(SETTLED)
    assert error.inner_text().strip() == "Choose a different second player: Cid is already the first."
    assert page.evaluate("window.__stillHere") is True
    assert PlayerRating.objects.filter(player=club["cid"]).get().rated_matches == 1

    # Fixed: Cid beats Dee.
    pick(page, "player_b", "de", "Dee")
    page.get_by_label("Player A won").check()
    page.get_by_role("button", name="Save result").click()
    page.locator("#saved").wait_for()
    assert "Cid (won)" in page.locator("#saved").inner_text()
    assert page.evaluate("window.__stillHere") is True

    cid_now = PlayerRating.objects.get(player=club["cid"]).rating
    dee_now = PlayerRating.objects.get(player=club["dee"]).rating
    # What the page will show is stored; what is stored is the oracle's ledger (tests/oracle), six matches.
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="slaps")) == 12

    page.goto("/leagues/slaps-amateur/")
    after = {name: (rating, peak) for name, rating, peak in board(page)}
    assert after["Cid"][0] == cid_now > {n: r for n, r, _ in before}["Cid"]
    assert after["Dee"][0] == dee_now < {n: r for n, r, _ in before}["Dee"]
    current_order = [name for name, _, _ in board(page)]
    assert current_order != [name for name, _, _ in before], "the new result re-ordered the board"
    ratings = [r for _, r, _ in board(page)]
    assert ratings == sorted(ratings, reverse=True)

    page.get_by_label("Peak rating").check()
    page.wait_for_selector('#board[data-sort="peak"]')
    peaks = [p for _, _, p in board(page)]
    assert peaks == sorted(peaks, reverse=True)
    page.get_by_label("Current rating").check()
    page.wait_for_selector('#board[data-sort="current"]')
    assert [name for name, _, _ in board(page)] == current_order

    # The profile explains the change.
    page.get_by_role("link", name="Cid").first.click()
    page.wait_for_url("**/players/*/")
    assert "expected" in page.locator("table.recent").inner_text()
