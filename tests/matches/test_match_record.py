"""``match_record``: ``match_submit`` for an operator's command, with no request whose permission to check."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.cleaning import ResultBatch, match_clean
from matches.models import AuditEntry, Match, ResultsVersion
from matches.services import BatchItemRefused, match_record, match_record_many, match_submit
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def body(a, b, **extra) -> dict:
    played_at = (timezone.now() - timedelta(hours=1)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [a.pk, b.pk], "winner": a.pk, **extra}


def test_an_account_without_referee_rights_is_recorded_as_the_referee_and_the_actor(
    reference_data, django_capture_on_commit_callbacks
):
    account = UserFactory()  # no group: the pages and the API would refuse it
    a, b = PlayerFactory(), PlayerFactory()
    with pytest.raises(PermissionDenied):
        match_submit(referee=account, data=body(a, b))
    assert not Match.objects.exists()

    with django_capture_on_commit_callbacks() as queued:
        match = match_record(referee=account, data=body(a, b))

    assert match.referee == account
    entry = AuditEntry.objects.get(match=match)
    assert (entry.action, entry.actor) == (AuditEntry.Action.SUBMITTED, account)
    assert ResultsVersion.objects.get(game=match.game).version == 1
    assert len(queued) == 1  # its rating task, as for a submitted result


def test_without_queueing_the_rating_the_rest_of_the_write_is_the_same(
    reference_data, django_capture_on_commit_callbacks
):
    a, b = PlayerFactory(), PlayerFactory()
    referee = UserFactory()
    with django_capture_on_commit_callbacks() as queued:
        match = match_record(referee=referee, data=body(a, b), queue_rating=False)

    assert queued == []
    assert match.status == Match.Status.SUBMITTED  # waits for the caller's own rating run (or the sweeper)
    assert AuditEntry.objects.filter(match=match, action=AuditEntry.Action.SUBMITTED).count() == 1
    assert ResultsVersion.objects.get(game=match.game).version == 1


def test_bad_input_is_refused_as_on_every_path_and_stores_nothing(reference_data):
    a = PlayerFactory()
    with pytest.raises(ValidationError) as refused:
        match_record(referee=UserFactory(), data=body(a, a), queue_rating=False)
    assert "players" in refused.value.message_dict
    assert not Match.objects.exists()
    assert not AuditEntry.objects.exists()
    assert not ResultsVersion.objects.exists()


def test_a_batch_stores_the_same_rows_and_leaves_the_version_to_its_caller(
    reference_data, django_capture_on_commit_callbacks
):
    a, b = PlayerFactory(), PlayerFactory()
    batch = ResultBatch()
    with pytest.raises(ValueError, match="queue_rating=False"):
        match_record(referee=UserFactory(), data=body(a, b), batch=batch)
    assert not Match.objects.exists()
    referee = UserFactory()
    with django_capture_on_commit_callbacks() as queued:
        first = match_record(referee=referee, data=body(a, b), queue_rating=False, batch=batch)
        with CaptureQueriesContext(connection) as second_queries:
            second = match_record(referee=referee, data=body(b, a), queue_rating=False, batch=batch)
    assert queued == []
    # The game, its leagues and its two players were read for the first: the match, its seats, its audit entry.
    assert len(second_queries) == 3, [query["sql"][:80] for query in second_queries]
    assert [first.status, second.status] == [Match.Status.SUBMITTED] * 2
    assert AuditEntry.objects.filter(match__in=[first, second], action=AuditEntry.Action.SUBMITTED).count() == 2
    assert not ResultsVersion.objects.exists()  # the caller bumps once, last (games.importing.import_apply)
    with pytest.raises(ValidationError):
        match_record(referee=UserFactory(), data=body(a, a), queue_rating=False, batch=batch)
    assert Match.objects.count() == 2


def test_an_import_raises_its_games_results_version_once(reference_data, tmp_path):
    from io import StringIO

    from django.core.management import call_command

    UserFactory(username="referee")
    rows = [f"2026-03-0{day}T18:00:00Z,Ann,Bob,a" for day in range(1, 6)]
    path = tmp_path / "season.csv"
    path.write_text("played_at,player_a,player_b,winner\n" + "\n".join(rows) + "\n")
    call_command("import_results", str(path), "--game", "slaps", stdout=StringIO())
    assert Match.objects.count() == 5
    assert ResultsVersion.objects.get(game__slug="slaps").version == 1


def _recorded(match: Match) -> tuple:
    """What ``match_record`` stores of a result, read back: the match's filing, its seats, its audit entry."""
    entry = AuditEntry.objects.get(match=match)
    return (
        match.game_id,
        match.played_at,
        match.rated,
        match.status,
        match.league_id,
        match.referee_id,
        match.due_at,
        match.awaiting_confirmation,
        list(
            match.seats.order_by("position").values_list(
                "position", "player_id", "bot_id", "result", "bot_rating", "bot_max_rating"
            )
        ),
        list(match.deals.order_by("number").values_list("number", "whists")),
        (entry.action, entry.actor_id, entry.data),
    )


def test_many_results_are_stored_as_match_record_stores_each(reference_data):
    """``match_record_many`` writes the rows ``match_record`` writes, result for result, a chunk at a time."""
    players = [PlayerFactory() for _ in range(4)]
    bodies = [body(players[n % 4], players[(n + 1) % 4], rated=n % 3 != 0) for n in range(7)]
    referee = UserFactory()
    source = {"via": "command line", "file": "season.csv"}

    one_by_one = [
        match_record(referee=referee, data=data, queue_rating=False, batch=ResultBatch(), source=source)
        for data in bodies
    ]
    together = dict(
        match_record_many(
            referee=referee,
            items=[(f"line {n}", data) for n, data in enumerate(bodies)],
            batch=ResultBatch(),
            source=source,
        )
    )

    assert list(together) == [f"line {n}" for n in range(7)]
    stored = Match.objects.in_bulk(together.values())
    assert [_recorded(stored[together[f"line {n}"]]) for n in range(7)] == [
        _recorded(Match.objects.get(pk=match.pk)) for match in one_by_one
    ]
    assert not ResultsVersion.objects.exists()  # the caller bumps once, last


def test_many_preferans_games_keep_their_deals_and_bots_as_match_record_keeps_them(reference_data):
    a, b, c = PlayerFactory(), PlayerFactory(), PlayerFactory()
    played_at = (timezone.now() - timedelta(hours=2)).isoformat()
    bodies = [
        {
            "game": "preferans",
            "played_at": played_at,
            "seats": [{"player": a.pk}, {"player": b.pk}, {"bot": "normal"}],
            "deals": [[4, -2, -2], [-1.5, 3, -1.5]],
        },
        {
            "game": "preferans",
            "played_at": played_at,
            "seats": [{"player": c.pk}, {"player": a.pk}, {"player": b.pk}, {"bot": "normal"}],
            "deals": [[1, 1, -1, -1]],
        },
    ]

    one_by_one = [match_record(referee=None, data=data, queue_rating=False) for data in bodies]
    together = [
        match_id for _key, match_id in match_record_many(referee=None, items=enumerate(bodies), batch=ResultBatch())
    ]

    assert len(set(together) | {match.pk for match in one_by_one}) == 4
    assert [_recorded(Match.objects.get(pk=pk)) for pk in together] == [
        _recorded(Match.objects.get(pk=match.pk)) for match in one_by_one
    ]
    assert Match.objects.get(pk=together[0]).deals.count() == 2


def test_many_results_take_the_same_queries_however_many_they_are(reference_data):
    """A chunk's rows go in one INSERT a table: 7 results or 50 cost the same round trips (50: within
    SQLite's 999 parameters a query, which split a larger INSERT there)."""
    players = [PlayerFactory() for _ in range(10)]

    def queries(count: int) -> int:
        items = [(n, body(players[n % 10], players[(n + 3) % 10])) for n in range(count)]
        batch = ResultBatch()
        batch.players_add(players)  # as an import gives the players it matched and created
        with CaptureQueriesContext(connection) as captured:
            assert len(list(match_record_many(referee=None, items=items, batch=batch))) == count
        return len(captured)

    # The game and its leagues (read once), then the matches, the seats, the audit entries.
    assert queries(7) == 5
    assert queries(50) == 5


def test_a_refused_result_of_many_names_its_key_and_is_refused_as_match_record_refuses_it(reference_data):
    a, b = PlayerFactory(), PlayerFactory()
    items = [("line 2", body(a, b)), ("line 3", body(a, a)), ("line 4", body(b, a))]

    with pytest.raises(BatchItemRefused) as refused:
        list(match_record_many(referee=None, items=items, batch=ResultBatch()))

    assert refused.value.key == "line 3"
    with pytest.raises(ValidationError) as alone:
        match_record(referee=None, data=body(a, a), queue_rating=False)
    assert refused.value.error.message_dict == alone.value.message_dict
    assert not Match.objects.exists()  # refused while cleaning its chunk: nothing of the chunk was written


def test_a_batch_reads_a_player_it_was_not_given_and_refuses_an_unknown_one(reference_data):
    a, b, c = PlayerFactory(), PlayerFactory(), PlayerFactory()
    batch = ResultBatch()
    batch.players_add([a, b])

    with CaptureQueriesContext(connection) as captured:
        match_clean(data=body(a, b), batch=batch)
    assert not [query for query in captured if "leagues_player" in query["sql"]]
    match_clean(data=body(a, c), batch=batch)
    assert c.pk in batch.players
    with pytest.raises(ValidationError, match=f"Unknown player id: {c.pk + 100}"):
        match_clean(data={**body(a, b), "players": [a.pk, c.pk + 100], "winner": a.pk}, batch=batch)
