"""Importing a club's history: what every game's importer returns, before anything is stored.

An importer (a kind's ``importers[format]``) reads a file into an
``ImportPlan``: the results as API bodies whose players are ``PlayerRef``
placeholders, the people they name, and every problem found with where it
was found (line, element). Nothing is stored while reading; applying a plan
matches the people to players (by federation or club number where the file
has one, else by name; never silently merged), then submits every result
through the one write path, all or nothing.

A reader keeps a file's first ``PROBLEMS_KEPT`` problems and counts the
rest (``ProblemList``): a file of a million bad lines costs the memory of a
thousand problems, and its preview says "and 999,000 more problems".
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

#: Problems a plan keeps, in file order; the rest are only counted (``ProblemList``).
PROBLEMS_KEPT = 1000


@dataclass(frozen=True)
class PlayerRef:
    """A person as the file names them: a name, and a federation or club number when it has one (text:
    leading zeros matter)."""

    name: str
    federation_id: str = ""


def at_line(number: int) -> str:
    """Where a problem is: a line of the file, in the reader's language ("line 3")."""
    return _("line %(number)s") % {"number": number}


def at_lines(first: int, last: int) -> str:
    """Where a result of several lines is ("lines 3-7")."""
    return _("lines %(first)s-%(last)s") % {"first": first, "last": last}


def at_result(number: int) -> str:
    """Where a problem is: a result of a dump, by its place in the file ("result 4")."""
    return _("result %(number)s") % {"number": number}


def at_player(name: str) -> str:
    """Where a problem is: a person the file names ("player 'Ann' (123)"), the name as it is written."""
    return _("player %(name)s") % {"name": name}


def at_file() -> str:
    """Where a problem is: the file as a whole."""
    return pgettext("where a problem of an import is", "file")


@dataclass(frozen=True)
class Problem:
    """Something in the file the import cannot take as it is: where (a line, an element) and why."""

    where: str
    message: str
    blocking: bool = True  # False: a note for the preview (e.g. an adjusted score that is not a rated duel)


class ProblemList(list):
    """A file's problems as its reader finds them: the first ``keep`` kept, in file order, the rest counted.

    ``more`` is how many were left out, ``more_blocking`` how many of those block the import. A hostile
    file (20 MB of junk lines, ten million problems) is read in the memory of ``keep`` problems, and its
    preview lists what a person can read, then the count (``rest``).
    """

    def __init__(self, problems: Iterable[Problem] = (), *, keep: int = PROBLEMS_KEPT):
        super().__init__()
        self.keep = keep
        self.more = 0
        self.more_blocking = 0
        self.extend(problems)

    def append(self, problem: Problem) -> None:
        if len(self) < self.keep:
            super().append(problem)
        else:
            self.more += 1
            self.more_blocking += bool(problem.blocking)

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.append(problem)

    def __iadd__(self, problems: Iterable[Problem]) -> ProblemList:
        self.extend(problems)
        return self

    def insert(self, index: int, problem: Problem) -> None:
        super().insert(index, problem)
        if len(self) > self.keep:
            self.append(super().pop())  # the last one kept is counted instead

    @property
    def total(self) -> int:
        """Every problem found: those kept and those counted."""
        return len(self) + self.more

    def rest(self) -> Problem | None:
        """The problems left out, as one line ("and 10,498,000 more problems"), or None if none were."""
        if not self.more:
            return None
        message = ngettext("and %(count)s more problem", "and %(count)s more problems", self.more) % {
            "count": f"{self.more:,}"
        }
        return Problem(at_file(), message, blocking=self.more_blocking > 0)


def file_bytes(data: bytes | BinaryIO) -> bytes:
    """A file's bytes, for a reader that needs them whole (JSON, XML, PBN; bounded by the import's size limit)."""
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    return data.read()


def file_stream(data: bytes | BinaryIO) -> BinaryIO:
    """A file to read line by line: ``data`` itself, or its bytes wrapped (no copy of a ``bytes``)."""
    if isinstance(data, bytes | bytearray | memoryview):
        return io.BytesIO(data)
    return data


@dataclass
class ImportPlan:
    """What a file would import: result bodies (``PlayerRef`` where the API takes a player id), in order."""

    results: list[dict[str, Any]] = field(default_factory=list)
    #: At most ``PROBLEMS_KEPT``, the rest counted (``ProblemList``; a list given is taken in).
    problems: ProblemList = field(default_factory=ProblemList)
    #: Where each result is in the file ("line 7", "lines 3-9"), beside ``results``: an error found when
    #: it is stored names it. A reader may leave it empty; the result's number is given then.
    sources: list[str] = field(default_factory=list)
    #: What the file is, as its reader tells it, for the preview (e.g. a bridge file's "event", "date",
    #: "sections", "boards", "pairs", "scoring"); a reader may leave it empty.
    about: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.problems, ProblemList):
            self.problems = ProblemList(self.problems)

    @property
    def blocking(self) -> list[Problem]:
        """The blocking problems kept; if only the counted ones block, the line that counts them."""
        blocking = [problem for problem in self.problems if problem.blocking]
        if not blocking and self.problems.more_blocking:
            blocking = [self.problems.rest()]
        return blocking

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
