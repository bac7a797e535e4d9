"""Bridge's fields of the match API: the boards and their tables, in an answer and in a body.

A *board* is played at one or more tables; each table names its NS and EW
pairs (player ids) and NS's raw score, or NS's IMPs for a board scored in IMPs.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api import AnswerSerializer
from games.bridge.results import BRIDGE_MAX_BOARDS, BRIDGE_MAX_TABLES
from games.fields import AnswerField, PairInputField
from matches.models import Match


class BoardTableOutputSerializer(AnswerSerializer):
    table = serializers.IntegerField(help_text="Table number, from 1.")
    ns = serializers.SerializerMethodField(help_text="The NS pair's player ids.")
    ew = serializers.SerializerMethodField(help_text="The EW pair's player ids.")
    ns_score = serializers.IntegerField(allow_null=True, help_text="NS's raw score; null when scored in IMPs.")
    ns_imps = serializers.FloatField(allow_null=True, help_text="NS's IMPs, for a board scored in IMPs; else null.")

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2))
    def get_ns(self, table) -> list[int]:
        return [table.ns_1_id, table.ns_2_id]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2))
    def get_ew(self, table) -> list[int]:
        return [table.ew_1_id, table.ew_2_id]


class BoardOutputSerializer(AnswerSerializer):
    number = serializers.IntegerField(help_text="The board number as printed on the board.")
    tables = BoardTableOutputSerializer(many=True)


# Made once: a serializer made per answer costs more than the rows it writes (the submission's hot path).
BOARDS = BoardOutputSerializer(many=True, read_only=True, help_text="Bridge: the boards and their tables; else empty.")


def bridge_answer_boards(match: Match) -> list:
    """The boards and their tables (as ``match_detail`` prefetched them)."""
    return BOARDS.to_representation(match.boards.all())


ANSWER_FIELDS = {"boards": AnswerField(BOARDS, bridge_answer_boards)}


class BoardTableInputSerializer(serializers.Serializer):
    ns = PairInputField(help_text="The NS pair's player ids.")
    ew = PairInputField(help_text="The EW pair's player ids.")
    ns_score = serializers.IntegerField(required=False, help_text="NS's raw score at this table.")
    ns_imps = serializers.FloatField(
        required=False, help_text="Instead of ns_score: NS's IMPs (one table, or a two-table team match)."
    )


class BoardInputSerializer(serializers.Serializer):
    number = serializers.IntegerField(min_value=1)
    tables = BoardTableInputSerializer(many=True, help_text=f"At most {BRIDGE_MAX_TABLES} tables.")


BODY_FIELDS = {
    "boards": BoardInputSerializer(
        many=True, required=False, help_text=f"Bridge: the boards of the session (at most {BRIDGE_MAX_BOARDS})."
    ),
}

# The schema's example body for this game (POST /api/matches/).
BODY_EXAMPLE = {
    "game": "bridge",
    "played_at": "2026-11-01T18:00:00Z",
    "boards": [
        {
            "number": 1,
            "tables": [
                {"ns": [1, 2], "ew": [3, 4], "ns_score": 420},
                {"ns": [5, 6], "ew": [7, 8], "ns_score": -50},
            ],
        }
    ],
}
