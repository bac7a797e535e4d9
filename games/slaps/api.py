"""Slaps's fields of the match API: the winner in an answer; the two players and the winner in a body."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from games.fields import AnswerField, PairInputField
from matches.inputs import MAX_ID
from matches.models import Match


def slaps_answer_winner(match: Match) -> int | None:
    winner = match.winner_seat
    return winner.player_id if winner else None


ANSWER_FIELDS = {
    "winner": AnswerField(
        serializers.IntegerField(read_only=True, allow_null=True, help_text=gettext_lazy("The winner's player id.")),
        slaps_answer_winner,
    ),
}

BODY_FIELDS = {
    "players": PairInputField(help_text=gettext_lazy("The two players' ids.")),
    "winner": serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text=gettext_lazy("The winner's id (one of players).")
    ),
}

# The schema's example body for this game (POST /api/matches/).
BODY_EXAMPLE = {
    "game": "slaps",
    "played_at": "2026-11-01T18:00:00Z",
    "rated": True,
    "players": [12, 13],
    "winner": 12,
}
