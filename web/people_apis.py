"""``GET /api/me/`` (issue 27): the signed-in person's player, if a claim linked one, and their latest claim.

For a token or a session (``config.tokens``, Django's sessions); a visitor is
401. It reads ``people.selectors`` only: claiming and deciding are pages
(``web.claim_pages``), not API operations.
"""

from __future__ import annotations

from datetime import UTC

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ANY_REQUEST_ERRORS, AnswerSerializer, error_responses
from people.models import PlayerClaim
from people.selectors import claim_latest_of, player_of
from web.league_apis import PlayerRefSerializer


@extend_schema_serializer(component_name="MeClaim")
class MeClaimSerializer(AnswerSerializer):
    """A person's claim of a player record."""

    id = serializers.IntegerField()
    player = PlayerRefSerializer(help_text="The player the person asked to be.")
    # Text, not an enum: a second choice set named "status" would rename the match's published StatusEnum.
    status = serializers.CharField(help_text=f"One of {', '.join(PlayerClaim.Status.values)}.")
    created_at = serializers.DateTimeField(default_timezone=UTC, help_text="When the person asked.")
    decided_at = serializers.DateTimeField(
        default_timezone=UTC,
        allow_null=True,
        help_text="When it was approved, refused or withdrawn; null while pending.",
    )
    reason = serializers.CharField(allow_blank=True, help_text="A refusal's reason, or empty.")


class IsSignedIn(BasePermission):
    message = gettext_lazy("Sign in (an API token, or the site's session) to read this.")

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated)


class MeApi(APIView):
    """The person behind the request: their player, or null, and their latest claim, or null."""

    permission_classes = [IsSignedIn]

    @extend_schema_serializer(component_name="Me")
    class OutputSerializer(AnswerSerializer):
        """The signed-in person: their player and their latest claim."""

        player = PlayerRefSerializer(allow_null=True, help_text="The person's player; null until a claim is approved.")
        claim = MeClaimSerializer(allow_null=True, help_text="The person's latest claim (pending or decided), or null.")

    @extend_schema(
        operation_id="me_retrieve", responses={200: OutputSerializer, **error_responses(*ANY_REQUEST_ERRORS)}
    )
    def get(self, request):
        player = player_of(user_id=request.user.pk)
        claim = claim_latest_of(user_id=request.user.pk)
        answer = {
            "player": None if player is None else {"id": player.pk, "name": player.name},
            "claim": None
            if claim is None
            else {
                "id": claim.pk,
                "player": {"id": claim.player_id, "name": claim.player.name},
                "status": claim.status,
                "created_at": claim.created_at,
                "decided_at": claim.decided_at,
                "reason": claim.reason,
            },
        }
        return Response(self.OutputSerializer(answer).data)
