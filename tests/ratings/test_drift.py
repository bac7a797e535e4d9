"""Rating drift: the mean rating of a game's active players by week or month, on the page and in the API.

The history is three Slaps matches rated through the services; each rating is
worked by hand from seed 000's formula (K = 32, halves away from zero).
"""

import datetime

import pytest

from leagues.models import Game
from ratings.drift import rating_drift
from ratings.models import RatingChange
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, figures_now, slaps_match

pytestmark = pytest.mark.django_db
UTC = datetime.UTC


def at(month: int, day: int) -> datetime.datetime:
    return datetime.datetime(2025, month, day, 12, tzinfo=UTC)


@pytest.fixture
def history(slaps, settings):
    """Ann, Bob, Cid start at 1000 (settings.TIME_ZONE is UTC here):

    10 Jan  Ann beats Bob   E = 1/2: Ann 1000 + 32 * 1/2 = 1016, Bob 984
    10 Feb  Ann beats Cid   E_Ann = 1/(1 + 10^((1000 - 1016)/400)) = 1/(1 + 0.912011) = 0.523013:
                            Ann 1016 + 32 * 0.476987 = 1031.26 -> 1031, Cid 1000 - 15.26 = 984.74 -> 985
    10 Jun  Bob beats Cid   E_Bob = 1/(1 + 10^((985 - 984)/400)) = 1/(1 + 1.005773) = 0.498561:
                            Bob 984 + 32 * 0.501439 = 1000.05 -> 1000, Cid 985 - 16.05 = 968.95 -> 969
    """
    settings.TIME_ZONE = "UTC"
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    slaps_match(winner=ann, loser=bob, played_at=at(1, 10))
    slaps_match(winner=ann, loser=cid, played_at=at(2, 10))
    slaps_match(winner=bob, loser=cid, played_at=at(6, 10))
    ratings_process_game(game_id=slaps.pk)
    after = {(c.player.name, c.played_at.month): float(c.rating_after) for c in RatingChange.objects.all()}
    assert after == {("Ann", 1): 1016, ("Bob", 1): 984, ("Ann", 2): 1031, ("Cid", 2): 985, ("Bob", 6): 1000,
                     ("Cid", 6): 969}  # fmt: skip
    return slaps


# Month by month, active = a result in the 90 days before the month's end (the next month's first day):
#   Jan (end 1 Feb, from 3 Nov)   Ann 1016, Bob 984             mean 1000,  2
#   Feb (end 1 Mar, from 1 Dec)   Ann 1031, Bob 984, Cid 985    mean 3000/3 = 1000, 3
#   Mar (end 1 Apr, from 1 Jan)   the same three                mean 1000,  3
#   Apr (end 1 May, from 31 Jan)  Bob's 10 Jan is too old: Ann 1031, Cid 985, mean 2016/2 = 1008, 2
#   May (end 1 Jun, from 3 Mar)   nobody                        none,       0
#   Jun (end 1 Jul, from 2 Apr)   Bob 1000, Cid 969             mean 1969/2 = 984.5, 2
MONTHLY = [
    (datetime.date(2025, 1, 1), 1000.0, 2),
    (datetime.date(2025, 2, 1), 1000.0, 3),
    (datetime.date(2025, 3, 1), 1000.0, 3),
    (datetime.date(2025, 4, 1), 1008.0, 2),
    (datetime.date(2025, 5, 1), None, 0),
    (datetime.date(2025, 6, 1), 984.5, 2),
]


def test_monthly_drift_by_hand(history, django_assert_max_num_queries):
    """Two reads (the bounds, the series), whatever the history's length; with the SET LOCAL and a savepoint."""
    with django_assert_max_num_queries(5):
        drift = rating_drift(game=history, period="month")
    assert [(p.start, p.mean_rating, p.active_players) for p in drift.points] == MONTHLY
    assert drift.change == 984.5 - 1000.0
    assert drift.active_days == 90


def test_weekly_by_default_for_a_short_history_and_a_window(history):
    """10 Jan to 10 Jun is 151 days, under six months: weeks, from Monday 6 Jan to Monday 9 Jun
    (154 days, 22 weeks later: 23 points).
    With a 7-day window, the week of 6 Jan (end Monday 13 Jan, window from 6 Jan) has Ann 1016 and Bob 984;
    the week after has nobody (10 Jan is before 13 Jan)."""
    drift = rating_drift(game=history, active_days=7)
    assert drift.period == "week"
    assert len(drift.points) == 23
    assert drift.points[0].start == datetime.date(2025, 1, 6)
    assert drift.points[-1].start == datetime.date(2025, 6, 9)
    assert (drift.points[0].mean_rating, drift.points[0].active_players) == (1000.0, 2)
    assert (drift.points[1].mean_rating, drift.points[1].active_players) == (None, 0)
    assert (drift.points[-1].mean_rating, drift.points[-1].active_players) == (984.5, 2)


def test_no_history_no_points(slaps):
    drift = rating_drift(game=Game.objects.get(slug="bridge"))
    assert drift.points == []
    assert drift.change is None


def test_drift_api(history, client):
    """Kept, not computed by the request: the first answer is 202 "computing" until the figures' task ran."""
    first = client.get("/api/games/slaps/drift/?period=month")
    assert (first.status_code, first["Retry-After"]) == (202, "30")
    assert (first.json()["computing"], first.json()["points"], first.json()["as_of"]) == (True, [], None)
    figures_now(history)
    answer = client.get("/api/games/slaps/drift/?period=month")
    assert answer.status_code == 200
    body = answer.json()
    assert body["computing"] is False
    assert body["as_of"]
    assert (body["game"], body["period"], body["active_days"]) == ("slaps", "month", 90)
    assert body["change"] == -15.5
    assert [(p["start"], p["mean_rating"], p["active_players"]) for p in body["points"]] == [
        (start.isoformat(), mean, active) for start, mean, active in MONTHLY
    ]
    # Another offered window is computed when first asked for (202), then kept: 30 days, the week of 6 Jan
    # has Ann and Bob, the week after too (10 Jan is within 30 days of 20 Jan).
    assert client.get("/api/games/slaps/drift/?period=week&active_days=30").status_code == 202
    figures_now(history)
    weeks = client.get("/api/games/slaps/drift/?period=week&active_days=30").json()["points"]
    assert [(p["start"], p["active_players"]) for p in weeks[:2]] == [("2025-01-06", 2), ("2025-01-13", 2)]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("period=year", "period"),
        ("active_days=0", "active_days"),
        ("active_days=abc", "active_days"),
        ("active_days=99999", "active_days"),
        ("active_days=-5", "active_days"),
        ("active_days=7", "active_days"),  # not offered: a window of the visitor's own would be a scan
        ("period=week&period=month", "period"),
    ],
)
def test_drift_api_refuses_bad_queries(history, client, query, field):
    """A bad query is a 400 naming the parameter, and changes nothing."""
    rows = list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after"))
    answer = client.get(f"/api/games/slaps/drift/?{query}")
    assert answer.status_code == 400
    assert list(answer.json()) == [field]
    assert list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after")) == rows


def test_drift_api_unknown_game(client, reference_data):
    assert client.get("/api/games/nope/drift/").status_code == 404


def test_quality_page_draws_the_drift_with_a_table(history, client):
    assert "Being computed" in client.get("/quality/slaps/").content.decode()
    figures_now(history)
    page = client.get("/quality/slaps/").content.decode()
    for piece in ('id="drift-chart"', 'id="drift-data"', "js/drift-chart.js"):
        assert piece in page
    # Weeks by default here; the table's first row is the week of 6 Jan: 2 active, mean 1000.
    assert '<td>2025-01-06</td><td class="num">2</td><td class="num">1000</td>' in page
    assert 'id="drift-change"' in page


def test_a_rating_change_is_kept_by_the_next_run(history, client, django_capture_on_commit_callbacks):
    """Rating a new result asks for the figures again (the task, run here as Celery eager runs it once the
    rating commits); until it ran the page serves the last series with its date.
    11 Jun, Cid (969) beats Ann (1031): E_Cid = 1/(1 + 10^(62/400)) = 1/(1 + 1.428894) = 0.411710,
    Cid 969 + 32 * 0.588290 = 987.83 -> 988, Ann 1031 - 18.83 = 1012.17 -> 1012. June's end: Bob 1000,
    Cid 988, Ann 1012 (active again): mean 3000/3 = 1000."""
    figures_now(history)
    before = client.get("/api/games/slaps/drift/?period=month").json()
    assert before["points"][-1]["mean_rating"] == 984.5
    ann, cid = (RatingChange.objects.filter(player__name=name).first().player for name in ("Ann", "Cid"))
    slaps_match(winner=cid, loser=ann, played_at=at(6, 11))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ratings_process_game(game_id=history.pk)
    asked = [callback for callback in callbacks if "figures_request" in callback.__qualname__]
    assert len(asked) == 1  # one run asked for (beside the "results rated" signal, ratings.signals)
    assert client.get("/api/games/slaps/drift/?period=month").json() == before  # the kept series, as of then
    with django_capture_on_commit_callbacks(execute=True):
        asked[0]()
    after = client.get("/api/games/slaps/drift/?period=month").json()
    assert after["as_of"] > before["as_of"]
    last = after["points"][-1]
    assert (last["mean_rating"], last["active_players"]) == (1000.0, 3)


def test_the_window_is_the_leagues_inactivity_setting(history, client):
    """A game whose leagues hide players after N days draws its drift with that window: the largest where
    they differ (a player active in any league counts); 90 days where none sets one. With 7 days the week of
    6 Jan has Ann and Bob (as in the test above) and the week after nobody."""
    from leagues.models import League
    from ratings.drift import game_active_days

    assert game_active_days(history) == 90
    amateur, pro = League.objects.filter(game=history).order_by("pk")  # the reference data's two leagues
    League.objects.filter(pk=amateur.pk).update(inactive_after_days=5)
    League.objects.filter(pk=pro.pk).update(inactive_after_days=7)
    assert game_active_days(Game.objects.get(pk=history.pk)) == 7
    figures_now(history)
    body = client.get("/api/games/slaps/drift/?period=week").json()
    assert body["active_days"] == 7
    assert [(p["mean_rating"], p["active_players"]) for p in body["points"][:2]] == [(1000.0, 2), (None, 0)]
    assert client.get("/api/games/slaps/drift/?period=week&active_days=").json()["active_days"] == 7


@pytest.mark.postgres  # the SQL reading is DRIFT_SQL's PostgreSQL functions, which it is compared with
@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/New_York"])
def test_the_python_reading_gives_the_sql_figures(slaps, settings, zone):
    """Databases without DRIFT_SQL's PostgreSQL functions (SQLite, ``make run``) stream the ledger instead:
    on a history of 60 results over eight months, with results a minute either side of local midnight at
    month and week ends and across both daylight-saving changes, both readings give the same figures in
    every period, window and zone (hand-worked figures for the small history are above)."""
    from django.utils import timezone as django_timezone

    from ratings.drift import _means_python, _means_sql, _period_start

    settings.TIME_ZONE = zone
    players = [PlayerFactory(name=f"P{n}") for n in range(6)]
    local = django_timezone.get_current_timezone()
    moments = []
    for n in range(60):
        day = datetime.datetime(2025, 1, 1) + datetime.timedelta(days=4 * n)
        moments.append(day.replace(hour=12))
    for edge in ("2025-03-31 23:59", "2025-04-01 00:01", "2025-03-30 01:30", "2025-10-26 02:30", "2025-06-30 23:59"):
        moments.append(datetime.datetime.fromisoformat(edge))
    for n, moment in enumerate(moments):
        winner, loser = players[n % 6], players[(n * 5 + 1) % 6]
        if winner == loser:
            loser = players[(n + 1) % 6]
        slaps_match(winner=winner, loser=loser, played_at=django_timezone.make_aware(moment, local))
    ratings_process_game(game_id=slaps.pk)
    first = RatingChange.objects.order_by("played_at").first().played_at
    last = RatingChange.objects.order_by("played_at").last().played_at
    for period in ("week", "month"):
        first_start, last_start = _period_start(first, period, local), _period_start(last, period, local)
        for days in (3, 30, 90):
            python = _means_python(slaps, period, local, days, first_start, last_start)
            sql = _means_sql(slaps, period, local, days, last_start)
            assert sql, (period, days)
            assert python.keys() == sql.keys(), (period, days)
            for start in sql:
                assert python[start][1] == sql[start][1], (period, days, start)
                assert python[start][0] == pytest.approx(sql[start][0], abs=1e-9), (period, days, start)
