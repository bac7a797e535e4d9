"""A result as a body: a validated result in the shape ``selectors.match_as_body`` reads a stored one,
and the fingerprint of that shape (safe retries compare requests by it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC
from typing import Any

from leagues.kinds import kind_of
from matches.inputs import MatchInput


def match_input_as_body(cleaned: MatchInput) -> dict:
    """A validated result as the body ``match_as_body`` reads back once it is stored.

    The two agree field for field (tests hold them to it), so comparing them
    says whether storing ``cleaned`` would change a stored match, and hashing
    this body fingerprints a request by what it would store: JSON key order,
    whitespace, ids given as strings, a time in another zone, ``"rated": true``
    spelled out or omitted, the game's amateur league named or omitted: all
    the same request. The game's own fields are its kind's (``input_body``).
    """
    body: dict[str, Any] = {
        "game": cleaned.game.slug,
        "played_at": cleaned.played_at.astimezone(UTC).isoformat(),
        "rated": cleaned.rated,
        **kind_of(cleaned.game).input_body(cleaned),
    }
    if cleaned.league is not None:
        body["league"] = cleaned.league.slug
    return body


def match_body_fingerprint(body: Mapping[str, Any]) -> str:
    """SHA-256 of a stored-shape body (``match_input_as_body``) as canonical JSON: sorted keys, no spaces.

    Whists of -0 and 0 are one number (PostgreSQL's jsonb keeps no negative zero).
    """

    def plain(value):
        if isinstance(value, float) and value == 0:
            return 0.0
        if isinstance(value, list):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        return value

    text = json.dumps(plain(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()
