"""Reading JSON a client sent: API bodies (``JSONBodyParser``) and the JSON fields of admin forms.

Vocabulary:

- *depth*: how many arrays and objects enclose a value (``1``: 0,
  ``[1]``: 1, ``{"a": [[1]]}``: 3). The deepest result body is a bridge
  table's pair, 5 deep; ``JSON_MAX_DEPTH`` is far above any body the API
  documents and far below the interpreter's recursion limit (1,000), so
  code that walks a parsed body recursively (a serializer, ``repr``,
  ``json.dumps``) cannot overflow the stack on what a client sent.

orjson does the parsing: it is strict RFC 8259 (``NaN``, ``Infinity``, lone
surrogates and invalid UTF-8 are refused, where the standard library would
read the first two as floats and let the others reach PostgreSQL, which
refuses them in text), it does not recurse in Python, and past 1,024 levels
it stops with an error instead of the standard library's ``RecursionError``.
The depth walk below is iterative for the same reason.

The size of a body is capped before it is read, by Django
(``DATA_UPLOAD_MAX_MEMORY_SIZE``, set from ``CARDRANK_MAX_BODY_BYTES``).
"""

from typing import Any

import orjson
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding

JSON_MAX_DEPTH = 64


def too_deep_message() -> str:
    return _("JSON nested too deeply: at most %(depth)d levels of arrays and objects.") % {"depth": JSON_MAX_DEPTH}


class JSONBodyError(ValueError):
    """Text that is not JSON, or JSON nested deeper than ``JSON_MAX_DEPTH``; the message says which."""


def json_too_deep(value: Any, *, limit: int = JSON_MAX_DEPTH) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in a parsed value (stops at the first too deep)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > limit:
            return True
        stack.extend((child, depth) for child in children if isinstance(child, dict | list))
    return False


def json_body_loads(text: bytes | str) -> Any:
    """Parse JSON a client sent; raise ``JSONBodyError`` with a message for the client."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        if "depth limit" in str(error):
            raise JSONBodyError(too_deep_message()) from error
        # The parser's own words (orjson's, in English) stay as they are: they name the place in the text.
        raise JSONBodyError(_("JSON parse error - %(error)s") % {"error": error}) from error
    if json_too_deep(value):
        raise JSONBodyError(too_deep_message())
    return value


class JSONBodyParser(JSONParser):
    """DRF's JSON parser (same media type, same 400 ``{"detail": ...}`` on bad JSON) reading with ``json_body_loads``.

    A body in a charset other than UTF-8 (named in Content-Type) is decoded
    first; DRF's ``get_encoding`` refuses charsets that are not text codecs.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = get_encoding(parser_context or {})
        raw = stream.read()
        try:
            text = raw if _is_utf8(encoding) else raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(
                _("JSON parse error - the body is not %(encoding)s: %(error)s") % {"encoding": encoding, "error": error}
            ) from error
        try:
            return json_body_loads(text)
        except JSONBodyError as error:
            raise ParseError(str(error)) from error


def _is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") in {"utf8", "u8"}


class JSONFormField(forms.JSONField):
    """Django's form JSON field (admin's editor of a model ``JSONField``) parsing with ``json_body_loads``.

    Django's own reads with ``json.loads``, which raises ``RecursionError``
    (a 500) on deep nesting, both when it cleans the text and when it shows
    the form again with an error.
    """

    def to_python(self, value):
        if self.disabled or value in self.empty_values or not isinstance(value, str):
            return super().to_python(value)
        try:
            converted = json_body_loads(value)
        except JSONBodyError as error:
            raise ValidationError(str(error), code="invalid") from error
        return forms.fields.JSONString(converted) if isinstance(converted, str) else converted

    def bound_data(self, data, initial):
        if self.disabled or data is None or not isinstance(data, str):
            return super().bound_data(data, initial)
        try:
            return json_body_loads(data)
        except JSONBodyError:
            return forms.fields.InvalidJSONInput(data)
