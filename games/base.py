"""The base of every game kind: what each layer asks of a game, and the parts most games share.

``leagues.kinds.GameKind`` declares the capability flags at the base of the
dependency graph; this class adds the methods, which may use everything
below (matches, ratings, the engines). A kind overrides what its game does
differently; the defaults are those of a game of seats only.

Sections, one per layer that calls them:

- results (``matches``): clean a body, store its parts, read it back as a body;
- rating input (``ratings``): load the engine's input for a chunk of matches;
- API (``ratings.match_apis``): the game's fields of a match answer and of a body (its own schema);
- pages: the entry page and the template partials a match shows;
- import/export (``games.importing``, ``games.exporting``): the game's file formats.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import Any, BinaryIO, ClassVar

from django.db.models import Prefetch
from django.http import HttpResponse
from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from games.fields import AnswerField
from games.imports import ImportPlan, file_bytes
from leagues.kinds import GameKind
from leagues.models import Game, Player
from matches.inputs import Errors, GameInput, MatchInput
from matches.models import Match
from matches.parts import ROWS_A_QUERY, hold, match_unsaved
from ratings.engines import EngineInputError, elo, get_rating_system, parameters_from_mapping
from ratings.headtohead import HeadToHeadRow, seats_crosstable, seats_head_to_head, seats_meetings
from ratings.loaders import EngineInputs, ReplayContext, SeatRow, seats_inputs


class BaseKind(GameKind):
    # --- the engine it rates with (leagues.models.Game) ----------------------------------------

    def system_label(self) -> str:
        return get_rating_system(self.slug).label

    def parameters_problem(self, parameters: dict) -> str | None:
        """The engine's own ``parameters_from_mapping`` decides: unknown names, values outside a parameter's
        range, values of the wrong type, pairs out of order."""
        try:
            parameters_from_mapping(get_rating_system(self.slug).parameters_class, parameters)
        except (EngineInputError, TypeError) as error:
            return str(error)
        return None

    # --- results (matches) -----------------------------------------------------------------

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
        if type(self).store_parts is not BaseKind.store_parts:
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

    # --- rating input (ratings) ------------------------------------------------------------

    #: The URL name of the game's calculator page (what one result would do to a rating); "" for none.
    calculator_url_name: ClassVar[str] = ""
    #: The calculator's name on the calculators' index and tabs (``ratings.calculators.calculator_links``).
    calculator_label: ClassVar[str] = ""

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

    # --- API -------------------------------------------------------------------------------

    #: The fields the game adds to a match answer, by name: a match of the game answers them, a match of
    #: another game does not (``ratings.match_apis.match_answer_serializer``); none for seats only.
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

    # --- pages -----------------------------------------------------------------------------

    def profile_sections(self) -> list[tuple[str, str, Callable[[Player], dict]]]:
        """What the game adds to every player's profile: (name, template, read), ``read(player)`` giving the
        template's context. Each is cached on the ratings and results versions; none by default."""
        return []

    #: Template partials by place, each under ``templates/games/``; the shared pages include the one
    #: their kind names (``{% include match.game.kind.templates.seats_line %}``), never branching on a
    #: game. These defaults show a game of seats only, each seat with its result (a score) and rating
    #: change; a kind names its own for the places its game shows differently. "entry", the entry
    #: page, has no default: a kind with one adds it and ``entry_view``.
    templates = {
        "match_results": "games/_match_results.html",  # match page: the seats' results and changes, the parts
        "seats_line": "games/_seats_line.html",  # a row of a match list: the seats, linked, with results
        "seats_names": "games/_seats_names.html",  # the confirmations list's message: the seats' names
        "profile_opponents": "games/_profile_opponents.html",  # profile: whom the player met
        "profile_result": "games/_profile_result.html",  # profile: the player's result
        "profile_change": "games/_profile_change.html",  # profile: why the rating changed
        # the confirmations list: the whole result a second referee checks (given ``extra``, the kind's
        # ``match_page_context``), in a card that fits a phone
        "confirm_result": "games/_confirm_result.html",
        # a player's head-to-head rows (the profile, the full list): opponents, record, rating change
        "head_to_head": "games/_head_to_head.html",
    }

    @property
    def has_entry_page(self) -> bool:
        return "entry" in self.templates

    def entry_view(self, request, game) -> HttpResponse:
        """Answer the game's entry page (``results/<game>/``), once the referee is checked.

        Only asked of a kind with an entry page (``has_entry_page``).
        """
        raise NotImplementedError(f"{self!r} has no entry page.")

    def entry_label(self, game) -> str:
        """The menu's link to the game's entry page."""
        return f"Enter {game.name}"

    def match_page_context(self, match) -> dict:
        """What the game's match partial needs beyond the match and its seats (``ratings.pages.match_page``)."""
        return {}

    # --- import/export ---------------------------------------------------------------------

    #: The file formats the game's results import from, by name (``--format``): each reads a file's
    #: bytes into an ``ImportPlan`` (results as API bodies naming ``PlayerRef`` people, and problems),
    #: storing nothing. None by default.
    importers: ClassVar[dict[str, Callable[[bytes], ImportPlan]]] = {}
    #: The game's CSV of results, written and read in these columns (``games/<x>/csv.py``); none: no CSV.
    csv_columns: ClassVar[tuple[str, ...]] = ()

    def csv_read(self, data: bytes | BinaryIO, *, game: Game, zone: tzinfo | None) -> ImportPlan:
        """A CSV file of results as an ``ImportPlan`` (times without a zone read in ``zone``, or refused),
        read as a stream, a line at a time (``games.csvio.csv_rows``)."""
        raise NotImplementedError(f"{self!r} has no CSV.")

    def import_readers(self) -> dict[str, Callable[..., ImportPlan]]:
        """The game's own file formats, by name: ``reader(data, *, game, zone) -> ImportPlan``
        (``games.importing`` adds JSON, which every game has): its CSV, and its ``importers``."""
        readers: dict[str, Callable[..., ImportPlan]] = {"csv": self.csv_read} if self.csv_columns else {}
        for name, parse in self.importers.items():
            # A scoring program's file carries its own dates: the game and the zone are not asked. It is
            # read whole (an XML tree, a PBN file's tags), within the import's size limit.
            readers[name] = lambda data, *, game, zone, parse=parse: parse(file_bytes(data))
        return readers

    def body_players(self, body: dict[str, Any], swap: Callable[[Any], Any]) -> dict[str, Any]:
        """``body`` with each player in it (an id, a ``PlayerRef``) replaced by ``swap(player)``: the export
        names people, an import gives their ids. A game of seats only lists them in ``players``."""
        return {**body, "players": [swap(player) for player in body["players"]]}

    def csv_cells(self, bodies: Iterable[dict[str, Any]]) -> Iterator[dict[str, object]]:
        """The CSV's rows (cells by ``csv_columns`` name) of result bodies whose players are ``PlayerRef``s,
        made as ``bodies`` is read: the export streams them (``games.exporting``)."""
        raise NotImplementedError(f"{self!r} has no CSV.")

    def history_opponents(self, match: Match, player_id: int, unit: int) -> list[str]:
        """Whom ``player_id`` played in ``unit`` of ``match`` (one ledger row), by name: the ``opponents``
        column of a player's history CSV (``ratings.exports``). The match comes with its seats (players
        and bots) and its parts read (``matches.selectors.match_detail_queryset``). A game of seats:
        every other seat."""
        return [seat.occupant.name for seat in match.seats.all() if seat.player_id != player_id]

    # --- pages (continued) -----------------------------------------------------------------

    def match_title(self, match: Match) -> str:
        """The match page's heading (``ratings.pages.match_page``): by default the game, its result noun and
        the match's number, "Slaps match #12"; bridge names the evening by its club and date."""
        return f"{match.game.name} {self.result_noun} #{match.pk}"

    # --- the player's profile (ratings.pages) --------------------------------------------------

    def profile_rating_units(self) -> tuple[str, str]:
        """What one ledger row of the game rates, one and many: the profile chart's axis and its table
        ("match", "matches"; Preferans rates deals, bridge boards)."""
        return ("match", "matches")

    def profile_change_notes(self, matches: list[Match], player: Player) -> dict[int, dict[str, Any]]:
        """What the game's ``profile_change`` partial needs beyond a row's match, seats and the player's
        ledger rows (``match.player_changes``), by match id: it becomes the row's ``notes``. ``matches`` are
        the game's matches of one list on the profile or the history page; at most one query for all of
        them. A game of seats needs nothing."""
        return {}

    # --- admin and corrections ---------------------------------------------------------------

    def admin_players(self, match: Match) -> str:
        """The players of a match, short, for admin's match list (``matches.admin``). The match comes with
        its seats, players and bots read (one query for the page). A game of seats: every seat's name."""
        names = [seat.occupant.name for seat in match.seats.all()]
        return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")

    def entry_initial(self, match: Match) -> dict[str, str] | None:
        """The game's fields of its entry page filled in from a stored match, as the page posts them: the
        form a correction starts from (``games.entry``, ``/results/<game>/?correct=<pk>``). The time, rated
        and the league are the shared code's. The match comes as ``match_detail`` reads it.

        None (this default): the page cannot show this match; admin then corrects it as JSON (its
        "Correct as JSON" page)."""
        return None

    # --- import: the files of its own formats ------------------------------------------------

    def result_key(self, body: Mapping[str, Any]) -> Hashable:
        """What makes two results one played result, for an import to recognise one already stored.

        ``body`` is in the form ``input_body`` and ``stored_body`` give (with ``played_at``, ``rated``,
        ``league`` and ``game`` beside: ``matches.bodies.match_input_as_body``, ``matches.selectors.match_as_body``).
        Two results with equal keys at the same ``played_at`` in one game are the same result
        (``games.importing.import_apply`` skips the file's copy). This default is every field but the
        filing (``game``, ``league``, ``rated``): the time, the players and the scores, as canonical JSON
        with numbers compared as numbers (``4``, ``4.0`` and ``Decimal("4.00")`` are one whist). A kind
        narrows it when some of its fields are not the result (bridge: only players and scores).
        """
        kept = {name: value for name, value in body.items() if name not in ("game", "league", "rated")}
        played_at = kept.get("played_at")
        if isinstance(played_at, str):
            played_at = parse_datetime(played_at)
        if isinstance(played_at, datetime):
            kept["played_at"] = played_at.astimezone(UTC).isoformat()
        return json.dumps(_plain(kept), sort_keys=True, separators=(",", ":"))

    #: Each of ``importers``' formats, by name: the file extension that names it and its label on admin's
    #: upload form (``games.importing.import_files``), e.g. ``{"pbn": (".pbn", "PBN (a scoring program's)")}``.
    #: A format not listed here is still read when named, but never guessed from a file's name.
    importer_files: ClassVar[dict[str, tuple[str, str]]] = {}

    # --- reading its parts (matches.selectors) -------------------------------------------------

    def part_prefetches(self) -> dict[str, Prefetch | str]:
        """How a match's parts are read with it (``matches.selectors.match_detail``), by relation name, one
        per name in ``parts``: a ``Prefetch`` in the order the game shows them, with the rows they name.
        By default each part as Django prefetches it; a game of seats only has none."""
        return {part: part for part in self.parts}

    # --- its own routes (config.urls) -----------------------------------------------------------

    def page_urls(self) -> list:
        """The game's own pages beyond its entry page (a calculator, a helper its entry page posts to), as
        ``django.urls.path`` patterns; ``config.urls`` adds every registered kind's before the shared entry
        route, so a game added by ``CARDRANK_EXTRA_GAME_KINDS`` brings its pages without editing Cardrank.
        None by default."""
        return []

    def api_urls(self) -> list:
        """The game's own API endpoints (a calculator's), as ``path`` patterns under ``/api/``, served and in
        the schema like the shared ones; none by default."""
        return []

    # --- head-to-head and compare (ratings.compare) -----------------------------------------------

    #: Players on one side of a compare: one, or two for a game of pairs (bridge compares pairs, ``a=12,13``).
    compare_side_size: ClassVar[int] = 1
    #: What a meeting is, one and many: the head-to-head tables' column ("match", "matches").
    meeting_nouns: ClassVar[tuple[str, str]] = ("match", "matches")
    #: What the seats' results add up to in a record ("" when they are only won and lost, as in Slaps).
    points_label: ClassVar[str] = ""
    #: Whether a record has draws to show (a Slaps match always has a winner).
    shows_draws: ClassVar[bool] = True

    def head_to_head(self, *, player: Player, game: Game) -> list[HeadToHeadRow]:
        """The player's record against every opponent of ``game`` (``ratings.headtohead``), most meetings
        first: one row per opponent, read with one or two queries whatever their number. A game of seats: a
        result shared is won against a seat whose result is lower."""
        return seats_head_to_head(player_id=player.pk, game=game)

    def compare_record(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...]) -> HeadToHeadRow | None:
        """Side ``a``'s record against side ``b`` (each ``compare_side_size`` player ids), None if they never
        met in a rated result."""
        rows = seats_head_to_head(player_id=a[0], game=game, opponent_ids=[b[0]])
        return rows[0] if rows else None

    def compare_meetings(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...], limit: int) -> list[Match]:
        """The latest rated results where the two sides met, newest first, with their seats."""
        return seats_meetings(a_id=a[0], b_id=b[0], game=game, limit=limit)

    def compare_expected(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...], ratings: dict) -> float:
        """The expected score of side ``a`` against side ``b`` by the game's rating system, ``ratings`` being
        every player's current rating (a float, the game's start rating for one not yet rated). A game of
        seats: Elo's logistic curve, E = 1 / (1 + 10^((Rb - Ra) / 400))."""
        return elo.expected_score(ratings[a[0]], ratings[b[0]])

    def crosstable(self, *, game: Game, player_ids: list[int]) -> dict[tuple[int, int], HeadToHeadRow] | None:
        """Every record among ``player_ids`` (a league's top players), keyed (player, opponent); None for a
        game whose opponents are not single players (bridge's are pairs)."""
        return seats_crosstable(game=game, player_ids=player_ids)

    #: What the compare page says the expected score is.
    compare_expected_note: ClassVar[str] = (
        "Elo's expected score of A against B, a win counting 1 and a draw 1/2: E = 1 / (1 + 10^((Rb - Ra) / 400))."
    )
    #: Whether the profile shows the game's head-to-head rows (a kind with its own section for them says no).
    profile_head_to_head: ClassVar[bool] = True


def _plain(value: Any) -> Any:
    """``value`` with every number a float (not a bool) and tuples as lists: what ``result_key`` compares."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | Decimal):
        return float(value) + 0.0  # + 0.0: -0.0 is 0.0
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value)
