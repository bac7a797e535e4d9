"""Erasing a person (``ratings.people.player_erase``, the real service) removes their claims: those of the
erased player and every claim the linked account made (issue 27)."""

import pytest

from people.models import PlayerClaim
from people.services import claim_decide, claim_request
from ratings.people import player_erase
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_erasing_a_player_removes_every_claim_of_them_and_of_their_person(referee, admin_user):
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    player, other = PlayerFactory(name="Ann Lee"), PlayerFactory(name="Someone Else")
    refused = claim_request(user=ann, player=other, message="Maybe this one?")
    claim_decide(claim_id=refused.pk, by=referee, approve=False, reason="No.")
    approved = claim_request(user=ann, player=player, message="It's me, Ann Lee.")
    rival = claim_request(user=bob, player=player)
    claim_decide(claim_id=approved.pk, by=referee, approve=True)
    unrelated = claim_request(user=UserFactory(username="cid"), player=PlayerFactory())
    assert PlayerClaim.objects.count() == 4

    player_erase(player=player, by=admin_user)

    # Ann's claims (of any player), and every claim of the erased player (Bob's refused one too), are gone.
    assert list(PlayerClaim.objects.values_list("pk", flat=True)) == [unrelated.pk]
    assert not PlayerClaim.objects.filter(pk__in=[refused.pk, approved.pk, rival.pk]).exists()


def test_erasing_an_unclaimed_player_keeps_others_claims(admin_user, reference_data):
    player, elsewhere = PlayerFactory(), PlayerFactory()
    kept = claim_request(user=UserFactory(username="eve"), player=elsewhere)
    player_erase(player=player, by=admin_user)
    assert list(PlayerClaim.objects.values_list("pk", flat=True)) == [kept.pk]
