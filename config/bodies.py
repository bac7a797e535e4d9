"""Request bodies refused past their cap before anything reads them (``BodyCapMiddleware``).

Vocabulary:

- *the cap*: the largest body a request may carry, ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (set from
  ``CARDRANK_MAX_BODY_BYTES``), except on admin's import upload (``games.admin.ImportRunAdmin``'s add
  view), whose cap is ``CARDRANK_IMPORT_MAX_BYTES`` plus the general cap for the form's other fields and
  the multipart framing, so that a file a little over the import's limit still meets the form's error
  naming it.
- *announced*: a body whose size ``Content-Length`` gives; it is refused from that figure, unread.
- *chunked*: a body sent with ``Transfer-Encoding: chunked`` and no ``Content-Length``. Django's WSGI
  request would read it as empty; it is read here, at most one byte past the cap, and handed on as an
  announced body.

Django's own limit checks only what it parses (a multipart request's files do not count), and only while
it reads: a large multipart POST with just a CSRF cookie was read whole, to a temporary file, before the
CSRF check refused it. This middleware stands before every other that could read the body, so a refused
body is never read; the answer is 413, ``{"detail": ...}`` under ``/api/`` and the 413 page elsewhere.
"""

from __future__ import annotations

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext

API_PREFIX = "/api/"
IMPORT_UPLOAD = "admin:games_importrun_add"
READ_SIZE = 64 * 1024


def body_cap_general() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def body_cap_for(request) -> int:
    """The cap of this request's body: the import's on admin's import upload, the general one elsewhere."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return body_cap_general()
    if match.view_name == IMPORT_UPLOAD:
        return settings.CARDRANK_IMPORT_MAX_BYTES + body_cap_general()
    return body_cap_general()


def body_too_large_response(request, limit: int) -> HttpResponse:
    """413: JSON under /api/, the 413 page (templates/413.html) elsewhere; says the cap in bytes."""
    detail = gettext("The request body is too large: at most %(limit)s bytes.") % {
        "limit": number_format(limit, force_grouping=True)  # 1,048,576; in Russian 1 048 576
    }
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": detail}, status=413)
    page = loader.render_to_string("413.html", {"detail": detail, "limit": limit})
    return HttpResponse(page, status=413)


def _announced_length(request) -> int | None:
    value = request.META.get("CONTENT_LENGTH")
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        return None  # Django reads such a body as empty


def _is_chunked(request) -> bool:
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


class BodyCapMiddleware:
    """Refuses a body over its cap before any other middleware or view reads it (module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        length = _announced_length(request)
        if length is not None:
            if length > body_cap_general():
                limit = body_cap_for(request)
                if length > limit:
                    return self._refused(request, limit)
        elif _is_chunked(request) and isinstance(request, WSGIRequest):
            refused = self._read_chunked(request)
            if refused is not None:
                return refused
        return self.get_response(request)

    @staticmethod
    def _refused(request, limit: int) -> HttpResponse:
        """The 413 in the reader's language: this middleware answers before the language's (the session and
        the user are not read yet), so the cookie's or the browser's choice, as LocaleMiddleware reads them."""
        with translation.override(translation.get_language_from_request(request)):
            return body_too_large_response(request, limit)

    def _read_chunked(self, request) -> HttpResponse | None:
        """Read a chunked body (the server has taken off the chunking) up to one byte past its cap."""
        source = request.environ["wsgi.input"]
        limit, read, parts = body_cap_general(), 0, []
        while True:
            part = source.read(min(READ_SIZE, limit + 1 - read))
            if not part:
                break
            parts.append(part)
            read += len(part)
            if read > limit:
                wider = body_cap_for(request)
                if wider == limit:
                    return self._refused(request, limit)
                limit = wider
        body = b"".join(parts)
        request.META["CONTENT_LENGTH"] = str(len(body))
        request._stream = LimitedStream(io.BytesIO(body), len(body))
        return None
