"""Preferans on a player's profile: what a game's plain-words line says (``PreferansKind.profile_change_notes``).

A *game* (a pool) is rated deal by deal (seed 001): each deal compares the
whists the player scored (Vs) with the whists expected of them (Vf) against
the table's rating (Rt, the opponents' ratings weighted high to low). The line
sums that up for the game: the whists, the deals, the table's rating on
average over the deals and the whists expected in all. Reads the ledger rows
the profile has in hand; no query.
"""

from __future__ import annotations

from typing import Any


def preferans_change_notes(matches) -> dict[int, dict[str, Any]]:
    notes = {}
    for match in matches:
        changes = [change for change in match.player_changes if "table_rating" in change.details]
        if not changes:
            continue
        notes[match.pk] = {
            "deals": len(changes),
            "table_rating": sum(float(change.details["table_rating"]) for change in changes) / len(changes),
            "expected_whists": sum(float(change.details["expected_whists"]) for change in changes),
            "bot_capped": any(change.details.get("bot_cap") for change in changes),
            "floor_applied": any(change.details.get("floor_applied") for change in changes),
        }
    return notes
