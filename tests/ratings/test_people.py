"""Merging two players and erasing one (ratings.people), through the services and through admin.

Expected ratings never come from the service under test: the merged ledger
is compared with the oracle's replay of a combined history the test writes
itself (the bodies it submitted, with the dropped player's id replaced by the
kept one's: built from the test's own list, not read back from the database),
and the smallest case is also worked by hand.
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from games.bridge.models import BoardTable
from leagues.models import Bot, Game, League, Player
from matches.models import AuditEntry, Seat
from matches.services import match_record
from ratings.models import PlayerRating, RatingChange
from ratings.people import player_erase, players_merge
from ratings.services import ratings_process_game, ratings_replay_all
from tests.factories import PlayerFactory, UserFactory, bridge_session_body
from tests.oracle import oracle_replay
from tests.oracle_db import ledger_diff, oracle_game_spec, oracle_result_from_body

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)


def _slaps(winner, loser, at):
    return {"game": "slaps", "played_at": at.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def _store(referee, bodies):
    matches = [match_record(referee=referee, data=body, queue_rating=False) for body in bodies]
    for game_id in {match.game_id for match in matches}:
        ratings_process_game(game_id=game_id)
    return matches


def _ledger(game=None):
    rows = RatingChange.objects.all() if game is None else RatingChange.objects.filter(game=game)
    return sorted(
        rows.values_list("match_id", "unit", "player_id", "rating_before", "rating_after", "delta", "league_after_id")
    )


def _ratings():
    return sorted(PlayerRating.objects.values_list("game_id", "player_id", "rating", "peak_rating", "rated_matches"))


def _swap(body, drop, keep):
    """The body as one person would have entered it: the test's own body, drop's id replaced where a body
    names players (``players``, ``winner``, a table's ``ns`` and ``ew``)."""

    def one(player):
        return keep.pk if player == drop.pk else player

    swapped = dict(body)
    if "players" in body:
        swapped["players"] = [one(player) for player in body["players"]]
    if "winner" in body:
        swapped["winner"] = one(body["winner"])
    if "boards" in body:
        swapped["boards"] = [
            {
                **board,
                "tables": [
                    {**table, "ns": [one(p) for p in table["ns"]], "ew": [one(p) for p in table["ew"]]}
                    for table in board["tables"]
                ],
            }
            for board in body["boards"]
        ]
    return swapped


def _oracle_diff(game, results):
    """Differences between the stored ledger and the oracle's replay of ``results`` ((match, body) pairs)."""
    game = Game.objects.get(pk=game.pk)
    amateur = League.objects.get(game=game, tier="amateur").slug
    specs = [
        oracle_result_from_body(match_id=match.pk, body=body, bots={}, default_league=amateur)
        for match, body in results
    ]
    outcome = oracle_replay(oracle_game_spec(game=game), specs, now=datetime.now(UTC))
    return ledger_diff(game=game, outcome=outcome)


# --- merging ----------------------------------------------------------------------------------


def test_two_slaps_records_of_one_person_merge_to_the_hand_worked_ratings(slaps, referee, admin_user):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    ann_again = PlayerFactory(name="Ann (again)")
    _store(referee, [_slaps(ann, bob, T0), _slaps(ann_again, bob, T0 + timedelta(days=1))])
    assert PlayerRating.objects.get(player=ann_again).rating == Decimal(1015)  # 1000 vs 984: +32(1 - 0.523)

    players_merge(keep=ann, drop=ann_again, by=admin_user)

    # By hand (seed 000): Ann beats Bob at 1000-1000: +16, 1016 / 984. Ann (1016) beats Bob (984) again:
    # E = 1 / (1 + 10^(-32/400)) = 0.54592, +32 x 0.45408 = 14.53: Ann 1030.53 -> 1031, Bob 969.47 -> 969.
    assert PlayerRating.objects.get(player=ann).rating == Decimal(1031)
    assert PlayerRating.objects.get(player=ann).rated_matches == 2
    assert PlayerRating.objects.get(player=bob).rating == Decimal(969)
    assert not Player.objects.filter(pk=ann_again.pk).exists()
    assert set(Seat.objects.filter(match__game=slaps).values_list("player_id", flat=True)) == {ann.pk, bob.pk}


def test_a_merged_slaps_history_is_the_oracles_combined_history(slaps, referee, admin_user):
    ann, bob, cid, dee = (PlayerFactory(name=name) for name in ["Ann", "Bob", "Cid", "Dee"])
    ann_again = PlayerFactory(name="A. Nother")
    people = [ann, bob, cid, dee, ann_again]
    # Every pairing but Ann against her other record (which would refuse the merge), round and round,
    # so the dropped record plays between the kept one's results.
    pairings = [(a, b) for i, a in enumerate(people) for b in people[i + 1 :] if {a, b} != {ann, ann_again}]
    bodies = []
    for n in range(40):
        first, second = pairings[n % len(pairings)]
        winner, loser = (first, second) if n % 3 else (second, first)
        bodies.append(_slaps(winner, loser, T0 + timedelta(hours=n)))
    matches = _store(referee, bodies)
    others = {p.pk: p.name for p in (bob, cid, dee)}

    players_merge(keep=ann, drop=ann_again, by=admin_user)

    combined = [(match, _swap(body, ann_again, ann)) for match, body in zip(matches, bodies, strict=True)]
    assert _oracle_diff(slaps, combined) == []
    assert PlayerRating.objects.get(player=ann).rated_matches == sum(ann.pk in b["players"] for _, b in combined)
    assert {p.pk: p.name for p in Player.objects.filter(pk__in=others)} == others


def test_merging_bridge_pairs_keeps_partners_in_order_and_is_the_oracles(referee, admin_user, reference_data):
    bridge = Game.objects.get(slug="bridge")
    keep_late = [PlayerFactory() for _ in range(8)]
    drop = keep_late[0]  # the lowest id: the kept player's id is higher, so each pair must be re-ordered
    keep = PlayerFactory(name="Kept")
    first = [drop.pk, *(p.pk for p in keep_late[1:])]
    second = [keep.pk, *(p.pk for p in keep_late[1:])]
    bodies = [
        bridge_session_body(first, T0, [(420, -50), (-100, 110)]),
        bridge_session_body(second, T0 + timedelta(days=7), [(620, 170), (-200, -200)]),
    ]
    matches = _store(referee, bodies)

    players_merge(keep=keep, drop=drop, by=admin_user)

    for table in BoardTable.objects.all():
        assert table.ns_1_id < table.ns_2_id
        assert table.ew_1_id < table.ew_2_id
    assert drop.pk not in set(BoardTable.objects.values_list("ns_1", flat=True))
    combined = [(matches[0], _swap(bodies[0], drop, keep)), (matches[1], bodies[1])]
    assert keep.pk in combined[0][1]["boards"][0]["tables"][0]["ns"]
    assert _oracle_diff(bridge, combined) == []


def test_a_merged_preferans_history_with_bots_is_the_oracles(referee, admin_user, reference_data):
    preferans = Game.objects.get(slug="preferans")
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    ann_again = PlayerFactory(name="Ann (club card)")
    tables = [[ann, bob, "normal"], [ann_again, cid, bob], [cid, ann, "hard", bob], [ann_again, "easy", cid]]
    bodies = []
    for index, seated in enumerate(tables * 3):
        seats = [{"bot": who} if isinstance(who, str) else {"player": who.pk} for who in seated]
        n = len(seats)
        deals = [[(2 * n - 2) * (1 if i == k else 0) - 2 * (0 if i == k else 1) for i in range(n)] for k in range(n)]
        body = {"game": "preferans", "played_at": (T0 + timedelta(hours=index)).isoformat()}
        bodies.append({**body, "seats": seats, "deals": deals})
    matches = _store(referee, bodies)

    players_merge(keep=ann, drop=ann_again, by=admin_user)

    bots = {bot.slug: (bot.rating, bot.max_rating) for bot in Bot.objects.filter(game=preferans)}
    amateur = League.objects.get(game=preferans, tier="amateur").slug
    combined = []
    for match, body in zip(matches, bodies, strict=True):
        seats = [{"player": ann.pk} if seat.get("player") == ann_again.pk else seat for seat in body["seats"]]
        combined.append(
            oracle_result_from_body(match_id=match.pk, body={**body, "seats": seats}, bots=bots, default_league=amateur)
        )
    outcome = oracle_replay(oracle_game_spec(game=preferans), combined, now=datetime.now(UTC))
    assert ledger_diff(game=preferans, outcome=outcome) == []
    assert PlayerRating.objects.get(player=ann, game=preferans).rated_matches > 0


def test_a_player_with_no_results_merges_without_a_replay(slaps, admin_user):
    ann, card = PlayerFactory(name="Ann"), PlayerFactory(name="Ann", federation_id="0007")
    players_merge(keep=ann, drop=card, by=admin_user)
    ann.refresh_from_db()
    assert ann.federation_id == "0007"
    assert AuditEntry.objects.get(action=AuditEntry.Action.MERGED).data["games"] == []


def test_the_merge_is_audited_with_both_ids_and_names(slaps, referee, admin_user):
    ann, bob = PlayerFactory(name="Ann", federation_id=""), PlayerFactory(name="Bob")
    ann_again = PlayerFactory(name="Ann S.", federation_id="00417")
    _store(referee, [_slaps(ann_again, bob, T0)])
    players_merge(keep=ann, drop=ann_again, by=admin_user)
    entry = AuditEntry.objects.get(action=AuditEntry.Action.MERGED)
    assert entry.actor == admin_user
    assert entry.match is None
    assert entry.at is not None
    assert entry.data["kept"] == {"id": ann.pk, "name": "Ann", "federation_id": ""}
    assert entry.data["dropped"] == {"id": ann_again.pk, "name": "Ann S.", "federation_id": "00417"}
    assert entry.data["games"] == [slaps.pk]
    ann.refresh_from_db()
    assert ann.federation_id == "00417"  # the kept player had none: the dropped one's number, leading zero kept


def _unchanged(action):
    """Run ``action``, which must be refused with a ValidationError, and show that nothing changed."""
    before = (_ledger(), _ratings(), sorted(Seat.objects.values_list("match_id", "player_id")))
    players = sorted(Player.objects.values_list("pk", "name", "federation_id", "user_id"))
    audit = AuditEntry.objects.count()
    with pytest.raises(ValidationError) as refused:
        action()
    after = (_ledger(), _ratings(), sorted(Seat.objects.values_list("match_id", "player_id")))
    assert after == before
    assert sorted(Player.objects.values_list("pk", "name", "federation_id", "user_id")) == players
    assert AuditEntry.objects.count() == audit
    return " ".join(message for messages in refused.value.message_dict.values() for message in messages)


def test_hostile_merges_are_refused_and_change_nothing(slaps, referee, admin_user):
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    _store(referee, [_slaps(ann, bob, T0), _slaps(cid, ann, T0 + timedelta(hours=1))])

    ann_too = Player.objects.get(pk=ann.pk)
    assert "themselves" in _unchanged(lambda: players_merge(keep=ann, drop=ann_too, by=admin_user))
    bot = Bot.objects.first()
    assert "bots are never merged" in _unchanged(lambda: players_merge(keep=ann, drop=bot, by=admin_user))
    assert "bots are never merged" in _unchanged(lambda: players_merge(keep=bot, drop=ann, by=admin_user))
    assert "(given: int)" in _unchanged(lambda: players_merge(keep=ann, drop=bob.pk, by=admin_user))
    message = _unchanged(lambda: players_merge(keep=ann, drop=bob, by=admin_user))
    assert "Both players sit in 1 match (" in message
    assert "nothing was merged" in message

    dee, eve = PlayerFactory(name="Dee", federation_id="111"), PlayerFactory(name="Eve", federation_id="222")
    assert "two numbers are two people" in _unchanged(lambda: players_merge(keep=dee, drop=eve, by=admin_user))
    dee.user, eve.user = UserFactory(), UserFactory()
    dee.federation_id = eve.federation_id = ""
    dee.save()
    eve.save()
    assert "each have a login" in _unchanged(lambda: players_merge(keep=dee, drop=eve, by=admin_user))

    player_erase(player=cid, by=admin_user)
    cid.refresh_from_db()
    assert "was erased" in _unchanged(lambda: players_merge(keep=bob, drop=cid, by=admin_user))
    assert "was erased" in _unchanged(lambda: players_merge(keep=cid, drop=dee, by=admin_user))


def test_two_players_at_one_bridge_session_are_not_merged(referee, admin_user, reference_data):
    people = [PlayerFactory() for _ in range(8)]
    _store(referee, [bridge_session_body([p.pk for p in people], T0, [(420, -50)])])
    # Different tables of one session: still one evening, one person cannot have sat at both.
    assert "Both players sit in" in _unchanged(lambda: players_merge(keep=people[0], drop=people[5], by=admin_user))


def test_only_admins_who_may_delete_players_merge_them(slaps, referee, admin_user):
    ann, ann_again = PlayerFactory(), PlayerFactory()
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="change_player"))
    for user in (referee, staff):
        with pytest.raises(PermissionDenied):
            players_merge(keep=ann, drop=ann_again, by=user)
        with pytest.raises(PermissionDenied):
            player_erase(player=ann, by=referee)
    assert Player.objects.filter(pk=ann_again.pk).exists()


def test_a_login_moves_to_the_player_kept(slaps, referee, admin_user):
    ann, ann_again = PlayerFactory(), PlayerFactory(user=UserFactory(username="ann"))
    _store(referee, [_slaps(ann_again, PlayerFactory(), T0)])
    players_merge(keep=ann, drop=ann_again, by=admin_user)
    ann.refresh_from_db()
    assert ann.user.username == "ann"


# --- erasing ----------------------------------------------------------------------------------


def test_erasing_keeps_results_and_every_rating(slaps, referee, admin_user):
    people = [PlayerFactory(name=f"Person {n}") for n in range(5)]
    gone = PlayerFactory(name="Zoë Privacy", federation_id="0099", user=UserFactory(username="zoe"))
    people.append(gone)
    bodies = [
        _slaps(people[n % 6], people[(n * 5 + 1) % 6], T0 + timedelta(hours=n))
        for n in range(36)
        if n % 6 != (n * 5 + 1) % 6
    ]
    _store(referee, bodies)
    ledger, ratings, seats = _ledger(), _ratings(), sorted(Seat.objects.values_list("match_id", "player_id"))
    assert any(row[2] == gone.pk for row in ledger)

    erased = player_erase(player=gone, by=admin_user)

    assert erased.name == f"Erased player #{gone.pk}"
    assert erased.federation_id == ""
    assert erased.user is None
    assert erased.erased_at is not None
    assert (_ledger(), _ratings()) == (ledger, ratings)  # every change of every player, the erased one's too
    assert sorted(Seat.objects.values_list("match_id", "player_id")) == seats
    ratings_replay_all(game_id=slaps.pk)  # and a replay from the results gives them again
    assert (_ledger(), _ratings()) == (ledger, ratings)

    entry = AuditEntry.objects.get(action=AuditEntry.Action.ERASED)
    assert entry.actor == admin_user
    assert entry.data["player"] == gone.pk
    everything = json.dumps(list(AuditEntry.objects.values_list("data", flat=True)), ensure_ascii=False)
    assert "Zoë" not in everything
    assert "0099" not in everything

    at = erased.erased_at
    again = player_erase(player=erased, by=admin_user)  # idempotent: nothing changes, nothing is logged
    assert again.erased_at == at
    assert AuditEntry.objects.filter(action=AuditEntry.Action.ERASED).count() == 1


def test_erasing_takes_the_name_out_of_the_merges_that_named_them(slaps, referee, admin_user):
    ann, first, second = PlayerFactory(name="Ann Kept"), PlayerFactory(name="Ann One"), PlayerFactory(name="Ann Two")
    bob = PlayerFactory(name="Bob")
    _store(referee, [_slaps(first, bob, T0), _slaps(second, bob, T0 + timedelta(hours=1))])
    players_merge(keep=first, drop=second, by=admin_user)  # Ann Two into Ann One,
    players_merge(keep=ann, drop=first, by=admin_user)  # then Ann One into Ann Kept
    unrelated = PlayerFactory(name="Cid")
    players_merge(keep=bob, drop=unrelated, by=admin_user)

    player_erase(player=ann, by=admin_user)

    everything = json.dumps(list(AuditEntry.objects.values_list("data", flat=True)))
    assert "Ann" not in everything
    assert "Bob" in everything
    assert "Cid" in everything
    erased = AuditEntry.objects.get(action=AuditEntry.Action.ERASED)
    assert erased.data == {"player": ann.pk, "merged_into_them": sorted([first.pk, second.pk])}


def test_an_erased_name_leaves_the_cached_pages(slaps, referee, admin_user):
    gone, bob = PlayerFactory(name="Quentin Privacy"), PlayerFactory(name="Bob")
    _store(referee, [_slaps(gone, bob, T0)])
    client = Client()
    league = League.objects.get(game=slaps, tier="amateur")
    for url in (league.get_absolute_url(), bob.get_absolute_url()):
        assert "Quentin Privacy" in client.get(url).content.decode()  # cached now
    player_erase(player=gone, by=admin_user)
    for url in (league.get_absolute_url(), bob.get_absolute_url()):
        page = client.get(url).content.decode()
        assert "Quentin Privacy" not in page
        assert f"Erased player #{gone.pk}" in page


# --- admin ------------------------------------------------------------------------------------


def _admin(user):
    browser = Client()
    browser.force_login(user)
    return browser


CHANGELIST = "/admin/leagues/player/"


def test_admin_merges_two_selected_players_after_a_confirmation(slaps, referee, admin_user):
    ann, ann_again, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Ann Again"), PlayerFactory(name="Bob")
    _store(referee, [_slaps(ann, bob, T0), _slaps(ann_again, bob, T0 + timedelta(hours=1)), _slaps(bob, ann, T0)])
    browser = _admin(admin_user)
    selected = {"action": "merge_players", "_selected_action": [ann.pk, ann_again.pk]}

    page = browser.post(CHANGELIST, selected)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Which player to keep" in text
    assert "Ann Again" in text
    rows = {player: results for player, results, _ in page.context["players"]}
    assert rows == {ann: 2, ann_again: 1}  # each one's results count
    assert Player.objects.filter(pk=ann_again.pk).exists()  # nothing merged before the confirmation

    done = browser.post(CHANGELIST, {**selected, "confirm": "merge", "keep": ann_again.pk}, follow=True)
    assert "Ann was merged into Ann Again" in done.content.decode()
    assert not Player.objects.filter(pk=ann.pk).exists()
    assert PlayerRating.objects.get(player=ann_again).rated_matches == 3


def test_admin_merge_asks_for_exactly_two_and_shows_refusals(slaps, referee, admin_user):
    ann, bob, cid = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cid")
    _store(referee, [_slaps(ann, bob, T0)])
    browser = _admin(admin_user)
    for chosen in ([ann.pk], [ann.pk, bob.pk, cid.pk]):
        page = browser.post(CHANGELIST, {"action": "merge_players", "_selected_action": chosen}, follow=True)
        assert "Select exactly two players to merge." in page.content.decode()
    confirm = {"action": "merge_players", "confirm": "merge"}
    refused = browser.post(CHANGELIST, {**confirm, "_selected_action": [ann.pk, bob.pk], "keep": ann.pk})
    assert refused.status_code == 400
    assert "Both players sit in 1 match (" in refused.content.decode()
    assert Player.objects.filter(pk=bob.pk).exists()
    neither = browser.post(CHANGELIST, {**confirm, "_selected_action": [ann.pk, cid.pk], "keep": bob.pk})
    assert neither.status_code == 400
    assert "Choose the player to keep." in neither.content.decode()


def _names():
    return sorted(Player.objects.values_list("pk", "name", "federation_id", "user_id"))


def test_the_erase_action_alone_only_asks_and_erases_nothing(slaps, referee, admin_user):
    """The action shows a confirmation page: each player by name with their results count (two and one here,
    stored by the test), what erasing changes and keeps, Confirm and Cancel. It changes no player, no log."""
    ann = PlayerFactory(name="Ann Private", federation_id="77", user=UserFactory(username="ann"))
    bob, cid = PlayerFactory(name="Bob Quiet"), PlayerFactory(name="Cid Idle")
    _store(referee, [_slaps(ann, bob, T0), _slaps(bob, ann, T0 + timedelta(hours=1))])
    before = _names()
    browser = _admin(admin_user)

    page = browser.post(CHANGELIST, {"action": "erase_players", "_selected_action": [ann.pk, cid.pk]})

    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert "Erase 2 players?" in text
    assert f'<tr id="erase-{ann.pk}">\n      <th scope="row">Ann Private</th>' in text
    assert f'<tr id="erase-{cid.pk}">\n      <th scope="row">Cid Idle</th>' in text
    assert "Bob Quiet" not in text  # only the players selected
    rows = {player.name: (results, new_name) for player, results, _, new_name in page.context["players"]}
    assert rows == {"Ann Private": (2, f"Erased player #{ann.pk}"), "Cid Idle": (0, f"Erased player #{cid.pk}")}
    assert "It cannot be undone" in text
    assert "every result and every rating, under the new name" in text
    assert 'name="confirm" value="erase"' in text
    assert 'value="Confirm: erase 2 players"' in text
    assert 'href="/admin/leagues/player/" class="button cancel-link">Cancel</a>' in text
    assert _names() == before
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.ERASED).exists()


def test_admin_erases_selected_players_once_confirmed(slaps, referee, admin_user):
    ann = PlayerFactory(name="Ann Private", federation_id="77")
    bob = PlayerFactory(name="Bob Kept")
    _store(referee, [_slaps(ann, bob, T0)])
    ledger = _ledger()
    browser = _admin(admin_user)
    browser.post(
        f"/admin/leagues/player/{ann.pk}/change/",
        {"name": "Ann Private", "federation_id": "77", "ratings-TOTAL_FORMS": "0", "ratings-INITIAL_FORMS": "0"},
    )
    assert LogEntry.objects.filter(object_id=str(ann.pk), object_repr="Ann Private").exists()

    done = browser.post(
        CHANGELIST, {"action": "erase_players", "_selected_action": [ann.pk], "confirm": "erase"}, follow=True
    )

    assert "Erased 1 player: their name and numbers are gone, their results and ratings stay." in html.unescape(
        done.content.decode()
    )
    ann.refresh_from_db()
    assert ann.name == f"Erased player #{ann.pk}"
    assert ann.federation_id == ""
    assert _ledger() == ledger
    assert Player.objects.get(pk=bob.pk).name == "Bob Kept"
    # Admin's own history of the record keeps no old name either.
    assert not LogEntry.objects.filter(object_repr__contains="Ann Private").exists()
    assert LogEntry.objects.filter(object_id=str(ann.pk), object_repr=f"Erased player #{ann.pk}").exists()

    again = browser.post(CHANGELIST, {"action": "erase_players", "_selected_action": [ann.pk]})
    assert "erased already: unchanged" in again.content.decode()
    assert 'value="Confirm: erase' not in again.content.decode()  # nothing left to confirm


def test_staff_without_the_permissions_cannot_merge_or_erase_in_admin(slaps, referee):
    ann, ann_again = PlayerFactory(name="Ann"), PlayerFactory(name="Ann Again")
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_player", "change_player"]))
    browser = _admin(staff)
    changelist = browser.get(CHANGELIST).content.decode()
    assert "erase_players" in changelist
    assert "merge_players" not in changelist
    browser.post(
        CHANGELIST,
        {"action": "merge_players", "_selected_action": [ann.pk, ann_again.pk], "confirm": "merge", "keep": ann.pk},
    )
    assert Player.objects.filter(pk=ann_again.pk).exists()
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_player"))
    viewer_browser = _admin(viewer)
    assert "erase_players" not in viewer_browser.get(CHANGELIST).content.decode()
    for step in ({}, {"confirm": "erase"}):  # neither the page that asks nor the confirmation
        answer = viewer_browser.post(CHANGELIST, {"action": "erase_players", "_selected_action": [ann.pk], **step})
        assert "Erase 1 player?" not in answer.content.decode()
    ann.refresh_from_db()
    assert ann.name == "Ann"
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.ERASED).exists()


def test_admin_renames_and_numbers_a_player_through_the_rules(slaps, admin_user):
    ann = PlayerFactory(name="Ann")
    PlayerFactory(name="Bob", federation_id="0042")
    browser = _admin(admin_user)
    url = f"/admin/leagues/player/{ann.pk}/change/"
    form = {"name": "  Ann   Smith ", "federation_id": "0041", "ratings-TOTAL_FORMS": 0, "ratings-INITIAL_FORMS": 0}
    assert browser.post(url, form).status_code == 302
    ann.refresh_from_db()
    assert (ann.name, ann.federation_id) == ("Ann Smith", "0041")
    for name, number, error in [("   ", "", "This field is required"), ("Ann", "0042", "Another player has")]:
        page = browser.post(url, {**form, "name": name, "federation_id": number})
        assert page.status_code == 200
        assert error in page.content.decode()
    ann.refresh_from_db()
    assert (ann.name, ann.federation_id) == ("Ann Smith", "0041")


@pytest.mark.postgres  # the append-only trigger (matches/migrations/0007) is PostgreSQL's only
def test_the_log_stays_append_only_outside_an_erasure(slaps, referee, admin_user):
    from django.db import connection, transaction
    from django.db.utils import ProgrammingError

    ann, ann_again = PlayerFactory(name="Ann"), PlayerFactory(name="Ann Again")
    _store(referee, [_slaps(ann_again, PlayerFactory(), T0)])
    players_merge(keep=ann, drop=ann_again, by=admin_user)
    merged = AuditEntry.objects.filter(action=AuditEntry.Action.MERGED)
    submitted = AuditEntry.objects.filter(action=AuditEntry.Action.SUBMITTED)
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        merged.update(data={})  # not erasing: refused
    with connection.cursor() as cursor:  # as an erasure does, for the rest of the test's transaction
        cursor.execute("SELECT set_config('cardrank.erasing', 'on', true)")
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        submitted.update(data={})  # erasing, but a result's entry: refused
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        merged.delete()  # never deleted
    assert merged.get().data["dropped"]["name"] == "Ann Again"
