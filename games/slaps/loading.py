"""Slaps's engine input: a match's two seats as the Elo engine reads them (the seats-only loader does the rest)."""

from __future__ import annotations

from ratings.engines.elo import EloMatch
from ratings.loaders import SeatRow


def slaps_engine_input(seats: list[SeatRow]) -> EloMatch:
    """The two players in seat order, and the winner: the seat with the higher result (1 won, 0 lost)."""
    first, second = seats
    winner = first if first.result >= second.result else second
    return EloMatch(players=(first.player_id, second.player_id), winner=winner.player_id)
