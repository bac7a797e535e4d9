"""Bridge's fields of the match API: the boards and their tables, in an answer and in a body.

A *board* is played at one or more tables; each table names its NS and EW
pairs (player ids) and NS's raw score, or NS's IMPs for a board scored in IMPs.
A session also answers its ``scoring`` and ``standings`` (the club's result,
``games.bridge.standings``); a board its dealer, vulnerability, deal,
double-dummy table and par; a table its pair numbers and the play.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api import AnswerSerializer
from games.bridge.results import BRIDGE_MAX_BOARDS, BRIDGE_MAX_TABLES, bridge_stored_body, session_scoring
from games.bridge.standings import SCORINGS, session_standings
from games.fields import AnswerField, PairInputField
from matches.models import Match


class AdjustedSerializer(AnswerSerializer):
    ns = serializers.JSONField(help_text='NS\'s award: "A+", "A=", "A-" or a percentage.')
    ew = serializers.JSONField(help_text='EW\'s award: "A+", "A=", "A-" or a percentage.')
    ns_points = serializers.FloatField(
        required=False, allow_null=True, help_text="The points the scoring program printed for NS, if any."
    )
    ew_points = serializers.FloatField(
        required=False, allow_null=True, help_text="The points the scoring program printed for EW, if any."
    )


class BoardTableOutputSerializer(AnswerSerializer):
    table = serializers.IntegerField(help_text="Table number, from 1.")
    ns = serializers.SerializerMethodField(help_text="The NS pair's player ids.")
    ew = serializers.SerializerMethodField(help_text="The EW pair's player ids.")
    ns_score = serializers.IntegerField(allow_null=True, help_text="NS's raw score; null when scored in IMPs.")
    ns_imps = serializers.FloatField(allow_null=True, help_text="NS's IMPs, for a board scored in IMPs; else null.")
    section = serializers.SerializerMethodField(help_text="The table's section, or null when the evening has none.")
    ns_pair = serializers.SerializerMethodField(help_text="The NS pair's number as text, or null when not known.")
    ew_pair = serializers.SerializerMethodField(help_text="The EW pair's number as text, or null when not known.")
    contract = serializers.SerializerMethodField(help_text='"4SX", "3NT" or "Pass"; null when not known.')
    declarer = serializers.SerializerMethodField(help_text='"N", "E", "S" or "W"; null when not known.')
    tricks = serializers.IntegerField(allow_null=True, help_text="Tricks declarer took; null when not known.")
    lead = serializers.SerializerMethodField(help_text='The opening lead ("SK"); null when not known.')
    adjusted = AdjustedSerializer(
        allow_null=True, help_text="An adjusted score instead of a played one (not rated); null when played."
    )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_section(self, table) -> str | None:
        return table.section or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_ns_pair(self, table) -> str | None:
        return table.ns_pair or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_ew_pair(self, table) -> str | None:
        return table.ew_pair or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_contract(self, table) -> str | None:
        return table.contract or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_declarer(self, table) -> str | None:
        return table.declarer or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_lead(self, table) -> str | None:
        return table.lead or None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2))
    def get_ns(self, table) -> list[int]:
        return [table.ns_1_id, table.ns_2_id]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2))
    def get_ew(self, table) -> list[int]:
        return [table.ew_1_id, table.ew_2_id]


class ByeSerializer(AnswerSerializer):
    section = serializers.CharField(allow_null=True)
    pair = serializers.CharField(help_text="The pair credited without opponents.")
    direction = serializers.CharField(allow_null=True)
    points = serializers.FloatField(allow_null=True, help_text="Null: none printed (the pair's average counts).")


class BoardOutputSerializer(AnswerSerializer):
    number = serializers.IntegerField(help_text="The board number as printed on the board.")
    dealer = serializers.CharField(help_text='"N", "E", "S" or "W".')
    vulnerability = serializers.CharField(help_text='"None", "NS", "EW" or "All".')
    deal = serializers.SerializerMethodField(help_text='The hand record as PBN deal text ("N:KQT6.AJT.T984.65 …").')
    double_dummy = serializers.JSONField(
        allow_null=True,
        help_text='Tricks each declarer takes in each strain, {"N": {"C": 7, "D": 9, "H": 6, "S": 10, "NT": 8}, '
        '"E": …, "S": …, "W": …}; null until analysed, or without a deal.',
    )
    par = serializers.JSONField(
        allow_null=True, help_text='The par result, {"score": NS score, "contracts": ["4S N", …]}, or null.'
    )
    byes = ByeSerializer(many=True, help_text="Pairs credited points on the board without opponents.")
    tables = BoardTableOutputSerializer(many=True)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_deal(self, board) -> str | None:
        return board.deal or None


class StandingSerializer(AnswerSerializer):
    section = serializers.CharField(allow_null=True, help_text="The section, or null when the evening has none.")
    direction = serializers.CharField(
        allow_null=True, help_text='"NS" or "EW" in a Mitchell (each direction is ranked apart), else null.'
    )
    pair = serializers.CharField(
        allow_null=True, help_text="The pair number as the file or the evening has it; null when it was not given."
    )
    players = serializers.ListField(child=serializers.JSONField(), help_text="The pair's two player ids.")
    score = serializers.FloatField(help_text="A percentage for matchpoints, IMPs otherwise.")
    rank = serializers.IntegerField(help_text="The pair's place; tied pairs share it.")


# Made once: a serializer made per answer costs more than the rows it writes (the submission's hot path).
BOARDS = BoardOutputSerializer(many=True, read_only=True, help_text="The boards and their tables.")


def bridge_answer_boards(match: Match) -> list:
    """The boards and their tables (as ``match_detail`` prefetched them)."""
    return BOARDS.to_representation(match.boards.all())


STANDINGS = StandingSerializer(
    many=True,
    read_only=True,
    help_text="The club's standings of the session by its scoring (per section and, in a Mitchell, "
    "per direction), as its scoring program ranks them. The rating is Cardrank's, from IMP duels.",
)


def _body(match: Match) -> dict:
    """The session as a body (its stored reading), once per answer: the standings and the scoring read it."""
    if not hasattr(match, "_bridge_body"):
        match._bridge_body = bridge_stored_body(match)
    return match._bridge_body


def bridge_answer_standings(match: Match) -> list:
    return [
        {
            "section": row["section"],
            "direction": row["direction"],
            "pair": row["pair"],
            "players": list(row["players"]),
            "score": float(row["score"]),
            "rank": row["rank"],
        }
        # Ranked by the scoring the answer names (a session stored without one: by IMPs, as it always was).
        for row in session_standings({**_body(match), "scoring": session_scoring(_body(match))})
    ]


ANSWER_FIELDS = {
    "boards": AnswerField(BOARDS, bridge_answer_boards),
    "scoring": AnswerField(
        serializers.CharField(
            read_only=True,
            allow_null=True,
            help_text='How the club scores the session: "matchpoints", "cross_imps", "butler" or "imps".',
        ),
        lambda match: session_scoring(_body(match)),
    ),
    "standings": AnswerField(STANDINGS, bridge_answer_standings),
}


class AdjustedInputSerializer(serializers.Serializer):
    ns = serializers.JSONField(help_text='"A+", "A=", "A-" or a percentage (0-100).')
    ew = serializers.JSONField(help_text='"A+", "A=", "A-" or a percentage (0-100).')
    ns_points = serializers.FloatField(required=False, help_text="The points a scoring program printed for NS.")
    ew_points = serializers.FloatField(required=False, help_text="The points a scoring program printed for EW.")


class BoardTableInputSerializer(serializers.Serializer):
    ns = PairInputField(help_text="The NS pair's player ids.")
    ew = PairInputField(help_text="The EW pair's player ids.")
    ns_score = serializers.IntegerField(
        required=False,
        help_text="NS's raw score at this table: one the board can have at its vulnerability "
        "(given by the contract, declarer and tricks when those are given).",
    )
    ns_imps = serializers.FloatField(
        required=False, help_text="Instead of ns_score: NS's IMPs (one table, or a two-table team match)."
    )
    section = serializers.CharField(required=False, help_text="The section, when the evening has several.")
    ns_pair = serializers.CharField(required=False, help_text="The NS pair's number.")
    ew_pair = serializers.CharField(required=False, help_text="The EW pair's number.")
    contract = serializers.CharField(required=False, help_text='"4S", "3NTX", "6HXX" or "Pass".')
    declarer = serializers.CharField(required=False, help_text='"N", "E", "S" or "W".')
    tricks = serializers.IntegerField(required=False, min_value=0, max_value=13, help_text="Tricks declarer took.")
    lead = serializers.CharField(required=False, help_text='The opening lead, e.g. "SK".')
    adjusted = AdjustedInputSerializer(
        required=False, help_text="Instead of a score: an adjusted score (not rated; counted in the standings)."
    )


class ByeInputSerializer(serializers.Serializer):
    pair = serializers.CharField()
    section = serializers.CharField(required=False, allow_null=True)
    direction = serializers.CharField(required=False, allow_null=True, help_text='"NS", "EW" or null.')
    points = serializers.FloatField(required=False, allow_null=True)


class BoardInputSerializer(serializers.Serializer):
    number = serializers.IntegerField(
        min_value=1,
        max_value=10_000,
        required=False,
        help_text="The board number as printed on the board (default: its place in the list, from 1).",
    )
    dealer = serializers.CharField(required=False, help_text='"N", "E", "S" or "W" (default: from the number).')
    vulnerability = serializers.CharField(
        required=False, help_text='"None", "NS", "EW" or "All" (default: from the number).'
    )
    deal = serializers.CharField(required=False, help_text="The hand record as PBN deal text.")
    byes = ByeInputSerializer(many=True, required=False, help_text="Pairs credited points without opponents.")
    tables = BoardTableInputSerializer(
        many=True, max_length=BRIDGE_MAX_TABLES, help_text=f"At most {BRIDGE_MAX_TABLES} tables (none: byes only)."
    )


BODY_FIELDS = {
    "boards": BoardInputSerializer(
        many=True,
        min_length=1,
        max_length=BRIDGE_MAX_BOARDS,
        help_text=f"The boards of the session (at most {BRIDGE_MAX_BOARDS}).",
    ),
    "scoring": serializers.ChoiceField(
        choices=list(SCORINGS),
        required=False,
        help_text="How the club scores the session (its standings); the rating is always IMP duels.",
    ),
    "movement": serializers.ChoiceField(
        choices=["mitchell", "howell"],
        required=False,
        help_text="How pairs are numbered: mitchell numbers NS and EW apart (standings per direction), "
        "howell in one list.",
    ),
    "event": serializers.CharField(required=False, help_text="The event's name (at most 200 characters)."),
    "scoring_options": serializers.DictField(
        required=False, help_text="The scoring program's conventions (docs/api.md)."
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
