"""Tuning a game on its stored history: the command's JSON, the grid, and admin's run and Apply."""

from __future__ import annotations

import html
import json
import math
import os
from dataclasses import asdict
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from leagues.models import Game
from ratings.engines.elo import SYSTEM as ELO
from ratings.engines.elo import EloParameters
from ratings.engines.quality import SCALE_MAX, SCALE_MIN, Forecast, fit_scale
from ratings.evaluation import candidate_grid
from ratings.models import RatingChange, RatingState, TuningRun
from ratings.services import ratings_process_game
from ratings.tuning_runs import TUNING_ABANDONED_AFTER, tuning_run_create
from tests.factories import PlayerFactory, figures_now, slaps_match
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(slaps):
    """Ann beats Bob, Ann beats Cid, Bob beats Cid, an hour apart, rated through the services."""
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    now = timezone.now()
    slaps_match(winner=ann, loser=bob, played_at=now - timedelta(hours=3))
    slaps_match(winner=ann, loser=cid, played_at=now - timedelta(hours=2))
    slaps_match(winner=bob, loser=cid, played_at=now - timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    return ann, bob, cid


def tune_json(*args) -> dict:
    out = StringIO()
    call_command("tune_ratings", "--game", "slaps", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_the_json_lists_every_candidate_and_the_current_ones_figures_are_the_hand_calculation(history):
    """Parts 0.5 / 0.25 / 0.25 of 3 results: the choosing part starts at result int(3 * 0.5) = 1 (the second),
    the report part at result int(3 * 0.75) = 2 (the third). Current parameters (K 32, scale 400, start 1000):

        1. Ann 1000 beats Bob 1000: E = 0.5, Ann 1000 + 32 * 0.5 = 1016, Bob 984.             (fit)
        2. Ann 1016 beats Cid 1000: gap 16, p = 1 / (1 + 10^(-16/400)) = 0.523010;           (choose)
           Ann 1016 + 32 * 0.476990 = 1031.26 -> 1031, Cid 1000 - 32 * 0.476990 = 984.74 -> 985.
        3. Bob 984 beats Cid 985: gap -1, p = 1 / (1 + 10^(1/400)) = 0.498561;               (report)
           Bob 984 + 32 * 0.501439 = 1000.05 -> 1000, Cid 985 - 16.05 = 968.95 -> 969.

    Choosing part: log-loss = -ln 0.523010 = 0.648155, RMSE = 1 - 0.523010 = 0.476990.
    Report part: log-loss = -ln 0.498561 = 0.696030, RMSE = 0.501439, and its one forecast falls in the
    0.4-0.5 tenth: ECE = |0.498561 - 1| = 0.501439.
    Active at the choosing part's start (before result 2): Ann 1016, Bob 984, mean 1000; at the report
    part's start: Ann 1031, Bob 984, Cid 985, mean 1000; at the end: Ann 1031, Bob 1000, Cid 969, mean
    1000: both drifts 0.
    """
    result = tune_json("--param", "k_provisional=32,16,24")
    assert result["split"] == 0.5
    assert result["parts"] == {"fit": 0.5, "choose": 0.25, "report": 0.25}
    assert result["current"] == 0
    candidates = result["candidates"]
    assert [c["parameters"]["k_provisional"] for c in candidates] == [32, 16, 24]
    for candidate in candidates:
        assert candidate["newer_units"] == 1
        assert candidate["older_units"] == 1
        for name in ("log_loss", "rmse", "baseline_rmse", "calibration", "drift", "scale"):
            assert candidate[name] is not None
    current = candidates[0]
    p2 = 1 / (1 + 10 ** (-16 / 400))
    p3 = 1 / (1 + 10 ** (1 / 400))
    assert current["current"] is True
    assert current["log_loss"] == pytest.approx(-math.log(p2), abs=1e-9)
    assert current["log_loss"] == pytest.approx(0.648155, abs=1e-6)
    assert current["rmse"] == pytest.approx(1 - p2, abs=1e-9)
    assert current["baseline_rmse"] == pytest.approx(0.5)
    assert current["scale"] == 400
    assert current["scale_fitted"] is False
    assert current["mean_active_rating_at_split"] == pytest.approx(1000)
    assert current["mean_active_rating_at_end"] == pytest.approx(1000)
    assert current["drift"] == pytest.approx(0)
    report = result["report"]["current"]
    assert report["log_loss"] == pytest.approx(-math.log(p3), abs=1e-9)
    assert report["log_loss"] == pytest.approx(0.696030, abs=1e-6)
    assert report["rmse"] == pytest.approx(1 - p3, abs=1e-9)
    assert report["ece"] == pytest.approx(0.501439, abs=1e-6)
    assert report["drift"] == pytest.approx(0)
    assert result["choose_scores"]["current"]["log_loss"] == current["log_loss"]
    chosen = result["chosen"]
    assert candidates[chosen]["chosen"] is True
    assert candidates[chosen]["log_loss"] == min(c["log_loss"] for c in candidates)
    assert sum(c["chosen"] for c in candidates) == 1
    assert result["report"]["chosen"]["forecasts"] == 1
    assert result["search"] == {"method": "grid", "rounds": 1, "replays": 3, "converged": None}
    # K 32 forecasts Ann's win over Cid best (K 16: gap 8, p 0.5115; K 24: gap 12, p 0.5173): the current
    # parameters stay, and nothing is recommended.
    assert chosen == 0
    assert result["verdict"] == "current_best"
    assert result["recommended"] is False


def test_the_default_grid_of_candidates_moves_every_parameter_and_pairs_the_k_values():
    """``candidate_grid`` without values (the benchmark's grid): Elo's four parameters each at x0.75 and x1.5
    (8 candidates), then pairs in the ranges' order: the K pair first (24/12, 24/24, 48/12, 48/24), up to 20."""
    candidates = [asdict(c) for c in candidate_grid(ELO, EloParameters())]
    assert len(candidates) == 21
    moved = {name for c in candidates[1:] for name, value in c.items() if value != candidates[0][name]}
    assert moved == {"k_provisional", "k_established", "provisional_matches", "scale"}
    pairs = {(c["k_provisional"], c["k_established"]) for c in candidates}
    assert {(24, 12), (24, 24), (48, 12), (48, 24), (32, 24)} <= pairs


def test_the_search_moves_each_parameter_up_and_down_first_and_stays_within_its_budget(history):
    """Without --param the command searches. Its first round moves each of Elo's four parameters alone,
    times and divided by 1.5, to three significant figures (whole numbers rounded): K 32 -> 48 and 21.3,
    16 -> 24 and 10.7, provisional matches 32 -> 48 and 21, scale 400 -> 600 and 267."""
    result = tune_json("--budget", "30")
    search = result["search"]
    assert search["method"] == "search"
    assert search["budget"] == 30
    assert search["rounds"] >= 1
    assert search["replays"] <= 30
    assert len(result["candidates"]) == search["replays"]
    assert isinstance(search["converged"], bool)
    base = result["candidates"][0]["parameters"]
    first_round = [
        {name: value for name, value in c["parameters"].items() if value != base[name]}
        for c in result["candidates"][1:9]
    ]
    assert first_round == [
        {"k_provisional": 48},
        {"k_provisional": 21.3},
        {"k_established": 24},
        {"k_established": 10.7},
        {"provisional_matches": 48},
        {"provisional_matches": 21},
        {"scale": 600},
        {"scale": 267},
    ]
    chosen = result["candidates"][result["chosen"]]
    assert chosen["log_loss"] == min(c["log_loss"] for c in result["candidates"])
    assert set(result["report"]) == {"current", "chosen"}
    assert set(result["report"]["chosen"]) >= {"log_loss", "rmse", "ece", "drift"}


def test_tuning_never_moves_a_parameter_that_defines_what_a_forecast_is_scored_against():
    """Bridge's draw margin makes a duel within it a draw (1/2): under a wider margin more duels are draws, whose
    log-loss is lower whatever the ratings say. Such parameters are kept as the game has them: refused in a
    grid, left out of the default grid and of the search's moves."""
    from ratings.engines.base import EngineInputError
    from ratings.engines.bridge import SYSTEM as BRIDGE
    from ratings.engines.bridge import BridgeParameters
    from ratings.parameter_search import _Space

    with pytest.raises(EngineInputError, match="draw_margin_imps define what a forecast is scored against"):
        candidate_grid(BRIDGE, BridgeParameters(), values={"draw_margin_imps": [0, 2]})
    assert {c.draw_margin_imps for c in candidate_grid(BRIDGE, BridgeParameters(), max_candidates=200)} == {1}
    assert "draw_margin_imps" not in _Space(BRIDGE).ranges
    assert set(_Space(BRIDGE).ranges) == {
        "k_base", "scale", "rating_difference_cap", "imps_per_goal", "bonus_max", "bonus_scale"
    }  # fmt: skip


def test_the_grid_is_deterministic_and_capped():
    first = candidate_grid(ELO, EloParameters(), values={"k_provisional": [10, 20, 30, 40, 50]}, max_candidates=2)
    again = candidate_grid(ELO, EloParameters(), values={"k_provisional": [10, 20, 30, 40, 50]}, max_candidates=2)
    assert first == again
    assert first[0] == EloParameters()
    assert len(first) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "k_provisonal=10"], "Unknown parameter(s) for elo: k_provisonal"),
        (["--param", "k_provisional=0"], "k_provisional must be a number above 0 and at most 200"),
        (["--param", "k_provisional=abc"], "'abc' is not a number"),
        (["--param", "k_provisional"], "--param takes NAME=v1,v2,..."),
        (["--split", "1.5"], "--split must be above 0 and below 1"),
        (["--split", "0.8", "--choose", "0.2"], "Each part (fit, choose, report) must hold at least 5%"),
        (["--choose", "0"], "Each part (fit, choose, report) must hold at least 5%"),
        (["--budget", "0"], "--budget must be from 1 to 2000; got 0"),
        (["--budget", "5000"], "--budget must be from 1 to 2000; got 5000"),
        (["--param", "provisional_matches=2.5"], "provisional_matches must be a whole number"),
        (["--max-candidates", "0"], "must be from 1 to 200; got 0"),
        (["--max-candidates", "100000"], "must be from 1 to 200; got 100000"),
        (
            [
                "--param",
                "k_provisional=1,2,3,4,5,6,7,8,9,10",
                "--param",
                "k_established=1,2,3,4,5,6,7,8,9,10",
                "--param",
                "scale=100,200,300,400,500,600,700,800,900,1000",
                "--param",
                "provisional_matches=1,2,3,4,5,6,7,8,9,10,11",
            ],
            "more than 10,000 combinations",
        ),
        (["--param", "k_provisional=1", "--param", "k_provisional=2"], "--param k_provisional is given twice"),
    ],
)
def test_hostile_arguments_get_a_clear_error_and_change_nothing(history, slaps, args, message):
    rows = RatingChange.objects.count()
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        tune_json(*args)
    slaps.refresh_from_db()
    assert slaps.parameters == {}
    assert RatingChange.objects.count() == rows


def test_an_unknown_game_is_refused():
    with pytest.raises(CommandError, match="Unknown game 'nope'"):
        call_command("tune_ratings", "--game", "nope")


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


def test_admin_runs_the_tuning_and_applies_a_candidate_which_replays_to_the_oracles_ledger(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    """The run is computed by the (eager) task once the request commits; the page shows the candidates,
    their calibration and the chart's data; Apply sets the game's parameters as the game's form does and
    the game replays (to the oracle's ledger under K 48, the search's first move of K 32 up), logged in
    admin's history."""
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    assert url.encode() in admin_browser.get(f"/admin/leagues/game/{slaps.pk}/change/").content
    assert admin_browser.get(url).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(url, {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    assert response["Location"] == f"{url}?run={run.pk}"
    assert run.status == TuningRun.Status.DONE, run.error
    page = admin_browser.get(response["Location"]).content.decode()
    for part in ('id="tuning-candidates"', 'id="tuning-data"', 'id="tuning-chart"', "Apply", "Chosen (#"):
        assert part in page
    status = admin_browser.get(f"{url}{run.pk}/status/")
    assert status["HX-Refresh"] == "true"
    index = next(
        i
        for i, c in enumerate(run.result["candidates"])
        if c["parameters"] == {**run.result["candidates"][0]["parameters"], "k_provisional": 48}
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(
            f"{url}{run.pk}/apply/", {"candidate": str(index), "confirm": "apply"}, follow=True
        )
    assert response.status_code == 200
    applied = f"Candidate {index} applied (k_provisional 32 → 48); Slaps's ratings are being replayed."
    assert applied in html.unescape(response.content.decode())
    slaps.refresh_from_db()
    assert slaps.parameters == {"k_provisional": 48}
    assert assert_ledger_is_the_oracles(game=slaps) > 0
    assert LogEntry.objects.filter(object_id=str(slaps.pk), change_message__contains="Tuning run").exists()


def test_apply_refuses_a_stale_run_and_hostile_candidates(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(url, {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    rows = list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after"))
    for candidate in ("99", "-1", "abc", ""):
        response = admin_browser.post(f"{url}{run.pk}/apply/", {"candidate": candidate}, follow=True)
        assert b"Nothing was changed: There is no such candidate" in response.content
    Game.objects.filter(pk=slaps.pk).update(parameters={"k_established": 20})
    response = admin_browser.post(f"{url}{run.pk}/apply/", {"candidate": "1"}, follow=True)
    assert b"This tuning run is stale" in response.content
    slaps.refresh_from_db()
    assert slaps.parameters == {"k_established": 20}
    assert list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after")) == rows
    assert admin_browser.post(url, {"split": "2"}, follow=True).status_code == 200
    assert TuningRun.objects.filter(game=slaps).count() == 1


def _k_48_16(run) -> int:
    """The index of the candidate that moves K from 32 / 16 to 48 / 16 (found by its parameters, not its place)."""
    current = run.result["candidates"][0]["parameters"]
    return next(
        i for i, c in enumerate(run.result["candidates"]) if c["parameters"] == {**current, "k_provisional": 48}
    )


def _ledger():
    return list(RatingChange.objects.order_by("pk").values_list("pk", "rating_after"))


def test_each_apply_button_names_its_candidate_and_asks_before_replaying(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    """The button says "Apply K 48 / 16"; it leads to a page (a GET, no JavaScript) that shows k_provisional
    32 -> 48 with what that does, says the game's 3 results will be replayed, and offers Confirm and Cancel.
    Neither that page nor a POST without the confirmation changes the parameters, the run or the ledger."""
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(url, {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    index = _k_48_16(run)
    page = admin_browser.get(f"{url}?run={run.pk}").content.decode()
    assert ">Apply K 48 / 16</button>" in page  # K 32 x 1.5
    assert ">Apply K 21.3 / 16</button>" in page  # K 32 / 1.5, to three significant figures
    assert ">Apply K 32 / 24</button>" in page  # K 16 x 1.5
    assert ">Apply K 32 / 16, scale 600</button>" in page  # the scale 400 x 1.5, K as it is
    assert ">Apply</button>" not in page
    assert f'<form method="get" action="{url}{run.pk}/apply/">' in page
    ledger = _ledger()

    confirm = admin_browser.get(f"{url}{run.pk}/apply/", {"candidate": str(index)})
    assert confirm.status_code == 200
    text = confirm.content.decode()
    assert "Apply K 48 / 16 to Slaps?" in text
    assert '<th scope="row"><code>k_provisional</code></th><td class="num">32</td><td class="num">48</td>' in text
    assert "k_established" not in text.split('id="tuning-changes"')[1].split("</table>")[0]  # only what changes
    assert "Slaps's ratings will be replayed: all its 3 results are rated again from the first" in text
    assert 'name="confirm" value="apply"' in text
    assert 'value="Confirm: apply K 48 / 16 and replay"' in text
    assert f'href="{url}?run={run.pk}" class="button cancel-link">Cancel</a>' in text

    unconfirmed = admin_browser.post(f"{url}{run.pk}/apply/", {"candidate": str(index)})
    assert unconfirmed.status_code == 200
    assert "Apply K 48 / 16 to Slaps?" in unconfirmed.content.decode()
    for answer in (confirm, unconfirmed):
        assert answer.status_code == 200
    slaps.refresh_from_db()
    run.refresh_from_db()
    assert slaps.parameters == {}
    assert run.applied is None
    assert _ledger() == ledger
    assert not LogEntry.objects.filter(object_id=str(slaps.pk)).exists()
    assert RatingState.objects.get(game=slaps).replay_from_played_at is None

    with django_capture_on_commit_callbacks(execute=True):
        done = admin_browser.post(f"{url}{run.pk}/apply/", {"candidate": str(index), "confirm": "apply"})
    assert done.status_code == 302
    slaps.refresh_from_db()
    run.refresh_from_db()
    assert slaps.parameters == {"k_provisional": 48}
    assert run.applied == index
    # Under K 48 the first match moves Ann 1000 -> 1000 + 48 x 0.5 = 1024 (it was 1016 under K 32).
    assert RatingChange.objects.filter(player=history[0]).order_by("played_at").first().rating_after == 1024


def test_the_confirmation_refuses_what_it_cannot_apply(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(url, {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    for candidate in ("99", "-1", "abc", "", "9" * 5000, "\u0663"):
        response = admin_browser.get(f"{url}{run.pk}/apply/", {"candidate": candidate}, follow=True)
        assert b"Nothing was changed: There is no such candidate" in response.content, candidate
    current = admin_browser.get(f"{url}{run.pk}/apply/", {"candidate": "0"}, follow=True)
    assert b"Nothing was changed: candidate 0 has the parameters Slaps uses now." in current.content
    Game.objects.filter(pk=slaps.pk).update(parameters={"k_established": 20})
    stale = admin_browser.get(f"{url}{run.pk}/apply/", {"candidate": str(_k_48_16(run))}, follow=True)
    assert b"This tuning run is stale" in stale.content
    assert admin_browser.delete(f"{url}{run.pk}/apply/").status_code == 405
    slaps.refresh_from_db()
    assert slaps.parameters == {"k_established": 20}


def test_the_tuning_page_needs_the_permission_to_change_the_game(history, slaps):
    from django.contrib.auth.models import User

    staff = User.objects.create_user("viewer", password="x", is_staff=True)
    browser = Client()
    browser.force_login(staff)
    assert browser.get(f"/admin/leagues/game/{slaps.pk}/tuning/").status_code == 403
    assert browser.post(f"/admin/leagues/game/{slaps.pk}/tuning/", {"split": "0.5"}).status_code == 403
    assert not TuningRun.objects.exists()


def test_the_fitted_scale_is_the_maximum_likelihood_one():
    """Four forecasts at gap 100, three won: the likelihood peaks where the win chance is 3/4,
    1 / (1 + 10^(-100/s)) = 3/4, so 10^(-100/s) = 1/3 and s = 100 / log10(3) = 209.590.
    A gap of 0 says nothing about the scale; no information at all gives the largest scale."""
    forecasts = [Forecast(100, 1), Forecast(100, 1), Forecast(100, 1), Forecast(100, 0), Forecast(0, 1)]
    assert fit_scale(forecasts) == pytest.approx(100 / math.log10(3), rel=1e-6)
    assert fit_scale([Forecast(0, 1)]) == SCALE_MAX
    assert fit_scale([Forecast(100, 1)]) == SCALE_MIN  # always right: as sharp as allowed


def test_the_quality_report_scores_the_newer_half_under_the_current_parameters(history, capsys):
    """The same history and split as the tuning's hand calculation above: log-loss 0.672093 on
    results 2 and 3, Elo's own scale 400 (not fitted); the results carry no league, so the
    leagues' rows score nothing."""
    call_command("rating_quality", "--game", "slaps", "--json")
    rows = json.loads(capsys.readouterr().out)
    everything = rows[0]
    assert everything["league"] is None
    assert everything["log_loss"] == pytest.approx(0.672093, abs=1e-6)
    assert everything["units"] == 2
    assert everything["newer_units"] == 2
    assert everything["older_units"] == 1
    assert everything["scale"] == 400
    assert everything["scale_fitted"] is False
    assert everything["split_at"] is not None
    assert [row["units"] for row in rows[1:]] == [0, 0]
    figures_now(Game.objects.get(slug="slaps"))  # the page reads what the figures' task kept
    page = Client().get("/quality/slaps/").content.decode()
    assert '<dd id="q-units">2</dd>' in page
    assert '<dd id="q-scale">400.0</dd>' in page


def test_a_game_without_results_lists_its_candidates_with_nothing_chosen(slaps, capsys):
    result = tune_json("--param", "k_provisional=24")
    assert result["split_at"] is None
    assert result["chosen"] is None
    assert [c["newer_units"] for c in result["candidates"]] == [0, 0]
    assert all(c["log_loss"] is None for c in result["candidates"])
    call_command("tune_ratings", "--game", "slaps")
    assert "(current)" in capsys.readouterr().out


def test_candidates_replayed_in_forked_processes_give_the_same_figures(monkeypatch):
    """The same synthetic history tuned one candidate after another and in forked processes."""
    from benchmarks.tuning import synthetic_history
    from ratings import evaluation

    history = synthetic_history(results=2000, players=60)
    candidates = candidate_grid(ELO, EloParameters(), max_candidates=3)
    one_by_one = evaluation.tune(history, candidates).as_dict()
    monkeypatch.setattr(evaluation, "PARALLEL_FROM", 0)
    assert evaluation._workers(len(candidates), 1) > 1 or len(os.sched_getaffinity(0)) == 1
    assert evaluation.tune(history, candidates).as_dict() == one_by_one


def test_a_league_rule_changed_since_the_run_makes_it_stale(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(url, {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    slaps.leagues.filter(tier="pro").update(rating_floor=1700)
    response = admin_browser.post(f"{url}{run.pk}/apply/", {"candidate": "1"}, follow=True)
    assert b"This tuning run is stale" in response.content
    slaps.refresh_from_db()
    assert slaps.parameters == {}
    run.refresh_from_db()
    assert run.applied is None


def test_parameters_stored_out_of_range_fail_the_run_and_the_command_clearly(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    Game.objects.filter(pk=slaps.pk).update(parameters={"k_provisional": 0})
    with pytest.raises(CommandError, match="k_provisional must be a number above 0"):
        tune_json()
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(f"/admin/leagues/game/{slaps.pk}/tuning/", {"split": "0.5"})
    run = TuningRun.objects.get(game=slaps)
    assert run.status == TuningRun.Status.FAILED
    assert "k_provisional must be a number above 0" in run.error
    page = admin_browser.get(f"/admin/leagues/game/{slaps.pk}/tuning/").content.decode()
    assert "k_provisional must be a number above 0" in page
    response = admin_browser.post(
        f"/admin/leagues/game/{slaps.pk}/tuning/{run.pk}/apply/", {"candidate": "0"}, follow=True
    )
    assert b"This tuning run is failed: it has no candidates to apply" in response.content


@pytest.mark.parametrize("slug", ["slaps", "preferans", "bridge"])
def test_every_game_of_the_demo_club_tunes(reference_data, settings, slug):
    """Bots at Preferans tables, bridge partnerships, leagues with floors and promotion: every candidate the
    search tries in every game gets its figures; Preferans' scale is fitted on the choosing part, the others'
    are their own."""
    settings.DEBUG = True  # the demo accounts' password is given on the embedded defaults only
    call_command(
        "demo_data", "--players", "16", "--matches", "60", "--preferans-games", "12", "--bridge-weeks", "4",
        stdout=StringIO(),
    )  # fmt: skip
    settings.DEBUG = False
    out = StringIO()
    call_command("tune_ratings", "--game", slug, "--json", "--budget", "12", stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue())
    assert 2 <= len(result["candidates"]) <= 12
    assert len(result["candidates"]) == result["search"]["replays"]
    for candidate in result["candidates"]:
        assert candidate["newer_units"] > 0
        assert candidate["log_loss"] is not None
        assert candidate["scale_fitted"] is (slug == "preferans")
    assert result["chosen"] is not None
    for name in ("current", "chosen"):
        assert result["report"][name]["forecasts"] > 0
        assert result["report"][name]["log_loss"] is not None


def test_a_game_is_tuned_once_at_a_time_however_often_tune_is_clicked(
    history, slaps, admin_browser, django_capture_on_commit_callbacks
):
    """Three Tune clicks while the first run waits for its worker queue one run (the others are told so);
    the database refuses a second active run however it is made; once the run is done, Tune queues again."""
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    with django_capture_on_commit_callbacks(execute=False) as queued:
        for _ in range(3):
            response = admin_browser.post(url, {"split": "0.5"}, follow=True)
    assert TuningRun.objects.filter(game=slaps).count() == 1
    assert len(queued) == 1  # one task queued, not three
    assert "already under way" in html.unescape(response.content.decode())
    with pytest.raises(IntegrityError), transaction.atomic():
        TuningRun.objects.create(game=slaps, split=0.5)  # queued beside the queued one
    TuningRun.objects.update(status=TuningRun.Status.DONE)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        admin_browser.post(url, {"split": "0.5"})
    assert TuningRun.objects.filter(game=slaps).count() == 2
    assert len(queued) == 1


def test_a_run_lost_with_its_worker_does_not_block_the_game_for_ever(history, slaps, admin_user):
    lost = TuningRun.objects.create(game=slaps, split=0.5, status=TuningRun.Status.RUNNING)
    TuningRun.objects.filter(pk=lost.pk).update(
        created_at=timezone.now() - TUNING_ABANDONED_AFTER - timedelta(minutes=1)
    )
    run, new = tuning_run_create(game=slaps, user=admin_user)
    assert new
    assert run.pk != lost.pk
    lost.refresh_from_db()
    assert lost.status == TuningRun.Status.FAILED


def test_long_admin_work_is_routed_to_its_own_queue_and_ratings_to_the_default():
    """Imports and tunings never hold the worker that rates results (docs/operations.md)."""
    from celery import current_app

    router = current_app.amqp.router
    for name in (
        "games.tasks.import_run_check",
        "games.tasks.import_run_apply",
        "games.tasks.bridge_hand_records",
        "ratings.tasks.ratings_tune",
    ):
        assert router.route({}, name)["queue"].name == "admin", name
    for name in ("ratings.tasks.ratings_apply_match", "ratings.tasks.ratings_process", "ratings.tasks.ratings_sweep"):
        assert router.route({}, name)["queue"].name == "celery", name
