"""Reads of claims, for the pages: what a viewer's claim looks like beside a player, and the waiting ones."""

from __future__ import annotations

from django.db.models import QuerySet

from leagues.models import Player
from people.models import PlayerClaim


def claims_pending() -> QuerySet[PlayerClaim]:
    """Waiting claims, oldest first, with their person and player (page them)."""
    return (
        PlayerClaim.objects.filter(status=PlayerClaim.Status.PENDING)
        .select_related("user", "player")
        .order_by("created_at", "id")
    )


def claims_pending_count() -> int:
    return PlayerClaim.objects.filter(status=PlayerClaim.Status.PENDING).count()


def claim_pending_of(*, user_id: int) -> PlayerClaim | None:
    """The person's waiting claim (at most one), with its player."""
    return (
        PlayerClaim.objects.filter(user_id=user_id, status=PlayerClaim.Status.PENDING).select_related("player").first()
    )


def claim_latest_of(*, user_id: int) -> PlayerClaim | None:
    """The person's latest claim, whatever its status, with its player."""
    return PlayerClaim.objects.filter(user_id=user_id).select_related("player").order_by("-created_at", "-id").first()


def claim_last_decided_of(*, user_id: int, player_id: int) -> PlayerClaim | None:
    """The person's latest refused claim of this player, so the page can say why."""
    return (
        PlayerClaim.objects.filter(user_id=user_id, player_id=player_id, status=PlayerClaim.Status.REFUSED)
        .order_by("-decided_at", "-id")
        .first()
    )


def person_label(user) -> str:
    """How the claims list names a person to a referee: their full name, else their username, never an email
    address (a username that is one shows only what comes before the "@")."""
    label = (user.get_full_name() or user.get_username()).strip()
    return label.split("@", 1)[0] if "@" in label else label


def player_of(*, user_id: int) -> Player | None:
    return Player.objects.filter(user_id=user_id).first()
