"""The tuning page (issue 29): the parts and the budget set before a start, the search followed round by round,
and a verdict said plainly, with what the search changed in a sentence a parameter."""

from __future__ import annotations

import html
import json
import re
from dataclasses import asdict
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from ratings.models import RatingChange, TuningRun
from ratings.parameters import rating_parameters
from ratings.tuning_runs import tuning_run_create, tuning_run_execute
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db


def _results(winners: list[str]) -> None:
    """Ann and Bob's matches an hour apart, in order, each won by the one named."""
    players = {"Ann": PlayerFactory(name="Ann"), "Bob": PlayerFactory(name="Bob")}
    start = timezone.now() - timedelta(hours=len(winners) + 1)
    for number, name in enumerate(winners):
        winner = players[name]
        loser = players["Bob" if name == "Ann" else "Ann"]
        slaps_match(winner=winner, loser=loser, played_at=start + timedelta(hours=number))


@pytest.fixture
def admin_browser(admin_user):
    browser = Client()
    browser.force_login(admin_user)
    return browser


def _run(browser, game, capture, **posted) -> tuple[TuningRun, str]:
    url = f"/admin/leagues/game/{game.pk}/tuning/"
    with capture(execute=True):
        browser.post(url, {"split": "0.5", "choose": "0.25", "budget": "60", **posted})
    run = TuningRun.objects.get(game=game)
    assert run.status == TuningRun.Status.DONE, run.error
    return run, html.unescape(browser.get(f"{url}?run={run.pk}").content.decode())


def test_a_choice_the_report_part_contradicts_is_not_recommended(
    slaps, admin_browser, django_capture_on_commit_callbacks
):
    """40 results: Ann and Bob take turns for 30 (fit 20, choose 10), then Ann wins the last 10 (the report part).
    On the choosing part, turns are forecast best by ratings that barely move (K towards 0, a wide scale); on
    the report part those ratings keep forecasting an even match Ann keeps winning, worse than K 32 does."""
    _results(["Ann", "Bob"] * 15 + ["Ann"] * 10)
    run, page = _run(admin_browser, slaps, django_capture_on_commit_callbacks)
    result = run.result
    assert result["chosen"] != result["current"]
    assert result["report"]["chosen"]["log_loss"] > result["report"]["current"]["log_loss"]
    assert result["verdict"] == "not_better"
    assert result["recommended"] is False
    assert "Nothing is recommended." in page
    assert "do no better than the current ones on the report part: keep the current parameters" in page
    assert 'id="tuning-apply-recommended"' not in page
    out = StringIO()
    call_command("tune_ratings", "--game", "slaps", "--budget", "60", stdout=out, stderr=StringIO())
    assert "nothing is recommended; keep the current parameters" in out.getvalue()


def test_a_better_choice_is_recommended_with_what_it_changes_in_words(
    slaps, admin_browser, django_capture_on_commit_callbacks
):
    """Ann wins all 40: the surer the ratings, the better they forecast every part. The search raises K for new
    players (both have fewer than 32 matches) to its upper bound and narrows the scale to its lower bound, and
    the page says so, a sentence each, with what each change does to the ratings."""
    _results(["Ann"] * 40)
    run, page = _run(admin_browser, slaps, django_capture_on_commit_callbacks)
    result = run.result
    assert result["verdict"] == "better"
    assert result["report"]["chosen"]["log_loss"] < result["report"]["current"]["log_loss"]
    chosen = result["candidates"][result["chosen"]]["parameters"]
    assert (chosen["k_provisional"], chosen["scale"]) == (200, 100)
    assert "Recommended." in page
    said = page.split('id="tuning-changes-said"')[1].split("</ul>")[0]
    assert "K for new players 32 → 200: new players reach their level in fewer matches" in said
    scale = "Rating scale 400 → 100: a given gap predicts a more one-sided match, so ratings stay closer together"
    assert scale in said
    assert "K for established players" not in said  # unchanged: nobody reached 32 matches
    apply = page.split('id="tuning-apply-recommended"')[1].split("</form>")[0]
    assert f'name="candidate" value="{result["chosen"]}"' in apply
    search = result["search"]
    assert f"The search took {search['rounds']} rounds and {search['replays']} of at most 60 replays" in page
    # Apply stores what the chosen candidate's parameters say: the game then rates with exactly those.
    confirm = admin_browser.get(
        f"/admin/leagues/game/{slaps.pk}/tuning/{run.pk}/apply/", {"candidate": result["chosen"]}
    )
    assert "On the report part, which played no role in the choice, it is" in html.unescape(confirm.content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(
            f"/admin/leagues/game/{slaps.pk}/tuning/{run.pk}/apply/",
            {"candidate": result["chosen"], "confirm": "apply"},
        )
    slaps.refresh_from_db()
    assert asdict(rating_parameters(game=slaps)) == chosen
    path = page.split('id="tuning-path"')[1].split("</ol>")[0]
    assert path.count("<li>") == len(search["path"])
    assert len(re.findall(r"log-loss [\d.]+ on the choosing part \(#\d+\)</li>", path)) == len(search["path"])


@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ({"split": "0.8", "choose": "0.2"}, "Each part (fit, choose, report) must hold at least 5% of the results."),
        ({"split": "0.5", "choose": "0"}, "Each part (fit, choose, report) must hold at least 5% of the results."),
        ({"split": "-1"}, "Each part (fit, choose, report) must hold at least 5% of the results."),
        ({"split": "nan"}, "The parts and the budget must be numbers."),
        ({"choose": "abc"}, "The parts and the budget must be numbers."),
        ({"budget": "0"}, "The budget must be a whole number of replays from 1 to 2000."),
        ({"budget": "2.5"}, "The budget must be a whole number of replays from 1 to 2000."),
        ({"budget": "1e9"}, "The budget must be a whole number of replays from 1 to 2000."),
        ({"budget": "inf"}, "The parts and the budget must be numbers."),
    ],
)
def test_settings_a_run_cannot_use_are_refused_and_change_nothing(
    slaps, admin_browser, django_capture_on_commit_callbacks, posted, message
):
    _results(["Ann", "Bob", "Ann"])
    ledger = list(RatingChange.objects.values_list("pk", "rating_after"))
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_browser.post(f"/admin/leagues/game/{slaps.pk}/tuning/", posted, follow=True)
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode())
    assert not TuningRun.objects.exists()
    assert list(RatingChange.objects.values_list("pk", "rating_after")) == ledger


def test_the_service_and_the_database_refuse_parts_and_budgets_out_of_range(slaps, admin_user):
    for settings in ({"split": 0.9, "choose": 0.1}, {"budget": 0}, {"budget": True}, {"choose": float("nan")}):
        with pytest.raises(ValueError, match="must"):
            tuning_run_create(game=slaps, user=admin_user, **settings)
    assert not TuningRun.objects.exists()
    for fields in ({"split": 0.9, "choose": 0.1}, {"choose": 0.01}, {"budget": 0}, {"budget": 2001}):
        with pytest.raises(IntegrityError), transaction.atomic():
            TuningRun.objects.create(game=slaps, **fields)
    TuningRun.objects.create(game=slaps, split=0.9, choose=0.05)  # the report part's 5% exactly


def test_the_run_keeps_its_progress_each_round_and_the_page_shows_it_while_running(slaps, admin_browser):
    """The worker's side writes the search's progress after each round; a page polling a running run shows it."""
    _results(["Ann"] * 12)
    run = TuningRun.objects.create(game=slaps, budget=25)
    tuning_run_execute(run_id=run.pk)
    run.refresh_from_db()
    search = run.result["search"]
    assert run.progress["rounds"] == search["rounds"]
    assert run.progress["replays"] == search["replays"] <= 25
    assert run.progress["budget"] == 25
    assert run.progress["current_log_loss"] == run.result["candidates"][0]["log_loss"]
    TuningRun.objects.filter(pk=run.pk).update(
        status=TuningRun.Status.RUNNING,
        progress={"rounds": 2, "replays": 15, "budget": 25, "step": 1.5, "best_log_loss": 0.5, "current_log_loss": 0.6},
    )
    answer = admin_browser.get(f"/admin/leagues/game/{slaps.pk}/tuning/{run.pk}/status/")
    text = html.unescape(answer.content.decode())
    assert '<progress max="25" value="15">' in text
    assert (
        "Round 2: 15 of at most 25 replays used; best log-loss on the choosing part so far 0.5000 "
        "(the current parameters: 0.6000)." in " ".join(text.split())
    )
    assert "HX-Refresh" not in answer


def test_the_form_shows_the_budget_and_what_one_replay_costs_before_a_start(
    slaps, admin_browser, django_capture_on_commit_callbacks
):
    _results(["Ann", "Bob"] * 3)
    url = f"/admin/leagues/game/{slaps.pk}/tuning/"
    page = admin_browser.get(url).content.decode()
    assert 'name="budget" type="number" min="1" max="2000" step="1" value="200"' in page
    assert 'name="split"' in page
    assert 'name="choose"' in page
    assert "Each replay rates the game's 6 stored results." in page
    assert "In the last search one replay took" not in page
    with django_capture_on_commit_callbacks(execute=True):
        admin_browser.post(url, {"split": "0,5", "choose": "0,25", "budget": "30"})  # a Russian decimal comma
    run = TuningRun.objects.get(game=slaps)
    assert (run.split, run.choose, run.budget) == (0.5, 0.25, 30)
    assert "In the last search one replay took" in admin_browser.get(url).content.decode()
    assert json.loads(json.dumps(run.result))["parts"] == {"fit": 0.5, "choose": 0.25, "report": 0.25}
