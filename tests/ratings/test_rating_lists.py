"""Official rating lists (issue 27): the ratings at a closing time, published once, never changed.

The club's history, Slaps (ISF Elo, everyone from 1000, K = 32 while provisional), the site's zone UTC:

- 10 November: Ann beats Bob; 20 November: Cid beats Dan (each at 1000 against 1000: E = 0.5, so the
  winner gains 32 * 0.5 = 16). At the end of November: Ann and Cid 1016, Bob and Dan 984.
- 5 December: Ann beats Cid (1016 against 1016: +16, -16): Ann 1032, Cid 1000; Eve beats Bob
  (1000 against 984: E(Eve) = 1 / (1 + 10^(-16/400)) = 0.52301, so Eve gains 32 * 0.47699 = 15.26,
  rounded to a whole point as the ISF's table is (seed 000): 15, and Bob loses 15: Eve 1015, Bob 969).
  At the end of December Dan has played nothing since 20 November (41 days): inactive in a league
  that counts a player inactive after 30 days.

The hand-worked figures above are checked once; every list is also compared with the independent
oracle's replay of the results played before its closing time (``tests/oracle``), never with the engine.
"""

import datetime
import io
import json
from datetime import UTC
from decimal import Decimal
from fractions import Fraction

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import DatabaseError, transaction

from leagues.models import Game, League
from matches.services import match_correct
from ratings.list_selectors import list_closes_at
from ratings.lists import list_day_due, rating_list_publish, rating_lists_publish_due
from ratings.models import RatingList, RatingListRow
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, slaps_match
from tests.oracle import oracle_replay
from tests.oracle_db import oracle_game_spec, oracle_results

pytestmark = pytest.mark.django_db

NOVEMBER = datetime.date(2026, 11, 30)
DECEMBER = datetime.date(2026, 12, 31)
AFTER_ALL = datetime.datetime(2027, 1, 2, tzinfo=UTC)


def at(day: int, month: int = 11, hour: int = 19) -> datetime.datetime:
    return datetime.datetime(2026, month, day, hour, tzinfo=UTC)


@pytest.fixture
def club(slaps):
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 30
    league.save()
    people = {name: PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dan", "Eve")}
    slaps_match(winner=people["Ann"], loser=people["Bob"], played_at=at(10))
    slaps_match(winner=people["Cid"], loser=people["Dan"], played_at=at(20))
    slaps_match(winner=people["Ann"], loser=people["Cid"], played_at=at(5, 12))
    slaps_match(winner=people["Eve"], loser=people["Bob"], played_at=at(5, 12, 20))
    ratings_process_game(game_id=slaps.pk)
    return people


def rows_of(rating_list: RatingList) -> list[tuple]:
    return list(
        rating_list.rows.order_by("rank").values_list(
            "rank", "name", "rating", "peak", "units", "change", "new", "provisional", "inactive"
        )
    )


def oracle_at(game: Game, closes_at: datetime.datetime) -> dict:
    """The oracle's standings after the results played before ``closes_at``."""
    results = [result for result in oracle_results(game=game) if result.played_at < closes_at]
    return oracle_replay(oracle_game_spec(game=game), results, now=AFTER_ALL).standings


def assert_is_the_oracles(rating_list: RatingList) -> None:
    standings = oracle_at(rating_list.game, rating_list.closes_at)
    stored = {row.player_id: row for row in rating_list.rows.all()}
    assert set(stored) == set(standings)
    for player, standing in standings.items():
        row = stored[player]
        assert (Fraction(row.rating), Fraction(row.peak), row.units) == (
            standing.rating,
            standing.peak,
            standing.rated_matches,
        )
    ranked = sorted(stored.values(), key=lambda row: (-row.rating, row.name, row.player_id))
    assert [row.rank for row in ranked] == list(range(1, len(ranked) + 1))
    assert rating_list.players == len(ranked)


def test_a_list_is_the_ratings_at_the_end_of_its_day_by_hand_and_by_the_oracle(slaps, club):
    published = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    assert published.created
    november = published.rating_list
    assert november.closes_at == datetime.datetime(2026, 12, 1, tzinfo=UTC)
    # December's results are in the ledger already; the list holds November's ratings only.
    assert rows_of(november) == [
        (1, "Ann", Decimal("1016.00"), Decimal("1016.00"), 1, None, True, True, False),
        (2, "Cid", Decimal("1016.00"), Decimal("1016.00"), 1, None, True, True, False),
        (3, "Bob", Decimal("984.00"), Decimal("1000.00"), 1, None, True, True, False),
        (4, "Dan", Decimal("984.00"), Decimal("1000.00"), 1, None, True, True, False),
    ]
    assert_is_the_oracles(november)


def test_the_next_list_shows_each_change_the_new_and_the_inactive(slaps, club):
    rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    december = rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL).rating_list
    assert rows_of(december) == [
        (1, "Ann", Decimal("1032.00"), Decimal("1032.00"), 2, Decimal("16.00"), False, True, False),
        (2, "Eve", Decimal("1015.00"), Decimal("1015.00"), 1, None, True, True, False),
        (3, "Cid", Decimal("1000.00"), Decimal("1016.00"), 2, Decimal("-16.00"), False, True, False),
        # Dan's last result, 20 November, is more than 30 days before 31 December.
        (4, "Dan", Decimal("984.00"), Decimal("1000.00"), 1, Decimal("0.00"), False, True, True),
        (5, "Bob", Decimal("969.00"), Decimal("1000.00"), 2, Decimal("-15.00"), False, True, False),
    ]
    assert_is_the_oracles(december)


def test_provisional_follows_the_games_count(slaps, club):
    slaps.parameters = {"provisional_matches": 2}
    slaps.save()
    december = rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL).rating_list
    provisional = dict(december.rows.values_list("name", "provisional"))
    assert provisional == {"Ann": False, "Bob": False, "Cid": False, "Dan": True, "Eve": True}


def test_a_correction_after_the_closing_time_leaves_the_published_list_byte_for_byte(slaps, club):
    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    before = json.dumps(rows_of(november), default=str)
    # Bob really won on 10 November: the correction replays November and December.
    first = slaps.matches.order_by("played_at").first()
    admin = AdminFactory()
    match_correct(
        match_id=first.pk,
        by=admin,
        data={"game": "slaps", "played_at": first.played_at.isoformat(), "players": [club["Bob"].pk, club["Ann"].pk],
              "winner": club["Bob"].pk},
    )  # fmt: skip
    ratings_process_game(game_id=slaps.pk)
    assert json.dumps(rows_of(RatingList.objects.get(pk=november.pk)), default=str) == before
    # The ratings moved, and the next list (by the oracle) shows the corrected history.
    assert oracle_at(slaps, november.closes_at)[club["Bob"].pk].rating == 1016
    december = rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL).rating_list
    assert_is_the_oracles(december)
    # Its change is measured from the list as published, not from the corrected November.
    bob = december.rows.get(player=club["Bob"])
    assert bob.change == bob.rating - Decimal("984.00")


def test_the_same_day_twice_is_a_no_op_and_republishing_is_a_new_version(slaps, club):
    first = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    again = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    assert (again.created, again.rating_list.pk) == (False, first.rating_list.pk)
    assert RatingListRow.objects.count() == 4
    second = rating_list_publish(game=slaps, day=NOVEMBER, republish=True, by="admin", now=AFTER_ALL)
    assert second.created
    assert second.rating_list.version == 2
    assert rows_of(second.rating_list) == rows_of(first.rating_list)
    assert RatingList.objects.filter(game=slaps, day=NOVEMBER).count() == 2  # the old version is kept


@pytest.mark.parametrize(
    ("day", "now"),
    [
        (NOVEMBER, datetime.datetime(2026, 11, 30, 23, 59, tzinfo=UTC)),  # its own day, not over yet
        (datetime.date(2027, 1, 5), AFTER_ALL),  # a day in the future
    ],
)
def test_a_day_that_has_not_closed_is_refused_and_nothing_is_written(slaps, club, day, now):
    with pytest.raises(ValidationError) as refused:
        rating_list_publish(game=slaps, day=day, now=now)
    assert "cannot be published before then" in refused.value.message_dict["day"][0]
    assert not RatingList.objects.exists()


def test_a_list_counts_a_result_waiting_to_be_rated(slaps, club):
    """A result played in the period but not rated yet (its task not run) is rated before the list is read."""
    slaps_match(winner=club["Dan"], loser=club["Eve"], played_at=at(30, 11, 10))
    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    assert november.players == 5
    assert_is_the_oracles(november)


@pytest.mark.parametrize(
    ("period", "today", "due"),
    [
        ("monthly", datetime.date(2026, 12, 1), datetime.date(2026, 11, 30)),
        ("monthly", datetime.date(2027, 1, 15), datetime.date(2026, 12, 31)),
        ("monthly", datetime.date(2028, 3, 1), datetime.date(2028, 2, 29)),
        ("quarterly", datetime.date(2027, 1, 1), datetime.date(2026, 12, 31)),
        ("quarterly", datetime.date(2026, 12, 31), datetime.date(2026, 9, 30)),
        ("weekly", datetime.date(2026, 12, 7), datetime.date(2026, 12, 6)),  # a Monday: yesterday, Sunday
        ("weekly", datetime.date(2026, 12, 6), datetime.date(2026, 11, 29)),  # a Sunday: not over yet
        ("none", datetime.date(2026, 12, 6), None),
    ],
)
def test_the_day_due_is_the_last_day_of_the_latest_closed_period(period, today, due):
    assert list_day_due(period, today) == due


def test_list_closes_at_local_midnight_across_a_clock_change(settings):
    settings.TIME_ZONE = "Europe/London"
    closes = list_closes_at(datetime.date(2026, 10, 24))  # the night the clocks go back
    assert closes.isoformat() == "2026-10-25T00:00:00+01:00"
    assert list_closes_at(datetime.date(2026, 10, 25)).isoformat() == "2026-10-26T00:00:00+00:00"


def test_the_periodic_task_publishes_each_games_due_list_once(slaps, club):
    quiet = Game.objects.create(slug="quiet", name="Quiet", rating_system="elo")  # no result: no list
    by_hand = Game.objects.create(slug="by-hand", name="By hand", rating_system="elo", rating_list_period="none")
    now = datetime.datetime(2026, 12, 1, 0, 30, tzinfo=UTC)
    assert rating_lists_publish_due(now=now) == 1
    assert rating_lists_publish_due(now=now) == 0
    assert list(RatingList.objects.values_list("game__slug", "day")) == [("slaps", NOVEMBER)]
    assert not RatingList.objects.filter(game__in=[quiet, by_hand]).exists()


def test_the_command_publishes_says_when_nothing_is_new_and_refuses_clearly(slaps, club, monkeypatch):
    from django.utils import timezone

    monkeypatch.setattr(timezone, "now", lambda: AFTER_ALL)  # the command reads the clock: 2 January 2027
    out = io.StringIO()
    call_command("publish_rating_list", "--game", "slaps", "--date", "2026-11-30", stdout=out)
    assert out.getvalue().strip() == "Published the Slaps list of 2026-11-30: 4 players."
    out = io.StringIO()
    call_command("publish_rating_list", "--game", "slaps", "--date", "2026-11-30", stdout=out)
    assert "is already published (version 1," in out.getvalue()
    assert "nothing was written" in out.getvalue()
    out = io.StringIO()
    call_command("publish_rating_list", "--game", "slaps", stdout=out)  # the latest closed month: December
    assert out.getvalue().strip() == "Published the Slaps list of 2026-12-31: 5 players."
    for args, said in [
        (["--game", "nope"], "No game 'nope'."),
        (["--game", "slaps", "--date", "30/11/2026"], "--date takes a day as YYYY-MM-DD; got '30/11/2026'."),
        (["--game", "slaps", "--date", "2027-01-02"], "cannot be published before then"),
    ]:
        with pytest.raises(CommandError, match=said.replace("(", r"\(").replace(")", r"\)")):
            call_command("publish_rating_list", *args, stdout=io.StringIO())
    assert RatingList.objects.count() == 2


@pytest.mark.postgres
def test_the_database_refuses_to_change_a_published_list_but_lets_a_name_be_erased(slaps, club):
    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    row = november.rows.get(rank=1)
    for change in (
        lambda: RatingListRow.objects.filter(pk=row.pk).update(rating=Decimal("2000")),
        lambda: RatingListRow.objects.filter(pk=row.pk).delete(),
        lambda: RatingList.objects.filter(pk=november.pk).update(players=1),
    ):
        with pytest.raises(DatabaseError, match="a published rating list never changes"), transaction.atomic():
            change()
    RatingListRow.objects.filter(pk=row.pk).update(name="Erased player")
    assert RatingListRow.objects.get(pk=row.pk).name == "Erased player"


def test_erasing_a_player_erases_their_name_from_published_lists_merged_ids_too(slaps, club):
    from ratings.people import erased_name, player_erase, players_merge

    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    admin = AdminFactory()
    players_merge(keep=club["Ann"], drop=club["Dan"], by=admin)  # Dan was Ann entered twice
    dan_row = november.rows.get(rank=4)
    assert dan_row.name == "Dan"  # the list keeps its row, by the name it was published with
    player_erase(player=club["Ann"], by=admin)
    names = dict(november.rows.values_list("rank", "name"))
    assert names == {1: erased_name(club["Ann"].pk), 2: "Cid", 3: "Bob", 4: erased_name(club["Ann"].pk)}
    ratings = list(november.rows.order_by("rank").values_list("rating", flat=True))
    assert ratings == [Decimal("1016.00"), Decimal("1016.00"), Decimal("984.00"), Decimal("984.00")]


# --- the API ------------------------------------------------------------------------------------------------


@pytest.fixture
def after_all(monkeypatch):
    """The clock at 2 January 2027: every day of the club's history has ended."""
    from django.utils import timezone

    monkeypatch.setattr(timezone, "now", lambda: AFTER_ALL)


def test_the_api_lists_a_games_lists_newest_first_each_days_current_version(slaps, club, client):
    rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL)
    rating_list_publish(game=slaps, day=NOVEMBER, republish=True, now=AFTER_ALL)
    answer = client.get("/api/games/slaps/lists/")
    assert answer.status_code == 200
    assert answer.json() == [
        {"date": "2026-12-31", "players": 5, "url": "http://testserver/api/games/slaps/lists/2026-12-31/"},
        {"date": "2026-11-30", "players": 4, "url": "http://testserver/api/games/slaps/lists/2026-11-30/"},
    ]
    assert client.get("/api/games/nope/lists/").status_code == 404


def test_the_api_gives_a_list_a_page_at_a_time(slaps, club, client):
    rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL)
    first = client.get("/api/games/slaps/lists/2026-12-31/?page_size=2").json()
    assert {key: first[key] for key in ("game", "date", "version", "count", "previous")} == {
        "game": "slaps",
        "date": "2026-12-31",
        "version": 1,
        "count": 5,
        "previous": None,
    }
    assert first["next"] == "http://testserver/api/games/slaps/lists/2026-12-31/?page=2&page_size=2"
    assert first["rows"] == [
        {"rank": 1, "player": {"id": club["Ann"].pk, "name": "Ann"}, "rating": 1032, "peak": 1032, "units": 2,
         "change": 16, "new": False, "provisional": True, "inactive": False},
        {"rank": 2, "player": {"id": club["Eve"].pk, "name": "Eve"}, "rating": 1015, "peak": 1015, "units": 1,
         "change": None, "new": True, "provisional": True, "inactive": False},
    ]  # fmt: skip
    last = client.get(first["next"].replace("page=2", "page=3")).json()
    assert [row["player"]["name"] for row in last["rows"]] == ["Bob"]
    assert (last["next"], last["previous"]) == (
        None,
        "http://testserver/api/games/slaps/lists/2026-12-31/?page=2&page_size=2",
    )
    for url, status in [
        ("/api/games/slaps/lists/2026-12-31/?page=4&page_size=2", 404),
        ("/api/games/slaps/lists/2026-12-30/", 404),
        ("/api/games/slaps/lists/31-12-2026/", 404),
        ("/api/games/slaps/lists/2026-12-31/?page_size=0", 400),
        ("/api/games/slaps/lists/2026-12-31/?version=2", 404),
        ("/api/games/nope/lists/2026-12-31/", 404),
    ]:
        answer = client.get(url)
        assert (url, answer.status_code) == (url, status)
        assert answer["Content-Type"] == "application/json"


def test_the_api_keeps_an_older_version_readable(slaps, club, client):
    rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL)
    slaps_match(winner=club["Dan"], loser=club["Ann"], played_at=at(25))  # a late result, then a republish
    rating_list_publish(game=slaps, day=NOVEMBER, republish=True, now=AFTER_ALL)
    current = client.get("/api/games/slaps/lists/2026-11-30/").json()
    older = client.get("/api/games/slaps/lists/2026-11-30/?version=1").json()
    assert (current["version"], older["version"]) == (2, 1)
    assert {row["player"]["name"]: row["rating"] for row in older["rows"]} == {
        "Ann": 1016, "Cid": 1016, "Bob": 984, "Dan": 984,
    }  # fmt: skip
    assert current["rows"] != older["rows"]


@pytest.mark.parametrize("day", ["2026-11-09", "2026-11-10", "2026-11-30", "2026-12-05", "2026-12-31", "2027-01-02"])
def test_a_players_rating_on_a_day_is_the_oracles_replay_up_to_its_end(slaps, club, client, after_all, day):
    standings = oracle_at(slaps, list_closes_at(datetime.date.fromisoformat(day)))
    for name, player in club.items():
        answer = client.get(f"/api/players/{player.pk}/rating/?game=slaps&on={day}")
        standing = standings.get(player.pk)
        if standing is None:
            assert answer.status_code == 404, (name, day)
            assert "had no rating in Slaps by then" in answer.json()["detail"]
            continue
        got = answer.json()
        assert (got["rating"], got["peak"], got["units"]) == (
            standing.rating,
            standing.peak,
            standing.rated_matches,
        ), (name, day)
        assert datetime.datetime.fromisoformat(got["as_of"]) < list_closes_at(datetime.date.fromisoformat(day))


def test_a_players_rating_on_a_day_refuses_what_it_cannot_answer(slaps, club, client, after_all):
    ann = club["Ann"].pk
    for query, field in [
        ("on=2026-12-01", "game"),
        ("game=nope&on=2026-12-01", "game"),
        ("game=slaps", "on"),
        ("game=slaps&on=1.12.2026", "on"),
        ("game=slaps&on=2027-01-03", "on"),  # tomorrow
    ]:
        answer = client.get(f"/api/players/{ann}/rating/?{query}")
        assert answer.status_code == 400, query
        assert field in answer.json(), query
    assert client.get("/api/players/999999/rating/?game=slaps&on=2026-12-01").status_code == 404


def test_admin_shows_lists_unchanged_and_republishes_one_explicitly(
    slaps, club, client, django_capture_on_commit_callbacks
):
    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    admin = AdminFactory()
    client.force_login(admin)
    page = client.get("/admin/ratings/ratinglist/")
    assert page.status_code == 200
    assert "Republish as a new version" in page.content.decode()
    assert client.get(f"/admin/ratings/ratinglist/{november.pk}/change/").status_code == 200  # shown, read-only
    with django_capture_on_commit_callbacks(execute=True):  # the task runs, as the admin worker would
        answer = client.post(
            "/admin/ratings/ratinglist/", {"action": "republish", "_selected_action": [november.pk]}, follow=True
        )
    assert "1 list will be published again as a new version in a moment." in answer.content.decode()
    versions = list(RatingList.objects.filter(game=slaps, day=NOVEMBER).values_list("version", "published_by"))
    assert sorted(versions) == [(1, ""), (2, admin.username)]
    assert rows_of(RatingList.objects.get(game=slaps, day=NOVEMBER, version=2)) == rows_of(november)


def test_a_referee_cannot_republish(slaps, club, client):
    from tests.factories import RefereeFactory

    november = rating_list_publish(game=slaps, day=NOVEMBER, now=AFTER_ALL).rating_list
    referee = RefereeFactory(is_staff=True)
    client.force_login(referee)
    client.post("/admin/ratings/ratinglist/", {"action": "republish", "_selected_action": [november.pk]})
    assert RatingList.objects.count() == 1


@pytest.mark.parametrize(("sent", "kept"), [("weekly", "weekly"), ("", "none"), (None, "none"), ("yearly", "none")])
def test_admins_game_form_sets_the_list_period_and_a_form_without_it_keeps_it(slaps, client, sent, kept):
    Game.objects.filter(pk=slaps.pk).update(rating_list_period="none")
    client.force_login(AdminFactory())
    data = {"name": "Slaps", "slug": "slaps", "rating_system": "elo", "start_rating": "1000", "parameters": "{}",
            "leagues-TOTAL_FORMS": "0", "leagues-INITIAL_FORMS": "0"}  # fmt: skip
    if sent is not None:
        data["rating_list_period"] = sent
    answer = client.post(f"/admin/leagues/game/{slaps.pk}/change/", data)
    slaps.refresh_from_db()
    assert slaps.rating_list_period == kept
    assert answer.status_code == (200 if sent == "yearly" else 302)  # an unknown period is refused on the form


def test_later_corrections_are_told_by_what_moved_ratings_after_publication(slaps, club):
    from ratings.list_selectors import rating_list_later_corrections

    november = rating_list_publish(game=slaps, day=NOVEMBER).rating_list  # published now, after the results
    december = rating_list_publish(game=slaps, day=DECEMBER, now=AFTER_ALL).rating_list
    assert not rating_list_later_corrections(november)
    late = slaps_match(winner=club["Bob"], loser=club["Dan"], played_at=at(29))
    from matches.models import AuditEntry

    AuditEntry.objects.create(action=AuditEntry.Action.SUBMITTED, match=late, data={})
    assert rating_list_later_corrections(november)  # played before November closed, stored after the list
    assert not rating_list_later_corrections(
        RatingList.objects.create(
            game=slaps, day=datetime.date(2026, 11, 1), closes_at=list_closes_at(datetime.date(2026, 11, 1)),
            published_at=AFTER_ALL, players=0,
        )
    )  # fmt: skip
    assert december.published_at == AFTER_ALL  # published "later" than the entry: nothing after it
    assert not rating_list_later_corrections(december)


def test_a_user_who_may_only_view_games_sees_a_games_admin_page(slaps, client):
    """The game form's list period is a field only for those who may change the game: read-only for the rest."""
    from django.contrib.auth.models import Permission

    from tests.factories import RefereeFactory

    viewer = RefereeFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_game", content_type__app_label="leagues"))
    client.force_login(viewer)
    page = client.get(f"/admin/leagues/game/{slaps.pk}/change/")
    assert page.status_code == 200
    assert "Monthly" in page.content.decode()  # the period, shown read-only
