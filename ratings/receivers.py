"""Receivers of admin edits that change cached pages without a rating change: they bump versions.

Writes, so apart from ``ratings.caching``, which selectors read through; connected in ``ratings.apps``.
"""

from __future__ import annotations

from django.utils import timezone

from matches.models import Match
from matches.versions import results_version_bump
from ratings.figures import figures_request
from ratings.models import PlayerRating, RatingState


def rating_version_bump(*, game_ids) -> None:
    """Give these games a new version without changing their ratings (a player was renamed)."""
    RatingState.objects.filter(game_id__in=list(game_ids)).update(updated_at=timezone.now())


def player_saved(sender, instance, created, raw=False, **kwargs) -> None:
    """``post_save`` of Player: names order ties on leaderboards, so a rename must show at once.

    The name also shows in other players' recent matches: the results versions
    of the games the player has a seat in are raised too.
    """
    if created or raw:
        return
    rating_version_bump(game_ids=PlayerRating.objects.filter(player=instance).values_list("game_id", flat=True))
    game_ids = set(Match.objects.filter(seats__player=instance).values_list("game_id", flat=True))
    results_version_bump(game_ids=game_ids)
    for game_id in sorted(game_ids):  # the prepared downloads name them: written again (ratings.figures)
        figures_request(game_id=game_id)


def named_saved(sender, instance, created, raw=False, **kwargs) -> None:
    """``post_save`` of Game, League and Bot: their names show on cached pages of their game."""
    if raw:
        return  # A new league changes its game's league tabs: created rows bump too.
    game_id = instance.pk if sender._meta.model_name == "game" else instance.game_id
    rating_version_bump(game_ids=[game_id])
    results_version_bump(game_ids=[game_id])
