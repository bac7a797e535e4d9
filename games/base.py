"""The base of every game kind: the parts each layer asks of a game, together.

``leagues.kinds.GameKind`` declares the capability flags at the base of the
dependency graph; ``BaseKind`` adds the methods, which may use everything
below (matches, ratings, the engines), in one part per caller
(``games.kind``, where a table lists them):

- ``ResultsPart`` (``matches``): clean a body, store its parts, read it back as a body;
- ``RatingInputPart`` (``ratings``, ``leagues.models``): the engine, and its input for a chunk of matches;
- ``ApiPart`` (the match API): the game's fields of a match answer and of a body (its own schema);
- ``PagesPart`` (the pages): the entry page, the template partials a match shows, the profile's parts;
- ``FilesPart`` (``games.importing``, ``games.exporting``): the game's file formats;
- ``ComparisonPart`` (``ratings.compare``): head-to-head records and the compare page.

The defaults are those of a game of seats only: a kind overrides only what
its game does differently, and nothing here adds to the parts.
"""

from __future__ import annotations

from games.kind import ApiPart, ComparisonPart, FilesPart, PagesPart, RatingInputPart, ResultsPart
from leagues.kinds import GameKind


class BaseKind(ResultsPart, RatingInputPart, ApiPart, PagesPart, FilesPart, ComparisonPart, GameKind):
    """A game's kind: the parts (``games.kind``) before ``GameKind``, whose defaults they replace (its
    ``templates``, ``system_label`` and ``parameters_problem``). A game subclasses this and overrides only
    what it does differently."""
