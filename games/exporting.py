"""Exporting a game's results: the files ``import_results`` reads back (``games.importing``).

Every result that counts (not voided), oldest first, as the body that would
submit it again (``matches.selectors.match_as_body``) with its people named
(``PlayerRef``: name and federation number): CSV in the kind's columns, or a
JSON dump of the game (its settings and leagues, the players, the results),
from which an import into an empty game gives the same ratings.
"""

from __future__ import annotations

import json
from typing import Any

from games.importing import DUMP_FORMAT
from games.imports import PlayerRef
from leagues.models import Game, League, Player
from matches.models import Match
from matches.selectors import match_as_body


def export_bodies(game: Game) -> list[dict[str, Any]]:
    """The game's results as bodies naming players by id, oldest first."""
    matches = (
        Match.objects.filter(game=game)
        .exclude(status=Match.Status.VOID)
        .select_related("game", "league")
        .prefetch_related("seats__bot", *game.kind.parts)
        .order_by("played_at", "id")
    )
    return [match_as_body(match) for match in matches]


def _people(game: Game, bodies: list[dict[str, Any]]) -> dict[int, Player]:
    ids: set[int] = set()
    for body in bodies:
        game.kind.body_players(body, lambda player_id: ids.add(player_id))
    return Player.objects.in_bulk(ids)


def export_csv(game: Game) -> str:
    """The CSV the kind reads; a result of the entry league leaves ``league`` blank (the file's default), so the
    file moves to another game."""
    entry = League.objects.filter(game=game, tier=League.Tier.AMATEUR).values_list("slug", flat=True).first()
    bodies = [
        {key: value for key, value in body.items() if not (key == "league" and value == entry)}
        for body in export_bodies(game)
    ]
    people = _people(game, bodies)
    refs = {pk: PlayerRef(player.name, player.federation_id) for pk, player in people.items()}
    return game.kind.csv_write([game.kind.body_players(body, lambda pk: refs[pk]) for body in bodies])


def export_json(game: Game) -> str:
    bodies = export_bodies(game)
    people = _people(game, bodies)
    dump = {
        "format": DUMP_FORMAT,
        "version": 1,
        "game": {
            "slug": game.slug,
            "name": game.name,
            "rating_system": game.rating_system,
            "parameters": game.parameters,
            "start_rating": str(game.start_rating),
        },
        "leagues": [
            {
                "slug": league.slug,
                "name": league.name,
                "tier": league.tier,
                "promotion_threshold": _text(league.promotion_threshold),
                "rating_floor": _text(league.rating_floor),
                "rating_period_days": league.rating_period_days,
            }
            for league in League.objects.filter(game=game).order_by("tier", "slug")
        ],
        "players": [
            {"id": player.pk, "name": player.name, "federation_id": player.federation_id}
            for player in sorted(people.values(), key=lambda player: player.pk)
        ],
        "results": bodies,
    }
    return json.dumps(dump, ensure_ascii=False, indent=1, default=str)


def _text(value) -> str | None:
    return None if value is None else str(value)
