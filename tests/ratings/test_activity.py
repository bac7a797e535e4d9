"""Inactive players (``League.inactive_after_days``): who is active on a day, ranks among the shown players,
the comeback, and the ledger keeping each rating's last rated result through replays.

The clock is fixed by passing the day (``league_activity(today=...)``, ``player_ratings(today=...)``):
activity is judged on a day of the site's time zone, never on the process's clock.

The four players' history, used throughout (Slaps, ISF Elo, everyone starts at 1000, K = 32 while
provisional): Ann beats Bob on day 1 and Cid beats Dan on day 20, each pair at 1000 against 1000, so
E = 0.5 and the winner gains 32 * (1 - 0.5) = 16: Ann and Cid 1016, Bob and Dan 984. Peaks: Ann and Cid
1016, Bob and Dan 1000 (the start). Ties break by name: Ann before Cid, Bob before Dan.
"""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.paginator import EmptyPage
from django.db import DataError, IntegrityError, transaction

from leagues.models import League
from matches.services import match_void
from ratings.models import PlayerRating
from ratings.selectors import (
    Sort,
    activity_today,
    leaderboard_page,
    league_activity,
    player_ratings,
)
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db

DAY_1 = date(2026, 3, 1)


def at(day: date, hour: int = 12, minute: int = 0) -> datetime:
    """A moment of a day in UTC, the test settings' site zone."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def day(n: int) -> date:
    return DAY_1 + timedelta(days=n - 1)


@pytest.fixture
def club(slaps):
    """The module docstring's four players in a league that counts a player inactive after 10 days."""
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 10
    league.save()
    ann, bob, cid, dan = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dan"))
    slaps_match(winner=ann, loser=bob, played_at=at(day(1)))
    slaps_match(winner=cid, loser=dan, played_at=at(day(20)))
    ratings_process_game(game_id=slaps.pk)
    return league, {"ann": ann, "bob": bob, "cid": cid, "dan": dan}


def board(league, today, *, everyone=False, sort=Sort.CURRENT, search="", page=1, page_size=25):
    activity = league_activity(league=league, today=today, everyone=everyone)
    return leaderboard_page(
        league=league, sort=sort, search=search, page=page, page_size=page_size, clamp=False, activity=activity
    )


def rows_of(page) -> list[tuple]:
    return [(row.rank, row.name, row.rating, row.active, row.inactive_since) for row in page.rows]


def test_the_ledger_keeps_each_ratings_last_rated_result(club):
    last = dict(PlayerRating.objects.values_list("player__name", "last_played_at"))
    assert last == {"Ann": at(day(1)), "Bob": at(day(1)), "Cid": at(day(20)), "Dan": at(day(20))}


def test_default_leaderboard_shows_only_active_players_ranked_among_themselves(club):
    """Day 25: Ann and Bob last played on day 1, 24 days ago, more than 10: inactive since day 1 + 10 + 1 =
    day 12. Cid and Dan played on day 20, 5 days ago: active, ranked 1 and 2 among the active players."""
    league, _ = club
    page = board(league, day(25))
    assert page.count == 2
    assert rows_of(page) == [
        (1, "Cid", Decimal(1016), True, None),
        (2, "Dan", Decimal(984), True, None),
    ]


def test_everyone_view_ranks_among_everyone_and_marks_the_inactive(club):
    league, _ = club
    page = board(league, day(25), everyone=True)
    assert page.count == 4
    assert rows_of(page) == [
        (1, "Ann", Decimal(1016), False, day(12)),
        (2, "Cid", Decimal(1016), True, None),
        (3, "Bob", Decimal(984), False, day(12)),
        (4, "Dan", Decimal(984), True, None),
    ]


def test_peak_sort_search_and_paging_follow_the_toggle(club):
    """Peaks: Cid 1016, Dan 1000 among the active; with everyone Ann 1016, Cid 1016, Bob 1000, Dan 1000.
    A search for Dan finds rank 2 among the active and rank 4 among everyone; a page of one row seeks
    to the second active player."""
    league, _ = club
    peak = board(league, day(25), sort=Sort.PEAK)
    assert [(row.rank, row.name, row.peak_rating) for row in peak.rows] == [
        (1, "Cid", Decimal(1016)),
        (2, "Dan", Decimal(1000)),
    ]
    peak_all = board(league, day(25), sort=Sort.PEAK, everyone=True)
    assert [(row.rank, row.name) for row in peak_all.rows] == [(1, "Ann"), (2, "Cid"), (3, "Bob"), (4, "Dan")]

    assert [(row.rank, row.name) for row in board(league, day(25), search="Dan").rows] == [(2, "Dan")]
    assert [(row.rank, row.name) for row in board(league, day(25), search="Dan", everyone=True).rows] == [(4, "Dan")]
    assert board(league, day(25), search="Ann").count == 0
    assert [(row.rank, row.name) for row in board(league, day(25), search="Ann", everyone=True).rows] == [(1, "Ann")]

    second = board(league, day(25), page=2, page_size=1)
    assert (second.count, second.num_pages, [(row.rank, row.name) for row in second.rows]) == (2, 2, [(2, "Dan")])
    third_of_all = board(league, day(25), page=3, page_size=1, everyone=True)
    assert [(row.rank, row.name) for row in third_of_all.rows] == [(3, "Bob")]
    with pytest.raises(EmptyPage):
        board(league, day(25), page=3, page_size=1)


@pytest.mark.parametrize(
    ("today", "active"),
    [
        (day(1), True),  # the day of the result
        (day(11), True),  # exactly 10 days after: days 2..11 are 9 full days and today, still active
        (day(12), False),  # 10 full days (2..11) without a result have passed
        (day(40), False),
    ],
)
def test_the_boundary_is_after_n_full_days(slaps, today, active):
    """A result on day 1, N = 10: active through day 1 + 10 = day 11, inactive from day 12, whatever the hour
    of the result (00:00 and 23:59 of day 1 both)."""
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 10
    league.save()
    early, late, loser_early, loser_late = PlayerFactory.create_batch(4)
    slaps_match(winner=early, loser=loser_early, played_at=at(day(1), 0, 0))
    slaps_match(winner=late, loser=loser_late, played_at=at(day(1), 23, 59))
    ratings_process_game(game_id=slaps.pk)
    page = board(league, today, everyone=True)
    assert {row.active for row in page.rows} == {active}
    assert {row.inactive_since for row in page.rows} == {None if active else day(12)}
    assert board(league, today).count == (4 if active else 0)


def test_days_are_the_site_zones(slaps, settings):
    """Site zone Europe/Moscow (UTC+3): a result at 22:30 UTC on day 1 is played at 01:30 of day 2 there,
    so with N = 1 its players are active through day 3 and inactive since day 4 (in UTC's days it would
    have been day 3)."""
    settings.TIME_ZONE = "Europe/Moscow"
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 1
    league.save()
    ann, bob = PlayerFactory.create_batch(2)
    slaps_match(winner=ann, loser=bob, played_at=at(day(1), 22, 30))
    ratings_process_game(game_id=slaps.pk)
    assert board(league, day(3)).count == 2
    page = board(league, day(4), everyone=True)
    assert board(league, day(4)).count == 0
    assert {row.inactive_since for row in page.rows} == {day(4)}
    assert activity_today(at(day(1), 22, 30)) == day(2)


def test_a_league_without_the_setting_has_nobody_inactive(club):
    league, _ = club
    league.inactive_after_days = None
    league.save()
    page = board(league, day(400))
    assert [(row.rank, row.name, row.active, row.inactive_since) for row in page.rows] == [
        (1, "Ann", True, None),
        (2, "Cid", True, None),
        (3, "Bob", True, None),
        (4, "Dan", True, None),
    ]


def test_a_player_who_plays_again_is_active_at_once_and_a_void_takes_it_back(club, slaps):
    """Day 25: Ann beats Dan (1016 against 984: E = 1 / (1 + 10^(-32/400)) = 0.546, Ann gains
    32 * 0.454 = about 14.5, to about 1030; Dan falls as much, to about 970). Ann is active at once,
    ranked among the active: Ann (about 1030), Cid 1016, Dan (about 970); Bob stays inactive. Voiding
    that result replays the game: Ann's last rated result is day 1 again and she is inactive since
    day 12, as before."""
    league, p = club
    comeback = slaps_match(winner=p["ann"], loser=p["dan"], played_at=at(day(25), 9))
    ratings_process_game(game_id=slaps.pk)
    page = board(league, day(25))
    assert [(row.rank, row.name, row.active) for row in page.rows] == [
        (1, "Ann", True),
        (2, "Cid", True),
        (3, "Dan", True),
    ]
    assert PlayerRating.objects.get(player=p["ann"]).last_played_at == at(day(25), 9)

    match_void(match_id=comeback.pk, by=AdminFactory())
    ratings_process_game(game_id=slaps.pk)
    assert PlayerRating.objects.get(player=p["ann"]).last_played_at == at(day(1))
    assert [(row.rank, row.name) for row in board(league, day(25)).rows] == [(1, "Cid"), (2, "Dan")]
    ann = next(row for row in board(league, day(25), everyone=True).rows if row.name == "Ann")
    assert (ann.active, ann.inactive_since) == (False, day(12))


def test_a_late_result_played_long_ago_does_not_make_anyone_active(club, slaps):
    """Entered on day 25 but played on day 2: Ann's last rated result becomes day 2 (inactive since day 13),
    Bob's too; the replay keeps Cid's and Dan's day 20."""
    league, p = club
    slaps_match(winner=p["bob"], loser=p["ann"], played_at=at(day(2)))
    ratings_process_game(game_id=slaps.pk)
    last = dict(PlayerRating.objects.values_list("player__name", "last_played_at"))
    assert last == {"Ann": at(day(2)), "Bob": at(day(2)), "Cid": at(day(20)), "Dan": at(day(20))}
    assert board(league, day(25)).count == 2
    assert {row.inactive_since for row in board(league, day(25), everyone=True).rows if not row.active} == {day(13)}


def test_player_ratings_say_inactive_since_and_rank_on_the_board_they_appear_on(club):
    """Day 25: Ann is inactive since day 12, ranked 1 among everyone; Dan is active, ranked 2 among the active
    (Cid 1016 above him; Ann and Bob not counted)."""
    _league, p = club
    (ann,) = player_ratings(player=p["ann"], today=day(25))
    assert (ann.active, ann.inactive_since, ann.rank) == (False, day(12), 1)
    (dan,) = player_ratings(player=p["dan"], today=day(25))
    assert (dan.active, dan.inactive_since, dan.rank) == (True, None, 2)
    (cid,) = player_ratings(player=p["cid"], today=day(25))
    assert (cid.active, cid.rank) == (True, 1)
    # On day 11 everyone is active (Ann's day 1 + 10): Dan is fourth of four.
    (dan_early,) = player_ratings(player=p["dan"], today=day(11))
    assert (dan_early.active, dan_early.rank) == (True, 4)


def test_an_active_players_tie_counts_only_active_players_ahead(slaps):
    """Ann beats Bob on day 1, Cid beats Dan on day 20 (both winners 1016). Day 25, N = 10: Ann is inactive,
    so Cid, tied with her on 1016 and behind her by name, is first among the active players, not second."""
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = 10
    league.save()
    ann, bob, cid, dan = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid", "Dan"))
    slaps_match(winner=ann, loser=bob, played_at=at(day(1)))
    slaps_match(winner=cid, loser=dan, played_at=at(day(20)))
    ratings_process_game(game_id=slaps.pk)
    (rating,) = player_ratings(player=cid, today=day(25))
    assert rating.rank == 1
    assert rating.rating == Decimal(1016)


@pytest.mark.parametrize("value", [0, -1, 3661, 40000])
def test_hostile_settings_are_refused_by_the_model_and_the_database(reference_data, value):
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = value
    with pytest.raises(ValidationError) as error:
        league.full_clean()
    assert "inactive_after_days" in error.value.message_dict
    # The database refuses it too: the range constraint (0, 3661), PostgreSQL's smallint (40000).
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        League.objects.filter(pk=league.pk).update(inactive_after_days=value)
    assert League.objects.get(pk=league.pk).inactive_after_days is None


@pytest.mark.parametrize("value", [1, 30, 3660, None])
def test_sensible_settings_are_taken(reference_data, value):
    league = League.objects.get(slug="slaps-amateur")
    league.inactive_after_days = value
    league.full_clean()
    league.save()
    assert League.objects.get(pk=league.pk).inactive_after_days == value


def test_cached_boards_and_cards_turn_with_the_day_and_the_setting(club):
    """No rating changes between the reads (one ratings version), and the cache is warm: on day 11 all four
    are active (Ann's day 1 + 10), on day 12 only Cid and Dan; the setting changed without any save signal
    (an UPDATE) still shows at once, since the days are part of the key."""
    league, p = club
    assert board(league, day(11)).count == 4
    assert board(league, day(12)).count == 2
    assert board(league, day(11)).count == 4  # each day's page is its own entry
    (ann,) = player_ratings(player=p["ann"], today=day(11))
    assert (ann.active, ann.rank) == (True, 1)
    (ann,) = player_ratings(player=p["ann"], today=day(12))
    assert (ann.active, ann.inactive_since) == (False, day(12))
    League.objects.filter(pk=league.pk).update(inactive_after_days=30)
    league.refresh_from_db()
    assert board(league, day(12)).count == 4


def test_the_migration_fills_each_ratings_last_rated_result_from_the_ledger(club):
    """The migration that added ``last_played_at`` reads it from the ledger: emptied, it comes back as the
    latest played_at of each player's rows (Ann and Bob day 1, Cid and Dan day 20)."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("ratings.migrations.0004_player_rating_last_played_at")
    PlayerRating.objects.update(last_played_at=None)
    migration.last_played_fill(apps, None)
    last = dict(PlayerRating.objects.values_list("player__name", "last_played_at"))
    assert last == {"Ann": at(day(1)), "Bob": at(day(1)), "Cid": at(day(20)), "Dan": at(day(20))}
