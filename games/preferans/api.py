"""Preferans's fields of the match API: the deals in an answer; the seats (players or bots) and deals in a body."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.fields import PLAYER_ID, AnswerField
from games.preferans.results import PREFERANS_MAX_DEALS, PREFERANS_SEATS
from matches.models import Match


def preferans_answer_deals(match: Match) -> list:
    """Each deal's whists in seat order (the deals ``match_detail`` prefetched)."""
    return [deal.whists for deal in match.deals.all()]


ANSWER_FIELDS = {
    "deals": AnswerField(
        serializers.ListField(
            child=serializers.ListField(child=serializers.FloatField()),
            read_only=True,
            help_text=gettext_lazy("Each deal's whists in seat order."),
        ),
        preferans_answer_deals,
    ),
}


@extend_schema_field(
    {
        "type": "array",
        "minItems": PREFERANS_SEATS[0],
        "maxItems": PREFERANS_SEATS[1],
        "items": {
            "type": "object",
            "description": 'A seat: {"player": id} or {"bot": "normal"}, exactly one of them.',
            "properties": {"player": PLAYER_ID, "bot": {"type": "string"}},
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
        },
    }
)
class SeatsInputField(serializers.ListField):
    pass


@extend_schema_field(
    {
        "type": "array",
        "description": f"Each deal's whists in seat order, summing to zero (at most two decimals, each "
        f"within ±10,000); at most {PREFERANS_MAX_DEALS} deals.",
        "minItems": 1,
        "maxItems": PREFERANS_MAX_DEALS,
        "items": {
            "type": "array",
            "minItems": PREFERANS_SEATS[0],
            "maxItems": PREFERANS_SEATS[1],
            "items": {"type": "number", "minimum": -10_000, "maximum": 10_000},
        },
    }
)
class DealsInputField(serializers.ListField):
    pass


BODY_FIELDS = {
    "seats": SeatsInputField(help_text=gettext_lazy("The seats in order.")),
    "deals": DealsInputField(),
}

# The schema's example body for this game (POST /api/matches/).
BODY_EXAMPLE = {
    "game": "preferans",
    "played_at": "2026-11-01T18:00:00Z",
    "seats": [{"player": 12}, {"player": 13}, {"bot": "normal"}],
    "deals": [[4, -2, -2], [-6, 3, 3]],
}
