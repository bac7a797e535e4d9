"""What people hears from the apps below: an erasure removes the person's claims."""

from django.db.models import Q

from people.models import PlayerClaim


def claims_forget(*, ids, user_id=None, **kwargs) -> None:
    """``ratings.people.player_erased``: every claim of the erased player (and of those merged into them),
    and every claim the linked account made, go; inside the erasure's transaction, so both or neither."""
    found = Q(player_id__in=list(ids))
    if user_id is not None:
        found |= Q(user_id=user_id)
    PlayerClaim.objects.filter(found).delete()
