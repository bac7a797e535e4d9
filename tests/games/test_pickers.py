"""The player search (``players/search/``), the picker include, and reading what pickers post:
ranking, limits, hostile text, a constant number of queries, and the entry pages that use them."""

import re
from decimal import Decimal

import pytest
from django.template.loader import render_to_string
from django.test import Client

from games.pickers import SEARCH_LIMIT, picker_read
from leagues.models import Game, Player
from matches.models import Match
from ratings.models import PlayerRating
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(referee):
    client = Client()
    client.force_login(referee)
    return client


def names(html: str) -> list[str]:
    return re.findall(r'data-name="([^"]*)"', html)


def search(browser, q, **params) -> str:
    response = browser.get("/players/search/", {"q": q, **params})
    assert response.status_code == 200
    return response.content.decode()


def test_names_that_begin_with_the_text_come_first_then_names_that_contain_it(browser, reference_data):
    for name in ["Zed Annan", "anna Berg", "Ann Lee", "Bob Mann", "Hannah", "Dee"]:
        PlayerFactory(name=name)
    # Prefix matches (any case) in name order, then the names with "ann" inside, in name order.
    assert names(search(browser, "ann")) == ["Ann Lee", "anna Berg", "Bob Mann", "Hannah", "Zed Annan"]
    assert names(search(browser, "ANN L")) == ["Ann Lee"]
    assert names(search(browser, "  ann   lee ")) == ["Ann Lee"]  # spaces as names store them


def test_short_text_matches_the_start_of_names_only(browser, reference_data):
    PlayerFactory(name="Ann Lee")
    PlayerFactory(name="Dean")
    # Two letters: "an" begins "Ann Lee"; inside "Dean" is not looked for (no trigram, no table read).
    assert names(search(browser, "an")) == ["Ann Lee"]
    assert names(search(browser, "ean")) == ["Dean"]


def test_an_exact_federation_number_comes_first(browser, reference_data):
    PlayerFactory(name="Zoe Number", federation_id="0042")
    PlayerFactory(name="0042 Club")
    html = search(browser, "0042")
    assert names(html) == ["Zoe Number", "0042 Club"]
    assert "fed. 0042" in html
    # A federation number is matched whole; part of it is only text inside names.
    assert names(search(browser, "042")) == ["0042 Club"]


def test_at_most_fifteen_options_with_ids_unique_to_the_picker(browser, reference_data):
    PlayerFactory.create_batch(40)  # "Player 0000" ...
    html = search(browser, "player", name="seat-2-player")
    found = names(html)
    assert len(found) == SEARCH_LIMIT == 15
    assert found == sorted(found)
    ids = re.findall(r'<li role="option" id="([^"]+)" data-id="(\d+)"', html)
    assert len(ids) == 15
    assert all(option == f"seat-2-player-option-{pk}" for option, pk in ids)


def test_empty_text_answers_nothing(browser, reference_data):
    PlayerFactory(name="Ann")
    assert search(browser, "").strip() == ""
    assert search(browser, "   ").strip() == ""
    assert browser.get("/players/search/").content.decode().strip() == ""


def test_no_match_says_so_as_a_disabled_option(browser, reference_data):
    html = search(browser, "nobody")
    assert 'aria-disabled="true"' in html
    assert "No player found" in html
    assert "data-id" not in html


def test_the_game_adds_each_players_rating_there(browser, slaps):
    ann = PlayerFactory(name="Ann")
    PlayerFactory(name="Annika")
    PlayerRating.objects.create(
        player=ann, game=slaps, league=slaps.leagues.get(tier="amateur"), rating=Decimal(1042), peak_rating=1050
    )
    html = search(browser, "ann", game="slaps")
    assert re.search(r'data-name="Ann"[^>]*>Ann <small>1042</small>', html)
    assert re.search(r'data-name="Annika"[^>]*>Annika</li>', html)
    assert names(search(browser, "ann", game="no-such-game")) == ["Ann", "Annika"]


def test_an_option_shows_the_rating_and_the_number_and_escapes_the_name(browser, slaps):
    """The whole option as the picker's script reads it (``options_html``), written out by hand."""
    ann = PlayerFactory(name='Ann "A" <Lee> & Co', federation_id="0042")
    PlayerRating.objects.create(
        player=ann, game=slaps, league=slaps.leagues.get(tier="amateur"), rating=Decimal("1042.5"), peak_rating=1050
    )
    html = search(browser, "ann", game="slaps", name="seat-3-player")
    name = "Ann &quot;A&quot; &lt;Lee&gt; &amp; Co"
    assert html == (
        f'<li role="option" id="seat-3-player-option-{ann.pk}" data-id="{ann.pk}" data-name="{name}" '
        f'aria-selected="false">{name} <small>1042.50 · fed. 0042</small></li>\n'
    )
    assert search(browser, "<b>", game="slaps") == (
        '<li role="option" aria-disabled="true" class="picker-none">No player found for “&lt;b&gt;”.</li>\n'
    )


@pytest.mark.parametrize(
    "hostile",
    [
        "x" * 10_000,
        "a\x00nn",
        "\x00",
        "'; DROP TABLE leagues_player; --",
        "%",
        "_",
        "a%",
        "\\",
        "ann' OR '1'='1",
        "<script>alert(1)</script>",
        "\u202eann",
    ],
)
def test_hostile_text_gets_a_clean_answer(browser, reference_data, hostile):
    PlayerFactory(name="Ann")
    PlayerFactory(name="100% Bob")
    PlayerFactory(name="<script>alert(1)</script>")
    response = browser.get("/players/search/", {"q": hostile, "game": hostile[:60], "name": hostile[:60]})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>" not in html
    assert len(html) < 10_000
    # LIKE's wildcards are text: "%" and "_" match only names holding them (here none begins with them).
    if hostile in ("%", "_", "a%", "\\"):
        assert names(html) == []
    assert Player.objects.count() == 3


def test_nul_in_the_text_is_dropped(browser, reference_data):
    PlayerFactory(name="Ann")
    assert names(search(browser, "a\x00nn")) == ["Ann"]


def test_text_is_composed_as_stored_names_are(browser, reference_data):
    PlayerFactory(name="Zo\u00eb Berg")  # stored composed (NFC), as player_name_clean stores names
    assert names(search(browser, "zoe\u0308")) == ["Zo\u00eb Berg"]  # typed decomposed


def test_search_is_for_referees(client, reference_data):
    response = client.get("/players/search/", {"q": "ann"})
    assert response.status_code == 302
    visitor = Client()
    visitor.force_login(UserFactory())
    assert visitor.get("/players/search/", {"q": "ann"}).status_code == 403
    assert Client().post("/players/search/", {"q": "ann"}).status_code in (302, 403, 405)


def test_the_number_of_queries_does_not_grow_with_the_players(browser, slaps, django_assert_num_queries):
    """Session, user and permissions (read on every request: config/auth.py), then on PostgreSQL one
    statement for the exact number and the names beginning with the text, each with their rating in the
    game (elsewhere the ORM's three: the number, the names, the ratings); and names containing the text
    only when fewer than 15 begin with it."""
    from django.db import connection

    Player.objects.bulk_create(Player(name=f"Member {n:05d}") for n in range(3000))
    search(browser, "warm", game="slaps")
    with django_assert_num_queries(4 if connection.vendor == "postgresql" else 6) as first:
        names_first = names(search(browser, "member", game="slaps"))
    Player.objects.bulk_create(Player(name=f"Member x{n:05d}") for n in range(3000))
    Player.objects.bulk_create(Player(name=f"Other {n:05d}") for n in range(3000))
    with django_assert_num_queries(len(first.captured_queries)):
        assert names(search(browser, "member", game="slaps")) == names_first
    with django_assert_num_queries(len(first.captured_queries) + 1):  # none begins with "ember": look inside
        assert len(names(search(browser, "ember", game="slaps"))) == 15


def test_the_include_renders_an_accessible_combobox(reference_data):
    game = Game.objects.get(slug="slaps")
    html = render_to_string(
        "games/_player_picker.html",
        {"name": "player_a", "label": "Player A", "value": 12, "value_name": "Ann <Lee>", "input_id": "player_a",
         "game_slug": game.slug, "invalid": True},
    )  # fmt: skip
    assert '<label for="player_a">Player A</label>' in html
    assert 'id="player_a" name="player_a_text" value="Ann &lt;Lee&gt;"' in html
    for attribute in ['role="combobox"', 'aria-autocomplete="list"', 'aria-expanded="false"',
                      'aria-controls="player_a-listbox"', 'aria-invalid="true"', 'autocomplete="off"',
                      'hx-get="/players/search/"', 'hx-trigger="input changed delay:150ms"',
                      'hx-target="#player_a-listbox"']:  # fmt: skip
        assert attribute in html, attribute
    assert '<ul role="listbox" id="player_a-listbox"' in html
    assert '<input type="hidden" name="player_a" value="12" data-picker-value>' in html
    assert """hx-vals='{"game": "slaps", "name": "player_a"}'""" in html
    assert "style=" not in html
    assert "<script" not in html
    empty = render_to_string(
        "games/_player_picker.html", {"name": "p", "label": "P", "value": "", "value_name": "", "input_id": "p"}
    )
    assert '<input type="hidden" name="p" value="" data-picker-value>' in empty
    assert "aria-invalid" not in empty


# --- what a picker posts, JavaScript on or off ------------------------------------------------


def test_picker_read_prefers_the_chosen_id_then_reads_the_typed_text(reference_data):
    ann = PlayerFactory(name="Ann Lee")
    PlayerFactory(name="Bob"), PlayerFactory(name="bob")
    numbered = PlayerFactory(name="Cid", federation_id="0042")
    assert picker_read({"p": "7", "p_text": "whatever"}, "p").value == "7"  # the services check the id
    assert picker_read({"p": "", "p_text": " ann  LEE "}, "p").value == str(ann.pk)
    assert picker_read({"p_text": "0042"}, "p").value == str(numbered.pk)
    assert picker_read({"p_text": f"#{ann.pk}"}, "p").value == str(ann.pk)
    two = picker_read({"p_text": "BOB"}, "p")
    assert two.value == ""
    assert "2 players are named" in two.problem
    unknown = picker_read({"p_text": "Nobody"}, "p")
    assert unknown.value == ""
    assert unknown.problem == "No player is named “Nobody”."
    assert picker_read({"p_text": "9" * 5000}, "p").value == ""  # not an id: no huge integer
    assert picker_read({}, "p").value == ""


def slaps_form(**fields):
    return {"winner": "a", "played_at": "2026-11-01T18:00", "rated": "true", **fields}


def test_without_javascript_typed_names_enter_a_result(browser, slaps):
    ann, bob = PlayerFactory(name="Ann Lee"), PlayerFactory(name="Bob")
    response = browser.post("/results/slaps/", slaps_form(player_a_text="ann lee", player_b_text=str(bob.pk)))
    assert response.status_code == 302
    match = Match.objects.get()
    assert [seat.player for seat in match.seats.order_by("position")] == [ann, bob]


def test_a_typed_name_no_one_has_is_an_error_on_the_field_and_stores_nothing(browser, slaps):
    PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="bob")
    response = browser.post(
        "/results/slaps/", slaps_form(player_a_text="Nobody", player_b_text="BOB"), HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert "No player is named “Nobody”." in html
    assert "2 players are named “BOB”" in html
    # What was typed stays in the fields, which are marked.
    assert 'id="player_a" name="player_a_text" value="Nobody"' in html
    assert html.count('aria-invalid="true"') >= 2
    assert not Match.objects.exists()


def test_after_an_error_the_pickers_keep_the_chosen_players(browser, slaps):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    data = slaps_form(player_a=ann.pk, player_a_text="Ann", player_b=bob.pk, player_b_text="Bob", winner="")
    html = browser.post("/results/slaps/", data, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="error-winner"' in html
    assert f'<input type="hidden" name="player_a" value="{ann.pk}" data-picker-value>' in html
    assert 'name="player_b_text" value="Bob"' in html
    assert not Match.objects.exists()


def test_the_entry_pages_do_not_grow_with_the_players(browser, slaps):
    small = len(browser.get("/results/slaps/").content) + len(browser.get("/results/preferans/").content)
    Player.objects.bulk_create(Player(name=f"Member {n:05d}") for n in range(2000))
    large = len(browser.get("/results/slaps/").content) + len(browser.get("/results/preferans/").content)
    assert large == small


# --- quick-add warns on a name that exists ---------------------------------------------------


def test_quick_add_of_an_existing_name_warns_and_creates_nothing(browser, slaps):
    ann = PlayerFactory(name="Ann Lee", federation_id="0042")
    other = PlayerFactory(name="ann lee")
    response = browser.post("/results/players/", {"name": "  ANN   lee ", "game": "slaps"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert Player.objects.count() == 2
    assert 'id="duplicate-warning"' in html
    assert "2 players are already named “ANN lee”" in html
    assert f'href="/players/{ann.pk}/"' in html
    assert "fed. 0042" in html
    assert f'name="choose" value="{ann.pk}"' in html
    assert f'name="choose" value="{other.pk}"' in html
    assert 'name="confirm" value="1"' in html
    assert 'name="name" maxlength="100" value="ANN lee"' in html  # kept for the second post
    assert '<details class="add-player" open>' in html


def test_quick_add_create_anyway_makes_a_second_person(browser, slaps):
    ann = PlayerFactory(name="Ann Lee")
    data = {"name": "Ann Lee", "game": "slaps", "confirm": "1", "player_a": ann.pk, "player_a_text": "Ann Lee"}
    html = browser.post("/results/players/", data, HTTP_HX_REQUEST="true").content.decode()
    second = Player.objects.exclude(pk=ann.pk).get(name="Ann Lee")
    assert 'id="duplicate-warning"' not in html
    assert f'<input type="hidden" name="player_b" value="{second.pk}" data-picker-value>' in html


def test_quick_add_choose_the_existing_player_instead(browser, slaps):
    ann = PlayerFactory(name="Ann Lee")
    html = browser.post(
        "/results/players/", {"name": "ann lee", "game": "slaps", "choose": ann.pk}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert Player.objects.count() == 1
    assert f'<input type="hidden" name="player_a" value="{ann.pk}" data-picker-value>' in html
    assert 'name="player_a_text" value="Ann Lee"' in html
    gone = browser.post("/results/players/", {"game": "slaps", "choose": "99999999"}, HTTP_HX_REQUEST="true")
    assert 'id="error-new_player"' in gone.content.decode()
    assert browser.post("/results/players/", {"game": "slaps", "choose": "x" * 5000}).status_code == 400
    assert Player.objects.count() == 1


def test_quick_add_of_a_new_name_creates_at_once(browser, slaps):
    PlayerFactory(name="Ann Lee")
    html = browser.post("/results/players/", {"name": "Ann Leeds", "game": "slaps"}, HTTP_HX_REQUEST="true")
    assert Player.objects.filter(name="Ann Leeds").exists()
    assert 'id="duplicate-warning"' not in html.content.decode()


NAMES_FOR_BOTH_SEARCHES = [
    "Ann Lee",
    "anna Berg",
    "ANNE",
    "Zed Annan",
    "Hannah",
    "Bob Mann",
    "50% Club",
    "5000 Club",
    "a_b",
    "axb",
    "back\\slash",
    "Straße",
    "STRASSE",
    "İlker",
    "ilker",
    "Émile",
    "emile",
    "Ø Berg",
    "O Berg",
    "李小龙",
    "🂡 Ace",
    "Member 00042",
    "Member 000421",
    "Other 00042",
]
TEXTS_FOR_BOTH_SEARCHES = ["a", "an", "ann", "ANN L", "50%", "%", "_", "a_b", "\\", "back\\", "straße", "STRASSE"]
TEXTS_FOR_BOTH_SEARCHES += ["İl", "il", "émi", "ø", "李", "🂡", "00042", "0042", "member 0004", "x" * 41, "nobody"]


def test_the_written_out_search_finds_what_the_orm_search_finds(require_postgres, reference_data):
    """On PostgreSQL the search runs two written-out statements (``_search_sql``); elsewhere the ORM builds
    it (``_search_orm``). Over names with LIKE's own characters, case pairs that only some locales fold,
    and federation numbers, both give the same players in the same order with the same ratings."""
    from games.pickers import _search_orm, _search_sql

    game = Game.objects.get(slug="slaps")
    players = [PlayerFactory(name=name) for name in NAMES_FOR_BOTH_SEARCHES]
    players[3].federation_id = "00042"
    players[3].save()
    players[7].federation_id = "ANN"
    players[7].save()
    players[1].erased_at = players[1].created_at  # erased: found by referees, not by the public search
    players[1].save()
    amateur = game.leagues.get(tier="amateur")
    for player, rating in ((players[0], Decimal("1512.25")), (players[21], Decimal("1499.00"))):
        PlayerRating.objects.create(player=player, game=game, league=amateur, rating=rating, peak_rating=rating)
    compared = 0
    for text in TEXTS_FOR_BOTH_SEARCHES:
        for limit in (15, 2):
            for slug, public in (("slaps", False), ("", False), ("no-such-game", False), ("", True)):
                options = {"limit": limit, "game": slug, "public": public}
                orm = [(player.pk, player.rating) for player in _search_orm(text, **options)]
                sql = [(player.pk, player.rating) for player in _search_sql(text, **options)]
                assert sql == orm, (text, options)
                compared += bool(orm)
    assert compared > 80  # most texts find someone: the comparison is not of empty lists
    # A federation number comes first, before the names that begin with the text (written by hand).
    first = [player.name for player in _search_sql("00042", limit=15, game="slaps")]
    assert first == ["Zed Annan", "Member 00042", "Member 000421", "Other 00042"]
    # The public search looks up no number and shows no erased player.
    public = [player.name for player in _search_sql("ann", limit=15, game="", public=True)]
    assert public == ["Ann Lee", "ANNE", "Bob Mann", "Hannah", "Zed Annan"]


def test_a_name_typed_from_its_start_is_not_also_looked_for_inside_names(browser, reference_data):
    """Two words or more that begin some names are the name being typed: "Mary Ann Lee" is not added to
    "Ann Lee". One word is still looked for inside names, and so are two words that begin no name."""
    for name in ["Ann Lee", "Ann Leeds", "Mary Ann Lee", "Joanna"]:
        PlayerFactory(name=name)
    assert names(search(browser, "ann lee")) == ["Ann Lee", "Ann Leeds"]
    assert names(search(browser, "ann")) == ["Ann Lee", "Ann Leeds", "Joanna", "Mary Ann Lee"]
    PlayerFactory(name="Zoe Mary Ann")
    assert names(search(browser, "y ann")) == ["Mary Ann Lee", "Zoe Mary Ann"]  # begins none: inside
