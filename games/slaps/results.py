"""Slaps results: cleaning a match's two players and winner, storing and reading them back.

A Slaps match is two seats and nothing beside them: the winner's seat
scores 1, the loser's 0. Body fields: ``players`` (two ids) and ``winner``
(one of them).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from matches.inputs import Errors, GameInput, SeatInput, parse_id, players_by_id
from matches.models import Match


def slaps_clean(data: Mapping[str, Any], errors: Errors) -> GameInput:
    raw_players = data.get("players")
    if raw_players in (None, "", []):
        errors.add("players", _("This field is required: the two players' ids."))
        return GameInput()
    if not isinstance(raw_players, list | tuple):
        errors.add("players", _("Give a list of two player ids."))
        return GameInput()
    if len(raw_players) != 2:
        errors.add("players", _("A Slaps match has exactly two players, not %(count)s.") % {"count": len(raw_players)})
        return GameInput()
    ids = [parse_id(value) for value in raw_players]
    if None in ids:
        errors.add("players", _("Player ids must be positive whole numbers."))
        return GameInput()
    if ids[0] == ids[1]:
        errors.add("players", _("The same player cannot play both sides of a match."))
        return GameInput()
    players = players_by_id(ids, errors, "players")
    if players is None:
        return GameInput()
    raw_winner = data.get("winner")
    if raw_winner in (None, ""):
        errors.add("winner", _("This field is required: the id of the player who won."))
        return GameInput()
    winner = parse_id(raw_winner)
    if winner not in ids:
        errors.add("winner", _("The winner must be one of the match's two players."))
        return GameInput()
    return GameInput(
        seats=tuple(
            SeatInput(player=players[player_id], result=Decimal(1 if player_id == winner else 0)) for player_id in ids
        )
    )


def slaps_stored_body(match: Match) -> dict[str, Any]:
    winner = match.winner_seat
    return {"players": [seat.player_id for seat in match.seats.all()], "winner": winner.player_id if winner else None}
