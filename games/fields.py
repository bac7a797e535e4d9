"""API pieces the kinds share: player ids in a body, and the shape of a game's field of a match answer.

A kind declares the fields its game adds to a match answer (``answer_fields``:
name -> ``AnswerField``) and to a result body (``body_fields``: name -> DRF
field, for the schema only: ``matches.services`` checks bodies).
``web.match_apis`` builds each kind's answer and body from them: a match answers its
own game's fields only, and the published ``MatchOut`` and ``MatchSubmit`` are a ``oneOf``
of one member per registered kind, chosen by ``game`` (docs/api.md, "One schema per game").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches.inputs import MAX_ID

PLAYER_ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
PAIR = {"type": "array", "items": PLAYER_ID, "minItems": 2, "maxItems": 2}


@extend_schema_field(PAIR)
class PairInputField(serializers.ListField):
    pass


class AnswerField(NamedTuple):
    """One field a game adds to a match answer: its declaration (the schema) and how it is read from a match.

    ``read`` gets a match of the kind's game as ``match_detail`` loads it (its
    parts prefetched) and returns the field's JSON value. A match of another
    game does not have the field.
    """

    field: serializers.Field
    read: Callable[[Any], Any]
