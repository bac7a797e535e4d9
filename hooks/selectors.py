"""Which webhooks want an event: asked by every rating run (``results_rated``), so it costs no query while
the shared cache holds the answer, and one small query otherwise.

The active webhooks are kept in the shared cache under the **hooks stamp** (``config.stamps``), renewed by
every save or delete of a webhook (receivers connected in ``hooks.apps``); a change made around the
signals (``QuerySet.update``, raw SQL) is seen within ``KEPT_SECONDS``. Without a shared cache (``make
run``'s memory cache) nothing is kept and each event reads the one small query.
"""

from __future__ import annotations

from dataclasses import dataclass

from config.stamps import Stamp
from hooks.models import Webhook

HOOKS_STAMP = Stamp("hooks:stamp", shared_only=True)
KEPT_SECONDS = 300


@dataclass(frozen=True)
class Wanting:
    """An active webhook as an event's receivers see it: its id, its league and that league's game (None for
    every league), and the events it wants."""

    id: int
    league_id: int | None
    game_id: int | None
    events: frozenset[str]

    def wants(self, event: str, *, game_id: int, league_id: int | None = None, per_league: bool = False) -> bool:
        """Whether this webhook wants ``event`` of ``game_id``; ``per_league``: the event belongs to
        ``league_id`` (a season), so a webhook of one league wants only that league's."""
        if event not in self.events:
            return False
        if self.league_id is None:
            return True
        if per_league:
            return self.league_id == league_id
        return self.game_id == game_id


def _active() -> list[Wanting]:
    rows = (
        Webhook.objects.filter(active=True)
        .values_list("pk", "league_id", "league__game_id", "on_result_rated", "on_list_published", "on_season_closed")
        .order_by()
    )
    return [
        Wanting(
            id=pk,
            league_id=league_id,
            game_id=game_id,
            events=frozenset(
                event
                for on, event in (
                    (rated, "result.rated"),
                    (published, "list.published"),
                    (closed, "season.closed"),
                )
                if on
            ),
        )
        for pk, league_id, game_id, rated, published, closed in rows
    ]


def webhooks_active() -> list[Wanting]:
    return HOOKS_STAMP.kept("hooks:active", _active, KEPT_SECONDS)


def webhooks_wanting(event: str, *, game_id: int, league_id: int | None = None, per_league: bool = False):
    return [
        wanting
        for wanting in webhooks_active()
        if wanting.wants(event, game_id=game_id, league_id=league_id, per_league=per_league)
    ]
