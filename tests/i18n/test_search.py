# ruff: noqa: RUF001, RUF002, RUF003 (Russian names, and look-alike letters on purpose, are what is searched)
"""Finding and ordering people by name in any script (issue 28): the search key (``leagues.names.name_key``,
``Player.search_name``) folds case on every database (SQLite's LIKE folds only ASCII), reads ё as е, and
takes a Latin look-alike typed inside a Cyrillic word (or the reverse) as the word's own letter. Names sort
by the key, so ё and capitals do not scatter them. The key follows every write of a name."""

import datetime
import re
from decimal import Decimal

import pytest
from django.contrib.admin.sites import site
from django.db import connection
from django.test import Client, RequestFactory
from django.utils import timezone

from games.pickers import _search_orm, _search_sql, picker_read, players_named, players_search
from leagues.models import League, Player, Season, SeasonStanding
from leagues.names import name_key
from leagues.season_selectors import season_lines
from leagues.services import player_create, player_rename, players_create
from ratings.list_selectors import rating_list_rows
from ratings.models import PlayerRating, RatingList, RatingListRow, RatingState
from ratings.people import player_erase
from ratings.selectors import leaderboard_page
from tests.factories import AdminFactory, PlayerFactory

pytestmark = pytest.mark.django_db

# Latin letters typed inside Cyrillic words, written as code points so that nobody "fixes" them.
LATIN_E, LATIN_O, LATIN_A, LATIN_P, LATIN_C, LATIN_X = "e", "o", "a", "p", "c", "x"
CYRILLIC_O = "\u041e"  # О, inside a Latin word


def found(text: str, **options) -> list[str]:
    return [player.name for player in players_search(text, **options)]


def test_the_key_folds_case_yo_spaces_and_look_alikes():
    assert name_key("Пётр") == name_key("ПЁТР") == name_key("пётр") == name_key("Петр") == "петр"
    assert name_key("  Анна   Ёлкина ") == "анна елкина"
    assert name_key(f"П{LATIN_E}тр") == "петр"  # a Latin e inside a Cyrillic word
    assert name_key(f"Иван{LATIN_O}в") == "иванов"
    assert name_key(f"{LATIN_A}л{LATIN_E}к{LATIN_C}ей") == "алексей"
    assert name_key(f"{CYRILLIC_O}scar") == "oscar"  # a Cyrillic O inside a Latin word
    assert name_key("Oscar") == "oscar"
    assert name_key("Tom") == "tom"
    assert name_key(f"Анна-M{LATIN_A}рия") == "анна-мария"  # each part of a double name by its own letters
    assert name_key("Straße") == name_key("STRASSE") == "strasse"
    assert name_key("") == ""
    assert name_key(None) == ""


def test_petr_finds_every_spelling_of_pyotr(reference_data):
    for name in ["Пётр Иванов", "ПЁТР Сидоров", "пётр Кузнецов", "Павел Петров"]:
        player_create(name=name)
    assert found("петр") == ["Пётр Иванов", "пётр Кузнецов", "ПЁТР Сидоров", "Павел Петров"]
    assert found("ПЕТР") == found("петр") == found("Пётр") == found("пЁтр")


def test_pyotr_finds_petr(reference_data):
    player_create(name="Петр Смирнов")
    assert found("Пётр") == ["Петр Смирнов"]
    assert found("пётр смирнов") == ["Петр Смирнов"]


def test_a_latin_look_alike_typed_in_a_cyrillic_name_finds_it(reference_data):
    player_create(name="Пётр Иванов")
    player_create(name="Oscar Wilde")
    assert found(f"П{LATIN_E}тр") == ["Пётр Иванов"]
    assert found(f"Иван{LATIN_O}в") == ["Пётр Иванов"]  # inside the name
    assert found(f"Пёт{LATIN_P}") == ["Пётр Иванов"]  # a Latin p for the Cyrillic р it looks like
    assert found(f"{CYRILLIC_O}scar") == ["Oscar Wilde"]  # and the reverse


def test_a_name_stored_with_a_look_alike_is_found_as_typed(reference_data):
    player_create(name=f"Але{LATIN_X}андр")  # an import's typo: a Latin x
    assert found("Алехандр") == [f"Але{LATIN_X}андр"]
    assert found("алехандр") == [f"Але{LATIN_X}андр"]


def test_cyrillic_case_is_folded_on_this_database(reference_data):
    """SQLite's LIKE (and ``icontains``) folds ASCII only: "ИВАН" never found "иван" there before."""
    player_create(name="иван грозный")
    player_create(name="ЯРОСЛАВ МУДРЫЙ")
    assert found("ИВАН") == ["иван грозный"]
    assert found("Ярослав") == ["ЯРОСЛАВ МУДРЫЙ"]
    assert found("грозн") == ["иван грозный"]  # inside the name (three letters or more)
    assert found("мудр") == ["ЯРОСЛАВ МУДРЫЙ"]
    assert connection.vendor in {"sqlite", "postgresql"}


def test_names_sort_by_the_key_yo_between_ye_and_zhe(reference_data):
    for name in ["Жанна", "ёжиков", "Егор", "Ярослав", "Ёлкин", "анна", "Борис", "Zoe", "adam", "Bob"]:
        player_create(name=name)
    order = list(Player.objects.values_list("name", flat=True))
    assert order == ["adam", "Bob", "Zoe", "анна", "Борис", "Егор", "ёжиков", "Ёлкин", "Жанна", "Ярослав"]
    assert found("Ё") == found("е") == ["Егор", "ёжиков", "Ёлкин"]  # ё and е begin the same names
    assert found("ёж") == found("еж") == ["ёжиков"]


def test_the_pickers_and_the_finders_pages_search_in_russian(referee, reference_data):
    player_create(name="Пётр Иванов")
    player_create(name="Пелагея")
    client = Client()
    client.force_login(referee)
    picker = client.get("/players/search/", {"q": "ПЕТР"}, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert re.findall(r'data-name="([^"]*)"', picker) == ["Пётр Иванов"]
    finder = Client().get("/players/", {"q": "петр"}, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Пётр Иванов" in finder
    assert "Пелагея" not in finder


def test_a_typed_name_without_javascript_reads_the_key(reference_data):
    pyotr = player_create(name="Пётр Иванов")
    assert players_named("петр иванов") == [pyotr]
    assert picker_read({"a_text": "ПЕТР ИВАНОВ"}, "a").value == str(pyotr.pk)


def test_the_key_follows_a_rename_through_the_service(reference_data):
    player = player_create(name="Петр")
    player_rename(player=player, name="  Ёлкин   Пётр ")
    stored = Player.objects.get(pk=player.pk)
    assert (stored.name, stored.search_name) == ("Ёлкин Пётр", "елкин петр")
    assert found("елкин п") == found("ЁЛКИН ПЕТР") == ["Ёлкин Пётр"]


def test_the_key_follows_a_rename_in_admin(reference_data):
    admin = AdminFactory()
    player = player_create(name="Петр")
    client = Client()
    client.force_login(admin)
    url = f"/admin/leagues/player/{player.pk}/change/"
    page = client.get(url).content.decode()
    management = re.findall(r'name="([\w-]+-(?:TOTAL|INITIAL|MIN_NUM|MAX_NUM)_FORMS)"[^>]*value="(\d*)"', page)
    form = {"name": "ЁЖИКОВ", "federation_id": "", "user": "", **dict(management)}
    response = client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Player.objects.get(pk=player.pk).search_name == "ежиков"
    # Admin's own search finds them by the key too: any case and ё, on SQLite as well.
    changelist = client.get("/admin/leagues/player/", {"q": "Ежиков"}).content.decode()
    assert "ЁЖИКОВ" in changelist


def test_the_key_follows_bulk_writes_and_an_erasure(reference_data):
    created = players_create(people=[("Пётр", ""), ("ЁЛКА", "")])
    assert [player.search_name for player in Player.objects.filter(pk__in=[p.pk for p in created])] == [
        "елка",
        "петр",
    ]
    Player.objects.filter(pk=created[0].pk).update(name="Фёдор")
    assert Player.objects.get(pk=created[0].pk).search_name == "федор"
    renamed = Player.objects.get(pk=created[1].pk)
    renamed.name = "Семён"
    Player.objects.bulk_update([renamed], ["name"])
    assert Player.objects.get(pk=created[1].pk).search_name == "семен"
    renamed.name = "Яков"
    renamed.save(update_fields=["name"])
    assert Player.objects.get(pk=created[1].pk).search_name == "яков"
    erased = player_erase(player=Player.objects.get(pk=created[0].pk), by=AdminFactory())
    assert Player.objects.get(pk=erased.pk).search_name == name_key(erased.name)
    assert found("федор") == []


def test_a_leaderboard_is_searched_and_ties_ordered_by_the_key(slaps):
    league = League.objects.get(game=slaps, tier="amateur")
    for name in ["Жанна", "ёжиков", "Егор", "Пётр"]:
        player = player_create(name=name)
        PlayerRating.objects.create(
            player=player, game=slaps, league=league, rating=Decimal(1000), peak_rating=Decimal(1000)
        )
    RatingState.objects.get_or_create(game=slaps)
    every = leaderboard_page(league=league, page="1", page_size=10)
    assert [(row.rank, row.name) for row in every.rows] == [(1, "Егор"), (2, "ёжиков"), (3, "Жанна"), (4, "Пётр")]
    searched = leaderboard_page(league=league, search="ПЕТР", page="1", page_size=10)
    assert [(row.rank, row.name) for row in searched.rows] == [(4, "Пётр")]


def test_a_rating_list_and_a_season_table_are_searched_by_the_key(slaps):
    names = ["Жанна", "ёжиков", "Егор", "Пётр"]
    players = [player_create(name=name) for name in names]
    now = timezone.now()
    listed = RatingList.objects.create(
        game=slaps, day=datetime.date(2026, 11, 30), closes_at=now, published_at=now, players=4, published_by="test"
    )
    for rank, player in enumerate(players, start=1):
        RatingListRow.objects.create(
            rating_list=listed, rank=rank, player=player, name=player.name, rating=1000, peak=1000, units=1, new=True
        )
    assert [row.name for row in rating_list_rows(listed, search="петр")] == ["Пётр"]
    assert [row.name for row in rating_list_rows(listed, sort="name")] == ["Егор", "ёжиков", "Жанна", "Пётр"]
    league = League.objects.get(game=slaps, tier="amateur")
    season = Season.objects.create(
        league=league, name="Осень", first_day=datetime.date(2026, 9, 1), last_day=datetime.date(2026, 11, 30)
    )
    SeasonStanding.objects.bulk_create(
        SeasonStanding(season=season, rank=1, player_id=player.pk, name=player.name, points=2, results=1)
        for player in players
    )
    assert [line.name for line in season_lines(season=season)] == ["Егор", "ёжиков", "Жанна", "Пётр"]
    assert [line.name for line in season_lines(season=season, search="ПЁТР")] == ["Пётр"]


def test_admin_search_of_ratings_reads_the_key(slaps):
    league = League.objects.get(game=slaps, tier="amateur")
    player = player_create(name="Пётр")
    PlayerRating.objects.create(player=player, game=slaps, league=league, rating=1000, peak_rating=1000)
    request = RequestFactory().get("/")
    model_admin = site._registry[PlayerRating]
    results, _ = model_admin.get_search_results(request, PlayerRating.objects.all(), "петр")
    assert [rating.player_id for rating in results] == [player.pk]


@pytest.mark.postgres
def test_postgresql_agrees_with_the_orm_search_and_sorts_as_sqlite(require_postgres, reference_data):
    """On PostgreSQL the search is written out (``_search_sql``) over the key in the "C" collation: it
    finds what the ORM search finds, in the same order, and names sort by code point as on SQLite."""
    names = ["Пётр Иванов", "ПЁТР Сидоров", "пётр Кузнецов", "Петр", "Павел Петров", "ёжиков", "Егор"]
    names += ["Жанна", "Oscar", "adam", "Bob", f"Але{LATIN_X}андр", "Ärger", "Zoe"]
    for name in names:
        PlayerFactory(name=name)
    for text in ["петр", "ПЁТР", "Пётр", f"П{LATIN_E}тр", "ё", "е", "жан", f"{CYRILLIC_O}sc", "алехандр", "z"]:
        for public in (False, True):
            orm = [player.pk for player in _search_orm(text, limit=15, game="", public=public)]
            sql = [player.pk for player in _search_sql(text, limit=15, game="", public=public)]
            assert sql == orm, text
    order = list(Player.objects.values_list("name", flat=True))
    assert order == sorted(names, key=lambda name: (name_key(name), name))  # code point order of the keys
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT collation_name FROM information_schema.columns"
            " WHERE table_name = 'leagues_player' AND column_name = 'search_name'"
        )
        assert cursor.fetchone()[0] == "C"


@pytest.mark.django_db
def test_admin_finds_a_match_by_a_players_name_in_any_case_and_with_yo(admin_client):
    from matches.models import Match
    from tests.factories import reference_data_ensure, slaps_match

    reference_data_ensure()
    petr, ivan = PlayerFactory(name="Пётр Ильич"), PlayerFactory(name="Иван")
    match = slaps_match(winner=petr, loser=ivan)
    answer = admin_client.get("/admin/matches/match/", {"q": "петр"})
    assert answer.status_code == 200
    assert list(answer.context["cl"].result_list) == [Match.objects.get(pk=match.pk)]
