"""Claims of player records: the one place that writes them (pages, admin and tests call these).

A person asks (``claim_request``), a referee or an admin decides
(``claim_decide``), the person may withdraw a waiting claim
(``claim_withdraw``), and the link may be undone (``player_unclaim``). The
link itself is ``leagues.Player.user``; approving sets it.

Who: the person is any signed-in, active account. A *decider* is a referee
(``config.permissions.user_can_submit``) or an admin who may change players
(``leagues.change_player``); nobody decides their own claim.

Errors: a refusal the person can act on is a ``ValidationError`` by field
(``player``, ``message``, ``claim``, ``reason``), someone acting outside their
role gets ``PermissionDenied``; either way nothing is written. Deciding a
decided claim is such a refusal, so a double click stores one decision.

Locks: approving locks the claim, then the player, then the person's account
(``select_for_update``, in that order everywhere here), so two referees
approving two people's claims of one player, or one person's claims of two
players, cannot both win; ``Player.user``'s unique index backs it anyway.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.permissions import user_can_submit
from leagues.models import Player
from people.models import MESSAGE_MAX_LENGTH, REASON_MAX_LENGTH, PlayerClaim

DECIDE_PERMISSION = "leagues.change_player"


def _signed_in(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def user_can_decide_claims(user) -> bool:
    """A referee, or an admin who may change players."""
    return user_can_submit(user) or (_signed_in(user) and user.has_perm(DECIDE_PERMISSION))


def _text(value, *, field: str, limit: int) -> str:
    """A short free text: a string (or nothing), trimmed, within ``limit`` characters, no control characters."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError({field: [_("Write it as text.")]})
    value = value.strip().replace("\r\n", "\n")
    if len(value) > limit:
        problem = _("Keep it to %(limit)d characters (this is %(length)d).")
        raise ValidationError({field: [problem % {"limit": limit, "length": len(value)}]})
    if any(ord(char) < 32 and char not in "\n\t" for char in value):
        raise ValidationError({field: [_("It holds control characters; write plain text.")]})
    return value


def _claim_locked(claim_id) -> PlayerClaim:
    if isinstance(claim_id, bool) or not isinstance(claim_id, int):
        raise ValidationError({"claim": [_("Name the claim by its number.")]})
    claim = PlayerClaim.objects.select_for_update().filter(pk=claim_id).first()
    if claim is None:
        raise ValidationError({"claim": [_("That claim no longer exists.")]})
    return claim


def _still_pending(claim: PlayerClaim) -> None:
    if claim.status != PlayerClaim.Status.PENDING:
        problem = _("This claim was already decided (%(status)s); nothing changed.")
        raise ValidationError({"claim": [problem % {"status": claim.get_status_display()}]})


def claim_request(*, user, player: Player, message: str = "") -> PlayerClaim:
    """``user`` asks to be recognised as ``player``: a waiting claim, for a referee or an admin to decide."""
    if not _signed_in(user):
        raise PermissionDenied(_("Sign in to claim a player."))
    if not isinstance(player, Player) or player.pk is None:
        raise ValidationError({"player": [_("Choose a player from the site.")]})
    message = _text(message, field="message", limit=MESSAGE_MAX_LENGTH)
    with transaction.atomic():
        locked = Player.objects.select_for_update().filter(pk=player.pk).first()
        if locked is None:
            raise ValidationError({"player": [_("That player no longer exists.")]})
        if locked.erased_at is not None:
            raise ValidationError({"player": [_("That player was erased: nobody can claim them.")]})
        if locked.user_id is not None:
            if locked.user_id == user.pk:
                raise ValidationError({"player": [_("That player is already yours.")]})
            raise ValidationError({"player": [_("That player is already claimed.")]})
        if Player.objects.filter(user_id=user.pk).exists():
            raise ValidationError({"player": [_("You already have a player; a person is one player.")]})
        waiting = PlayerClaim.objects.filter(user_id=user.pk, status=PlayerClaim.Status.PENDING).first()
        if waiting is not None:
            if waiting.player_id == locked.pk:
                raise ValidationError({"player": [_("You already asked for this player; a referee will decide.")]})
            raise ValidationError(
                {"player": [_("You already asked for another player; withdraw that claim first (one at a time).")]}
            )
        try:
            with transaction.atomic():
                return PlayerClaim.objects.create(user_id=user.pk, player=locked, message=message)
        except IntegrityError:
            # Another request of the same person won the race between the check and the insert.
            raise ValidationError({"player": [_("You already asked for a player; a referee will decide.")]}) from None


def claim_decide(*, claim_id: int, by, approve: bool, reason: str = "") -> PlayerClaim:
    """Approve (link the person to the player) or refuse a waiting claim. Approving refuses, with a reason,
    every other waiting claim of that player. Returns the claim, decided."""
    if not user_can_decide_claims(by):
        raise PermissionDenied(_("Only referees and admins decide claims."))
    if not isinstance(approve, bool):
        raise ValidationError({"approve": [_("Approve or refuse: nothing else.")]})
    reason = _text(reason, field="reason", limit=REASON_MAX_LENGTH)
    now = timezone.now()
    with transaction.atomic():
        claim = _claim_locked(claim_id)
        if claim.user_id == by.pk:
            raise PermissionDenied(_("Nobody decides their own claim: another referee or an admin will."))
        _still_pending(claim)
        if not approve:
            claim.status, claim.reason = PlayerClaim.Status.REFUSED, reason
            claim.decided_at, claim.decided_by = now, by
            claim.save(update_fields=["status", "reason", "decided_at", "decided_by"])
            return claim
        player = Player.objects.select_for_update().get(pk=claim.player_id)
        person = get_user_model().objects.select_for_update().get(pk=claim.user_id)
        if player.erased_at is not None:
            raise ValidationError({"claim": [_("That player was erased meanwhile; refuse the claim.")]})
        if player.user_id is not None:
            raise ValidationError({"claim": [_("That player is already claimed; refuse the claim.")]})
        if Player.objects.filter(user_id=person.pk).exists():
            raise ValidationError({"claim": [_("That person has a player already; refuse the claim.")]})
        if not person.is_active:
            raise ValidationError({"claim": [_("That person's account is no longer active; refuse the claim.")]})
        player.user = person
        try:
            with transaction.atomic():
                player.save(update_fields=["user"])  # the cached pages' versions move with it (ratings.receivers)
        except IntegrityError:
            raise ValidationError({"claim": [_("That person was linked to a player meanwhile.")]}) from None
        claim.status, claim.reason = PlayerClaim.Status.APPROVED, ""
        claim.decided_at, claim.decided_by = now, by
        claim.save(update_fields=["status", "reason", "decided_at", "decided_by"])
        PlayerClaim.objects.filter(player_id=player.pk, status=PlayerClaim.Status.PENDING).exclude(pk=claim.pk).update(
            status=PlayerClaim.Status.REFUSED,
            reason=_("Another person's claim of this player was approved.")[:REASON_MAX_LENGTH],
            decided_at=now,
            decided_by=by,
        )
    return claim


def claim_withdraw(*, claim_id: int, by) -> PlayerClaim:
    """The person takes back their own waiting claim."""
    if not _signed_in(by):
        raise PermissionDenied(_("Sign in to withdraw your claim."))
    with transaction.atomic():
        claim = _claim_locked(claim_id)
        if claim.user_id != by.pk:
            raise PermissionDenied(_("Only the person who asked may withdraw a claim."))
        _still_pending(claim)
        claim.status, claim.decided_at, claim.decided_by = PlayerClaim.Status.WITHDRAWN, timezone.now(), by
        claim.save(update_fields=["status", "decided_at", "decided_by"])
    return claim


def player_unclaim(*, player: Player, by) -> Player:
    """Undo the link between a player and their person: by that person, or an admin who may change players.
    The claims stay as history; the person may claim again."""
    if not _signed_in(by):
        raise PermissionDenied(_("Sign in first."))
    if not isinstance(player, Player) or player.pk is None:
        raise ValidationError({"player": [_("Choose a player from the site.")]})
    with transaction.atomic():
        locked = Player.objects.select_for_update().filter(pk=player.pk).first()
        if locked is None:
            raise ValidationError({"player": [_("That player no longer exists.")]})
        if locked.user_id is None:
            raise ValidationError({"player": [_("That player is not claimed; nothing changed.")]})
        if locked.user_id != by.pk and not by.has_perm(DECIDE_PERMISSION):
            raise PermissionDenied(_("Only the person themself or an admin may undo a claim."))
        locked.user = None
        locked.save(update_fields=["user"])
    return locked
