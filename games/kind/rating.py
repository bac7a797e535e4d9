"""The rating input part of a kind: the engine a game rates with, and the engine's input read from its matches.

Who calls it: ``leagues.models`` through the registry (``Game.kind``: the
rating system's name on admin's form, ``Game.parameters_validate``), and the
ratings layer's loaders and replay (``ratings.replay``, ``ratings.loaders``,
``ratings.evaluation``), a chunk of matches at a time.

What a game overrides: a game of seats only writes ``engine_input`` (one
match's seats as its engine's input); a game whose matches have parts writes
``load`` (its own queries, a fixed number a chunk), and ``replay_state`` when
it carries something from one chunk to the next. ``system_label`` and
``parameters_problem`` ask the game's engine, which every game keeps;
``parameter_texts`` says what the engine's parameters do, which only the game
can (its ``parameters`` module, beside the seed it follows).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.translation import ngettext

from ratings.engines import EngineInputError, get_rating_system, parameters_from_mapping
from ratings.loaders import EngineInputs, ReplayContext, SeatRow, seats_inputs
from ratings.parameters import parameters_problem


class RatingInputPart:
    """What ``ratings`` (and ``leagues.models``) asks of a game: its engine, and that engine's input."""

    #: The engine slug the kind serves (``leagues.kinds.GameKind.slug``).
    slug: ClassVar[str]

    def system_label(self) -> str:
        return get_rating_system(self.slug).label

    def rated_units(self, count: int) -> str:
        """``count`` of what one ledger row rates, in words and in the plural form the language wants for it
        ("12 rated matches"; Preferans rates deals, bridge boards): the profile chart's heading and its
        points' tooltips (``ratings.selectors``, ``config.language.plural_forms``)."""
        return ngettext("%(count)s rated match", "%(count)s rated matches", count) % {"count": count}

    def parameters_problem(self, parameters: dict) -> str | None:
        """The engine's own ``parameters_from_mapping`` decides: unknown names, values outside a parameter's
        range, values of the wrong type, pairs out of order; said in the reader's language
        (``ratings.parameters.parameters_problem``: the engines speak English only)."""
        parameters_class = get_rating_system(self.slug).parameters_class
        try:
            parameters_from_mapping(parameters_class, parameters)
        except (EngineInputError, TypeError) as error:
            return parameters_problem(error)
        return None

    def parameter_texts(self) -> dict:
        """What each of the engine's parameters does, by name (``ratings.parameters.ParameterText``: a label, a
        sentence, and what raising and lowering it does), for the quality and tuning pages. None here: a game
        that says nothing shows its parameters by name (``ratings.parameters.parameter_texts``)."""
        return {}

    def replay_state(self) -> Any:
        """What a replay of this game carries from one chunk to the next (``ReplayContext.state``): nothing here."""
        return None

    def load(self, chunk: list, context: ReplayContext) -> EngineInputs:
        """The engine's input for a chunk of matches (``ratings.history.MatchRow``), in the chunk's order.

        One (rated players in seat order, engine input) pair per match, read
        with a fixed number of queries per chunk (tests count them). This
        default suits a game of seats only: one query for the seats, and
        ``engine_input`` builds each match's input from them.
        """
        return seats_inputs(chunk, engine_input=self.engine_input)

    def engine_input(self, seats: list[SeatRow]) -> object:
        """The engine's input for one match of seats only: its seats in order, (player, bot, result) each."""
        raise NotImplementedError(f"{type(self).__name__} loads its engine's input: define engine_input or load.")
