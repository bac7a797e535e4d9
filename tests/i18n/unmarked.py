"""Finds the strings a person would read that are not marked for translation (issue 28).

Two readers, both conservative: they flag what is certainly text for people and leave alone what may
be data, so a finding is always worth fixing.

Templates (``template_findings``): every template is cut into Django's tokens; the text outside
``{% translate %}``, ``{% blocktranslate %}``, comments, ``<script>``, ``<style>`` and ``<code>`` is read
as HTML, and any run of two letters or more in a text node or in a human-readable attribute (``title``,
``alt``, ``placeholder``, ``aria-label`` …) is a finding. So is a literal with letters given to a tag or
filter that shows it: ``with title="Some words"``, ``|default:"none"``, ``|yesno:"yes,no"``. A plain-text
template (``.txt``, the mails) is read as one text node; a template included among a tag's attributes
says ``i18n: attributes`` in a comment and is read as a tag's attributes.

Python (``python_findings``): a string literal (or an f-string, or ``"literal" % x``) given where Django
and this project show it to people: ``ValidationError`` and the other refusals a person reads, the
messages framework, ``verbose_name``, ``help_text``, ``label`` (and a form field with none, shown
under its name), admin ``description``, model fields' first argument, ``TextChoices`` labels, ``choices``
pairs. A literal wrapped in ``gettext`` and friends is marked. A line may say why it is exempt with
``# i18n: <reason>`` (a code, a name, a file format).

Words that read the same in every language (the site's name, file formats, rating systems' names) are
``NAMES``; a finding that is only such words is not one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

#: Words that are names, the same in every language: never a finding on their own.
NAMES = {
    "Cardrank",
    "Elo",
    "ISF",
    "SmartPref",
    "PBN",
    "USEBIO",
    "CSV",
    "JSON",
    "API",
    "REST",
    "HTML",
    "ICS",
    "Atom",
    "RSS",
    "OpenAPI",
    "Swagger",
    "ReDoc",
    "IMP",
    "IMPs",
    "MP",
    "NS",
    "EW",
    "HMAC",
    "SHA",
    "UTC",
    "ID",
    "id",
    "vs",
    "Rs",
    "Rt",
    "Rd",
    "Kd",
    "Kv",
    "Vs",
    "Ra",
    "Rb",
}

HUMAN_ATTRIBUTES = {
    "title",
    "alt",
    "placeholder",
    "aria-label",
    "aria-description",
    "aria-roledescription",
    "aria-valuetext",
    "label",
    "summary",
}
#: Elements whose content is not prose: code, scripts, styles.
NOT_PROSE = {"script", "style", "code", "pre", "svg", "math", "template"}
WORD = re.compile(r"[^\W\d_]{2,}")
PLACEHOLDER = "\x00"
#: What a tag or a variable becomes in the text read as HTML: spaced, so ``<tr{% if x %} class="y"{% endif %}>``
#: still reads as a ``tr`` tag.
STAND_IN = " \x00 "
#: Said in a comment by a template that is included inside a tag, among its attributes.
ATTRIBUTES_ONLY = "i18n: attributes"
CODE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]+)?$")  # a language code, a unit: not words


def words(text: str) -> list[str]:
    """The words of ``text`` that would need a translation: two letters or more, not a name."""
    return [word for word in WORD.findall(text.replace(PLACEHOLDER, " ")) if word not in NAMES]


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.text!r}"


# --- templates --------------------------------------------------------------------------------------

#: Tags whose quoted arguments are names, paths or formats, never words for people.
QUIET_TAGS = {
    "load",
    "url",
    "static",
    "extends",
    "block",
    "endblock",
    "include",
    "partialdef",
    "partial",
    "templatetag",
    "now",
    "csrf_token",
    "cycle",
    "regroup",
    "widthratio",
    "spaceless",
    "autoescape",
    "localize",
    "memo",
    "once",
    "get_current_language",
    "get_available_languages",
    "get_language_info_list",
    "get_language_info",
    "language",
}
WITH_LITERAL = re.compile(r"""\b(\w+)=(["'])(.*?)\2""")
SHOWN_FILTER_LITERAL = re.compile(r"""\|(default|default_if_none|yesno)\s*:\s*(["'])(.*?)\2""")


def _skeleton(source: str) -> list[tuple[int, str]]:
    """The template as ``(line, text)`` pieces: its text, with every tag and variable a placeholder and the
    translated parts and comments left out; plus the findings in tags' literal arguments, as text pieces
    starting with ``\\x01``."""
    pieces: list[tuple[int, str]] = []
    inside: str | None = None  # the end tag of a block being skipped (blocktranslate, comment)
    for token in Lexer(source).tokenize():
        line = token.lineno
        content = token.contents
        if inside is not None:
            if token.token_type == TokenType.BLOCK and content.split()[:1] == [inside]:
                inside = None
                pieces.append((line, STAND_IN))
            continue
        if token.token_type == TokenType.TEXT:
            pieces.append((line, content))
            continue
        if token.token_type == TokenType.COMMENT:
            continue
        if token.token_type == TokenType.VAR:
            for _name, _quote, literal in SHOWN_FILTER_LITERAL.findall(content):
                if words(literal) and not CODE.match(literal):
                    pieces.append((line, "\x01" + literal))
            pieces.append((line, STAND_IN))
            continue
        name = content.split()[0] if content.split() else ""
        if name in {"blocktranslate", "blocktrans"}:
            inside = "endblocktranslate" if name == "blocktranslate" else "endblocktrans"
        elif name == "comment":
            inside = "endcomment"
        elif name == "verbatim":
            inside = "endverbatim"
        elif name not in QUIET_TAGS and name not in {"translate", "trans"}:
            for _key, _quote, literal in WITH_LITERAL.findall(content):
                if " " in literal.strip() and words(literal):
                    pieces.append((line, "\x01" + literal))
            for _name, _quote, literal in SHOWN_FILTER_LITERAL.findall(content):
                if words(literal) and not CODE.match(literal):
                    pieces.append((line, "\x01" + literal))
        elif name == "include":
            for _key, _quote, literal in WITH_LITERAL.findall(content):
                if " " in literal.strip() and words(literal):
                    pieces.append((line, "\x01" + literal))
        pieces.append((line, STAND_IN))
    return pieces


class _Reader(HTMLParser):
    def __init__(self, path: str):
        super().__init__(convert_charrefs=True)
        self.path = path
        self.line_of = lambda: 0
        self.skipping: list[str] = []
        self.findings: list[Finding] = []

    def handle_starttag(self, tag, attrs):
        if tag in NOT_PROSE:
            self.skipping.append(tag)
        for name, value in attrs:
            if value and name in HUMAN_ATTRIBUTES and words(value):
                self.findings.append(Finding(self.path, self.line_of(), value.replace(PLACEHOLDER, "…")))
            # A submit or button input shows its value.
            if name == "value" and value and tag == "input" and ("type", "submit") in attrs and words(value):
                self.findings.append(Finding(self.path, self.line_of(), value.replace(PLACEHOLDER, "…")))

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping and words(data):
            self.findings.append(Finding(self.path, self.line_of(), " ".join(data.replace(PLACEHOLDER, "…").split())))


def template_findings(path: Path, root: Path) -> list[Finding]:
    source = path.read_text(encoding="utf-8")
    shown = str(path.relative_to(root))
    pieces = _skeleton(source)
    findings = [Finding(shown, line, text[1:]) for line, text in pieces if text.startswith("\x01")]
    pieces = [(line, text) for line, text in pieces if not text.startswith("\x01")]
    if path.suffix == ".txt":
        for line, text in pieces:
            if words(text):
                findings.append(Finding(shown, line, " ".join(text.split())))
        return findings
    # Feed the pieces one by one, so a finding knows its line.
    reader = _Reader(shown)
    current = {"line": 0}
    reader.line_of = lambda: current["line"]
    # A template that is a tag's attributes (an include inside a tag, saying so in a comment) is read as one.
    fragment = ATTRIBUTES_ONLY in source
    if fragment:
        reader.feed("<fragment ")
    for line, text in pieces:
        current["line"] = line
        reader.feed(text)
    if fragment:
        reader.feed(">")
    reader.close()
    return findings + reader.findings


# --- Python -----------------------------------------------------------------------------------------

MARKERS = {
    "_",
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "npgettext_lazy",
    "gettext_noop",
    "format_lazy",
    "_lazy",
}
#: Calls whose positional text a person reads.
SHOWN_CALLS = {
    "ValidationError",
    "PermissionDenied",
    "NotFound",
    "ParseError",
    "PlayerRefused",
    "IdempotencyKeyReused",
    "BatchRefused",
    "BatchItemRefused",
    "TuningRefused",
    "RowError",
    "CsvUnreadable",
    "ImportRefused",
    "DealError",
    "ConfirmationMissing",
    "JSONBodyError",
    "RequestTooLarge",
    "LaneBusy",
    "HttpResponseBadRequest",
}
#: The messages framework (``messages.error(request, "...")``) and admin's ``message_user(request, "...")``:
#: the text is the argument after the request (``add_message``: after the level). Not ``logger.error``.
MESSAGE_CALLS = {"success": 1, "error": 1, "warning": 1, "info": 1, "debug": 1, "add_message": 2}
#: Keyword arguments whose text a person reads.
SHOWN_KEYWORDS = {
    "verbose_name",
    "verbose_name_plural",
    "help_text",
    "label",
    "description",
    "short_description",
    "empty_label",
    "empty_value_display",
    "detail",
    "message",
    "title",
    "subject",
}
#: Model and form fields: their first positional argument is the verbose name.
FIELD = re.compile(r"Field$")
#: Relations name their model first; their verbose name is a keyword.
RELATIONS = {"ForeignKey", "OneToOneField", "ManyToManyField", "ParentalKey"}
SKIP_LINE = "# i18n:"
#: The API's schema (drf-spectacular: serializers' help texts, extend_schema's descriptions) documents the API
#: for developers, in English, as its field names and error codes are (docs/api.md).
SCHEMA_CALLS = {
    "extend_schema",
    "extend_schema_field",
    "extend_schema_view",
    "extend_schema_serializer",
    "OpenApiParameter",
    "OpenApiExample",
    "OpenApiResponse",
    "inline_serializer",
}


def _name_of(function: ast.expr) -> str:
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return ""


def _plain_text(node: ast.expr | None) -> str | None:
    """The text of a literal a person would read, unmarked: a constant, an f-string, ``"..." % x`` or
    ``"..." + x`` built from one. None when it is marked, or not a literal."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if words(node.value) else None
    if isinstance(node, ast.JoinedStr):
        text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        return text if words(text) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return _plain_text(node.left) or (_plain_text(node.right) if isinstance(node.op, ast.Add) else None)
    if isinstance(node, ast.Call) and _name_of(node.func) == "format" and isinstance(node.func, ast.Attribute):
        return _plain_text(node.func.value)
    return None


class _Visitor(ast.NodeVisitor):
    def __init__(self, shown: str, lines: list[str]):
        self.shown = shown
        self.lines = lines
        self.findings: list[Finding] = []
        self.in_meta = False
        self.in_class = False
        self.in_serializer = False  # a serializer's fields' help texts are the API schema's

    def _flag(self, node: ast.AST, text: str | None):
        if text is None:
            return
        line = getattr(node, "lineno", 0)
        end = getattr(node, "end_lineno", line) or line
        if any(SKIP_LINE in self.lines[number - 1] for number in range(max(line - 1, 1), end + 1)):
            return
        self.findings.append(Finding(self.shown, line, text))

    def visit_Call(self, node: ast.Call):
        name = _name_of(node.func)
        if name in MARKERS:
            return  # marked: its argument is the msgid
        if name in SHOWN_CALLS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Dict):  # ValidationError({"field": "message"})
                for value in first.values:
                    self._flag(value, _plain_text(value))
            else:
                self._flag(first, _plain_text(first))
        on_messages = isinstance(node.func, ast.Attribute) and _name_of(node.func.value) == "messages"
        if on_messages and name in MESSAGE_CALLS and len(node.args) > MESSAGE_CALLS[name]:
            self._flag(node.args[MESSAGE_CALLS[name]], _plain_text(node.args[MESSAGE_CALLS[name]]))
        if name in {"message_user", "add_error"} and len(node.args) > 1:
            self._flag(node.args[1], _plain_text(node.args[1]))
        on_forms = isinstance(node.func, ast.Attribute) and _name_of(node.func.value) == "forms"
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        hidden = "HiddenInput" in ast.dump(keywords.get("widget", ast.Constant(None)))
        if on_forms and FIELD.search(name) and "label" not in keywords and not hidden:
            # A form field without a label is shown under its name, made pretty: English, untranslated.
            self._flag(node, f"forms.{name} without a label")
        if FIELD.search(name) and name not in RELATIONS and node.args and isinstance(node.args[0], ast.Constant):
            self._flag(node.args[0], _plain_text(node.args[0]))
        schema = (
            name in SCHEMA_CALLS
            or name.endswith("Serializer")
            or self.in_serializer
            or (isinstance(node.func, ast.Attribute) and _name_of(node.func.value) == "serializers")
        )
        for keyword in [] if schema else node.keywords:
            if keyword.arg in SHOWN_KEYWORDS:
                self._flag(keyword.value, _plain_text(keyword.value))
            elif keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                for pair in keyword.value.elts:
                    if isinstance(pair, ast.Tuple) and len(pair.elts) == 2:
                        self._flag(pair.elts[1], _plain_text(pair.elts[1]))
            elif keyword.arg == "error_messages" and isinstance(keyword.value, ast.Dict):
                for value in keyword.value.values:
                    self._flag(value, _plain_text(value))
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef):
        bases = {_name_of(base) for base in node.bases}
        if bases & {"TextChoices", "IntegerChoices", "Choices"}:
            for statement in node.body:
                if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Tuple):
                    label = statement.value.elts[-1]
                    self._flag(label, _plain_text(label))
        was, self.in_meta = self.in_meta, node.name == "Meta"
        was_class, self.in_class = self.in_class, True
        was_serializer = self.in_serializer
        self.in_serializer = was_serializer or any(base.endswith("Serializer") for base in bases)
        self.generic_visit(node)
        self.in_meta, self.in_serializer, self.in_class = was, was_serializer, was_class

    def visit_Assign(self, node: ast.Assign):
        targets = {_name_of(target) for target in node.targets}
        # A model's Meta, and an app's AppConfig (its name heads its models in admin).
        if (self.in_meta or self.in_class) and targets & {"verbose_name", "verbose_name_plural"}:
            self._flag(node.value, _plain_text(node.value))
        if targets & {"short_description", "empty_value_display"}:
            self._flag(node.value, _plain_text(node.value))
        self.generic_visit(node)


def python_findings(path: Path, root: Path) -> list[Finding]:
    source = path.read_text(encoding="utf-8")
    visitor = _Visitor(str(path.relative_to(root)), source.splitlines())
    visitor.visit(ast.parse(source, filename=str(path)))
    return visitor.findings
