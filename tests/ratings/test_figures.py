"""Kept figures (issue 25): what needs a replay or a scan of a game's history is computed by a task, kept, and
served with its date; no request computes it, and however many ask, one run per game computes at a time.

A request that would replay is detected by counting the calls of the replay itself (``_quality_rows``, the
drift's scan and the crosstable's aggregate) while pages and APIs are read: a wrapper that counts and calls
through, not a stand-in.
"""

import datetime
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from leagues.models import Game, Player
from ratings import compare, figure_runs, figures, quality
from ratings.models import FigureState, KeptFigure
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, figures_now, slaps_match

pytestmark = pytest.mark.django_db
T0 = datetime.datetime(2025, 3, 1, 12, tzinfo=datetime.UTC)


@pytest.fixture
def played(slaps):
    """Ann beats Bob twice, Bob beats Cid: a rated Slaps history."""
    ann, bob, cid = (PlayerFactory(name=name) for name in ("Ann", "Bob", "Cid"))
    slaps_match(winner=ann, loser=bob, played_at=T0)
    slaps_match(winner=ann, loser=bob, played_at=T0 + datetime.timedelta(days=1))
    slaps_match(winner=bob, loser=cid, played_at=T0 + datetime.timedelta(days=2))
    ratings_process_game(game_id=slaps.pk)
    # Rating asked for the figures (test_rating_asks_for_the_figures); inside the test's transaction the
    # task never ran. Start from a game whose figures nobody asked for.
    FigureState.objects.all().delete()
    return ann, bob, cid


@pytest.fixture
def heavy_calls(monkeypatch):
    """How often the heavy computations ran: each wrapped to count its calls and call through."""
    calls = []

    def counting(module, name):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(quality, "_quality_rows")
    counting(figure_runs, "rating_drift")
    counting(figure_runs, "league_crosstable")
    return calls


PAGES = [
    "/quality/",
    "/quality/slaps/",
    "/quality/slaps/?league=slaps-amateur",
    "/api/games/slaps/drift/",
    "/api/games/slaps/drift/?period=week&active_days=365",
    "/leagues/slaps-amateur/crosstable/",
    "/leagues/slaps-pro/crosstable/",
]


def test_no_request_replays_a_game(client, played, heavy_calls, django_capture_on_commit_callbacks):
    """Before the first run, every page answers "being computed" and asks for one task per game; after
    it, the kept figures are served: in neither case does a request run a replay or a scan."""
    with django_capture_on_commit_callbacks(execute=False) as asked:
        for url in PAGES:
            answer = client.get(url)
            assert answer.status_code in (200, 202), url
    assert heavy_calls == []
    # One task per game, however many pages asked: the overview asks for every game, the rest for Slaps.
    assert len(asked) == Game.objects.count()
    assert FigureState.objects.filter(wanted=True).count() == Game.objects.count()
    figures_now(Game.objects.get(slug="slaps"))
    computed = len(heavy_calls)
    assert computed >= 3  # the replay, a drift scan, a crosstable: in the task
    for url in PAGES[1:]:
        answer = client.get(url)
        assert answer.status_code == 200, url
    assert len(heavy_calls) == computed
    page = client.get("/quality/slaps/").content.decode()
    assert "As of" in page
    assert "Being computed" not in page


def test_many_asks_send_one_task(played, django_capture_on_commit_callbacks):
    """Coalesced: twenty results or visitors asking send one task while it waits."""
    game = Game.objects.get(slug="slaps")
    with django_capture_on_commit_callbacks(execute=False) as asked:
        sent = [figures.figures_request(game_id=game.pk) for _ in range(20)]
    assert sent == [True] + [False] * 19
    assert len(asked) == 1


def test_a_run_holding_the_game_is_not_joined(played):
    """A second task while a run holds the game ends at once, leaving the ask for the run to hand over; a
    run that held it longer than the lease is taken to have died, and its game is claimed again."""
    game = Game.objects.get(slug="slaps")
    now = timezone.now()
    FigureState.objects.create(game=game, wanted=True, running_since=now - datetime.timedelta(minutes=5))

    assert figure_runs.figures_run(game_id=game.pk) is False
    assert FigureState.objects.get(game=game).wanted is True
    assert not KeptFigure.objects.filter(game=game, computed_at__isnull=False).exists()
    FigureState.objects.filter(game=game).update(running_since=now - figures.FIGURES_LEASE - datetime.timedelta(1))
    assert figure_runs.figures_run(game_id=game.pk) is True
    state = FigureState.objects.get(game=game)
    assert (state.wanted, state.running_since) == (False, None)
    assert state.finished_at is not None
    assert figure_runs.figures_run(game_id=game.pk) is False  # nothing wanted: nothing done again


def test_an_ask_during_a_run_gets_one_more_run(played, monkeypatch, django_capture_on_commit_callbacks):
    """A result rated while a run computes: its ask finds the game held; the run, when done, sends one more."""
    game = Game.objects.get(slug="slaps")
    original = figure_runs._compute_all

    def with_a_result_meanwhile(game):
        original(game)
        figures.figures_request(game_id=game.pk)  # as ratings_process_game asks after a result

    monkeypatch.setattr(figure_runs, "_compute_all", with_a_result_meanwhile)
    figures.figures_request(game_id=game.pk)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert figure_runs.figures_run(game_id=game.pk) is True
    # The ask's own task (found the game held) and the run's hand-over: the first to start computes, the
    # other finds nothing wanted.
    assert len(sent) == 2
    assert FigureState.objects.get(game=game).wanted is True


def test_rating_asks_for_the_figures(played, django_capture_on_commit_callbacks):
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    ann = Player.objects.get(name="Ann")
    cid = Player.objects.get(name="Cid")
    slaps_match(winner=cid, loser=ann, played_at=T0 + datetime.timedelta(days=3))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ratings_process_game(game_id=game.pk)
    # One figures' run asked for, beside the "results rated" signal (ratings.signals).
    assert [callback.__qualname__ for callback in callbacks] == [
        "LedgerWriter.flush.<locals>.<lambda>",
        "figures_request.<locals>.<lambda>",
    ]
    assert FigureState.objects.get(game=game).wanted is True


def test_the_kept_crosstable_names_players_as_they_are_now(client, played):
    """Kept as ids and numbers only: a renamed (or erased) player shows under today's name, never the old."""
    ann, _bob, _cid = played
    figures_now(Game.objects.get(slug="slaps"))
    kept = [row.value for row in KeptFigure.objects.filter(name__startswith="crosstable:")]
    assert any(value["players"] for value in kept)
    assert "Ann" not in str(kept)
    assert "Bob" not in str(kept)
    Player.objects.filter(pk=ann.pk).update(name="Annabel Renamed")
    page = client.get("/leagues/slaps-amateur/crosstable/").content.decode()
    assert "Annabel Renamed against Bob: won 2, lost 0" in page
    assert ">Ann<" not in page


def test_the_kept_quality_equals_a_fresh_computation(played):
    """The kept rows read back as the replay computed them (the JSON round trip loses nothing shown)."""
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    fresh = quality.rating_quality_rows(game=game, leagues=[None, *game.leagues.order_by("tier", "pk")])
    kept = quality.quality_kept(game=game)
    assert [row.as_dict() for row in kept.rows] == [row.as_dict() for row in fresh]
    assert kept.rows[0].report.count == 2  # the newer half: two results, one duel each


def test_the_pair_scale_is_kept(played):
    game = Game.objects.get(slug="slaps")
    assert quality.pair_scale(game) is None  # being computed
    figures_now(game)
    # Elo's own scale (not fitted): seed 000's 400.
    assert quality.pair_scale(game) == 400.0


def test_offered_windows_only(client, played):
    """The drift is offered for the game's own window and ``DRIFT_WINDOWS``: nothing else is computed."""
    figures_now(Game.objects.get(slug="slaps"))
    assert client.get("/api/games/slaps/drift/?active_days=91").status_code == 400
    assert client.get("/api/games/slaps/drift/?active_days=180").status_code == 202
    names = set(KeptFigure.objects.filter(name__startswith="drift:").values_list("name", flat=True))
    assert names == {"drift:auto:90", "drift:week:90", "drift:month:90", "drift:auto:180"}


def test_refresh_on_a_schedule_and_on_the_admin_queue():
    assert django_settings.CELERY_BEAT_SCHEDULE["ratings-figures-refresh"]["task"] == "ratings.tasks.figures_refresh"
    route = django_settings.CELERY_TASK_ROUTES["ratings.tasks.figures_compute"]
    assert route == {"queue": django_settings.CARDRANK_ADMIN_QUEUE}


def test_refresh_asks_for_games_with_results(played, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as asked:
        assert figures.figures_refresh() == 1  # Slaps: the only game with rated results
    assert len(asked) == 1


def test_the_kept_crosstable_reads_back_ratings_as_decimals(played):
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    league = game.leagues.get(slug="slaps-amateur")
    table, as_of = compare.league_crosstable_kept(league=league)
    assert as_of is not None
    assert all(isinstance(player.rating, Decimal) for player in table.players)


def test_no_request_replays_after_a_new_result(client, played, heavy_calls, django_capture_on_commit_callbacks):
    """The issue's probe: a result is rated, then every page is read; the run it asked for waits in the queue
    (not executed here) and the pages serve the kept figures without a replay or a scan."""
    ann, _bob, cid = played
    game = Game.objects.get(slug="slaps")
    figures_now(game)
    computed = len(heavy_calls)
    slaps_match(winner=cid, loser=ann, played_at=T0 + datetime.timedelta(days=3))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ratings_process_game(game_id=game.pk)
        for url in PAGES:
            assert client.get(url).status_code in (200, 202), url
    asked = [callback for callback in callbacks if "figures_request" in callback.__qualname__]
    assert len(asked) == Game.objects.count()  # Slaps: the rating's; the others: the overview's first ask
    assert len(heavy_calls) == computed
