"""Importing a club's history: what every game's importer returns, before anything is stored.

An importer (a kind's ``importers[format]``) reads a file into an
``ImportPlan``: the results as API bodies whose players are ``PlayerRef``
placeholders, the people they name, and every problem found with where it
was found (line, element). Nothing is stored while reading; applying a plan
matches the people to players (by federation or club number where the file
has one, else by name; never silently merged), then submits every result
through the one write path, all or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PlayerRef:
    """A person as the file names them: a name, and a federation or club number when it has one (text:
    leading zeros matter)."""

    name: str
    federation_id: str = ""


@dataclass(frozen=True)
class Problem:
    """Something in the file the import cannot take as it is: where (a line, an element) and why."""

    where: str
    message: str
    blocking: bool = True  # False: a note for the preview (e.g. an adjusted score that is not a rated duel)


@dataclass
class ImportPlan:
    """What a file would import: result bodies (``PlayerRef`` where the API takes a player id), in order."""

    results: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: Where each result is in the file ("line 7", "lines 3-9"), beside ``results``: an error found when
    #: it is stored names it. A reader may leave it empty; the result's number is given then.
    sources: list[str] = field(default_factory=list)
    #: What the file is, as its reader tells it, for the preview (e.g. a bridge file's "event", "date",
    #: "sections", "boards", "pairs", "scoring"); a reader may leave it empty.
    about: dict[str, Any] = field(default_factory=dict)

    @property
    def blocking(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.blocking]

    def people(self) -> list[PlayerRef]:
        """Every person the results name, once each, in the order they first appear."""
        seen: dict[PlayerRef, None] = {}

        def walk(value: Any) -> None:
            if isinstance(value, PlayerRef):
                seen.setdefault(value, None)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list | tuple):
                for item in value:
                    walk(item)

        for body in self.results:
            walk(body)
        return list(seen)
