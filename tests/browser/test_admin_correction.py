"""An admin corrects a Slaps result in a real browser, on a phone: from admin's match list to the match,
*Correct result* opens the game's entry form filled in, and saving it replays the ratings.

Ratings worked by hand from seed 000 (start 1000, K = 32, scale 400, rounded to whole points): Ann beat
Bob (Ann 1016, Bob 984), then Bob beat Cleo: E = 1 / (1 + 10^(16/400)) = 0.4770, Bob 984 + 32 x 0.5230
= 1001, Cleo 983. The first result corrected (Bob won it): Bob 1016, Ann 984; then Bob 1016 beats Cleo
1000: E = 0.5230, Bob 1016 + 32 x 0.4770 = 1031, Cleo 985.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Game
from matches.models import AuditEntry
from matches.services import match_submit
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 780}


def board(page) -> dict[str, int]:
    rows = page.locator("#board tbody tr")
    return {
        rows.nth(i).locator("td a").first.inner_text(): int(rows.nth(i).locator(".rating").inner_text())
        for i in range(rows.count())
    }


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.fixture
def club():
    reference_data_ensure()
    ann, bob, cleo = (PlayerFactory(name=name) for name in ["Ann", "Bob", "Cleo"])
    referee = RefereeFactory()
    t0 = timezone.now() - timedelta(days=1)
    first = match_submit(
        referee=referee,
        data={"game": "slaps", "played_at": t0.isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk},
    )
    match_submit(
        referee=referee,
        data={
            "game": "slaps",
            "played_at": (t0 + timedelta(hours=1)).isoformat(),
            "players": [bob.pk, cleo.pk],
            "winner": bob.pk,
        },
    )
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    AdminFactory(username="fixer")
    return {"first": first, "ann": ann, "bob": bob}


def test_an_admin_corrects_a_slaps_result_through_its_entry_form(page, club):
    page.set_viewport_size(PHONE)
    page.goto("/leagues/slaps-amateur/")
    assert board(page) == {"Ann": 1016, "Bob": 1001, "Cleo": 983}

    page.goto("/admin/login/?next=/admin/matches/match/")
    page.get_by_label("Username").fill("fixer")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/matches/match/")
    first = club["first"]
    row = page.locator("#result_list tbody tr", has=page.locator(f'a[href$="/{first.pk}/change/"]'))
    assert "Ann (won) vs Bob" in row.inner_text()
    assert fits(page)  # the list scrolls inside its own box on a phone, not the page

    row.get_by_role("link", name=str(first.pk)).click()
    page.wait_for_url(f"**/admin/matches/match/{first.pk}/change/")
    assert page.locator("input[name=status], select[name=league], input[name=idempotency_key]").count() == 0
    assert fits(page)

    page.get_by_role("link", name="Correct result").click()
    page.wait_for_url(f"**/results/slaps/?correct={first.pk}")
    assert page.get_by_role("heading", level=1).inner_text() == "Correct a Slaps result"
    assert page.get_by_role("combobox", name="Player A").input_value() == "Ann"
    assert page.get_by_role("combobox", name="Player B").input_value() == "Bob"
    assert page.get_by_label("Player A won").is_checked()
    assert page.get_by_label("League").input_value() == "slaps-amateur"
    assert fits(page)

    page.get_by_label("Player B won").check()
    page.get_by_role("button", name="Save correction").click()
    page.wait_for_url(f"**/admin/matches/match/{first.pk}/change/")
    assert "Result corrected; ratings are being replayed from it." in page.locator(".messagelist").inner_text()
    assert AuditEntry.objects.filter(match=first, action="corrected").count() == 1

    page.goto("/leagues/slaps-amateur/")
    assert board(page) == {"Bob": 1031, "Ann": 984, "Cleo": 985}
