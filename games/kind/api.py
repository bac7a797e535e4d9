"""The API part of a kind: the game's fields of a match answer and of a result body, and its own endpoints.

Who calls it: the web app's match API and its schema (``web.match_apis``:
the answer's and the body's fields, the body's example, the schema's
component names) and ``config.urls`` (``api_urls``, under ``/api/``).

What a game overrides: ``body_fields`` (every game with a body of its own),
``answer_fields`` when a match answers more than its seats, the body's
example; ``api_urls`` for a calculator's endpoint. ``api_name`` is rarely
set: the kind's class name serves.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

from games.fields import AnswerField


class ApiPart:
    """What the API asks of a game: its fields of an answer and of a body, and its endpoints."""

    #: The fields the game adds to a match answer, by name: a match of the game answers them, a match of
    #: another game does not (``web.match_apis.match_answer_serializer``); none for seats only.
    answer_fields: ClassVar[dict[str, AnswerField]] = {}

    #: The fields of the game's result body beside the shared ``game``, ``played_at``, ``rated`` and ``league``,
    #: by name, with their own limits: the schema's ``<api_name>Result``, one member of ``MatchSubmit``'s
    #: ``oneOf`` (``clean`` checks them). A field ``clean`` requires is declared required.
    body_fields: ClassVar[dict[str, serializers.Field]] = {}

    #: An example result body for the schema (POST /api/matches/), and its title; none by default.
    body_example_name: ClassVar[str] = ""

    body_example: ClassVar[dict[str, Any]] = {}

    @property
    def api_name(self) -> str:
        """The game's name in the schema's components, letters and digits: ``<api_name>Result`` (its body),
        ``<api_name>MatchOut`` (its answer), ``<api_name>Game`` (its games' slugs). By default the kind's class
        name without "Kind" (``SlapsKind``: ``Slaps``); a kind may set its own."""
        return type(self).__name__.removesuffix("Kind")

    def api_urls(self) -> list:
        """The game's own API endpoints (a calculator's), as ``path`` patterns under ``/api/``, served and in
        the schema like the shared ones; none by default."""
        return []
