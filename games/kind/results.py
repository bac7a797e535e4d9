"""The results part of a kind: a result body cleaned, its parts stored, a stored match read back as a body.

Who calls it: the results layer, ``matches`` (``matches.cleaning`` cleans a
body, ``matches.parts`` stores a result's parts one match or a batch at a
time, ``matches.bodies`` and ``matches.selectors`` read a result as a body
and a match with its parts, ``matches.services`` moves a merged player's
parts); the importers store through the same path
(``matches.services.match_record_many``).

What a game overrides: ``clean`` always (its fields are its own). A game of
seats only keeps the rest. A game with parts (``GameKind.parts``: deals,
rounds) writes ``part_rows`` and ``stored_body``, and ``part_prefetches`` and
``parts_player_move`` when its parts name rows or players; a game whose
parts have parts of their own (bridge's boards and their tables) writes
``input_body`` and ``store_parts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

from django.db.models import Prefetch

from leagues.models import Game
from matches.inputs import Errors, GameInput, MatchInput
from matches.models import Match, Seat
from matches.parts import ROWS_A_QUERY, hold, match_unsaved


class ResultsPart:
    """What ``matches`` asks of a game: its result bodies and the parts a match stores beside its seats."""

    #: The relation names of what a match stores beside its seats (``leagues.kinds.GameKind.parts``).
    parts: ClassVar[tuple[str, ...]]

    def clean(self, data: Mapping[str, Any], errors: Errors, game: Game) -> GameInput:
        """The game's part of a result body: its seats and parts, or errors recorded by field.

        Every game has its own fields, so every kind writes this (``matches.inputs``
        has the readers they share: ids, players, cents).
        """
        raise NotImplementedError(f"{self!r} cannot clean a result body.")

    def stored_body(self, match: Match) -> dict[str, Any]:
        """The game's fields of a stored match as a body (``matches.selectors.match_as_body``), read from its
        seats and parts as ``match_detail`` loads them. A game of seats only may keep this default: none."""
        return {}

    def part_rows(self, match: Match, cleaned: MatchInput) -> dict[str, list]:
        """The rows of each of the result's parts (``parts``), by relation name, unsaved and naming ``match``,
        in the order the game shows them: ``store_parts`` stores them, ``input_body`` reads them. A game of
        seats only has none."""
        return {}

    def input_body(self, cleaned: MatchInput) -> dict[str, Any]:
        """The game's fields of a validated result as a body (``matches.bodies.match_input_as_body``), derived:
        ``stored_body`` of the match it would store (``matches.parts.match_unsaved``, holding its seats and
        ``part_rows``), so the two agree by construction. A kind whose parts have parts of their own (bridge's
        boards and their tables) writes its own."""
        match = match_unsaved(cleaned)
        for relation, rows in self.part_rows(match, cleaned).items():
            hold(match, relation, rows)
        return self.stored_body(match)

    def store_parts(self, match: Match, cleaned: MatchInput) -> None:
        """Store the parts beside the seats: ``part_rows``, an INSERT a part, held on ``match`` as
        ``match_detail`` loads them (``matches.parts.hold``)."""
        for relation, rows in self.part_rows(match, cleaned).items():
            if rows:
                type(rows[0]).objects.bulk_create(rows)
            hold(match, relation, rows)

    def store_parts_many(self, stored: list[tuple[Match, MatchInput]]) -> None:
        """``store_parts`` for many new matches of one batch (``matches.parts.matches_store_results``): every
        match's ``part_rows`` of a table in an INSERT a ``ROWS_A_QUERY``, nothing held. A kind that stores its
        parts itself (``store_parts``, as bridge's boards and their tables) has each match's stored so."""
        if type(self).store_parts is not ResultsPart.store_parts:
            for match, cleaned in stored:
                self.store_parts(match, cleaned)
            return
        by_model: dict[type, list] = {}
        for match, cleaned in stored:
            for rows in self.part_rows(match, cleaned).values():
                for row in rows:
                    by_model.setdefault(type(row), []).append(row)
        for model, rows in by_model.items():
            model.objects.bulk_create(rows, batch_size=ROWS_A_QUERY)

    def parts_player_move(self, match_ids: list[int], *, drop_id: int, keep_id: int) -> None:
        """Name ``keep_id`` wherever the parts of these matches name ``drop_id`` (two players merged,
        ``matches.services.match_players_move``, which moves the seats and has checked that no match
        has both). A game of seats only names players nowhere else: nothing to move."""

    def season_sides(self, match_ids: list[int]) -> dict[int, list[list[tuple[Decimal, tuple[int, ...]]]]]:
        """Each match's contests, for a season's points (``games.seasons``): by match id, the groups of sides
        that were ranked against one another, each side (score, its players' ids), a higher score better.

        By default a match is one contest of its seats, each scored by its result (Slaps: 1 the winner;
        Preferans: the seat's total); a bot is a side with no players. A game whose result ranks teams or
        pairs (bridge's standings) says so.
        """
        sides: dict[int, list[list[tuple[Decimal, tuple[int, ...]]]]] = {}
        seats = Seat.objects.filter(match_id__in=match_ids).order_by("match_id", "position")
        for match_id, player_id, result in seats.values_list("match_id", "player_id", "result"):
            group = sides.setdefault(match_id, [[]])[0]
            group.append((result, (player_id,) if player_id else ()))
        return sides

    def part_prefetches(self) -> dict[str, Prefetch | str]:
        """How a match's parts are read with it (``matches.selectors.match_detail``), by relation name, one
        per name in ``parts``: a ``Prefetch`` in the order the game shows them, with the rows they name.
        By default each part as Django prefetches it; a game of seats only has none."""
        return {part: part for part in self.parts}
