"""Finding a player from any page (``players/``, the header's search box): for anyone, names only, no erased
player, ten at most, each with the games they are rated in; hostile text; a fixed number of queries."""

import re
from decimal import Decimal

import pytest
from django.test import Client

from leagues.models import Game, League, Player
from ratings.models import PlayerRating
from ratings.people import player_erase
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def page(q, **headers) -> str:
    response = Client().get("/players/", {"q": q}, **headers)
    assert response.status_code == 200
    return response.content.decode()


def listed(html: str) -> list[str]:
    """The names the results page links to, in order."""
    return re.findall(r'<li><a href="/players/\d+/">([^<]*)</a>', html)


def options(html: str) -> list[str]:
    """The names of the header list's options, in order."""
    return re.findall(r'<span class="found-name">([^<]*)</span>', html)


def rate(player, slug, rating):
    game = Game.objects.get(slug=slug)
    PlayerRating.objects.create(
        player=player, game=game, league=League.objects.get(slug=f"{slug}-amateur"), rating=rating, peak_rating=rating
    )


def test_anyone_finds_a_player_by_part_of_the_name_and_reaches_the_profile(reference_data):
    ann = PlayerFactory(name="Ann Lee")
    PlayerFactory(name="Joanna Berg")
    PlayerFactory(name="Bob Mann")
    html = page("ann")
    # Names beginning with the text first, then those containing it, each in name order.
    assert listed(html) == ["Ann Lee", "Bob Mann", "Joanna Berg"]
    assert f'<a href="/players/{ann.pk}/">Ann Lee</a>' in html
    assert "3 players found." in html


def test_each_player_shows_the_games_they_are_rated_in_with_the_rating(reference_data):
    ann = PlayerFactory(name="Ann Lee")
    PlayerFactory(name="Ann Novak")
    rate(ann, "slaps", Decimal("1523.50"))
    rate(ann, "bridge", Decimal("1610.49"))
    html = page("ann")
    assert "Bridge 1610 · Slaps 1524" in html  # by game name, whole as ratings are shown
    assert "not rated yet" in html  # Ann Novak
    header = page("ann", HTTP_HX_REQUEST="true")
    assert "<small>Bridge 1610 · Slaps 1524</small>" in header


def test_the_header_gets_only_the_options_of_its_list(reference_data):
    ann = PlayerFactory(name="Ann Lee")
    html = page("an", HTTP_HX_REQUEST="true")
    assert "<html" not in html
    assert options(html) == ["Ann Lee"]
    assert f'<li role="option" id="header-search-option-{ann.pk}" aria-selected="false">' in html
    assert f'<a href="/players/{ann.pk}/" tabindex="-1">' in html
    nothing = page("zz", HTTP_HX_REQUEST="true")
    assert 'aria-disabled="true"' in nothing
    assert "No player found for “zz”." in nothing
    assert page("", HTTP_HX_REQUEST="true").strip() == ""


def test_the_answer_varies_on_the_htmx_header():
    response = Client().get("/players/", {"q": "ann"})
    assert "HX-Request" in response["Vary"]


def test_every_page_has_the_search_box_in_its_header(reference_data):
    html = Client().get("/").content.decode()
    box = html[html.index('<form class="header-search"') :]
    box = box[: box.index("</form>")]
    assert 'action="/players/"' in box
    assert 'hx-get="/players/"' in box
    assert 'hx-trigger="input changed delay:250ms, search"' in box
    assert '<label for="header-search-q"' in box
    assert 'role="combobox"' in box
    assert 'aria-expanded="false"' in box
    assert 'aria-controls="header-search-options"' in box
    assert 'aria-live="polite"' in box
    assert "/static/js/header-search.js" in html
    assert "/static/css/search.css" in html
    for other in ["/matches/", "/calculator/", "/accounts/login/"]:
        assert 'id="header-search-q"' in Client().get(other).content.decode()


def test_at_most_ten_players_and_the_page_says_to_type_more(reference_data):
    Player.objects.bulk_create(Player(name=f"Member {n:02d}") for n in range(30))
    html = page("member")
    assert listed(html) == [f"Member {n:02d}" for n in range(10)]
    assert "the first 10: type more of the name" in html
    assert len(options(page("member", HTTP_HX_REQUEST="true"))) == 10


def test_erased_players_are_never_found(reference_data, admin_user):
    gone = PlayerFactory(name="Greta Gone", federation_id="F-777")
    PlayerFactory(name="Greta Stays")
    player_erase(player=gone, by=admin_user)
    assert listed(page("greta")) == ["Greta Stays"]
    assert listed(page("erased")) == []  # not under the name that replaced theirs either
    assert listed(page(f"Erased player #{gone.pk}")) == []
    assert "Erased" not in page("er", HTTP_HX_REQUEST="true")


def test_a_federation_number_is_not_looked_up_for_anyone(reference_data):
    PlayerFactory(name="Ann Lee", federation_id="12345")
    assert listed(page("12345")) == []
    assert listed(page("ann")) == ["Ann Lee"]


def test_empty_text_asks_for_a_name(reference_data):
    PlayerFactory(name="Ann Lee")
    for q in ["", "   ", "\x00"]:
        html = page(q)
        assert listed(html) == []
        assert "Type a player's name" in html
    assert Client().get("/players/").status_code == 200


@pytest.mark.parametrize(
    "hostile",
    [
        "a" * 100_000,
        "ann\x00lee",
        "\x01\x02\x1b[31m",
        "'; DROP TABLE leagues_player; --",
        "ann' OR '1'='1",
        "%",
        "_",
        "\\",
        "<script>alert(1)</script>",
        "\u202eeel nna",
        "ann\r\nSet-Cookie: x=1",
    ],
)
def test_hostile_text_gets_a_clean_bounded_answer_and_changes_nothing(reference_data, hostile):
    PlayerFactory(name="Ann Lee")
    PlayerFactory(name="100% Bob")
    PlayerFactory(name="<script>alert(1)</script>")
    response = Client().get("/players/", {"q": hostile})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>alert" not in html
    main = html[html.index("<main") : html.index("</main>")]  # (the header's sign-in link carries the path)
    assert len(main) < 5_000  # the text shown is cut to 100 characters
    if hostile.startswith("aaa"):
        assert f'value="{"a" * 100}"' in main
    if hostile in ("%", "_", "\\"):
        assert listed(html) == []  # LIKE's wildcards are text
    if hostile == "<script>alert(1)</script>":
        assert listed(html) == ["&lt;script&gt;alert(1)&lt;/script&gt;"]
    assert Player.objects.count() == 3
    assert Client().get("/players/", {"q": hostile}, HTTP_HX_REQUEST="true").status_code == 200


def test_a_repeated_q_and_other_parameters_do_no_harm(reference_data):
    PlayerFactory(name="Ann Lee")
    response = Client().get("/players/?q=ann&q=bob&game=x&page=-1")
    assert response.status_code == 200
    assert listed(response.content.decode()) == []  # the last q, "bob", finds no one
    assert Client().post("/players/", {"q": "ann"}).status_code == 405


def test_the_number_of_queries_does_not_grow_with_the_players(reference_data, django_assert_num_queries):
    """Names beginning with the text, the ratings of those found (with their games); names containing it
    only when fewer than ten begin with it. No session or user is read for a visitor."""
    Player.objects.bulk_create(Player(name=f"Member {n:05d}") for n in range(2000))
    with django_assert_num_queries(2):
        first = listed(page("member"))
    Player.objects.bulk_create(Player(name=f"Member x{n:05d}") for n in range(2000))
    Player.objects.bulk_create(Player(name=f"Other {n:05d}") for n in range(2000))
    with django_assert_num_queries(2):
        assert listed(page("member")) == first
    with django_assert_num_queries(3):  # none begins with "ember": look inside
        assert len(listed(page("ember"))) == 10
    with django_assert_num_queries(1):  # no one found (too short to look inside): no ratings read
        assert listed(page("zz")) == []
    with django_assert_num_queries(0):
        page("")
