"""The one door from results to ratings.

The results side (``matches``) sits below ratings and never imports the rest
of it: a write that changes what is rated asks through here, inside its own
transaction, and a result's league check reads here which league each player
is in (a player's league is held by their rating). Everything else in
ratings may change shape without the results side noticing.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from ratings.ledger import rating_replay_mark, rating_state_lock
from ratings.models import PlayerRating, RatingState
from ratings.services import ratings_enqueue


class RatingIntake:
    """What a results write asks of ratings, under the game's rating lock (``ratings_intake``)."""

    def __init__(self, state: RatingState | None) -> None:
        self._state = state

    def replay_from(self, *, played_at: datetime, match_id: int) -> None:
        """Ask (durably, in the write's transaction) for the game's ratings to be replayed from this match."""
        if self._state is None:
            raise RuntimeError("A replay is asked for under the game's rating lock: use ratings_intake(lock=True).")
        rating_replay_mark(state=self._state, played_at=played_at, match_id=match_id)

    @staticmethod
    def rate_after_commit(*, match_id: int) -> None:
        """Queue the match's rating once the write commits (the sweeper catches it if the broker is down)."""
        transaction.on_commit(lambda: ratings_enqueue(match_id=match_id))


def ratings_intake(*, game_id: int | None = None) -> RatingIntake:
    """The door, for one write. With ``game_id``, the game's rating lock is taken first (call it before
    locking any match row: the rating task takes them in that order), so the write cannot race a rating run."""
    return RatingIntake(rating_state_lock(game_id=game_id) if game_id is not None else None)


def player_leagues_in_game(*, game, player_ids) -> dict[int, int]:
    """The league each of these players is in for ``game`` now: {player id: league id}.

    Players not rated in the game yet are absent (they are in its entry league).
    """
    return dict(
        PlayerRating.objects.filter(game=game, player_id__in=list(player_ids)).values_list("player_id", "league_id")
    )
