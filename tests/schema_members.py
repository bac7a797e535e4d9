"""Validating JSON against one component of the published OpenAPI schema, and finding which members of a ``oneOf``
a body or an answer fits (issue 26: one member per game's kind, chosen by ``game``).

Plain JSON Schema (Draft 4, as OpenAPI 3.0's schema objects are) ignores ``discriminator``, so a member is
found by validation alone: the test that exactly one fits is the schema's own promise, not the validator's.
OpenAPI's ``nullable`` is written as JSON Schema's ``null`` type first.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parent.parent


def _json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _json_schema(value) for key, value in node.items() if key not in ("discriminator", "example")}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def component_validator(published: dict, name: str) -> jsonschema.Draft4Validator:
    """A validator of the component ``name`` of ``published``, its references resolved inside it."""
    components = _json_schema(copy.deepcopy(published["components"]))
    return jsonschema.Draft4Validator({"$ref": f"#/components/schemas/{name}", "components": components})


def members_fitting(published: dict, union: str, instance: Any) -> list[str]:
    """The members of the ``oneOf`` component ``union`` that ``instance`` is valid against, by component name."""
    names = [member["$ref"].rsplit("/", 1)[1] for member in published["components"]["schemas"][union]["oneOf"]]
    return [name for name in names if component_validator(published, name).is_valid(instance)]


def documented_bodies() -> list[dict]:
    """Every result body docs/api.md shows (its JSON blocks that name a game)."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)]
    return [block for block in blocks if isinstance(block, dict) and "game" in block]
