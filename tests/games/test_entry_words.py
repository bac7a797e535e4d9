"""The entry pages in a referee's words: messages on the field they are about, Preferans' columns named by
their players, a decimal comma read as a point, the deals checked before "Save only N deals?", and the
league chosen on the page (docs/entry.md). Expected values are written by hand."""

import re
from decimal import Decimal

import pytest
from django.test import Client

from games.bridge.views import BridgeForm, evening_body
from games.entry import entry_decimal
from games.preferans.models import Deal
from leagues.models import Game, League, Player
from matches.models import Match
from ratings.models import PlayerRating
from tests.factories import PlayerFactory
from tests.matches.rows import rows_changed, rows_snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def pages(referee):
    client = Client()
    client.force_login(referee)
    return client


@pytest.fixture
def ann_bob(reference_data):
    return PlayerFactory(name="Ann"), PlayerFactory(name="Bob")


def field_error(html: str, field: str) -> str:
    """The message shown beside ``field`` (its ``#error-<field>``), spaces trimmed; "" when there is none."""
    found = re.search(rf'id="error-{re.escape(field)}"[^>]*>(.*?)</p>', html, re.S)
    return " ".join(found[1].split()) if found else ""


def described_by(html: str, input_id: str) -> list[str]:
    tag = re.search(rf'<input[^>]*\sid="{re.escape(input_id)}"[^>]*>', html, re.S)[0]
    return re.search(r'aria-describedby="([^"]*)"', tag)[1].split()


# --- the decimal comma -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("1,5", "1.5"),
        ("-0,25", "-0.25"),
        (" 2,5 ", "2.5"),
        (",5", ".5"),
        ("+3,75", "+3.75"),
        ("1.5", "1.5"),  # a point stays a point
        ("12", "12"),
        ("1,500", "1,500"),  # three after the comma: a thousands separator as often as not; refused as typed
        ("1,5,5", "1,5,5"),
        (",", ","),
        ("", ""),
        ("abc", "abc"),
    ],
)
def test_a_decimal_comma_is_read_as_a_point(typed, read):
    assert entry_decimal(typed) == read


def test_preferans_whists_typed_with_a_comma_are_saved(pages, ann_bob):
    ann, bob = ann_bob
    data = {
        "played_at": "2026-11-01T18:00",
        "rows": "2",
        "seat-1-player": str(ann.pk),
        "seat-2-player": str(bob.pk),
        "seat-3-bot": "normal",
        "deal-1-1": "1,5",
        "deal-1-2": "-1",
        "deal-1-3": "-0,5",
        "deal-2-1": "-2,25",
        "deal-2-2": "2.25",
        "deal-2-3": "0",
    }
    check = pages.post("/results/preferans/", {**data, "action": "check"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="deal-sum-1" class="deal-sum zero-sum-ok" hx-swap-oob="true">0 ✓' in check
    assert 'id="total-1" class="seat-total" hx-swap-oob="true">-0.75<' in check  # 1.5 - 2.25
    response = pages.post("/results/preferans/", data)
    assert response.status_code == 302
    match = Match.objects.get()
    assert [deal.whists for deal in Deal.objects.filter(match=match).order_by("number")] == [
        [1.5, -1, -0.5],
        [-2.25, 2.25, 0],
    ]
    assert [seat.result for seat in match.seats.order_by("position")] == [
        Decimal("-0.75"),
        Decimal("1.25"),
        Decimal("-0.50"),
    ]


def test_a_comma_that_is_no_decimal_is_refused_and_nothing_is_stored(pages, ann_bob):
    ann, bob = ann_bob
    data = {
        "played_at": "2026-11-01T18:00",
        "rows": "1",
        "seat-1-player": str(ann.pk),
        "seat-2-player": str(bob.pk),
        "deal-1-1": "1,500",
        "deal-1-2": "-1500",
    }
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert "Deal 1: whists are numbers with at most two decimals" in html
    assert not Match.objects.exists()


def test_bridge_imps_typed_with_a_comma_are_read(pages, reference_data):
    players = [str(PlayerFactory().pk) for _ in range(8)]
    a, b, c, d, e, f, g, h = players
    form = {
        "movement": "mitchell", "tables": "2", "boards": "1", "scoring": "imps", "setup": "mitchell-2-1",
        "played_at": "2026-11-01T19:00", "rated": "true",
        "pair-ns1-1": a, "pair-ns1-2": b, "pair-ew1-1": c, "pair-ew1-2": d,
        "pair-ns2-1": e, "pair-ns2-2": f, "pair-ew2-1": g, "pair-ew2-2": h,
        "b1-t1-ns": "1", "b1-t1-ew": "1", "b1-t1-score": "7,5", "b1-t2-ns": "2", "b1-t2-ew": "2",
    }  # fmt: skip
    reading = evening_body(BridgeForm.from_post(form), Game.objects.get(slug="bridge"))
    assert reading.cells == {}
    assert reading.body["boards"][0]["tables"][0]["ns_imps"] == "7.5"
    preview = pages.post("/results/bridge/", {**form, "action": "check", "board": "1"}, HTTP_HX_REQUEST="true")
    assert "Board 1: NS 7.50 IMPs" in preview.content.decode()  # the page shows IMPs to two decimals


# --- Slaps: the messages, on their fields ----------------------------------------------------------


def slaps_form(**fields):
    return {"played_at": "2026-11-01T18:00", "rated": "true", **fields}


def test_a_missing_second_player_and_winner_are_asked_for_on_their_fields(pages, ann_bob):
    ann, _bob = ann_bob
    before = rows_snapshot()
    response = pages.post("/results/slaps/", slaps_form(player_a=str(ann.pk), player_a_text="Ann"))
    html = response.content.decode()
    assert response.status_code == 400
    assert field_error(html, "player_b") == "Choose the second player"
    assert field_error(html, "winner") == "Choose who won"
    assert field_error(html, "player_a") == ""
    assert "error-player_b" in described_by(html, "player_b")
    assert "error-player_a" not in described_by(html, "player_a")
    assert 'aria-invalid="true" aria-describedby="error-winner"' in html
    assert "Player ids" not in html  # the cleaner's words for the API
    assert "the id of the player" not in html
    assert rows_changed(before, rows_snapshot()) == {}


def test_nothing_chosen_asks_for_both_players_and_the_winner(pages, reference_data):
    html = pages.post("/results/slaps/", slaps_form(), HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "player_a") == "Choose the first player"
    assert field_error(html, "player_b") == "Choose the second player"
    assert field_error(html, "winner") == "Choose who won"
    assert not Match.objects.exists()


def test_the_same_player_twice_is_said_with_the_name(pages, ann_bob):
    ann, _bob = ann_bob
    data = slaps_form(player_a=str(ann.pk), player_b=str(ann.pk), player_b_text="Ann", winner="a")
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "player_b") == "Choose a different second player: Ann is already the first."
    assert field_error(html, "winner") == ""  # it was chosen
    assert not Match.objects.exists()


def test_a_player_removed_since_chosen_is_asked_for_again(pages, ann_bob):
    ann, bob = ann_bob
    gone = bob.pk
    Player.objects.filter(pk=gone).delete()
    data = slaps_form(player_a=str(ann.pk), player_b=str(gone), player_b_text="Bob", winner="b")
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "player_b") == "Choose the second player again: that player is no longer in the list."
    assert field_error(html, "winner") == ""
    assert f"{gone}" not in field_error(html, "player_b")
    assert not Match.objects.exists()


def test_the_winner_alone_missing_is_asked_for_alone(pages, ann_bob):
    ann, bob = ann_bob
    data = slaps_form(player_a=str(ann.pk), player_b=str(bob.pk))
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "winner") == "Choose who won"
    assert field_error(html, "player_a") == field_error(html, "player_b") == ""
    assert not Match.objects.exists()


# --- Preferans: the columns by name, the seats' messages, the question after the deals ------------------


def preferans_form(seats: dict[int, str], deals: list[list[str]], **extra):
    data = {"played_at": "2026-11-01T18:00", "rated": "true", "rows": str(max(len(deals), 1))}
    for slot, seat in seats.items():
        kind, _colon, value = seat.partition(":")
        data[f"seat-{slot}-{'player' if kind == 'p' else 'bot'}"] = value
    for row, deal in enumerate(deals, start=1):
        data |= {f"deal-{row}-{slot}": whists for slot, whists in enumerate(deal, start=1)}
    return data | extra


def headings(html: str) -> list[str]:
    return re.findall(r'<th class="num" scope="col" data-seat-heading="\d">([^<]*)</th>', html)


def test_the_deal_columns_are_headed_by_the_chosen_names(pages, ann_bob):
    ann, bob = ann_bob
    empty = pages.get("/results/preferans/").content.decode()
    assert headings(empty) == []  # no seat chosen, no column
    data = preferans_form({1: f"p:{ann.pk}", 2: "b:normal", 3: f"p:{bob.pk}"}, [["", "", ""]], action="refresh")
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert headings(html) == ["Ann", "Normal bot", "Bob"]
    assert 'aria-label="Deal 1, Normal bot"' in html
    # A seat not yet chosen keeps its number: seat 4's column would read "Seat 4" once it has a bot.
    data = preferans_form({1: f"p:{ann.pk}", 4: "b:easy"}, [["", "", "", ""]], action="refresh")
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert headings(html) == ["Ann", "Easy bot"]


def test_a_player_in_two_seats_is_said_on_the_second_seat(pages, ann_bob):
    ann, bob = ann_bob
    data = preferans_form({1: f"p:{ann.pk}", 2: f"p:{bob.pk}", 3: f"p:{ann.pk}"}, [["2", "-1", "-1"]])
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "seat-3-player") == "Ann already holds seat 1: choose another player."
    assert "error-seat-3-player" in described_by(html, "seat-3-player")
    assert field_error(html, "seat-1-player") == ""
    assert "cannot hold two seats" not in html
    assert not Match.objects.exists()


def test_one_seat_asks_for_two(pages, ann_bob):
    ann, _bob = ann_bob
    html = pages.post(
        "/results/preferans/", preferans_form({1: f"p:{ann.pk}"}, [["0"]]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Choose at least two seats: a player or a bot in each." in field_error(html, "seats")
    assert 'aria-invalid="true" aria-describedby="error-seats"' in html
    assert not Match.objects.exists()


def test_the_deals_are_checked_before_asking_to_save_fewer(pages, ann_bob):
    ann, bob = ann_bob
    seats = {1: f"p:{ann.pk}", 2: f"p:{bob.pk}"}
    # Three deals declared, two filled, the second not zero-sum (3 - 2 = +1): the error, not the question.
    data = preferans_form(seats, [["4", "-4"], ["3", "-2"], ["", ""]], declared="3", rows="3")
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert "Deal 2: the whists sum to +1.00, not 0 (each deal is zero-sum)." in html
    assert "Save only" not in html
    assert 'id="short-warning"' not in html
    assert not Match.objects.exists()
    # Fixed: now, and only now, the question.
    data["deal-2-2"] = "-3"
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert "3 deals played, 2 filled in. Save only 2?" in html
    assert "zero-sum)." not in html
    assert not Match.objects.exists()
    response = pages.post("/results/preferans/", {**data, "confirm_short": "1"})
    assert response.status_code == 302
    assert Match.objects.get().deals.count() == 2


# --- the league ------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["/results/slaps/", "/results/preferans/"])
def test_the_league_is_chosen_on_the_page_the_entry_league_by_default(pages, reference_data, page):
    html = pages.get(page).content.decode()
    game = page.split("/")[2]
    select = re.search(r'<select name="league" id="league"[^>]*>(.*?)</select>', html, re.S)[1]
    options = re.findall(r'<option value="([^"]+)"( selected)?>', select)
    assert options == [(f"{game}-amateur", " selected"), (f"{game}-pro", "")]


def test_a_game_with_one_league_says_it_without_a_choice(pages, reference_data):
    League.objects.filter(slug="slaps-pro").delete()
    html = pages.get("/results/slaps/").content.decode()
    assert 'name="league"' not in html
    assert '<p class="muted" id="league">League: Slaps Amateur</p>' in html


def test_a_result_is_filed_under_the_league_chosen(pages, ann_bob):
    ann, bob = ann_bob
    slaps = Game.objects.get(slug="slaps")
    pro = League.objects.get(slug="slaps-pro")
    # Amateurs in the pro league: refused beside the league field, the choice kept, nothing stored.
    data = slaps_form(player_a=str(ann.pk), player_b=str(bob.pk), winner="a", league="slaps-pro")
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "league") == (
        "Slaps Pro takes results between its own players, and Ann, Bob are not among them. Choose Slaps Amateur."
    )
    assert re.search(r'<select name="league" id="league" aria-invalid="true" aria-describedby="error-league">', html)
    assert '<option value="slaps-pro" selected>' in html
    assert not Match.objects.exists()
    # Ann a pro, Bob not: only Bob is named.
    PlayerRating.objects.create(player=ann, game=slaps, league=pro, rating=1850, peak_rating=1850)
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "league") == (
        "Slaps Pro takes results between its own players, and Bob is not one of them. Choose Slaps Amateur."
    )
    assert not Match.objects.exists()
    # Two pros (their ratings in the pro league): filed there, and the next form keeps the choice.
    PlayerRating.objects.create(player=bob, game=slaps, league=pro, rating=1850, peak_rating=1850)
    html = pages.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert Match.objects.get().league == pro
    assert '<option value="slaps-pro" selected>' in html
    # Left out (a client without the field): the entry league, as before.
    data.pop("league")
    pages.post("/results/slaps/", {**data, "played_at": "2026-11-01T19:00"})
    assert Match.objects.order_by("-pk").first().league.slug == "slaps-amateur"


def test_a_preferans_game_is_filed_under_the_league_chosen(pages, ann_bob):
    ann, bob = ann_bob
    data = preferans_form({1: f"p:{ann.pk}", 2: f"p:{bob.pk}"}, [["1", "-1"]], league="preferans-pro")
    html = pages.post("/results/preferans/", data, HTTP_HX_REQUEST="true").content.decode()
    assert field_error(html, "league") == (
        "Preferans Pro takes results between its own players, and Ann, Bob are not among them."
        " Choose Preferans Amateur."
    )
    assert not Match.objects.exists()
    pages.post("/results/preferans/", {**data, "league": "preferans-amateur"})
    assert Match.objects.get().league.slug == "preferans-amateur"
