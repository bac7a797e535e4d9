"""API plumbing shared by every app: error shape, the documented error answers, parsing and permissions.

Services raise Django's ``ValidationError``/``PermissionDenied``; the handler
turns them into DRF-style responses: 400 ``{"field": ["message"]}``.

Vocabulary of the published schema (``/api/schema/``):

- *field errors*: the 400 body, ``{"field": ["message", ...], ...}``; a body
  that is not JSON at all answers ``{"detail": "..."}`` with the same status.
- *detail error*: every other refusal, ``{"detail": "message"}`` (401, 403,
  404, 405, 413, 415, 429).
- ``error_responses(...)`` documents those answers on an operation, so a
  client generated from the schema knows every status it can get and its body.
"""

import re

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import defaults
from django_ratelimit.core import get_usage
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import exceptions, permissions, renderers, serializers, status, throttling
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from config.bodies import API_PREFIX, body_too_large_response
from config.clientip import client_ip
from config.jsonbody import JSON_MAX_DEPTH, JSONBodyParser
from config.permissions import user_can_submit, user_can_void, user_sees_club_data


def grouped(number: int) -> str:
    """A count of bytes or parameters in a message: its digits grouped as the language groups them (1,048,576;
    in Russian 1 048 576), whatever ``USE_THOUSAND_SEPARATOR`` says for the pages' figures."""
    return number_format(number, force_grouping=True)


def body_too_large_message() -> str:
    return _("The request body is too large: at most %(limit)s bytes.") % {
        "limit": grouped(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    }


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")
    default_code = "request_too_large"

    def __init__(self, detail=None, code=None):
        super().__init__(detail or body_too_large_message(), code)


def exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        # Django's limit (DATA_UPLOAD_MAX_MEMORY_SIZE), met while DRF reads the body: a 413 in JSON,
        # not Django's HTML "Bad Request" for a suspicious operation.
        exc = RequestTooLarge()
    elif isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(detail=str(exc) or None)
    return drf_exception_handler(exc, context)


class IsReferee(permissions.BasePermission):
    message = gettext_lazy("Only referees can submit results.")

    def has_permission(self, request, view):
        return user_can_submit(request.user)


class IsClubStaff(permissions.BasePermission):
    message = gettext_lazy("Only the club's staff can download this: it holds federation numbers.")

    def has_permission(self, request, view):
        return user_sees_club_data(request.user)


class IsMatchAdmin(permissions.BasePermission):
    message = gettext_lazy("Only admins can void matches.")

    def has_permission(self, request, view):
        return user_can_void(request.user)


class WriteThrottle(throttling.ScopedRateThrottle):
    """Writes per user (or address), at the ``writes`` rate of REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].

    Counted in fixed windows by django-ratelimit (an atomic ``add``/``incr`` of
    one cache counter), the same counting as the pages' limits. DRF's own
    throttle keeps, and pickles to and from the cache on every request, the
    time of every request in its window: at the rates of a busy federation
    that cost a submission more than validating it.
    """

    scope_attr = "throttle_scope"
    time_left = None

    def get_rate(self):
        # Read the rates now, not at import, so settings changes (and tests) take effect.
        from rest_framework.settings import api_settings

        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_ident(self, request):
        # An anonymous client's address as every limit reads it (config/clientip.py), not DRF's NUM_PROXIES.
        return client_ip(request)

    def get_cache_key(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return None
        return super().get_cache_key(request, view)

    def allow_request(self, request, view):
        self.scope = getattr(view, self.scope_attr, None)
        rate = self.get_rate() if self.scope else None
        key = self.get_cache_key(request, view) if rate else None
        if key is None:
            return True
        usage = get_usage(request, group=f"api-{self.scope}", key=lambda group, request: key, rate=rate, increment=True)
        if usage is None:  # RATELIMIT_ENABLE is off, or the cache is down: fail open (config/cache.py)
            return True
        # At least one second: DRF leaves out Retry-After for a wait of 0 (the last
        # second of a window), and a client told nothing would retry at once.
        self.time_left = max(usage["time_left"], 1)
        return not usage["should_limit"]

    def wait(self):
        return self.time_left


# API bodies are JSON (API.md); anything else is refused with 415 rather than half-read as a form.
# Parsed by orjson with a depth limit (config.jsonbody): deep nesting is a 400, never a RecursionError.
JSON_ONLY = [JSONBodyParser]


class AnswerSerializer(serializers.Serializer):
    """A serializer for answers only (the APIs' ``OutputSerializer``s): its fields are built once per class.

    DRF deep-copies every declared field, nested serializers included, for each
    serializer it makes, so that fields may keep per-request state; an answer's
    fields keep none (no context, no validation). Copying them was a large share
    of a submission's CPU (docs/performance.md): here the first instance's
    bound fields serve every later one.
    """

    @property
    def fields(self):
        cls = type(self)
        shared = cls.__dict__.get("_shared_fields")
        if shared is None:
            shared = serializers.Serializer.fields.func(self)  # DRF's own building and binding
            cls._shared_fields = shared
        return shared

    def to_representation(self, instance):
        """DRF's, with a short way for the rows APIs build as dicts (a history, a leaderboard page).

        DRF reads every field through a general attribute walk (mapping or object,
        callables, dotted sources), slow over a history of thousands of rows
        (docs/performance.md). A dict row's field with a plain key is
        read straight from it; everything else goes DRF's way.
        """
        if not isinstance(instance, dict):
            return super().to_representation(instance)
        cls = type(self)
        plan = cls.__dict__.get("_dict_plan")
        if plan is None:  # per field: its name, the row's key (None: DRF's walk), whether it must be there
            plan = [
                (field.field_name, field.source_attrs[0] if len(field.source_attrs) == 1 else None, field)
                for field in self._readable_fields
            ]
            cls._dict_plan = plan
        answer = {}
        for name, key, field in plan:
            if key is None:
                value = field.get_attribute(instance)
            elif key in instance:
                value = instance[key]
            elif field.required:
                raise KeyError(f"{cls.__name__}: the row has no {key!r}.")
            else:
                continue  # an optional part of the answer (the calculator's grid)
            answer[name] = None if value is None else field.to_representation(value)
        return answer


class ErrorDetailSerializer(serializers.Serializer):
    """A refusal that is not about a field: ``{"detail": "message"}``."""

    detail = serializers.CharField()


# The 400 body. A dict shape with free keys (the fields) is plain JSON Schema,
# not a serializer: ``detail`` (a body that is not JSON) is a string, every
# other key a field's list of messages.
FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": 'Bad input: {"field name": ["message", ...], ...}; nothing was stored. '
    'A body that is not valid JSON answers {"detail": "message"}.',
    "properties": {
        "detail": {"type": "string"},
        "non_field_errors": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}

ERROR_DESCRIPTIONS = {
    400: "Bad input, naming the field; nothing was stored. A body that is not JSON, or JSON nested more than "
    f"{JSON_MAX_DEPTH} levels deep, a request with too many parameters and one for a Host the site does not "
    'serve answer {"detail": "..."}.',
    401: "No valid credentials: a missing or bad token (a bad token is refused even where reading is public).",
    403: "Signed in, but not allowed (writing needs a referee; voiding and corrections an admin).",
    404: "No such object (an unknown id or slug in the URL, or a page past the last).",
    405: "The method is not allowed on this path.",
    413: "The request body is larger than the server accepts (CARDRANK_MAX_BODY_BYTES, 1 MiB by default); "
    "nothing was stored.",
    415: "The body is not JSON (Content-Type must be application/json).",
    429: "Too many writes: wait for the number of seconds in the Retry-After header.",
}


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error answers of an operation (see the module docstring)."""
    responses = {}
    for code in codes:
        body = FIELD_ERRORS_SCHEMA if code == 400 else ErrorDetailSerializer
        responses[code] = OpenApiResponse(response=body, description=ERROR_DESCRIPTIONS[code])
    return responses


# Every operation can answer these: a request Django refuses before the view (a Host the site does not
# serve, too many query parameters) is 400, a bad token is refused on public reads too, and any other
# method is 405.
ANY_REQUEST_ERRORS = (400, 401, 405)
# A write can also be refused for its sender, its size, its content type and its rate.
WRITE_ERRORS = (*ANY_REQUEST_ERRORS, 403, 429)
BODY_ERRORS = (400, 413, 415)


@extend_schema_field(OpenApiTypes.NUMBER)
class RatingNumberField(serializers.Field):
    """A rating already made a JSON number by ``rating_number``: whole for Slaps, two decimals otherwise.

    Passed through as it is: DRF's ``FloatField`` would turn a Slaps 1016 into 1016.0.
    """

    def to_representation(self, value):
        return value


SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


def api_page_not_found(request, exception=None):
    """``handler404``: a path under /api/ that no route matches (``/api/matches/-1/``) answers JSON, as
    the API's own 404s do (API.md: every answer under /api/ is JSON); pages keep Django's, which draws
    templates/404.html.

    Django calls it only with ``DEBUG`` off; with it on, the last route under /api/ (config.urls) calls
    it as a view. The trailing-slash redirect still comes first.
    """
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": _("Not found.")}, status=status.HTTP_404_NOT_FOUND)
    return defaults.page_not_found(request, exception)


def api_bad_request(request, exception=None):
    """``handler400``: what Django refuses before or outside a view's own checks (a ``SuspiciousOperation``).

    A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``CARDRANK_MAX_BODY_BYTES``) met while
    reading (config.bodies refuses most unread) is 413, as the API answers it; too many query or
    form parameters is 400. Under /api/ the answer is JSON; elsewhere a plain
    page. Other suspicious requests (a Host not allowed, ...) keep Django's
    terse answer, which says nothing of why.
    """
    if isinstance(exception, RequestDataTooBig):
        return body_too_large_response(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(exception, TooManyFieldsSent):
        code = status.HTTP_400_BAD_REQUEST
        detail = _("Too many parameters: at most %(limit)s.") % {
            "limit": grouped(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS)
        }
    elif request.path.startswith(API_PREFIX):
        code, detail = status.HTTP_400_BAD_REQUEST, _("Bad request.")
    else:
        return defaults.bad_request(request, exception)
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": detail}, status=code)
    return HttpResponse(detail, status=code, content_type="text/plain; charset=utf-8")


def api_permission_denied(request, exception=None):
    """``handler403``: JSON under /api/ (DRF answers its own views' refusals; this is everything else)."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": str(exception or "") or _("Forbidden.")}, status=status.HTTP_403_FORBIDDEN)
    return defaults.permission_denied(request, exception)


def api_server_error(request):
    """``handler500``: a crash under /api/ answers JSON too (never documented: the suite holds it at zero);
    a page answers templates/500.html, rendered with no request context and no database."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": _("Server error.")}, status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    return defaults.server_error(request)


def query_params_once(request) -> dict[str, str]:
    """The query string, one value per name, refused (400, naming the parameter) when a name is given
    twice (the schema documents one value, and a client sending two meant something) or a value holds a
    NUL character (PostgreSQL refuses it in text, which would be a 500 the moment it reached a query)."""
    errors: dict[str, list[str]] = {}
    for name, values in request.query_params.lists():
        if len(values) > 1:
            errors.setdefault(name, []).append(_("Give this parameter once."))
        if any("\x00" in value for value in values):
            errors.setdefault(name, []).append(_("Null characters are not allowed."))
    if errors:
        raise exceptions.ValidationError(errors)
    return request.query_params.dict()


class CSVRenderer(renderers.BaseRenderer):
    """Lets a client that asks for ``text/csv`` reach a download (content negotiation would answer 406);
    the download's view answers the file itself (``DownloadApi``), never through this renderer."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return renderers.JSONRenderer().render(data)


class DownloadApi(APIView):
    """A file download under /api/: the view returns a streamed file; every refusal is JSON, as elsewhere
    under /api/, whatever the client asked for (``Accept: text/csv`` included).

    Its route takes any path segment (``<str:...>``, see ``config.urls``): ``slug_of`` and ``id_of`` turn
    one that cannot name anything into a 404.
    """

    renderer_classes = [renderers.JSONRenderer, CSVRenderer]

    @staticmethod
    def slug_of(value: str) -> str:
        if not SLUG.fullmatch(value):
            raise Http404
        return value

    @staticmethod
    def id_of(value: str) -> int:
        if not (value.isascii() and value.isdigit() and len(value) <= 18):
            raise Http404
        return int(value)

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response):  # a refusal: DRF renders it, as JSON
            request.accepted_renderer = renderers.JSONRenderer()
            request.accepted_media_type = request.accepted_renderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


#: A download's path names its format: DRF's ``?format=`` override is not documented on it.
NO_FORMAT_PARAMETER = OpenApiParameter("format", exclude=True)


def download_responses(media_type: str, description: str, *errors: int) -> dict:
    """The documented answers of a download: the file (a string of ``media_type``) and JSON refusals."""
    body = {"type": "string"} if media_type != "application/json" else {"type": "object"}
    refusals = {(code, "application/json"): answer for code, answer in error_responses(*errors).items()}
    return {(200, media_type): OpenApiResponse(body, description=description), **refusals}
