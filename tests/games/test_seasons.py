"""Seasons' tables, their end and the moves between leagues (games.seasons, issue 27).

Every expected table here is worked out by hand in the test from the results it enters."""

import datetime
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from games.seasons import season_close, season_table, seasons_close_due
from leagues.models import League, Season, SeasonMove, SeasonStanding
from leagues.signals import season_closed
from matches.models import AuditEntry, Match
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_replay_all
from tests.conftest import api_for
from tests.factories import PlayerFactory, RefereeFactory

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()
FIRST, LAST = TODAY - datetime.timedelta(days=30), TODAY - datetime.timedelta(days=10)


def noon(day: datetime.date) -> str:
    """Noon of ``day`` (site time zone); today, a minute ago (a result is never played in the future)."""
    if day == TODAY:
        return (timezone.now() - datetime.timedelta(minutes=1)).isoformat()
    return datetime.datetime.combine(day, datetime.time(12), tzinfo=timezone.get_default_timezone()).isoformat()


def enter(referee, winner, loser, day, league="slaps-amateur"):
    body = {"game": "slaps", "played_at": noon(day), "players": [winner.pk, loser.pk], "winner": winner.pk}
    answer = api_for(referee).post("/api/matches/", {**body, "league": league}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


@pytest.fixture
def club(reference_data, django_capture_on_commit_callbacks):
    """Ann, Bob and Cat of the Slaps amateur league: four results in the season, one before and one after.

    In the season: Ann beats Bob, Ann beats Cat, Bob beats Cat, Cat beats Ann.
    """
    referee = RefereeFactory()
    ann, bob, cat = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cat")
    league = League.objects.get(slug="slaps-amateur")
    season = Season.objects.create(league=league, name="Autumn", first_day=FIRST, last_day=LAST)
    with django_capture_on_commit_callbacks(execute=True):
        enter(referee, bob, ann, FIRST - datetime.timedelta(days=1))  # before: not counted
        enter(referee, ann, bob, FIRST)
        enter(referee, ann, cat, FIRST + datetime.timedelta(days=3))
        enter(referee, bob, cat, FIRST + datetime.timedelta(days=5))
        enter(referee, cat, ann, LAST)
        enter(referee, bob, cat, LAST + datetime.timedelta(days=1))  # after: not counted
    return {"referee": referee, "ann": ann, "bob": bob, "cat": cat, "league": league, "season": season}


def lines(standings):
    return [(line.rank, line.name, line.points, line.results, line.won, line.lost, line.tied) for line in standings]


def test_points_per_result_win_two_draw_one_loss_none(club):
    # Ann 2 + 2 + 0 = 4 from 3; Bob 0 + 2 = 2 from 2; Cat 0 + 0 + 2 = 2 from 3. Bob and Cat share 2nd place;
    # between equal points more wins first, then fewer results.
    assert lines(season_table(club["season"])) == [
        (1, "Ann", Decimal("4.00"), 3, 2, 1, False),
        (2, "Bob", Decimal("2.00"), 2, 1, 1, True),
        (2, "Cat", Decimal("2.00"), 3, 1, 2, True),
    ]


def test_a_minimum_of_results_and_other_points(club):
    League.objects.filter(pk=club["league"].pk).update(
        season_min_results=3, season_win_points=3, season_draw_points=1, season_loss_points=1
    )
    # Ann 3 + 3 + 1 = 7, Cat 1 + 1 + 3 = 5; Bob has 2 results, fewer than 3: not listed.
    assert lines(season_table(club["season"])) == [
        (1, "Ann", Decimal("7.00"), 3, 2, 1, False),
        (2, "Cat", Decimal("5.00"), 3, 1, 2, False),
    ]


def test_the_best_results_only(club):
    League.objects.filter(pk=club["league"].pk).update(season_rule="best", season_best_of=1)
    # Each player's best result is a win (2 points): all three share the first place.
    table = season_table(club["season"])
    assert [(line.rank, line.points, line.tied) for line in table] == [(1, Decimal("2.00"), True)] * 3


def test_the_rating_gained(club):
    """Each player's rating at the season's end less their rating at its start, by the independent oracle's
    replay of the results played before each moment (never the engine's ledger)."""
    from fractions import Fraction

    from games.seasons import season_bounds
    from tests.oracle import oracle_replay
    from tests.oracle_db import oracle_game_spec, oracle_results

    League.objects.filter(pk=club["league"].pk).update(season_rule="rating")
    game = club["league"].game
    results, spec = oracle_results(game=game), oracle_game_spec(game=game)
    later = timezone.now() + datetime.timedelta(days=1)

    def ratings_before(moment):
        standings = oracle_replay(spec, [r for r in results if r.played_at < moment], now=later).standings
        return {player: standing.rating for player, standing in standings.items()}

    start, end = season_bounds(club["season"])
    before, after = ratings_before(start), ratings_before(end)
    gained = {player: after[player] - before.get(player, Fraction(1000)) for player in after}
    table = season_table(club["season"])
    assert {line.player_id: Fraction(line.points) for line in table} == gained
    assert [line.points for line in table] == sorted((line.points for line in table), reverse=True)
    assert sum(gained.values()) == 0  # Elo between the three: what one gains another loses


def test_a_table_of_more_than_two_sides_shares_each_result(reference_data):
    """Four seats at a Preferans table scoring 10, 5, 5 and -3: the first beats three ((3 * 2) / 3 = 2 points),
    the second and third each beat one, tie one and lose one ((2 + 1 + 0) / 3 = 1), the last loses to all (0)."""
    from leagues.models import Game
    from matches.models import Seat

    league = League.objects.get(slug="preferans-amateur")
    season = Season.objects.create(league=league, name="Spring", first_day=FIRST, last_day=LAST)
    players = [PlayerFactory(name=name) for name in ("Dan", "Eve", "Fay", "Gus")]
    match = Match.objects.create(
        game=Game.objects.get(slug="preferans"),
        league=league,
        played_at=noon(FIRST),
        status=Match.Status.RATED,
    )
    for position, (player, result) in enumerate(zip(players, (10, 5, 5, -3), strict=True), start=1):
        Seat.objects.create(match=match, position=position, player=player, result=result)
    assert lines(season_table(season)) == [
        (1, "Dan", Decimal("2.00"), 1, 3, 0, False),
        (2, "Eve", Decimal("1.00"), 1, 1, 1, True),
        (2, "Fay", Decimal("1.00"), 1, 1, 1, True),
        (4, "Gus", Decimal("0.00"), 1, 0, 3, False),
    ]


def test_closing_freezes_the_table_and_moves_the_top_player(club, django_capture_on_commit_callbacks):
    league, pro = club["league"], League.objects.get(slug="slaps-pro")
    league.season_up, league.season_up_count = pro, 1
    league.save()
    heard = []
    season_closed.connect(lambda sender, season_id, **kw: heard.append(season_id), weak=False, dispatch_uid="t")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            closed = season_close(season_id=club["season"].pk)
    finally:
        season_closed.disconnect(dispatch_uid="t")
    assert closed.closed
    assert heard == [club["season"].pk]
    season = Season.objects.get(pk=club["season"].pk)
    assert season.closed_at is not None
    frozen = list(season.standings.values_list("rank", "name", "points"))
    assert frozen == [(1, "Ann", Decimal("4.00")), (2, "Bob", Decimal("2.00")), (2, "Cat", Decimal("2.00"))]
    move = SeasonMove.objects.get()
    assert (move.player_id, move.to_league_id, move.direction) == (club["ann"].pk, pro.pk, "up")
    assert PlayerRating.objects.get(player=club["ann"], game=league.game).league_id == pro.pk
    entry = AuditEntry.objects.get(action="season")
    assert entry.data["moves"] == [{"player": club["ann"].pk, "name": "Ann", "direction": "up", "to": "slaps-pro"}]

    # A late result in the season changes nothing frozen; closing again is a no-op.
    with django_capture_on_commit_callbacks(execute=True):
        enter(club["referee"], club["cat"], club["bob"], LAST)
    assert list(season.standings.values_list("rank", "name", "points")) == frozen
    assert season_close(season_id=season.pk).closed is False
    assert SeasonMove.objects.count() == 1

    # A full replay moves Ann again at the season's end: her later results are rated in the pro league.
    ratings_replay_all(game_id=league.game_id)
    assert PlayerRating.objects.get(player=club["ann"], game=league.game).league_id == pro.pk
    after_end = RatingChange.objects.filter(
        player=club["ann"], played_at__gte=timezone.now() - datetime.timedelta(days=9)
    )
    before_end = RatingChange.objects.filter(player=club["ann"]).order_by("-played_at").exclude(pk__in=after_end)
    assert before_end.first().league_after_id == league.pk  # still amateur at her last result of the season


def test_the_bottom_players_go_down_and_a_replay_keeps_them_there(club, django_capture_on_commit_callbacks):
    league, pro = club["league"], League.objects.get(slug="slaps-pro")
    league.season_down, league.season_down_count = pro, 1  # any other league of the game: here the pro one
    league.save()
    with django_capture_on_commit_callbacks(execute=True):
        season_close(season_id=club["season"].pk)
    # The last listed line is Cat's (2 points from 3 results, after Bob's from 2).
    assert list(SeasonMove.objects.values_list("player__name", "direction")) == [("Cat", "down")]
    # Bob and Cat played after the season's end: a replay from before it keeps Cat moved.
    ratings_replay_all(game_id=league.game_id)
    assert PlayerRating.objects.get(player=club["cat"], game=league.game).league_id == pro.pk
    last = RatingChange.objects.filter(player=club["cat"]).order_by("-played_at").first()
    assert last.league_after_id == pro.pk


def test_a_season_cannot_close_before_its_last_day_is_over(club):
    running = Season.objects.create(
        league=club["league"], name="Now", first_day=TODAY - datetime.timedelta(days=2), last_day=TODAY
    )
    with pytest.raises(ValidationError) as refused:
        season_close(season_id=running.pk)
    assert "last_day" in refused.value.message_dict
    assert Season.objects.get(pk=running.pk).closed_at is None
    assert not SeasonStanding.objects.filter(season=running).exists()


def test_the_periodic_task_closes_the_ended_and_refreshes_the_running(club, django_capture_on_commit_callbacks):
    running = Season.objects.create(
        league=club["league"], name="Now", first_day=LAST + datetime.timedelta(days=1), last_day=TODAY
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert seasons_close_due() == 1
        assert seasons_close_due() == 0
    assert Season.objects.get(pk=club["season"].pk).closed_at is not None
    running.refresh_from_db()
    assert running.closed_at is None
    assert running.table_at is not None
    # Bob beat Cat the day after the autumn season ended: the running season's only result.
    assert list(running.standings.values_list("rank", "name", "points")) == [
        (1, "Bob", Decimal("2.00")),
        (2, "Cat", Decimal("0.00")),
    ]


def test_a_rated_result_refreshes_the_running_seasons_table(club, django_capture_on_commit_callbacks):
    running = Season.objects.create(league=club["league"], name="Now", first_day=TODAY, last_day=TODAY)
    with django_capture_on_commit_callbacks(execute=True):
        enter(club["referee"], club["cat"], club["ann"], TODAY)
    assert list(running.standings.values_list("name", "points")) == [("Cat", Decimal("2.00")), ("Ann", Decimal("0.00"))]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"season_win_points": 1, "season_draw_points": 2}, "season_draw_points"),
        ({"season_rule": "best", "season_best_of": None}, "season_best_of"),
        ({"season_up_count": 2}, "season_up"),
        ({"season_up_slug": "slaps-amateur", "season_up_count": 1}, "season_up"),
        ({"season_up_slug": "bridge-pro", "season_up_count": 1}, "season_up"),
        ({"season_up_slug": "slaps-pro", "season_up_count": 0}, "season_up_count"),
    ],
)
def test_bad_season_settings_are_refused_by_field(reference_data, changes, field):
    league = League.objects.get(slug="slaps-amateur")
    changes = dict(changes)
    if "season_up_slug" in changes:
        league.season_up = League.objects.get(slug=changes.pop("season_up_slug"))
    for name, value in changes.items():
        setattr(league, name, value)
    with pytest.raises(ValidationError) as refused:
        league.full_clean()
    assert field in refused.value.message_dict


@pytest.mark.parametrize(
    "changes",
    [
        {"season_win_points": 0, "season_draw_points": 1},
        {"season_rule": "best", "season_best_of": None},
        {"season_up_count": 1},
        {"season_min_results": 0},
    ],
)
def test_the_database_refuses_bad_season_settings(reference_data, changes):
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.filter(slug="slaps-amateur").update(**changes)


def test_a_league_cannot_move_players_to_itself_in_the_database(reference_data):
    league = League.objects.get(slug="slaps-amateur")
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.filter(pk=league.pk).update(season_up=league, season_up_count=1)


def test_erasing_a_person_renames_their_lines_and_moves(club, admin_user, django_capture_on_commit_callbacks):
    from ratings.people import erased_name, player_erase

    league = club["league"]
    league.season_up, league.season_up_count = League.objects.get(slug="slaps-pro"), 1
    league.save()
    with django_capture_on_commit_callbacks(execute=True):
        season_close(season_id=club["season"].pk)
        player_erase(player=club["ann"], by=admin_user)
    placeholder = erased_name(club["ann"].pk)
    assert SeasonStanding.objects.get(player_id=club["ann"].pk).name == placeholder
    assert AuditEntry.objects.get(action="season").data["moves"][0]["name"] == placeholder
    assert not SeasonStanding.objects.filter(name="Ann").exists()


def test_a_closed_seasons_days_stay(club):
    season_close(season_id=club["season"].pk)
    season = Season.objects.get(pk=club["season"].pk)
    season.last_day = LAST + datetime.timedelta(days=1)
    with pytest.raises(ValidationError) as refused:
        season.full_clean()
    assert "last_day" in refused.value.message_dict
    season.refresh_from_db()
    season.name = "Autumn 2026"  # a name may still be put right
    season.full_clean()


def test_the_admin_refuses_to_delete_a_closed_season(club, admin_user, client):
    season_close(season_id=club["season"].pk)
    league = club["league"]
    client.force_login(admin_user)
    from tests.factories import LEAGUE_SEASON_FORM

    data = {
        "game": league.game_id,
        "slug": league.slug,
        "name": league.name,
        "tier": league.tier,
        "promotion_threshold": "1800",
        "rating_floor": "",
        "rating_period_days": "0",
        "rating_period_anchor": league.rating_period_anchor.isoformat(),
        "inactive_after_days": "",
        **LEAGUE_SEASON_FORM,
        "seasons-TOTAL_FORMS": "1",
        "seasons-INITIAL_FORMS": "1",
        "seasons-0-id": str(club["season"].pk),
        "seasons-0-league": str(league.pk),
        "seasons-0-name": "Autumn",
        "seasons-0-first_day": FIRST.isoformat(),
        "seasons-0-last_day": LAST.isoformat(),
        "seasons-0-DELETE": "on",
    }
    answer = client.post(f"/admin/leagues/league/{league.pk}/change/", data)
    assert answer.status_code == 200  # the form again, with the error
    assert "is over and its table frozen" in answer.content.decode()
    assert Season.objects.filter(pk=club["season"].pk).exists()


@pytest.mark.postgres
def test_postgresql_keeps_a_closed_season_and_its_table(club, require_postgres):
    season_close(season_id=club["season"].pk)
    line = SeasonStanding.objects.filter(season=club["season"]).order_by("rank").first()
    for refused in (
        lambda: SeasonStanding.objects.filter(pk=line.pk).update(points=Decimal(99)),
        lambda: SeasonStanding.objects.filter(pk=line.pk).delete(),
        lambda: Season.objects.filter(pk=club["season"].pk).update(last_day=LAST + datetime.timedelta(days=1)),
        lambda: Season.objects.filter(pk=club["season"].pk).update(closed_at=None),
        lambda: Season.objects.filter(pk=club["season"].pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="never changes"), transaction.atomic():
            refused()
    SeasonStanding.objects.filter(pk=line.pk).update(name="Erased 1")  # the one change allowed (an erasure)
    Season.objects.filter(pk=club["season"].pk).update(name="Autumn 2026")  # a name put right
    assert SeasonStanding.objects.get(pk=line.pk).points == line.points
