"""Drafts of the entry pages (static/js/entry-draft.js, docs/entry.md), in a real Chromium at a phone's
width and a desktop's: what a referee typed survives a reload, a wrong link and a closed tab, is offered
back and restored (fields and chosen players), is asked about before the page is left, and is gone once
the result is saved or the draft discarded; the plain messages show beside their fields."""

import json

import pytest

from leagues.models import Game
from matches.models import Match
from tests.factories import PlayerFactory, RefereeFactory, reference_data_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
WIDTHS = [360, 1366]


def sign_in(page, username: str, path: str) -> None:
    page.goto(f"/accounts/login/?next={path}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url and url.endswith(path))


def pick(page, input_id: str, typed: str, name: str) -> None:
    page.locator(f"#{input_id}").fill(typed)
    page.locator(f'#{input_id}-listbox [role=option][data-name="{name}"]').click()
    page.wait_for_function(SETTLED)


def drafts(page) -> dict:
    """Every draft the browser keeps, by key."""
    return page.evaluate(
        """() => Object.fromEntries(Object.keys(localStorage).filter((key) => key.startsWith("cardrank:draft:"))
            .map((key) => [key, JSON.parse(localStorage.getItem(key))]))"""
    )


def wait_for_draft(page, present: bool = True) -> None:
    page.wait_for_function(
        "(present) => Object.keys(localStorage).some((key) => key.startsWith('cardrank:draft:')) === present",
        arg=present,
    )


def wait_for_draft_holding(page, name: str, value: str) -> None:
    """Until a kept draft holds the field: the page keeps a draft a moment after each change, so the draft
    of an earlier change may be there before the last change's."""
    page.wait_for_function(
        """([name, value]) => Object.keys(localStorage).filter((key) => key.startsWith("cardrank:draft:"))
            .some((key) => JSON.parse(localStorage.getItem(key)).fields
                .some(([field, kept]) => field === name && kept === value))""",
        arg=[name, value],
    )


def reload(page) -> None:
    """Reload as a referee would; the page's own question about leaving is answered "leave"."""
    page.once("dialog", lambda dialog: dialog.accept())
    page.reload()


@pytest.fixture
def club():
    reference_data_ensure()
    return {
        "ann": PlayerFactory(name="Ann"),
        "bob": PlayerFactory(name="Bob"),
        "referee": RefereeFactory(username="table-one"),
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_a_slaps_draft_is_offered_back_restored_asked_about_and_gone_once_saved(page, club, width):
    page.set_viewport_size({"width": width, "height": 800})
    ann, bob = club["ann"], club["bob"]
    sign_in(page, "table-one", "/results/slaps/")
    pick(page, "player_a", "an", "Ann")
    pick(page, "player_b", "bo", "Bob")
    page.get_by_label("Player B won").check()
    wait_for_draft_holding(page, "winner", "b")
    (key, draft), *others = drafts(page).items()
    assert others == []
    assert key == f"cardrank:draft:{club['referee'].pk}:/results/slaps/"
    kept = dict(draft["fields"])
    assert kept["player_a"] == str(ann.pk)
    assert kept["player_a_text"] == "Ann"
    assert kept["winner"] == "b"
    assert "csrfmiddlewaretoken" not in kept  # never the CSRF token

    # A reload: the page is fresh, and offers the draft back with the time it was typed.
    reload(page)
    offer = page.locator("#draft-offer")
    offer.wait_for()
    assert offer.get_attribute("role") == "alert"
    typed_at = page.evaluate("(at) => new Date(at).toTimeString().slice(0, 5)", draft["at"])
    assert offer.inner_text().startswith(f"Restore the entry you were typing at {typed_at}?")
    assert page.locator("#player_a").input_value() == ""
    assert page.locator("input[name=player_a]").input_value() == ""
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the offer fits a phone

    offer.get_by_role("button", name="Restore").click()
    assert offer.count() == 0
    assert page.locator("#player_a").input_value() == "Ann"
    assert page.locator("input[name=player_a]").input_value() == str(ann.pk)
    assert page.locator("#player_b").input_value() == "Bob"
    assert page.locator("input[name=player_b]").input_value() == str(bob.pk)
    assert page.get_by_label("Player B won").is_checked()

    # A wrong link: the page asks first; staying keeps everything as it was.
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.locator("a.brand").click()  # the site's name, home: visible at every width
    page.wait_for_function("() => true")
    assert asked == ["beforeunload"]
    assert page.url.endswith("/results/slaps/")
    assert page.locator("input[name=player_b]").input_value() == str(bob.pk)

    # Saving: no question, and the draft is gone.
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.get_by_role("button", name="Save result").click()
    page.locator("#saved").wait_for()
    assert "Bob (won)" in page.locator("#saved").inner_text()
    wait_for_draft(page, present=False)
    assert [seat.player for seat in Match.objects.get().seats.order_by("position")] == [ann, bob]
    # The next result at the table is kept again as it is typed, and typed away it is no draft.
    page.locator("#player_a").fill("Cid")
    wait_for_draft(page)
    page.locator("#player_a").fill("")
    wait_for_draft(page, present=False)
    # The fresh form holds nothing unsaved: leaving it asks nothing, and coming back offers nothing.
    page.locator("a.brand").click()
    page.wait_for_url(lambda url: not url.endswith("/results/slaps/"))
    assert asked == ["beforeunload"]
    page.goto("/results/slaps/")
    page.locator("#player_a").wait_for()
    assert page.locator("#draft-offer").count() == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_a_closed_tab_is_offered_back_and_discard_drops_it(page, club, width):
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, "table-one", "/results/slaps/")
    pick(page, "player_a", "an", "Ann")
    wait_for_draft(page)
    context = page.context
    page.close()  # the tab closed (no question: a closed tab keeps its draft instead)

    again = context.new_page()
    again.set_viewport_size({"width": width, "height": 800})
    again.goto("/results/slaps/")
    offer = again.locator("#draft-offer")
    offer.wait_for()
    offer.get_by_role("button", name="Discard").click()
    assert offer.count() == 0
    assert again.locator("#player_a").input_value() == ""
    assert drafts(again) == {}
    # Nothing typed since: leaving asks nothing, and nothing is offered again.
    again.goto("/results/slaps/")
    again.locator("#player_a").wait_for()
    assert again.locator("#draft-offer").count() == 0


def test_two_referees_on_one_machine_never_see_each_others_draft(page, club):
    RefereeFactory(username="table-two")
    sign_in(page, "table-one", "/results/slaps/")
    pick(page, "player_a", "an", "Ann")
    wait_for_draft(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Sign out table-one").click()
    page.wait_for_url(lambda url: "/results/slaps/" not in url)
    sign_in(page, "table-two", "/results/slaps/")
    page.locator("#player_a").wait_for()
    page.wait_for_function(SETTLED)
    assert page.locator("#draft-offer").count() == 0
    assert len(drafts(page)) == 1  # table-one's, kept for table-one


@pytest.mark.parametrize("width", WIDTHS)
def test_slaps_messages_speak_plainly_beside_their_fields(page, club, width):
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, "table-one", "/results/slaps/")
    pick(page, "player_a", "an", "Ann")
    page.get_by_role("button", name="Save result").click()
    error = page.locator("#error-player_b")
    error.wait_for()
    assert error.inner_text().strip() == "Choose the second player"
    assert page.locator("#error-winner").inner_text().strip() == "Choose who won"
    assert "error-player_b" in page.locator("#player_b").get_attribute("aria-describedby").split()
    assert page.locator("#player_b").get_attribute("aria-invalid") == "true"
    assert page.locator("#error-player_a").count() == 0
    # Beside its field: just under Player B's box, within the phone's width.
    field, message = page.locator("#player_b").bounding_box(), error.bounding_box()
    assert field["y"] + field["height"] <= message["y"] < field["y"] + field["height"] + 80
    assert message["x"] + message["width"] <= width
    # The same player twice: said with the name.
    pick(page, "player_b", "an", "Ann")
    page.get_by_label("Player A won").check()
    page.get_by_role("button", name="Save result").click()
    page.wait_for_function("() => (document.getElementById('error-player_b') || {}).textContent?.includes('different')")
    assert page.locator("#error-player_b").inner_text().strip() == (
        "Choose a different second player: Ann is already the first."
    )
    assert not Match.objects.exists()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_preferans_draft_comes_back_with_its_seats_named_and_its_comma_decimals(page, club, width):
    page.set_viewport_size({"width": width, "height": 800})
    ann = club["ann"]
    sign_in(page, "table-one", "/results/preferans/")
    for slot, name in ((1, "Ann"), (2, "Bob")):
        pick(page, f"seat-{slot}-player", name[:2].lower(), name)
        page.locator(f"thead th[data-seat-heading='{slot}']").filter(has_text=name).wait_for()
    page.select_option("#seat-3-bot", label="Normal bot (1800, max 2400)")
    page.locator("thead th[data-seat-heading='3']").filter(has_text="Normal bot").wait_for()
    page.wait_for_function(SETTLED)
    # The columns are headed by the seats' names, live.
    headings = page.locator("thead th[data-seat-heading]").all_inner_texts()
    assert headings == ["Ann", "Bob", "Normal bot"]
    # A decimal comma: 1,5 - 1 - 0,5 = 0.
    page.get_by_label("Deal 1, Ann").fill("1,5")
    page.get_by_label("Deal 1, Bob").fill("-1")
    page.get_by_label("Deal 1, Normal bot").fill("-0,5")
    page.locator("#deal-sum-1.zero-sum-ok").wait_for()
    assert page.locator("#total-1").inner_text() == "1.50"  # the page shows whists to two decimals
    wait_for_draft(page)
    page.wait_for_function(
        "() => Object.values(localStorage).some((text) => text.includes('-0,5'))"
    )  # the last cell is kept too

    reload(page)
    page.locator("#draft-offer").get_by_role("button", name="Restore").click()
    page.locator("thead th[data-seat-heading='3']").wait_for()
    page.wait_for_function(SETTLED)
    assert page.locator("thead th[data-seat-heading]").all_inner_texts() == ["Ann", "Bob", "Normal bot"]
    assert page.locator("input[name='seat-1-player']").input_value() == str(ann.pk)
    assert page.locator("#seat-1-player").input_value() == "Ann"
    assert page.locator("#seat-3-bot").input_value() == "normal"
    assert page.get_by_label("Deal 1, Ann").input_value() == "1,5"
    assert page.get_by_label("Deal 1, Normal bot").input_value() == "-0,5"
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    page.get_by_role("button", name="Save game").click()
    page.locator("#saved").wait_for()
    wait_for_draft(page, present=False)
    match = Match.objects.get(game=Game.objects.get(slug="preferans"))
    assert [float(seat.result) for seat in match.seats.order_by("position")] == [1.5, -1.0, -0.5]


def test_a_bridge_draft_comes_back_with_its_pairs_and_scores(page, club):
    sign_in(page, "table-one", "/results/bridge/")
    pick(page, "pair-ns1-1", "an", "Ann")
    page.locator("#b1-t1-score").fill("420")
    wait_for_draft(page)
    page.wait_for_function("() => Object.values(localStorage).some((text) => text.includes('420'))")
    reload(page)
    page.locator("#draft-offer").get_by_role("button", name="Restore").click()
    page.wait_for_function("() => document.getElementById('b1-t1-score').value === '420'")
    page.wait_for_function(SETTLED)
    assert page.locator("#pair-ns1-1").input_value() == "Ann"
    assert page.locator("input[name='pair-ns1-1']").input_value() == str(club["ann"].pk)
    assert json.dumps(drafts(page)).count("420") == 1
