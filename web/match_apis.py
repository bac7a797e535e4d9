"""Match APIs: submit a result, read it back, void, correct, confirm or dispute it. Thin: the service decides.

Every answer that carries a match is ``MatchOutputSerializer(match).data``, so
the published schema is exactly what is returned; the match is first marked for
its reader (``_answer_for``: the people it names by display name for the public,
by username for staff). Its vocabulary:

- *seat*: a place at the table, a player or (Preferans) a bot, with its result
  (Slaps: 1 won, 0 lost; Preferans: the seat's whists summed over the deals).
- *deal* (Preferans): the whists of every seat, in seat order; *board*
  (bridge): its number and the tables it was played at, each with its NS and
  EW pairs and the NS score (or NS IMPs).
- *rating change*: one row per player with the match's total (a Preferans
  game's deals, a bridge session's boards, summed); empty until rated.

The input serializers only document the bodies (for the schema and its
clients): validation lives in ``matches.services``, the one path every entry
route shares, so the API cannot disagree with the pages or admin.

Each game has its own body and its own answer, from its kind (``body_fields``,
``answer_fields``): a Slaps match answers ``winner`` and no ``deals``. The
schema publishes ``MatchSubmit`` and ``MatchOut`` as a ``oneOf`` of one
member per registered kind, chosen by ``game`` (``KindsOneOf``), so a name two
games use (``players``) keeps each game's own limits and words.
"""

import copy
import re
import weakref
from contextlib import contextmanager
from datetime import UTC
from typing import Any, ClassVar

from django.contrib.humanize.templatetags.humanize import intcomma
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import (
    ANY_REQUEST_ERRORS,
    BODY_ERRORS,
    JSON_ONLY,
    WRITE_ERRORS,
    AnswerSerializer,
    IsMatchAdmin,
    IsReferee,
    RatingNumberField,
    RequestTooLarge,
    WriteThrottle,
    error_responses,
)
from leagues.kinds import KINDS
from leagues.models import Game
from matches.confirmation import DISPUTE_NOTE_MAX, match_confirm, match_dispute
from matches.models import Match
from matches.selectors import matches_parts_read
from matches.services import (
    BATCH_MAX,
    IDEMPOTENCY_KEY_MAX,
    BatchRefused,
    IdempotencyKeyReused,
    match_correct,
    match_submit_batch,
    match_submit_idempotent,
    match_void,
)
from ratings.selectors import (
    match_detail_rated,
    match_detail_rated_of,
    match_detail_rated_queryset,
    rating_decimals,
    rating_number,
)
from web.found import not_found, object_or_404


def _utc_time(**kwargs) -> serializers.DateTimeField:
    # Times are given in UTC whatever DJANGO_TIME_ZONE says, as the database stores them.
    return serializers.DateTimeField(default_timezone=UTC, **kwargs)


class SeatOutputSerializer(AnswerSerializer):
    position = serializers.IntegerField(help_text="1 for the first seat.")
    player = serializers.IntegerField(source="player_id", allow_null=True, help_text="The player's id; null for a bot.")
    bot = serializers.CharField(source="bot.slug", allow_null=True, help_text="The bot's difficulty slug, or null.")
    bot_rating = serializers.FloatField(
        allow_null=True, help_text="A bot seat: the bot's rating as played (when the result was stored); else null."
    )
    bot_max_rating = serializers.FloatField(
        allow_null=True, help_text="A bot seat: the bot's maximum rating as played; else null."
    )
    name = serializers.CharField(source="occupant.name")
    result = serializers.FloatField(help_text="Slaps: 1 won, 0 lost. Preferans: the seat's whists over the game.")


class PlayerResultOutputSerializer(AnswerSerializer):
    id = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    result = serializers.FloatField()


class PersonField(serializers.Field):
    """A person the match names (its referee, confirmer or disputer): the display name in a public answer.

    The public (anonymous readers, referees, anyone not staff) reads the
    user's full name, or null when none is set, never the username: a
    username is a login's first half. Staff read the username, as before.
    Which answer a match gets is marked on it by the view
    (``_answer_for``): the answer's fields are shared by every request
    (``AnswerSerializer``) and so keep no request of their own.
    """

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, allow_null=True, **kwargs)
        extend_schema_field({"type": "string", "nullable": True})(self)

    def to_representation(self, match: Match):
        user = getattr(match, self.field_name)
        if user is None:
            return None
        if getattr(match, "answer_usernames", False):
            return user.get_username()
        return user.get_full_name().strip() or None


def _reader_sees_usernames(user) -> bool:
    """Staff (who reach admin) read the usernames of a match's referees; everyone else their display names."""
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)


def _answer_for(match: Match, request) -> Match:
    """``match``, marked for its reader: usernames for staff, display names for everyone else (``PersonField``)."""
    match.answer_usernames = _reader_sees_usernames(request.user)
    return match


def _fields_with(fields: dict, more: dict, *, before: str) -> dict:
    """``fields`` with ``more`` inserted before the field named ``before`` (the published order)."""
    at = list(fields).index(before)
    items = list(fields.items())
    return dict(items[:at] + list(more.items()) + items[at:])


class KindAnswerField(serializers.Field):
    """A game's own field of a match answer (``games.fields.AnswerField``): what its kind reads from the match,
    documented as the kind declares it."""

    def __init__(self, *, own, **kwargs):
        super().__init__(source="*", read_only=True, help_text=own.field.help_text, **kwargs)
        self.read = own.read
        extend_schema_field(own.field)(self)

    def to_representation(self, match: Match):
        return self.read(match)


class KindFieldsMixin:
    """A serializer of one kind's matches (a class per kind): the fields every game has, with the kind's own
    inserted before ``kind_fields_before``.

    ``kind`` is None on the shared base (no game's fields). ``game_schema``, set on the schema's classes
    only (``KindsOneOf``), is what the ``game`` property says: the slugs of the kind's games.
    """

    kind: Any = None
    kind_fields_before: ClassVar[str] = ""
    game_schema: ClassVar[dict | None] = None

    def kind_fields(self) -> dict:
        raise NotImplementedError

    def get_fields(self):
        fields = super().get_fields()
        if self.game_schema is not None:
            extend_schema_field(self.game_schema)(fields["game"])  # a copy of the declared field, this class's own
        return _fields_with(fields, self.kind_fields() if self.kind else {}, before=self.kind_fields_before)


# Component names as first published (MatchOut, MatchSubmit, RatingChangeOut): generated clients keep their types.
@extend_schema_serializer(component_name="RatingChangeOut")
class RatingChangeOutputSerializer(AnswerSerializer):
    player = serializers.IntegerField()
    rating_before = RatingNumberField()
    rating_after = RatingNumberField()
    delta = RatingNumberField()


# The lists a match answer builds in its methods, made once: a serializer made per call costs more
# than the rows it writes (the answer is on the submission's hot path).
PLAYER_RESULTS = PlayerResultOutputSerializer(many=True)
RATING_CHANGES = RatingChangeOutputSerializer(many=True)


class MatchAnswerSerializer(KindFieldsMixin, AnswerSerializer):
    """A match answer of one game's kind: API.md's fields, which every game has, and the kind's own
    (``GameKind.answer_fields``: Slaps's winner, Preferans's deals, bridge's boards) before ``rating_changes``.
    Made once per kind (``match_answer_serializer``); ``MatchOutputSerializer`` picks the match's."""

    kind_fields_before = "rating_changes"

    id = serializers.IntegerField()
    game = serializers.CharField(source="game.slug", help_text="The game's slug.")
    played_at = _utc_time()
    rated = serializers.BooleanField(help_text="False for a friendly (never rated).")
    status = serializers.ChoiceField(
        choices=Match.Status.choices,
        help_text="submitted until rated; friendly for an unrated match; void once voided.",
    )
    referee = PersonField(
        help_text="The referee who entered it: their full name, or null if they have none set; the username for staff."
    )
    league = serializers.CharField(
        source="league.slug", allow_null=True, help_text="The league it is filed under (a slug), or null."
    )
    seats = SeatOutputSerializer(many=True, help_text="Every seat, in seat order.")
    players = serializers.SerializerMethodField(help_text="The seats held by players (not bots), in seat order.")
    # Here, the kind's own fields: see ``KindFieldsMixin.get_fields``.
    rating_changes = serializers.SerializerMethodField(
        help_text="One row per player with the match's total change; empty until rated."
    )
    awaiting_confirmation = serializers.BooleanField(
        help_text="True while a result of a two-step league waits for a second referee."
    )
    confirmed_by = PersonField(
        help_text="The confirming referee, as referee is given (full name, or the username for staff), or null."
    )
    rated_after = _utc_time(
        source="due_at",
        allow_null=True,
        help_text="When a league's rating period closes, the time from which the result is rated; else null.",
    )
    # Added after the first published fields, last, so that their order holds.
    disputed_by = PersonField(
        help_text="The referee who disputed the waiting result (it waits for an admin), as referee is given, or null."
    )

    def kind_fields(self) -> dict:
        return {name: KindAnswerField(own=own) for name, own in self.kind.answer_fields.items()}

    @extend_schema_field(PLAYER_RESULTS)
    def get_players(self, match: Match) -> list:
        seats = [seat for seat in match.seats.all() if seat.player_id]
        return PLAYER_RESULTS.to_representation(seats)

    @extend_schema_field(RATING_CHANGES)
    def get_rating_changes(self, match: Match) -> list:
        # The ledger has a row per player per unit (deal, board), in unit order: a player's
        # total runs from the first row's rating before to the last row's rating after.
        decimals = rating_decimals(match.game)
        totals: dict[int, list] = {}
        for change in match.rating_changes.all():
            row = totals.get(change.player_id)
            if row is None:
                totals[change.player_id] = [change.rating_before, change.rating_after]
            else:
                row[1] = change.rating_after
        rows = [
            {
                "player": player,
                "rating_before": rating_number(before, decimals=decimals),
                "rating_after": rating_number(after, decimals=decimals),
                "delta": rating_number(after - before, decimals=decimals),
            }
            for player, (before, after) in totals.items()
        ]
        return RATING_CHANGES.to_representation(rows)


def _kind_serializer(base: type, kind, *, component: str, game_schema: dict | None = None, doc: str = "") -> type:
    """A subclass of ``base`` (``KindFieldsMixin``) for ``kind``'s matches, published as ``component``."""
    attrs = {"__module__": __name__, "__doc__": doc or base.__doc__, "kind": kind, "game_schema": game_schema}
    return extend_schema_serializer(component_name=component)(type(f"{component}Serializer", (base,), attrs))


# One answer serializer per kind, made when its first match is answered (its fields built once, as every
# AnswerSerializer's); keyed by the kind itself, so a kind registered again (a test's) gets its own.
_ANSWERS: "weakref.WeakKeyDictionary[Any, MatchAnswerSerializer]" = weakref.WeakKeyDictionary()
_NO_KIND_ANSWER = MatchAnswerSerializer()  # a game whose kind is not registered: the fields every game has


def match_answer_serializer(kind) -> MatchAnswerSerializer:
    """The serializer of a match answer of ``kind``'s games: every game's fields and the kind's own."""
    if kind is None:
        return _NO_KIND_ANSWER
    serializer = _ANSWERS.get(kind)
    if serializer is None:  # two threads may both make it: the same serializer, either is kept
        # Never in the schema (its classes are made when it is: ``KindsOneOf``), so any component name does.
        answer_class = _kind_serializer(MatchAnswerSerializer, kind, component=f"{type(kind).__name__}MatchOut")
        serializer = _ANSWERS[kind] = answer_class()
    return serializer


@extend_schema_serializer(component_name="MatchOut")
class MatchOutputSerializer(serializers.Serializer):
    """A match as every match API answers it: the fields every game has and its own game's only (a Slaps
    match has no ``deals``), by its kind's ``MatchAnswerSerializer``. Published as a ``oneOf`` of the kinds'
    answers, chosen by ``game`` (``MatchAnswersOneOf``)."""

    def to_representation(self, match: Match):
        return match_answer_serializer(match.game.kind).to_representation(match)


class MatchBodySerializer(KindFieldsMixin, serializers.Serializer):
    """A result body of one game's kind (API.md "Match bodies"): the fields every game has, and the kind's own
    (``GameKind.body_fields``) before ``league``. For the schema only: ``matches.services`` checks bodies."""

    kind_fields_before = "league"

    game = serializers.CharField(
        help_text="The game's slug (slaps, preferans, bridge or one an admin added): the body has that game's fields."
    )
    played_at = serializers.DateTimeField(help_text="ISO 8601; at most 10 minutes in the future.")
    rated = serializers.BooleanField(default=True, help_text="False makes a friendly.")
    # Here, the kind's own fields: see ``KindFieldsMixin.get_fields``.
    league = serializers.CharField(
        required=False,
        help_text="The slug of a league of the game to file the result under (default: its amateur league); "
        "bridge: its rating period applies. Every player must be in that league or a higher one (the pro "
        "league's results are between pros; the amateur league takes anyone): otherwise 400 naming league. "
        "It never exempts a result from two-step confirmation: a result waits "
        "for a second referee when this league or any league one of its players is in requires it.",
    )

    def kind_fields(self) -> dict:
        # A declared field is bound to one serializer: each body class gets its own copies.
        return {name: copy.deepcopy(field) for name, field in self.kind.body_fields.items()}


@extend_schema_serializer(component_name="MatchSubmit")
class MatchInputSerializer(serializers.Serializer):
    """A result body (API.md "Match bodies"): published as a ``oneOf`` of the kinds' bodies, chosen by ``game``
    (``MatchBodiesOneOf``). Documents the body only: ``matches.services`` checks it."""


def kind_schema_names() -> dict[str, str]:
    """Each registered kind's name in the schema's components (``SlapsResult``, ``SlapsMatchOut``), by its slug:
    its ``api_name`` (by default its class's name without "Kind"), made unique in registration order."""
    names: dict[str, str] = {}
    for slug, kind in KINDS.items():
        name = re.sub(r"[^0-9A-Za-z]", "", getattr(kind, "api_name", "") or slug.title()) or "Game"
        if name in names.values():  # two clubs' kinds both called DurakKind: the second is told by its slug
            name += re.sub(r"[^0-9A-Za-z]", "", slug.title())
        names[slug] = name
    return names


def _game_slugs_by_system() -> dict[str, list[str]]:
    """The games' slugs by rating system (the kinds' slugs), read when the schema is made: games are rows, a
    kind is code, and any number of games (each named by its club) may share a kind."""
    slugs: dict[str, list[str]] = {}
    try:
        with transaction.atomic():  # a savepoint: a failed read leaves an outer transaction usable
            rows = list(Game.objects.order_by("slug").values_list("slug", "rating_system"))
    except DatabaseError:
        # No database (``manage.py spectacular --file`` offline): the oneOf without a mapping still holds.
        return slugs
    for slug, system in rows:
        slugs.setdefault(system, []).append(slug)
    return slugs


class KindsOneOf(OpenApiSerializerExtension):
    """A union of the games' bodies or answers as the schema publishes it: a ``oneOf`` of one component per
    registered kind (``<Name>Result``, ``<Name>MatchOut``), with a ``discriminator`` on ``game``.

    ``game`` is a slug, data an admin chooses; the kind is the code behind it. So each member's ``game`` is
    the ``<Name>Game`` enum of the slugs of that kind's games when the schema is made (each request to
    /api/schema/ makes it anew), and the discriminator's ``mapping`` takes each slug to its kind's member. A
    validator that ignores discriminators (JSON Schema) still finds exactly one member: the enums do not
    overlap. A kind with no game yet is a member whose ``game`` is any text, in no mapping (no body of it can
    be stored until an admin adds its game); with no game at all there is no discriminator, as OpenAPI would
    then read ``game`` as a member's name.
    """

    component: ClassVar[str] = ""
    base: ClassVar[type] = serializers.Serializer
    suffix: ClassVar[str] = ""
    #: A member's description, given the kind's name, its rating system and its games' slugs.
    doc: ClassVar[str] = ""

    def get_name(self, auto_schema, direction):
        return self.component

    def map_serializer(self, auto_schema, direction):
        slugs = _game_slugs_by_system()
        members: list[dict] = []
        mapping: dict[str, str] = {}
        for slug, name in kind_schema_names().items():
            games = slugs.get(slug, [])
            game = _game_enum(auto_schema, name=f"{name}Game", system=slug, games=games)
            doc = self.doc.format(name=name, system=slug, games=", ".join(games) or "none yet")
            member_class = _kind_serializer(
                self.base, KINDS[slug], component=f"{name}{self.suffix}", game_schema=game, doc=doc
            )
            member = auto_schema.resolve_serializer(member_class, direction).ref
            members.append(member)
            mapping.update(dict.fromkeys(games, member["$ref"]))
        if not mapping:  # no game at all: a discriminator would say the game is a component's name
            return {"oneOf": members}
        return {"oneOf": members, "discriminator": {"propertyName": "game", "mapping": mapping}}


def _game_enum(auto_schema, *, name: str, system: str, games: list[str]) -> dict:
    """The schema of a kind's ``game`` property: a reference to the ``name`` component, the enum of its games'
    slugs (shared by its body and its answer); a plain string while the kind has no game."""
    if not games:
        return {"type": "string"}
    component = ResolvedComponent(
        name=name,
        type=ResolvedComponent.SCHEMA,
        object=name,
        schema={
            "type": "string",
            "enum": games,
            "description": f"The slug of a game rated by {system!r}: the games of this kind when the schema was made.",
        },
    )
    auto_schema.registry.register_on_missing(component)
    return component.ref


class MatchBodiesOneOf(KindsOneOf):
    target_class = MatchInputSerializer
    component = "MatchSubmit"
    base = MatchBodySerializer
    suffix = "Result"
    doc = (
        "A result body of a {name} game (rating system {system!r}; its games: {games}): the fields every body "
        "has and the game's own, with its limits."
    )


class MatchAnswersOneOf(KindsOneOf):
    target_class = MatchOutputSerializer
    component = "MatchOut"
    base = MatchAnswerSerializer
    suffix = "MatchOut"
    doc = (
        "A match of a {name} game (rating system {system!r}; its games: {games}) as every match API answers it: "
        "the fields every game has and this game's own, no other's."
    )


IDEMPOTENCY_REUSED_SCHEMA = {
    "type": "object",
    "description": "The Idempotency-Key was already used with another body; nothing was stored.",
    "properties": {"Idempotency-Key": {"type": "array", "items": {"type": "string"}}},
    "required": ["Idempotency-Key"],
}


class MatchCreateApi(APIView):
    """Store a result (referees); it is rated once the transaction commits."""

    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsReferee]
    parser_classes = JSON_ONLY
    InputSerializer = MatchInputSerializer
    OutputSerializer = MatchOutputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OpenApiResponse(OutputSerializer, description="Stored."),
            200: OpenApiResponse(
                OutputSerializer, description="A retry with the same Idempotency-Key: the match stored the first time."
            ),
            **error_responses(*BODY_ERRORS, *WRITE_ERRORS),
            422: OpenApiResponse(IDEMPOTENCY_REUSED_SCHEMA, description=IDEMPOTENCY_REUSED_SCHEMA["description"]),
        },
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "^[ -~]+$"},
                OpenApiParameter.HEADER,
                description=f"Optional, 1 to {IDEMPOTENCY_KEY_MAX} printable ASCII characters. A retry with the same "
                "key and the same body returns the first match (200) and stores nothing; the same key with another "
                "body is refused (422) and stores nothing. "
                '"The same body" means the same result once validated: key order, spacing, ids as strings, '
                'the time zone of played_at, and defaults spelled out or left out ("rated": true, the '
                "amateur league) do not matter.",
            )
        ],
        # One example body per game, from its kind (``body_example``), in the registry's order.
        examples=[
            OpenApiExample(kind.body_example_name, value=kind.body_example, request_only=True)
            for kind in KINDS.values()
            if kind.body_example
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
        return Response(
            self.OutputSerializer(_answer_for(match_detail_rated_of(match), request)).data, status=response_status
        )


#: A batch's body at most, in bytes (413 beyond, before it is read), under the general body cap
#: (``CARDRANK_MAX_BODY_BYTES``, 1 MiB). Work grows with what a batch holds, not with its count alone: a
#: 1 MiB batch of Preferans games (83,500 deals) took 32 s to answer on the measuring host, of bridge
#: sessions (18,960 board-tables) 66 s, past gunicorn's 30 s; 64 KiB of either is answered in under 5 s
#: there, so well inside 30 s on a host three times slower (``manage.py benchmark --only batch``,
#: docs/api.md). A club's evening is a few KB a session.
BATCH_MAX_BYTES = 64 * 1024


@extend_schema_serializer(component_name="MatchBatchSubmit")
class MatchBatchInputSerializer(serializers.Serializer):
    """Many result bodies in one request (documents the body; ``matches.services.match_submit_batch`` checks it)."""

    matches = MatchInputSerializer(
        many=True,
        min_length=1,
        max_length=BATCH_MAX,
        help_text=f"1 to {BATCH_MAX} result bodies, each as POST /api/matches/ takes it, in a body of at most "
        f"{BATCH_MAX_BYTES:,} bytes.",
    )


@extend_schema_serializer(component_name="MatchBatchOut")
class MatchBatchOutputSerializer(AnswerSerializer):
    matches = MatchOutputSerializer(many=True, help_text="The stored matches, in the order of the request's items.")


BATCH_ERRORS_SCHEMA = {
    "type": "object",
    "description": 'Bad input; nothing was stored. Refused items: {"errors": {"INDEX": {"field": ["message"]}}}, '
    "each item's index (from 0, as text) with its errors as POST /api/matches/ gives them; a body that is not "
    f'an object with a list of 1 to {BATCH_MAX} items: {{"matches": ["message"]}} (or {{"detail": ...}}, as for '
    "any body).",
    "properties": {
        "errors": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
        },
        "detail": {"type": "string"},
    },
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}


class MatchBatchApi(APIView):
    """Store many results in one request (referees): all or none, each as POST /api/matches/ would store it."""

    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsReferee]
    parser_classes = JSON_ONLY
    InputSerializer = MatchBatchInputSerializer
    OutputSerializer = MatchBatchOutputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OpenApiResponse(OutputSerializer, description="Every result stored, in the items' order."),
            200: OpenApiResponse(
                OutputSerializer,
                description="A retry with the same Idempotency-Key and items: the matches stored the first time.",
            ),
            **error_responses(413, 415, *WRITE_ERRORS),
            400: OpenApiResponse(BATCH_ERRORS_SCHEMA, description=BATCH_ERRORS_SCHEMA["description"]),
            422: OpenApiResponse(IDEMPOTENCY_REUSED_SCHEMA, description=IDEMPOTENCY_REUSED_SCHEMA["description"]),
        },
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "^[ -~]+$"},
                OpenApiParameter.HEADER,
                description="Optional; covers the whole batch as POST /api/matches/'s covers one result: a retry "
                "with the same key and items returns the stored matches (200), the same key with other items "
                "(or a key already used for one result) is refused (422); either way nothing more is stored.",
            )
        ],
    )
    def post(self, request):
        # The server has the body's length before any of it is read (a chunked body is read to the general
        # cap and measured by config.bodies): a batch past its own, smaller cap is refused unread.
        if _body_length(request) > BATCH_MAX_BYTES:
            raise RequestTooLarge(
                gettext(
                    "A batch's body is at most %(limit)s bytes: send its results in smaller batches, "
                    "each with its own Idempotency-Key."
                )
                % {"limit": intcomma(BATCH_MAX_BYTES)}
            )
        data = request.data
        if not isinstance(data, dict):
            raise ValidationError({"non_field_errors": [gettext('A JSON object: {"matches": [...]}.')]})
        try:
            matches, created = match_submit_batch(
                referee=request.user, items=data.get("matches"), key=request.headers.get("Idempotency-Key")
            )
        except BatchRefused as error:
            return Response({"errors": error.errors}, status=status.HTTP_400_BAD_REQUEST)
        except IdempotencyKeyReused as error:
            return Response(error.message_dict, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        stored = match_detail_rated_queryset().in_bulk([match.pk for match in matches])
        matches_parts_read(stored.values())
        answer = {"matches": [_answer_for(stored[match.pk], request) for match in matches]}
        response_status = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(self.OutputSerializer(answer).data, status=response_status)


def _body_length(request) -> int:
    """The body's announced length; 0 when none or not a number (Django then reads the body as empty)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


@contextmanager
def _unknown_match_is_404():
    """The services look the match up (once, under their lock) and raise DoesNotExist: a 404, in the words
    ``get_object_or_404`` answered before the views stopped looking the match up a second time."""
    try:
        yield
    except Match.DoesNotExist as error:
        raise not_found(Match) from error


class MatchDetailApi(APIView):
    """A match, its result and (once rated) every player's rating change."""

    OutputSerializer = MatchOutputSerializer

    @extend_schema(responses={200: OutputSerializer, **error_responses(404, *ANY_REQUEST_ERRORS)})
    def get(self, request, pk):
        try:
            match = match_detail_rated(match_id=pk)
        except Match.DoesNotExist as error:
            raise Http404 from error
        return Response(self.OutputSerializer(_answer_for(match, request)).data)


class MatchVoidApi(APIView):
    """Void a match (admins): it stops counting and ratings replay from it. Voiding twice changes nothing."""

    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsMatchAdmin]
    OutputSerializer = MatchOutputSerializer

    @extend_schema(request=None, responses={200: OutputSerializer, **error_responses(404, *WRITE_ERRORS)})
    def post(self, request, pk):
        with _unknown_match_is_404():
            match_void(match_id=pk, by=request.user)
        return Response(self.OutputSerializer(_answer_for(match_detail_rated(match_id=pk), request)).data)


class MatchCorrectApi(APIView):
    """Replace a match's result with a corrected one (admins); ratings replay from it."""

    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    permission_classes = [IsMatchAdmin]
    parser_classes = JSON_ONLY
    InputSerializer = MatchInputSerializer
    OutputSerializer = MatchOutputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, **error_responses(*BODY_ERRORS, 404, *WRITE_ERRORS)},
        description="The body is a whole result, exactly as for POST /api/matches/; the game cannot change, "
        "and a body without league keeps the match's league, which must admit the corrected players as on "
        "submission (400 naming league otherwise). A body that would store exactly what is stored "
        "changes nothing (no replay, no audit entry). A changed result is re-examined for two-step "
        "confirmation and, if it needs it, waits for a referee other than the correcting admin.",
    )
    def post(self, request, pk):
        try:
            data = request.data
        except Exception:
            # An unknown match is a 404 whatever its body (unreadable, too large, not JSON), as it always was.
            object_or_404(Match, pk=pk)
            raise
        with _unknown_match_is_404():
            match_correct(match_id=pk, by=request.user, data=data)
        return Response(self.OutputSerializer(_answer_for(match_detail_rated(match_id=pk), request)).data)


class MatchConfirmApi(APIView):
    """A second referee confirms a result of a two-step league; it is then rated."""

    permission_classes = [IsReferee]
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    OutputSerializer = MatchOutputSerializer

    @extend_schema(request=None, responses={200: OutputSerializer, **error_responses(400, 404, *WRITE_ERRORS)})
    def post(self, request, pk):
        with _unknown_match_is_404():
            match_confirm(match_id=pk, by=request.user)
        return Response(self.OutputSerializer(_answer_for(match_detail_rated(match_id=pk), request)).data)


class MatchDisputeInputSerializer(serializers.Serializer):
    """A dispute's body (documents it; ``matches.confirmation.dispute_note_clean`` checks the note)."""

    note = serializers.CharField(
        max_length=DISPUTE_NOTE_MAX,
        help_text=f"What is wrong with the result: 1 to {DISPUTE_NOTE_MAX} characters, line breaks allowed, "
        "no control or formatting characters.",
    )


class MatchDisputeApi(APIView):
    """A second referee disputes a result waiting for confirmation, with a note: it stays unrated until an
    admin corrects or voids it. The same referees may dispute as may confirm."""

    permission_classes = [IsReferee]
    throttle_classes = [WriteThrottle]
    throttle_scope = "writes"
    parser_classes = JSON_ONLY
    InputSerializer = MatchDisputeInputSerializer
    OutputSerializer = MatchOutputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, **error_responses(*BODY_ERRORS, 404, *WRITE_ERRORS)},
    )
    def post(self, request, pk):
        try:
            data = request.data
        except Exception:
            object_or_404(Match, pk=pk)  # an unknown match is a 404 whatever its body, as for a correction
            raise
        if not isinstance(data, dict):
            object_or_404(Match, pk=pk)
            raise ValidationError({"non_field_errors": [gettext('A JSON object: {"note": "what is wrong"}.')]})
        with _unknown_match_is_404():
            match_dispute(match_id=pk, by=request.user, note=data.get("note"))
        return Response(self.OutputSerializer(_answer_for(match_detail_rated(match_id=pk), request)).data)
