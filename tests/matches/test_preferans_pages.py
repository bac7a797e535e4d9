"""The Preferans entry page (HTMX), the game page and the profile's per-deal view."""

import pytest
from django.test import Client

from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(referee):
    client = Client()
    client.force_login(referee)
    return client


def form(seats, deals, **extra):
    data = {"played_at": "2026-11-01T18:00", "rated": "true", "rows": str(len(deals))}
    for slot, seat in enumerate(seats, start=1):
        data[f"seat-{slot}"] = seat
    for row, deal in enumerate(deals, start=1):
        for slot, whists in enumerate(deal, start=1):
            data[f"deal-{row}-{slot}"] = whists
    data.update(extra)
    return data


def test_entry_page_offers_player_pickers_and_bots(browser, reference_data):
    PlayerFactory(name="Ann")
    html = browser.get("/results/preferans/").content.decode()
    # Players are searched (a picker per seat), never listed: the page does not grow with the players.
    assert "Ann" not in html
    for slot in range(1, 5):
        assert f'<input type="hidden" name="seat-{slot}-player" value="" data-picker-value>' in html
        assert f'name="seat-{slot}-bot"' in html
    assert "Normal bot (1800, max 2400)" in html


def test_live_zero_sum_check(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}", "b:normal"], [["4", "-2", "-1"], ["-6", "3", "3"]], action="check")
    html = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<div id="deal-check"')
    assert "Not zero-sum: deal 1." in html
    assert 'id="deal-sum-1" class="deal-sum zero-sum-bad" hx-swap-oob="true">1 ≠ 0' in html
    assert 'id="deal-sum-2" class="deal-sum zero-sum-ok" hx-swap-oob="true">0 ✓' in html
    assert 'id="total-1" class="seat-total" hx-swap-oob="true">-2<' in html
    assert not Match.objects.exists()


def test_add_row_and_refresh_keep_what_was_typed(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}"], [["4", "-4"]], action="add_row")
    html = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert 'name="deal-2-1"' in html
    assert 'name="deal-1-1" value="4"' in html
    assert f'<input type="hidden" name="seat-2-player" value="{bob.pk}" data-picker-value>' in html
    assert f'name="seat-2-player_text" value="{bob.name}"' in html
    assert 'name="deal-1-3"' not in html  # seat 3 is empty: no column


def test_bad_row_is_reported_inline_and_nothing_is_stored(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}", "b:normal"], [["4", "-2", "-1"]], action="save")
    response = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="error-deals"' in html
    assert "Deal 1: the whists sum to +1.00, not 0" in html
    assert not Match.objects.exists()
    assert browser.post("/results/preferans/", data).status_code == 400


def test_save_rates_and_the_profile_shows_every_deal(
    browser, client, reference_data, django_capture_on_commit_callbacks
):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    data = form([f"p:{ann.pk}", f"p:{bob.pk}", "b:normal"], [["4", "-2", "-2"], ["-6", "3", "3"], ["", "", ""]])
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="saved"' in html, html
    match = Match.objects.get()
    assert match.status == Match.Status.RATED
    assert match.deals.count() == 2  # the blank row is ignored
    assert RatingChange.objects.filter(match=match).count() == 4

    profile = client.get(f"/players/{ann.pk}/").content.decode()
    assert "2 deals, total" in profile
    assert "bot table" in profile
    assert "Normal bot" in profile
    first = RatingChange.objects.get(match=match, player=ann, unit=0)
    assert f"{first.details['kv']:.1f}" in profile

    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "<h2>Deals</h2>" in page
    assert "Normal bot" in page


def test_without_javascript_save_redirects(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}"], [["4", "-4"]])
    response = browser.post("/results/preferans/", data)
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{Match.objects.get().pk}/"


def test_calculator_page(client, reference_data):
    html = client.get("/calculator/preferans/?rating=1500&opponents=1000&whists=10").content.decode()
    # Rs 1500, Rt 1000: Kv = 60 + 500/6 = 143.33, Vf = 3.4884, Kd = 2/(1 + log10 6) = 1.1248,
    # Rd = 1.1248 * sqrt(10 - 3.4884) = 2.87 (the oracle's rules agree: test_preferans_api's calculator test).
    assert '<dd id="calc-rn"><strong>1502.87</strong></dd>' in html
    assert 'id="calc-grid"' in html
    assert "Smoothing above 4000" in html
    partial = client.get("/calculator/preferans/?rating=5000&opponents=5000&whists=9", HTTP_HX_REQUEST="true")
    text = partial.content.decode()
    assert text.lstrip().startswith('<div id="result">')
    assert 'id="calc-smoothing">\u00d7 0.500' in text  # 1 / (1 + (5000 - 4000)/1000)


def test_calculator_page_reads_the_game_once(client, reference_data, django_assert_num_queries):
    """The page and its calculation share one lookup of the Preferans game whose parameters apply."""
    from leagues.models import Game

    Game.objects.filter(slug="preferans").update(parameters={"kd_base": 1.0})
    with django_assert_num_queries(1):
        html = client.get("/calculator/preferans/?rating=1000&opponents=1000&whists=4").content.decode()
    assert '<dd id="calc-rn"><strong>1002.00</strong></dd>' in html  # Kd 1 * sqrt(4): the game's parameters


def test_declared_deals_draw_the_rows(browser, reference_data):
    html = browser.post("/results/preferans/", {"declared": "7", "action": "refresh"}, HTTP_HX_REQUEST="true")
    text = html.content.decode()
    assert text.count("data-row") == 7
    assert 'data-declared="7"' in text
    many = browser.post("/results/preferans/", {"declared": "10" * 500, "action": "refresh"}).content.decode()
    assert many.count("data-row") == 200  # at most MAX_ROWS
    for unreadable in ("9" * 5000, "seven", "-3"):
        html = browser.post("/results/preferans/", {"declared": unreadable, "action": "refresh"}).content.decode()
        assert html.count("data-row") == 4, unreadable  # the default rows


def test_saving_fewer_deals_than_declared_asks_first(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}"], [["4", "-4"], ["-2", "2"], ["", ""]], declared="3")
    html = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="short-warning"' in html
    assert "3 deals played, 2 filled in. Save only 2?" in html
    assert 'name="confirm_short" value="1"' in html
    assert 'name="deal-2-1" value="-2"' in html  # nothing typed is lost
    assert not Match.objects.exists()
    assert browser.post("/results/preferans/", data).status_code == 400  # without JavaScript: the same page
    assert not Match.objects.exists()
    saved = browser.post("/results/preferans/", {**data, "confirm_short": "1"}, HTTP_HX_REQUEST="true")
    assert 'id="saved"' in saved.content.decode()
    assert Match.objects.get().deals.count() == 2


def test_as_many_deals_as_declared_save_without_asking(browser, reference_data):
    ann, bob = PlayerFactory(), PlayerFactory()
    data = form([f"p:{ann.pk}", f"p:{bob.pk}"], [["4", "-4"], ["-2", "2"]], declared="2")
    assert 'id="saved"' in browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()


def test_seats_from_pickers_and_bot_choices(browser, reference_data):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    data = {
        "played_at": "2026-11-01T18:00",
        "rows": "1",
        "seat-1-player": str(ann.pk),
        "seat-1-player_text": "Ann",
        "seat-2-player_text": "bob",  # typed, not chosen (JavaScript off): read as an exact name
        "seat-3-bot": "normal",
        "deal-1-1": "4",
        "deal-1-2": "-2",
        "deal-1-3": "-2",
    }
    response = browser.post("/results/preferans/", data)
    assert response.status_code == 302, response.content.decode()
    seats = Match.objects.get().seats.order_by("position")
    assert [seat.player for seat in seats[:2]] == [ann, bob]
    assert seats[2].bot.slug == "normal"


def test_a_seat_with_both_a_player_and_a_bot_is_refused_and_marked(browser, reference_data):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    data = {
        "played_at": "2026-11-01T18:00",
        "rows": "1",
        "seat-1-player": str(ann.pk),
        "seat-2-player": str(bob.pk),
        "seat-2-bot": "normal",
        "deal-1-1": "4",
        "deal-1-2": "-4",
    }
    html = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert "Seat 2: a player or a bot, not both." in html
    assert 'class="seats row" aria-invalid="true"' in html
    assert not Match.objects.exists()


def test_a_refused_deal_marks_its_cells(browser, reference_data):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    data = form([f"p:{ann.pk}", f"p:{bob.pk}"], [["4", "-4"], ["3", "-1"]])
    html = browser.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    # Each cell is named by its deal and its seat's player, and the refused deal's point at the error.
    assert (
        'name="deal-2-1" value="3" aria-label="Deal 2, Ann" autocomplete="off" aria-invalid="true"'
        ' aria-describedby="error-deals"'
    ) in html
    assert 'name="deal-1-1" value="4" aria-label="Deal 1, Ann" autocomplete="off">' in html
