"""``manage.py demo_data``: a local demo only, unless asked for on purpose; existing accounts are never touched."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Max
from django.test import Client

from games.management.commands.demo_data import DEMO_PASSWORD
from leagues.models import Game, League, Player
from matches.models import AuditEntry, Match, ResultsVersion
from matches.selectors import match_as_body, match_detail_queryset
from ratings.models import PlayerRating, RatingChange
from tests.conftest import manage_on_production
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SMALL = ["--players", "8", "--matches", "30", "--preferans-games", "4", "--bridge-weeks", "1"]
User = get_user_model()


def demo_data(*args: str) -> str:
    out = StringIO()
    call_command("demo_data", *SMALL, *args, stdout=out)
    return out.getvalue()


def signs_in(username: str, password: str) -> bool:
    """A real sign-in through the login page: a redirect means the password was accepted."""
    response = Client().post("/accounts/login/", {"username": username, "password": password}, secure=True)
    return response.status_code == 302


@pytest.mark.django_db(transaction=True)
def test_refused_on_production_settings(reference_data, require_postgres):
    """The command as an operator would run it on a deployment: DJANGO_DEBUG=false, a real database."""
    db = connection.settings_dict
    result = manage_on_production(
        "demo_data",
        *SMALL,
        unset=("CACHE_URL",),
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "CommandError" in result.stderr
    assert "DJANGO_DEBUG=true" in result.stderr
    assert "--allow-production" in result.stderr
    # Nothing stored: no players, no results, no demo accounts.
    assert not Player.objects.exists()
    assert not Match.objects.exists()
    assert not User.objects.filter(username__in=["admin", "referee"]).exists()


def test_refused_without_the_flag_when_debug_is_off(reference_data, production):
    with pytest.raises(CommandError, match="--allow-production"):
        demo_data()
    assert not Player.objects.exists()
    assert not User.objects.exists()


def test_with_the_flag_on_production_the_demo_accounts_have_no_usable_password(reference_data, production):
    output = demo_data("--allow-production")

    assert Player.objects.count() == 8
    admin, referee = User.objects.get(username="admin"), User.objects.get(username="referee")
    assert admin.is_superuser
    assert admin.is_staff
    assert referee.groups.filter(name="referees").exists()
    assert not referee.is_staff
    for user in (admin, referee):
        assert not user.has_usable_password()
        assert not signs_in(user.username, DEMO_PASSWORD)
        assert f"manage.py changepassword {user.username}" in output
    assert DEMO_PASSWORD not in output


def test_an_existing_admin_is_never_changed(reference_data, settings):
    """Today's ``make run`` on a database with accounts but no players: the accounts stay as they are."""
    settings.DEBUG = True
    admin = UserFactory(username="admin", password="the operator's own", is_staff=False, is_superuser=False)
    referee = UserFactory(username="referee", password="the referee's own")
    before = {user.pk: User.objects.filter(pk=user.pk).values().get() for user in (admin, referee)}

    output = demo_data()

    assert Player.objects.count() == 8  # the demo was loaded
    for user in (admin, referee):
        assert User.objects.filter(pk=user.pk).values().get() == before[user.pk]  # password, flags, last login
        assert f"User {user.username} already existed: left unchanged" in output
    assert not User.objects.get(pk=referee.pk).groups.exists()
    assert signs_in("admin", "the operator's own")
    assert not signs_in("admin", DEMO_PASSWORD)
    # The second referee the demo adds gets no known password beside the operator's accounts.
    assert not User.objects.get(username="scorer").has_usable_password()
    assert "manage.py changepassword scorer" in output
    assert DEMO_PASSWORD not in output


def test_make_run_loads_once_with_the_demo_password_and_files_every_match_in_a_league(reference_data, settings):
    settings.DEBUG = True  # the embedded defaults of ``make run``

    first = demo_data()
    # Every result filed under a league, as a result entered without naming one is: the game's entry league;
    # the two left waiting for a second referee, under the two-step league they were entered in.
    matches = Match.objects.select_related("league")
    assert {match.game.slug for match in matches.select_related("game")} == {"slaps", "preferans", "bridge"}
    assert all(match.league is not None and match.league.game_id == match.game_id for match in matches)
    assert {match.league.tier for match in matches.filter(awaiting_confirmation=False)} == {"amateur"}
    assert all(match.league.requires_confirmation for match in matches.filter(awaiting_confirmation=True))
    assert "Sign in as referee / cardrank-demo" in first
    assert "Sign in as admin / cardrank-demo" in first
    assert "Sign in as scorer / cardrank-demo as a second referee." in first
    assert signs_in("admin", DEMO_PASSWORD)
    assert signs_in("referee", DEMO_PASSWORD)
    assert signs_in("scorer", DEMO_PASSWORD)
    assert User.objects.get(username="admin").is_superuser
    # The demo club's leagues count players inactive after 30 days (docs/ratings.md), and every rating's
    # last rated result is its ledger's latest row, in all three games (periods, deals and boards included).
    assert set(League.objects.values_list("inactive_after_days", flat=True)) == {30}
    ledger = RatingChange.objects.values("player_id", "game_id").annotate(latest=Max("played_at"))
    latest = {(row["player_id"], row["game_id"]): row["latest"] for row in ledger}
    kept = {(p, g): last for p, g, last in PlayerRating.objects.values_list("player_id", "game_id", "last_played_at")}
    assert kept == latest
    assert len(kept) > 8
    # A few months of official lists for each game, one a month end, oldest first on each game's history.
    from ratings.list_selectors import list_closes_at
    from ratings.models import RatingList

    for game in Game.objects.filter(slug__in=["slaps", "preferans", "bridge"]):
        lists = list(RatingList.objects.filter(game=game).order_by("day"))
        assert len(lists) >= (5 if game.slug == "slaps" else 1), game.slug  # Slaps: six months of results
        assert all((day := rating_list.day + timedelta(days=1)).day == 1 for rating_list in lists), day
        for rating_list in lists:  # every player rated by the closing time, each once
            rated = RatingChange.objects.filter(game=game, played_at__lt=list_closes_at(rating_list.day))
            assert rating_list.players == rated.values("player_id").distinct().count() > 0
        assert lists[0].rows.filter(new=False).count() == 0
        assert len(lists) == 1 or lists[-1].rows.filter(new=False).exists()
    assert f"Published {RatingList.objects.count()} monthly rating lists" in first
    # A closed season of the Slaps amateur league, its top two promoted to the pro league at its end and rated
    # there since; one running; and a closed bridge ladder of the best four sessions.
    from leagues.models import Season, SeasonMove

    closed = Season.objects.get(league__slug="slaps-amateur", closed_at__isnull=False)
    assert closed.standings.count() >= 4
    assert closed.standings.filter(rank=1).exists()
    moves = list(SeasonMove.objects.filter(season=closed).order_by("player__name"))
    assert len(moves) == 2
    assert {move.to_league.slug for move in moves} == {"slaps-pro"}
    top_two = set(closed.standings.order_by("rank", "name", "player_id").values_list("player_id", flat=True)[:2])
    assert {move.player_id for move in moves} == top_two
    for move in moves:
        assert PlayerRating.objects.get(player_id=move.player_id, game__slug="slaps").league.slug == "slaps-pro"
    running = Season.objects.get(league__slug="slaps-amateur", closed_at__isnull=True)
    assert running.table_at is not None
    assert running.standings.exists()
    ladder = Season.objects.get(league__slug="bridge-amateur")
    assert ladder.closed_at is not None
    assert ladder.standings.exists()
    assert "Closed the seasons Spring and summer of Slaps Amateur (its top 2 promoted)" in first

    stored = (Player.objects.count(), Match.objects.count(), User.objects.count())
    second = demo_data()
    assert second.strip() == "Demo data already present; nothing to do."
    assert (Player.objects.count(), Match.objects.count(), User.objects.count()) == stored


def test_every_demo_result_goes_through_the_write_path(reference_data, settings):
    """Each result is entered as the pages and the API enter one: audited, and its game's results version raised."""
    settings.DEBUG = True

    demo_data()

    referee, scorer = User.objects.get(username="referee"), User.objects.get(username="scorer")
    matches = list(match_detail_queryset())
    assert {match.game.slug for match in matches} == {"slaps", "preferans", "bridge"}
    submitted = {entry.match_id: entry for entry in AuditEntry.objects.filter(action=AuditEntry.Action.SUBMITTED)}
    assert set(submitted) == {match.pk for match in matches}  # one entry per result
    # and, besides, one for each season the demo closes (games.seasons.season_close): nothing else audited.
    assert AuditEntry.objects.filter(match__isnull=True).count() == AuditEntry.objects.filter(action="season").count()
    assert AuditEntry.objects.filter(action="season").count() == 2
    assert AuditEntry.objects.count() == len(matches) + 2
    for match in matches:
        entry = submitted[match.pk]
        # The referee's history, and the scorer's two results left waiting for a second referee.
        author = scorer if match.awaiting_confirmation else referee
        assert entry.actor_id == author.pk
        assert match.referee_id == author.pk
        # The audit keeps what was stored, as the API's body reads it back.
        assert entry.data == match_as_body(match)
    versions = dict(ResultsVersion.objects.values_list("game__slug", "version"))
    for game in Game.objects.filter(slug__in=["slaps", "preferans", "bridge"]):
        assert versions[game.slug] >= sum(1 for match in matches if match.game_id == game.pk)
    # Rated in the command's own transaction: nothing is left for a worker but the two waiting for a referee.
    left = Match.objects.filter(status=Match.Status.SUBMITTED)
    assert left.count() == 2
    assert all(match.awaiting_confirmation and match.referee_id == scorer.pk for match in left)


def test_the_demo_referee_has_two_results_to_confirm(reference_data, settings):
    """A league with two-step results, and two of its results entered by ``scorer``: the demo ``referee``
    sees "To confirm (2)" and both on the confirmation page; ``scorer``, who entered them, none to confirm."""
    settings.DEBUG = True

    output = demo_data()

    waiting = Match.objects.filter(awaiting_confirmation=True, status=Match.Status.SUBMITTED).select_related("league")
    assert waiting.count() == 2
    league = waiting[0].league
    assert league.requires_confirmation
    assert f"{league.name} requires a second referee's confirmation: 2 results entered by scorer" in output
    referee = Client()
    referee.force_login(User.objects.get(username="referee"))
    page = referee.get("/results/confirm/").content.decode()
    assert '<span id="to-confirm-count"> (2)</span>' in page
    for match in waiting:
        assert f"Confirm #{match.pk}" in page
    scorer = Client()
    scorer.force_login(User.objects.get(username="scorer"))
    assert '<span id="to-confirm-count"></span>' in scorer.get("/results/confirm/").content.decode()
