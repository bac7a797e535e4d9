"""Claims of player records (issue 27), through ``people.services``, the one place that writes them: a
person asks, a referee or an admin decides, the link is ``Player.user``. Every refusal is a clear error and
changes nothing; the database backs the rules when the service is bypassed."""

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from leagues.models import Player
from people.models import PlayerClaim
from people.services import claim_decide, claim_request, claim_withdraw, player_unclaim
from tests.factories import PlayerFactory, RefereeFactory, UserFactory

pytestmark = pytest.mark.django_db


def _state():
    """Everything a claim service may write: the claims and every player's link."""
    return (
        sorted(
            PlayerClaim.objects.values_list(
                "pk", "user_id", "player_id", "status", "message", "reason", "decided_at", "decided_by_id"
            )
        ),
        sorted(Player.objects.values_list("pk", "user_id")),
    )


def _refused(call, error=ValidationError) -> str:
    """The call is refused with ``error``, writes nothing, and says why (returned)."""
    before = _state()
    with pytest.raises(error) as refusal:
        call()
    assert _state() == before
    return " ".join(refusal.value.messages) if error is ValidationError else str(refusal.value)


@pytest.fixture
def ann():
    return UserFactory(username="ann")


@pytest.fixture
def player():
    return PlayerFactory(name="Ann Lee")


def test_a_person_claims_a_player_and_a_referee_approves(ann, player, referee):
    claim = claim_request(user=ann, player=player, message="  I play on Tuesdays.  ")
    assert (claim.status, claim.message, claim.decided_at, claim.decided_by) == (
        "pending",
        "I play on Tuesdays.",
        None,
        None,
    )
    player.refresh_from_db()
    assert player.user is None  # asking links nothing

    decided = claim_decide(claim_id=claim.pk, by=referee, approve=True)

    player.refresh_from_db()
    assert player.user == ann
    assert (decided.status, decided.decided_by) == ("approved", referee)
    assert decided.decided_at is not None
    assert PlayerClaim.objects.get(pk=claim.pk).status == "approved"


def test_an_admin_who_may_change_players_decides_too(ann, player, reference_data):
    staff = UserFactory(username="staff", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="change_player", content_type__app_label="leagues"))
    claim = claim_request(user=ann, player=player)
    claim_decide(claim_id=claim.pk, by=staff, approve=False, reason="Not the same Ann.")
    assert PlayerClaim.objects.get(pk=claim.pk).reason == "Not the same Ann."
    player.refresh_from_db()
    assert player.user is None


def test_approving_refuses_the_other_waiting_claims_of_that_player(ann, player, referee):
    bob, cid = UserFactory(username="bob"), UserFactory(username="cid")
    mine = claim_request(user=ann, player=player)
    others = [claim_request(user=bob, player=player), claim_request(user=cid, player=player)]
    elsewhere = claim_request(user=UserFactory(username="dee"), player=PlayerFactory())

    claim_decide(claim_id=mine.pk, by=referee, approve=True)

    for other in others:
        other.refresh_from_db()
        assert other.status == "refused"
        assert other.reason == "Another person's claim of this player was approved."
        assert other.decided_by == referee
    elsewhere.refresh_from_db()
    assert elsewhere.status == "pending"


def test_a_claim_of_an_already_claimed_player_is_refused(ann, player):
    player.user = UserFactory(username="owner")
    player.save()
    assert "That player is already claimed" in _refused(lambda: claim_request(user=ann, player=player))


def test_asking_twice_stores_one_claim(ann, player):
    claim_request(user=ann, player=player)
    assert "already asked for this player" in _refused(lambda: claim_request(user=ann, player=player))
    other = PlayerFactory()
    assert "withdraw that claim first" in _refused(lambda: claim_request(user=ann, player=other))
    assert PlayerClaim.objects.count() == 1


def test_a_person_with_a_player_claims_no_other(ann, player):
    PlayerFactory(user=ann)
    assert "You already have a player" in _refused(lambda: claim_request(user=ann, player=player))


def test_an_erased_player_is_not_claimed(ann, player):
    Player.objects.filter(pk=player.pk).update(erased_at=timezone.now())
    player.refresh_from_db()
    assert "erased" in _refused(lambda: claim_request(user=ann, player=player))


@pytest.mark.parametrize(
    "who",
    [
        lambda: None,
        lambda: __import__("django.contrib.auth.models", fromlist=["AnonymousUser"]).AnonymousUser(),
        lambda: UserFactory(username="gone", is_active=False),
    ],
    ids=["nobody", "anonymous", "inactive"],
)
def test_only_a_signed_in_active_person_claims(who, player):
    assert "Sign in" in _refused(lambda: claim_request(user=who(), player=player), PermissionDenied)


@pytest.mark.parametrize(
    ("target", "message", "field"),
    [
        (None, "", "player"),  # what a page would pass for a player that is not there
        (7, "", "player"),
        ("Ann Lee", "", "player"),
        ("stored", "x" * 501, "message"),
        ("stored", 12, "message"),
        ("stored", "hi\x00there", "message"),
        ("stored", "bell\x07", "message"),
    ],
)
def test_hostile_input_is_refused_by_field(ann, player, target, message, field):
    target = player if target == "stored" else target
    before = _state()
    with pytest.raises(ValidationError) as refusal:
        claim_request(user=ann, player=target, message=message)
    assert set(refusal.value.message_dict) == {field}
    assert _state() == before


def test_a_message_of_500_characters_is_kept_whole(ann, player):
    assert claim_request(user=ann, player=player, message="é" * 500).message == "é" * 500


def test_deciding_twice_is_a_clear_no_op(ann, player, referee):
    claim = claim_request(user=ann, player=player)
    claim_decide(claim_id=claim.pk, by=referee, approve=False, reason="Who are you?")
    second = RefereeFactory()
    assert "already decided (refused)" in _refused(lambda: claim_decide(claim_id=claim.pk, by=second, approve=True))
    assert "already decided" in _refused(lambda: claim_decide(claim_id=claim.pk, by=referee, approve=False))


def test_a_referee_never_decides_their_own_claim(player, referee):
    claim = claim_request(user=referee, player=player)
    assert "their own claim" in _refused(
        lambda: claim_decide(claim_id=claim.pk, by=referee, approve=True), PermissionDenied
    )


def test_a_person_who_is_no_referee_decides_nothing(ann, player):
    claim = claim_request(user=ann, player=player)
    for who in (UserFactory(username="eve"), UserFactory(username="staff", is_staff=True), None):
        assert "Only referees and admins" in _refused(
            lambda who=who: claim_decide(claim_id=claim.pk, by=who, approve=True), PermissionDenied
        )


@pytest.mark.parametrize("claim_id", [None, "1", 1.0, True, 10**9])
def test_deciding_a_claim_that_is_not_there(claim_id, referee):
    before = _state()
    with pytest.raises(ValidationError) as refusal:
        claim_decide(claim_id=claim_id, by=referee, approve=True)
    assert set(refusal.value.message_dict) == {"claim"}
    assert _state() == before


@pytest.mark.parametrize(("approve", "reason"), [("yes", ""), (1, ""), (False, "r" * 201), (False, ["a"])])
def test_a_decision_must_be_plain(ann, player, referee, approve, reason):
    claim = claim_request(user=ann, player=player)
    _refused(lambda: claim_decide(claim_id=claim.pk, by=referee, approve=approve, reason=reason))


def test_approving_refuses_when_the_player_was_linked_meanwhile(ann, player, referee):
    claim = claim_request(user=ann, player=player)
    Player.objects.filter(pk=player.pk).update(user=UserFactory(username="quick"))
    assert "already claimed" in _refused(lambda: claim_decide(claim_id=claim.pk, by=referee, approve=True))


def test_approving_refuses_when_the_person_got_a_player_meanwhile(ann, player, referee):
    claim = claim_request(user=ann, player=player)
    PlayerFactory(user=ann)
    assert "has a player already" in _refused(lambda: claim_decide(claim_id=claim.pk, by=referee, approve=True))


def test_a_person_withdraws_their_claim_and_may_ask_again(ann, player, referee):
    claim = claim_request(user=ann, player=player)
    assert "Only the person who asked" in _refused(
        lambda: claim_withdraw(claim_id=claim.pk, by=referee), PermissionDenied
    )
    claim_withdraw(claim_id=claim.pk, by=ann)
    claim.refresh_from_db()
    assert (claim.status, claim.decided_by) == ("withdrawn", ann)
    assert "already decided (withdrawn)" in _refused(lambda: claim_withdraw(claim_id=claim.pk, by=ann))
    assert "already decided" in _refused(lambda: claim_decide(claim_id=claim.pk, by=referee, approve=True))
    again = claim_request(user=ann, player=player)
    assert again.pk != claim.pk


def test_unclaiming_by_the_person_or_an_admin_only(ann, player, referee, admin_user):
    player.user = ann
    player.save()
    assert "Only the person themself or an admin" in _refused(
        lambda: player_unclaim(player=player, by=referee), PermissionDenied
    )
    player_unclaim(player=player, by=ann)
    player.refresh_from_db()
    assert player.user is None
    assert "not claimed" in _refused(lambda: player_unclaim(player=player, by=ann))
    player.user = ann
    player.save()
    player_unclaim(player=player, by=admin_user)
    player.refresh_from_db()
    assert player.user is None


# --- the database backs the rules when the service is bypassed ------------------------------------------------


def test_two_waiting_claims_of_one_person_are_refused_by_the_database(ann, player):
    PlayerClaim.objects.create(user=ann, player=player)
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerClaim.objects.create(user=ann, player=PlayerFactory())
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerClaim.objects.create(user=ann, player=player)
    # Decided claims are history: any number of them.
    now = timezone.now()
    PlayerClaim.objects.create(user=ann, player=player, status="refused", decided_at=now, decided_by=ann)
    PlayerClaim.objects.create(user=ann, player=player, status="withdrawn", decided_at=now, decided_by=ann)
    assert PlayerClaim.objects.count() == 3


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "approved"},  # decided, but not when nor by whom
        {"status": "refused", "decided_at": "now"},
        {"status": "pending", "decided_at": "now", "decided_by": "self"},
        {"status": "maybe", "decided_at": "now", "decided_by": "self"},
        {"message": "x" * 501},
        {"reason": "x" * 201},
    ],
)
def test_the_database_refuses_an_inconsistent_claim(ann, player, fields):
    values = {
        name: timezone.now() if value == "now" else ann if value == "self" else value for name, value in fields.items()
    }
    # PostgreSQL refuses an over-long text by its column's length (DataError), SQLite by a CHECK constraint.
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        PlayerClaim.objects.create(user=ann, player=player, **values)
    assert not PlayerClaim.objects.exists()


def test_one_person_is_one_player_in_the_database(ann, player):
    PlayerFactory(user=ann)
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.filter(pk=player.pk).update(user=ann)
