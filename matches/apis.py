"""Match APIs: submit a result, read it back, void it. Thin: the service decides."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import IsMatchAdmin, IsReferee, WriteThrottle
from matches import selectors
from matches.models import Match
from matches.services import (
    IdempotencyKeyReused,
    match_confirm,
    match_correct,
    match_submit_idempotent,
    match_void,
)
from ratings.selectors import rating_decimals, rating_number


class RatingChangeOutSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
    delta = serializers.FloatField()


class MatchOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    played_at = serializers.DateTimeField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    referee = serializers.CharField(allow_null=True)
    seats = serializers.ListField(child=serializers.DictField())
    players = serializers.ListField(child=serializers.DictField())
    deals = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()), required=False)
    winner = serializers.IntegerField(allow_null=True)
    rating_changes = RatingChangeOutSerializer(many=True)


def match_data(match: Match) -> dict:
    """The API's view of a match (API.md). ``match`` comes from ``matches.selectors.match_detail``."""
    decimals = rating_decimals(match.game)
    seats = list(match.seats.all())
    winner = match.winner_seat
    totals: dict[int, dict] = {}
    for change in match.rating_changes.all():
        row = totals.get(change.player_id)
        if row is None:
            totals[change.player_id] = {
                "player": change.player_id,
                "rating_before": change.rating_before,
                "rating_after": change.rating_after,
            }
        else:
            row["rating_after"] = change.rating_after
    changes = [
        {
            "player": row["player"],
            "rating_before": rating_number(row["rating_before"], decimals=decimals),
            "rating_after": rating_number(row["rating_after"], decimals=decimals),
            "delta": rating_number(row["rating_after"] - row["rating_before"], decimals=decimals),
        }
        for row in totals.values()
    ]
    seats_out = [
        {
            "position": seat.position,
            "player": seat.player_id,
            "bot": seat.bot.slug if seat.bot_id else None,
            "name": seat.occupant.name,
            "result": float(seat.result),
        }
        for seat in seats
    ]
    data = {
        "id": match.pk,
        "game": match.game.slug,
        "played_at": match.played_at,
        "rated": match.rated,
        "status": match.status,
        "referee": match.referee.get_username() if match.referee else None,
        "seats": seats_out,
        "players": [
            {"id": seat.player_id, "name": seat.player.name, "result": float(seat.result)}
            for seat in seats
            if seat.player_id
        ],
        "winner": winner.player_id if winner and match.game.rating_system == "elo" else None,
        "rating_changes": changes,
    }
    parts = selectors.match_detail_parts(match)
    deals = list(match.deals.all()) if "deals" in parts else []
    if deals:
        data["deals"] = [deal.whists for deal in deals]
    boards = list(match.boards.all()) if "boards" in parts else []
    if boards:
        data["boards"] = [
            {
                "number": board.number,
                "tables": [
                    {
                        "table": table.table,
                        "ns": [table.ns_1_id, table.ns_2_id],
                        "ew": [table.ew_1_id, table.ew_2_id],
                        "ns_score": table.ns_score,
                        "ns_imps": float(table.ns_imps) if table.ns_imps is not None else None,
                    }
                    for table in board.tables.all()
                ],
            }
            for board in boards
        ]
    data["league"] = match.league.slug if match.league_id else None
    data["awaiting_confirmation"] = match.awaiting_confirmation
    data["confirmed_by"] = match.confirmed_by.get_username() if match.confirmed_by_id else None
    data["rated_after"] = match.due_at
    return data


class MatchCreateApi(APIView):
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsReferee]

    @extend_schema(
        request=inline_serializer(
            "MatchSubmit",
            {
                "game": serializers.CharField(),
                "played_at": serializers.DateTimeField(),
                "rated": serializers.BooleanField(default=True),
                "players": serializers.ListField(
                    child=serializers.IntegerField(), required=False, help_text="Slaps: the two players' ids."
                ),
                "winner": serializers.IntegerField(required=False, help_text="Slaps: the winner's id."),
                "seats": serializers.ListField(
                    child=serializers.DictField(),
                    required=False,
                    help_text='Preferans: 2-4 seats in order, each {"player": id} or {"bot": "normal"}.',
                ),
                "deals": serializers.ListField(
                    child=serializers.ListField(child=serializers.FloatField()),
                    required=False,
                    help_text="Preferans: each deal's whists in seat order, summing to zero.",
                ),
                "boards": serializers.ListField(
                    child=serializers.DictField(),
                    required=False,
                    help_text='Bridge: [{"number": 1, "tables": [{"ns": [1, 2], "ew": [3, 4], "ns_score": 420}, ...]}];'
                    ' a board at one table takes "ns_imps" instead of "ns_score".',
                ),
                "league": serializers.CharField(
                    required=False,
                    help_text="The slug of a league of the game to file the result under (default: its amateur "
                    "league); bridge: its rating period applies. It never exempts a result from two-step "
                    "confirmation: a result waits for a second referee when this league or any league one of "
                    "its players is in requires it.",
                ),
            },
        ),
        responses={
            201: MatchOutSerializer,
            200: MatchOutSerializer,
            422: OpenApiResponse(
                response=inline_serializer(
                    "IdempotencyKeyReused", {"Idempotency-Key": serializers.ListField(child=serializers.CharField())}
                ),
                description="The Idempotency-Key was used before with a different body; nothing was stored.",
            ),
        },
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Optional. A retry with the same key and the same body returns the first match (200) "
                "and stores nothing; the same key with another body is refused (422) and stores nothing. "
                '"The same body" means the same result once validated: key order, spacing, ids as strings, '
                'the time zone of played_at, and defaults spelled out or left out ("rated": true, the '
                "amateur league) do not matter.",
            )
        ],
        examples=[
            OpenApiExample(
                "Slaps",
                value={
                    "game": "slaps",
                    "played_at": "2026-11-01T18:00:00Z",
                    "rated": True,
                    "players": [12, 13],
                    "winner": 12,
                },
                request_only=True,
            ),
            OpenApiExample(
                "Preferans",
                value={
                    "game": "preferans",
                    "played_at": "2026-11-01T18:00:00Z",
                    "seats": [{"player": 12}, {"player": 13}, {"bot": "normal"}],
                    "deals": [[4, -2, -2], [-6, 3, 3]],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Bridge",
                value={
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
                },
                request_only=True,
            ),
        ],
    )
    def post(self, request):
        try:
            match, created = match_submit_idempotent(
                referee=request.user, data=request.data, key=request.headers.get("Idempotency-Key")
            )
        except IdempotencyKeyReused as error:
            return Response(error.message_dict, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        response_status = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(match_data(selectors.match_detail_of(match)), status=response_status)


class MatchDetailApi(APIView):
    @extend_schema(responses=MatchOutSerializer)
    def get(self, request, pk):
        try:
            match = selectors.match_detail(match_id=pk)
        except Match.DoesNotExist as error:
            raise Http404 from error
        return Response(match_data(match))


class MatchVoidApi(APIView):
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsMatchAdmin]

    @extend_schema(request=None, responses=MatchOutSerializer)
    def post(self, request, pk):
        get_object_or_404(Match, pk=pk)
        match_void(match_id=pk, by=request.user)
        return Response(match_data(selectors.match_detail(match_id=pk)))


class MatchCorrectApi(APIView):
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    """Replace a match's result with a corrected one (admins); ratings replay from it."""

    permission_classes = [IsMatchAdmin]

    @extend_schema(
        request=inline_serializer("MatchCorrection", {"game": serializers.CharField()}),
        responses=MatchOutSerializer,
        description="The body is a whole result, exactly as for POST /api/matches/; the game cannot change, "
        "and a body without league keeps the match's league. A body that would store exactly what is stored "
        "changes nothing (no replay, no audit entry). A changed result is re-examined for two-step "
        "confirmation and, if it needs it, waits for a referee other than the correcting admin.",
    )
    def post(self, request, pk):
        get_object_or_404(Match, pk=pk)
        match_correct(match_id=pk, by=request.user, data=request.data)
        return Response(match_data(selectors.match_detail(match_id=pk)))


class MatchConfirmApi(APIView):
    """A second referee confirms a result of a two-step league; it is then rated."""

    permission_classes = [IsReferee]
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"

    @extend_schema(request=None, responses=MatchOutSerializer)
    def post(self, request, pk):
        get_object_or_404(Match, pk=pk)
        match_confirm(match_id=pk, by=request.user)
        return Response(match_data(selectors.match_detail(match_id=pk)))
