"""Load -> engine -> save: the only caller of the rating engines.

Ratings are a pure function of the rated results of a game in
``(played_at, match id)`` order. ``ratings_process_game`` keeps the ledger
equal to that function:

* the *pending start* is the earliest of the game's ``submitted`` matches and
  the state's ``replay_from`` mark (set when a rated match is voided or
  corrected);
* if it lies after everything already applied, the pending matches are
  simply applied on top: a result that arrives in order costs one update;
* otherwise the ledger is rolled back to just before the start (rows at or
  after it are deleted, every affected player is restored from their last
  remaining row) and every rated match from the start on is applied again.
  Only that part of the history is recomputed.

Locking: all rating work for a game happens inside one transaction that holds
a row lock on the game's ``RatingState`` (``SELECT ... FOR UPDATE``), so two
workers, or a worker and a void, never interleave on the same game. Games are
independent rating pools and are processed concurrently. Processing a game
that has nothing pending changes nothing, which makes every task idempotent;
the ledger's unique (match, unit, player) constraint backs that up.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

import orjson
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery
from django.utils import timezone

from leagues.models import Game, League
from matches.models import BoardTable, Deal, Match, Seat
from ratings.cents import CENT, cents_decimal, decimal_cents, to_cents
from ratings.engines import EngineInputError, PlayerState, get_rating_system, parameters_from_mapping
from ratings.engines.base import stop_at_floor
from ratings.engines.bridge import BridgeBoard, BridgeSession, BridgeTable
from ratings.engines.elo import EloMatch
from ratings.engines.preferans import BotSeat, PreferansGame
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState

logger = logging.getLogger(__name__)

# Matches read per query while replaying, and ledger rows written per INSERT.
REPLAY_CHUNK = 1000
WRITE_BATCH = 2000


@dataclass(frozen=True, order=True, slots=True)
class LedgerKey:
    """A position in a game's history: results are ordered by (played_at, match id)."""

    played_at: datetime
    match_id: int


def _at_or_after(key: LedgerKey, *, played_at_field: str = "played_at", id_field: str = "match_id") -> Q:
    return Q(**{f"{played_at_field}__gt": key.played_at}) | Q(
        **{played_at_field: key.played_at, f"{id_field}__gte": key.match_id}
    )


def _before(key: LedgerKey, *, played_at_field: str = "played_at", id_field: str = "match_id") -> Q:
    return ~_at_or_after(key, played_at_field=played_at_field, id_field=id_field)


# --- parameters ---------------------------------------------------------------------------


def rating_parameters(*, game: Game):
    """The game's engine parameters: its stored overrides on the engine's defaults.

    Admin refuses overrides outside the engine's ranges (``rating_parameters_validate``);
    a set stored before the ranges existed, or written around admin, raises a
    ValidationError naming the game and the parameter, so the rating task
    fails loudly and writes nothing, and a calculator answers 400, rather
    than either dividing by zero or rating with numbers no formula meant.
    """
    system = get_rating_system(game.rating_system)
    try:
        return parameters_from_mapping(system.parameters_class, game.parameters)
    except (EngineInputError, TypeError) as error:
        raise ValidationError(
            {
                "parameters": [
                    f"The rating parameters stored for {game.name} ({game.slug}) cannot be used: {error} "
                    "An admin must correct them on the game's admin page; its results are not rated until then."
                ]
            }
        ) from error


def rating_parameters_validate(*, game: Game) -> None:
    """Raise a ValidationError on ``parameters`` the game's engine would reject."""
    try:
        system = get_rating_system(game.rating_system)
    except EngineInputError:
        return  # The engine arrives with its game's issue; nothing to check yet.
    if not isinstance(game.parameters, dict):
        raise ValidationError({"parameters": ["Parameters must be a JSON object."]})
    try:
        parameters_from_mapping(system.parameters_class, game.parameters)
    except (EngineInputError, TypeError) as error:
        raise ValidationError({"parameters": [str(error)]}) from error


def _process_games(game_ids: Iterable[int]) -> int:
    """``ratings_process_game`` for each game, in id order; a game whose stored parameters are invalid
    is logged as an error and skipped, so it holds up no other game's ratings (its results stay
    ``submitted`` and are rated once an admin corrects the parameters)."""
    applied = 0
    for game_id in sorted(game_ids):
        try:
            applied += ratings_process_game(game_id=game_id)
        except ValidationError as error:
            if "parameters" not in getattr(error, "error_dict", {}):
                raise
            logger.error("Game %s is not rated: %s", game_id, " ".join(error.message_dict["parameters"]))
    return applied


# --- engine inputs, one loader per rating system -------------------------------------------


class _MatchRow(NamedTuple):
    """What a replay reads of a match itself (plain values, no model instance)."""

    id: int
    played_at: datetime
    status: str
    league_id: int | None
    due_at: datetime | None
    awaiting_confirmation: bool

    def rateable(self, now: datetime) -> bool:
        """Rated already, or submitted and due (``_due`` in Python: keep the two alike)."""
        if self.status == Match.Status.RATED:
            return True
        return not self.awaiting_confirmation and (self.due_at is None or self.due_at <= now)


MATCH_ROW_FIELDS = _MatchRow._fields


class _ApplyContext:
    """What a replay keeps in memory besides ratings: bridge pairs' deals together so far."""

    def __init__(self, *, game: Game, start: LedgerKey) -> None:
        self.game = game
        self.start = start
        self.pair_deals: dict[frozenset, int] = {}


# A loader reads a chunk of matches, in ledger order, into (rated players in seat order, engine input) pairs.
Loader = Callable[[list[_MatchRow], _ApplyContext], list[tuple[tuple[int, ...], object]]]


def _seat_rows(match_ids: list[int]) -> dict[int, list[tuple[int | None, int | None, Decimal]]]:
    """(player, bot, result) of every seat of the matches, in seat order, with one query."""
    seats: dict[int, list] = defaultdict(list)
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "bot_id", "result")
    )
    for match_id, player_id, bot_id, result in rows:
        seats[match_id].append((player_id, bot_id, result))
    return seats


def _preferans_seat_rows(match_ids: list[int]) -> dict[int, list[tuple[int | None, BotSeat | None]]]:
    """(player, bot as played) of every seat of the matches, in seat order, with one query.

    A bot seat is rated with the rating and maximum stored on the seat, never
    the Bot row's current values: editing a bot must not rewrite old games.
    """
    seats: dict[int, list] = defaultdict(list)
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "bot__slug", "bot_rating", "bot_max_rating")
    )
    bots: dict[tuple, BotSeat] = {}  # One BotSeat per (bot, values), shared by the seats that played it.
    for match_id, player_id, slug, rating, max_rating in rows:
        bot = None
        if slug is not None:
            key = (slug, rating, max_rating)
            bot = bots.get(key)
            if bot is None:
                bot = bots[key] = BotSeat(slug=slug, rating=float(rating), max_rating=float(max_rating))
        seats[match_id].append((player_id, bot))
    return seats


def _elo_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    seats = _seat_rows([row.id for row in chunk])
    inputs = []
    for row in chunk:
        first, second = seats[row.id]
        winner = first if first[2] >= second[2] else second
        inputs.append(((first[0], second[0]), EloMatch(players=(first[0], second[0]), winner=winner[0])))
    return inputs


def _preferans_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    ids = [row.id for row in chunk]
    seats = _preferans_seat_rows(ids)
    deals: dict[int, list[tuple[float, ...]]] = defaultdict(list)
    for match_id, whists in (
        Deal.objects.filter(match_id__in=ids).order_by("match_id", "number").values_list("match_id", "whists")
    ):
        deals[match_id].append(tuple(float(whist) for whist in whists))
    inputs = []
    for row in chunk:
        table = seats[row.id]
        game_seats = tuple(bot if bot is not None else player_id for player_id, bot in table)
        players = tuple(player_id for player_id, _ in table if player_id)
        inputs.append((players, PreferansGame(seats=game_seats, deals=tuple(deals[row.id]))))
    return inputs


def _bridge_pairs(match: Match) -> list[frozenset]:
    return [
        frozenset(pair)
        for board in match.boards.all()
        for table in board.tables.all()
        for pair in ((table.ns_1_id, table.ns_2_id), (table.ew_1_id, table.ew_2_id))
    ]


def _bridge_match_input(match: Match, context: _ApplyContext) -> BridgeSession:
    boards = tuple(
        BridgeBoard(
            tuple(
                BridgeTable(
                    ns=(table.ns_1_id, table.ns_2_id),
                    ew=(table.ew_1_id, table.ew_2_id),
                    ns_score=table.ns_score,
                    ns_imps=float(table.ns_imps) if table.ns_imps is not None else None,
                )
                for table in board.tables.all()
            )
        )
        for board in match.boards.all()
    )
    pairs = set(_bridge_pairs(match))
    session = BridgeSession(boards=boards, deals_together={pair: context.pair_deals.get(pair, 0) for pair in pairs})
    for pair in _bridge_pairs(match):
        context.pair_deals[pair] = context.pair_deals.get(pair, 0) + 1
    return session


def _bridge_pair_history(matches: list[Match], context: _ApplyContext) -> None:
    """Load, for pairs first met in these matches, the deals they played together before the replay's start."""
    wanted = {pair for match in matches for pair in _bridge_pairs(match)} - context.pair_deals.keys()
    if not wanted:
        return
    players = {player for pair in wanted for player in pair}
    history = BoardTable.objects.filter(
        board__match__game=context.game, board__match__status=Match.Status.RATED
    ).filter(_before(context.start, played_at_field="board__match__played_at", id_field="board__match_id"))
    counts: dict[frozenset, int] = dict.fromkeys(wanted, 0)
    for first, second in (("ns_1", "ns_2"), ("ew_1", "ew_2")):
        rows = (
            history.filter(**{f"{first}__in": players, f"{second}__in": players})
            .values_list(first, second)
            .annotate(deals=Count("pk"))
        )
        for player_a, player_b, deals in rows:
            pair = frozenset((player_a, player_b))
            if pair in counts:
                counts[pair] += deals
    context.pair_deals.update(counts)


def _bridge_inputs(chunk: list[_MatchRow], context: _ApplyContext) -> list[tuple[tuple[int, ...], object]]:
    # Bridge sessions are few and rich (boards of tables): model instances with prefetching are clearest.
    by_id = Match.objects.prefetch_related("seats", "boards__tables").in_bulk([row.id for row in chunk])
    matches = [by_id[row.id] for row in chunk]
    _bridge_pair_history(matches, context)
    return [
        (tuple(seat.player_id for seat in match.seats.all()), _bridge_match_input(match, context)) for match in matches
    ]


MATCH_LOADERS: dict[str, Loader] = {
    "elo": _elo_inputs,
    "preferans": _preferans_inputs,
    "bridge": _bridge_inputs,
}


# --- the state lock and the pending start ---------------------------------------------------


def rating_state_lock(*, game_id: int) -> RatingState:
    """Lock the game's rating state row for the rest of the current transaction."""
    try:
        return RatingState.objects.select_for_update().get(game_id=game_id)
    except RatingState.DoesNotExist:
        RatingState.objects.get_or_create(game_id=game_id)  # A game's first run; races end in one row.
        return RatingState.objects.select_for_update().get(game_id=game_id)


def rating_replay_mark(*, state: RatingState, played_at: datetime, match_id: int) -> None:
    """Ask for a replay from (played_at, match_id). The caller holds the state lock."""
    key = LedgerKey(played_at, match_id)
    if state.replay_from_played_at is not None:
        key = min(key, LedgerKey(state.replay_from_played_at, state.replay_from_match_id))
    state.replay_from_played_at, state.replay_from_match_id = key.played_at, key.match_id
    state.save(update_fields=["replay_from_played_at", "replay_from_match_id", "updated_at"])


def _replays_asked():
    """The rating states with a replay asked for (``rating_replay_mark``) and not yet run."""
    return RatingState.objects.filter(replay_from_played_at__isnull=False)


def _due(now: datetime) -> Q:
    """Submitted results that may be rated now: confirmed where needed, and no rating period or a closed one.

    ``_MatchRow.rateable`` asks the same of a row already read; keep the two alike.
    """
    return Q(awaiting_confirmation=False) & (Q(due_at__isnull=True) | Q(due_at__lte=now))


def _pending_start(state: RatingState, now: datetime) -> LedgerKey | None:
    candidates = []
    first_submitted = (
        Match.objects.filter(game_id=state.game_id, status=Match.Status.SUBMITTED)
        .filter(_due(now))
        .order_by("played_at", "id")
        .values_list("played_at", "id")
        .first()
    )
    if first_submitted:
        candidates.append(LedgerKey(*first_submitted))
    if state.replay_from_played_at is not None:
        candidates.append(LedgerKey(state.replay_from_played_at, state.replay_from_match_id))
    if not candidates:
        return None
    return _period_aligned(state.game_id, min(candidates))


def _period_aligned(game_id: int, start: LedgerKey) -> LedgerKey:
    """Move ``start`` back to the start of any rating period it falls inside.

    A period's results are all computed from the ratings at the period's
    start, so a replay touching a period must begin there.
    """
    leagues = list(League.objects.filter(game_id=game_id, rating_period_days__gt=0))
    moved = True
    while moved:
        moved = False
        for league in leagues:
            period_start, period_end = league.period_bounds(start.played_at)
            if period_start >= start.played_at:
                continue
            has_results = Match.objects.filter(
                league=league,
                played_at__gte=period_start,
                played_at__lt=period_end,
                status__in=[Match.Status.SUBMITTED, Match.Status.RATED],
            ).exists()
            if has_results:
                start, moved = LedgerKey(period_start, 0), True
    return start


def _ledger_end(game_id: int) -> LedgerKey | None:
    last = (
        RatingChange.objects.filter(game_id=game_id)
        .order_by("-played_at", "-match_id")
        .values_list("played_at", "match_id")
        .first()
    )
    return LedgerKey(*last) if last else None


# --- processing ------------------------------------------------------------------------------


def ratings_process_game(*, game_id: int) -> int:
    """Bring the game's ratings up to date with its rated results.

    Returns the number of matches applied (0 when nothing was pending).
    Safe to call any number of times, from any number of processes.
    """
    now = timezone.now()
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)
        start = _pending_start(state, now)
        if start is None:
            return 0
        game = Game.objects.get(pk=game_id)
        applied_until = (
            LedgerKey(state.applied_until_played_at, state.applied_until_match_id)
            if state.applied_until_played_at is not None
            else None
        )
        if applied_until is not None and start <= applied_until:
            _ledger_rollback(game=game, start=start)
        applied, last = _ledger_apply(game=game, start=start, now=now)
        # The ledger now ends at the last match applied, or, if none was, where the rollback left it.
        end = last or _ledger_end(game_id)
        state.applied_until_played_at = end.played_at if end else None
        state.applied_until_match_id = end.match_id if end else None
        state.replay_from_played_at = state.replay_from_match_id = None
        state.save()
    return applied


def ratings_process_match(*, match_id: int) -> int:
    """``ratings_process_game`` for the game of a result just queued (the rating task's body).

    Under load one run rates many results; when this one was rated by an
    earlier run and no replay is asked for since, nothing is left to do and
    the game's lock is not taken.
    """
    row = Match.objects.filter(pk=match_id).values_list("game_id", "status").first()
    if row is None:
        return 0
    game_id, status = row
    if status == Match.Status.RATED and not _replays_asked().filter(game_id=game_id).exists():
        return 0
    return ratings_process_game(game_id=game_id)


def ratings_replay_all(*, game_id: int) -> int:
    """Recompute a game's whole history from its first result, now (admin tool, tests, benchmarks)."""
    with transaction.atomic():
        ratings_request_full_replay(game_id=game_id)
        return ratings_process_game(game_id=game_id)


def ratings_request_full_replay(*, game_id: int) -> bool:
    """Mark the whole history of a game for replay and queue it (after a rule change).

    Used when admins change a game's parameters or a league's threshold or
    floor: every rating must then be recomputed under the new rules.
    Returns False when the game has no results yet.
    """
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)
        first = (
            Match.objects.filter(game_id=game_id, status__in=[Match.Status.SUBMITTED, Match.Status.RATED])
            .order_by("played_at", "id")
            .values_list("played_at", "id")
            .first()
        )
        first_change = RatingChange.objects.filter(game_id=game_id).order_by("played_at", "match_id").first()
        keys = [LedgerKey(*first)] if first else []
        if first_change is not None:
            keys.append(LedgerKey(first_change.played_at, first_change.match_id))
        if not keys:
            return False
        start = min(keys)
        rating_replay_mark(state=state, played_at=start.played_at, match_id=start.match_id)
        transaction.on_commit(lambda: ratings_enqueue_game(game_id=game_id))
    return True


def _ledger_rollback(*, game: Game, start: LedgerKey) -> None:
    """Delete the ledger from ``start`` on and restore every affected player from their last row before it.

    Those rows are found before the delete, each with one seek down the
    player's ledger index from ``start``; after it, every seek would first
    wade through the rows the delete left dead in this transaction (a full
    replay stalled there: docs/performance.md).
    """
    later = RatingChange.objects.filter(game=game).filter(_at_or_after(start))
    player_ids = set(later.order_by().values_list("player_id", flat=True).distinct())
    restore: dict[int, tuple] = {}
    if player_ids:
        last_before = (
            RatingChange.objects.filter(game=game, player_id=OuterRef("player_id"))
            .filter(_before(start))
            .order_by("-played_at", "-match_id", "-unit")
            .values("pk")[:1]
        )
        last_pks = dict(
            PlayerRating.objects.filter(game=game, player_id__in=player_ids)
            .annotate(last=Subquery(last_before))
            .values_list("pk", "last")
        )
        rows = RatingChange.objects.filter(pk__in=[pk for pk in last_pks.values() if pk is not None])
        by_pk = {
            row[0]: row[1:]
            for row in rows.values_list("pk", "rating_after", "peak_after", "rated_matches_after", "league_after_id")
        }
        restore = {rating_pk: by_pk.get(last_pk) for rating_pk, last_pk in last_pks.items()}
    Promotion.objects.filter(game=game).filter(_at_or_after(start)).delete()
    later.delete()
    restored = [
        _Standing(rating_pk, decimal_cents(row[0]), decimal_cents(row[1]), row[2], row[3])
        for rating_pk, row in restore.items()
        if row is not None
    ]
    _standings_update(restored)
    PlayerRating.objects.filter(pk__in=[rating_pk for rating_pk, row in restore.items() if row is None]).delete()


LEDGER_COLUMNS = (
    "game_id",
    "match_id",
    "player_id",
    "unit",
    "played_at",
    "rating_before",
    "rating_after",
    "delta",
    "peak_after",
    "rated_matches_after",
    "league_after_id",
    "details",
    "created_at",
)


@dataclass(slots=True)
class _Standing:
    """A player's rating state in the replay's pool, in cents; ``pk`` is None until their first rating is saved."""

    pk: int | None
    rating: int
    peak: int
    rated_matches: int
    league_id: int


class _LedgerWriter:
    """Buffers ledger rows, promotions and status flips, and writes them in batches.

    On PostgreSQL ledger rows are streamed with COPY as ready-made text lines
    (cents formatted once, details dumped by orjson): much faster than
    INSERTs of model instances (docs/performance.md). Elsewhere they go in with
    ``bulk_create``.
    """

    def __init__(self, *, game_id: int) -> None:
        self.game_id = game_id
        self.postgres = connection.vendor == "postgresql"
        self.lines: list[str] = []
        self.instances: list[RatingChange] = []
        self.promotions: list[Promotion] = []
        self.rated_match_ids: list[int] = []
        self.now = timezone.now()
        self.now_text = self.now.isoformat()

    def add_change(
        self,
        match: _MatchRow,
        played_at_text: str,
        player_id: int,
        unit: int,
        standing: _Standing,
        before: int,
        details: dict,
    ) -> None:
        after = standing.rating
        if self.postgres:
            text = orjson.dumps(details).decode()
            if "\\" in text:
                text = text.replace("\\", "\\\\")  # COPY's text format escapes backslashes.
            self.lines.append(
                f"{self.game_id}\t{match.id}\t{player_id}\t{unit}\t{played_at_text}\t{before / 100:.2f}\t"
                f"{after / 100:.2f}\t{(after - before) / 100:.2f}\t{standing.peak / 100:.2f}\t"
                f"{standing.rated_matches}\t{standing.league_id}\t{text}\t{self.now_text}\n"
            )
        else:
            self.instances.append(
                RatingChange(
                    game_id=self.game_id,
                    match_id=match.id,
                    player_id=player_id,
                    unit=unit,
                    played_at=match.played_at,
                    rating_before=cents_decimal(before),
                    rating_after=cents_decimal(after),
                    delta=cents_decimal(after - before),
                    peak_after=cents_decimal(standing.peak),
                    rated_matches_after=standing.rated_matches,
                    league_after_id=standing.league_id,
                    details=details,
                    created_at=self.now,
                )
            )

    def _write_changes(self) -> None:
        if self.lines:
            columns = ", ".join(LEDGER_COLUMNS)
            with (
                connection.cursor() as cursor,
                cursor.connection.cursor().copy(f"COPY {RatingChange._meta.db_table} ({columns}) FROM STDIN") as copy,
            ):
                copy.write("".join(self.lines).encode())
            self.lines = []
        if self.instances:
            RatingChange.objects.bulk_create(self.instances, batch_size=WRITE_BATCH)
            self.instances = []

    def flush(self, *, force: bool = False) -> None:
        if force or len(self.lines) + len(self.instances) >= WRITE_BATCH:
            self._write_changes()
        if self.promotions and force:
            Promotion.objects.bulk_create(self.promotions)
            self.promotions = []
        if self.rated_match_ids and (force or len(self.rated_match_ids) >= WRITE_BATCH):
            Match.objects.filter(pk__in=self.rated_match_ids, status=Match.Status.SUBMITTED).update(
                status=Match.Status.RATED
            )
            self.rated_match_ids = []


def _match_chunks(queryset, size: int) -> Iterable[list[_MatchRow]]:
    """The matches of ``queryset`` in ledger order, as plain rows, ``size`` at a time.

    Each chunk is one query that seeks past the previous chunk's last match
    on the (game, played_at, id) index: no server-side cursor to declare,
    fetch and close, which an incremental run of one match would mostly pay for.
    """
    last: _MatchRow | None = None
    while True:
        page = queryset.order_by("played_at", "id")
        if last is not None:
            page = page.filter(Q(played_at__gt=last.played_at) | Q(played_at=last.played_at, id__gt=last.id))
        chunk = [_MatchRow._make(values) for values in page.values_list(*MATCH_ROW_FIELDS)[:size]]
        if chunk:
            yield chunk
        if len(chunk) < size:
            return
        last = chunk[-1]


class _PeriodSnapshots:
    """Players' ratings (in cents) at the start of each rating period a replay passes through.

    A result filed under a league with a rating period is computed from the
    ratings at its period's start (seed 003's rating periods). The replay
    begins at or before that start (``_period_aligned``), so a player's rating
    there is the one they had before their first change at or after it, or,
    if they have not changed since, their current one.
    """

    def __init__(self, windows: Iterable[tuple[datetime, datetime]]) -> None:
        self.ratings: dict[tuple[datetime, datetime], dict[int, int]] = {window: {} for window in windows}

    def before_change(self, player_id: int, played_at: datetime, rating: int) -> None:
        for (begin, end), ratings in self.ratings.items():
            if begin <= played_at < end:
                ratings.setdefault(player_id, rating)

    def rating_at_start(self, window: tuple[datetime, datetime], player_id: int, current: int) -> int:
        return self.ratings.setdefault(window, {}).get(player_id, current)


@dataclass(frozen=True, slots=True)
class _LeagueRules:
    """A league's rules in the replay's units: cents, and the league to promote to."""

    pk: int
    floor: int | None
    promote_at: int | None
    promote_to: int | None
    promoted_floor: int | None  # the floor of ``promote_to``, from the unit after the promotion


def _floor_cents(league: League) -> int | None:
    return decimal_cents(league.rating_floor) if league.rating_floor is not None else None


def _league_rules(leagues: dict[int, League], pro_league: League | None) -> dict[int, _LeagueRules]:
    rules = {}
    for league in leagues.values():
        promotes = (
            pro_league is not None and league.tier == League.Tier.AMATEUR and league.promotion_threshold is not None
        )
        rules[league.pk] = _LeagueRules(
            pk=league.pk,
            floor=_floor_cents(league),
            promote_at=decimal_cents(league.promotion_threshold) if promotes else None,
            promote_to=pro_league.pk if promotes else None,
            promoted_floor=_floor_cents(pro_league) if promotes else None,
        )
    return rules


def _pool_load(*, game: Game, pool: dict[int, _Standing], needed: set[int], entry_league: League, start: int) -> None:
    rows = PlayerRating.objects.filter(game=game, player_id__in=needed).values_list(
        "pk", "player_id", "rating", "peak_rating", "rated_matches", "league_id"
    )
    for pk, player_id, rating, peak, rated_matches, league_id in rows:
        pool[player_id] = _Standing(pk, decimal_cents(rating), decimal_cents(peak), rated_matches, league_id)
    for player_id in needed - pool.keys():
        pool[player_id] = _Standing(None, start, start, 0, entry_league.pk)


def _pool_save(*, game: Game, pool: dict[int, _Standing]) -> None:
    """Write the pool's final state to ``PlayerRating``: new players inserted, the others updated in place."""
    new = [
        PlayerRating(
            player_id=player_id,
            game=game,
            league_id=standing.league_id,
            rating=cents_decimal(standing.rating),
            peak_rating=cents_decimal(standing.peak),
            rated_matches=standing.rated_matches,
        )
        for player_id, standing in pool.items()
        if standing.pk is None
    ]
    PlayerRating.objects.bulk_create(new, batch_size=WRITE_BATCH)
    _standings_update([standing for standing in pool.values() if standing.pk is not None])


def _standings_update(standings: list[_Standing]) -> None:
    """Write these players' ratings over their existing ``PlayerRating`` rows."""
    if not standings:
        return
    if connection.vendor == "postgresql":
        # One UPDATE joined to arrays: bulk_update's CASE per row grows quadratically with the batch.
        with connection.cursor() as cursor:
            cursor.execute(
                """
                UPDATE ratings_playerrating AS r
                SET rating = v.rating / 100.0, peak_rating = v.peak / 100.0, rated_matches = v.rated_matches,
                    league_id = v.league_id, updated_at = now()
                FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::integer[], %s::bigint[])
                    AS v(id, rating, peak, rated_matches, league_id)
                WHERE r.id = v.id
                """,
                [
                    [standing.pk for standing in standings],
                    [standing.rating for standing in standings],
                    [standing.peak for standing in standings],
                    [standing.rated_matches for standing in standings],
                    [standing.league_id for standing in standings],
                ],
            )
        return
    PlayerRating.objects.bulk_update(
        (
            PlayerRating(
                pk=standing.pk,
                rating=cents_decimal(standing.rating),
                peak_rating=cents_decimal(standing.peak),
                rated_matches=standing.rated_matches,
                league_id=standing.league_id,
            )
            for standing in standings
        ),
        ["rating", "peak_rating", "rated_matches", "league"],
        batch_size=WRITE_BATCH,
    )


def _ledger_apply(*, game: Game, start: LedgerKey, now: datetime) -> tuple[int, LedgerKey | None]:
    """Apply every rated match of the game from ``start`` on, in ledger order; returns (count, last applied).

    Results still waiting for their rating period to close are skipped; they
    are applied (with a replay from their period's start) once it has.
    Matches are streamed in chunks, so memory holds one chunk and the
    players met so far, however long the history.
    """
    system = get_rating_system(game.rating_system)
    parameters = rating_parameters(game=game)
    load = MATCH_LOADERS[system.slug]
    leagues = {league.pk: league for league in League.objects.filter(game=game)}
    by_tier = {league.tier: league for league in leagues.values()}
    entry_league = by_tier.get(League.Tier.AMATEUR) or next(iter(leagues.values()), None)
    if entry_league is None:
        raise ValidationError(f"The game {game} has no league to place players in.")
    rules = _league_rules(leagues, by_tier.get(League.Tier.PRO))
    start_rating = decimal_cents(Decimal(game.start_rating).quantize(CENT))

    # Results stored after this run began wait for the next run (each queued its own task):
    # the rating periods below are read once, at the start.
    newest = Match.objects.filter(game=game).aggregate(newest=Max("id"))["newest"] or 0
    # Which results are due is decided per row in Python (``_MatchRow.rateable``): with it in
    # SQL, its ORs tempt the planner off the (game, played_at, id) index the chunks seek on.
    in_range = Match.objects.filter(
        game=game, status__in=[Match.Status.SUBMITTED, Match.Status.RATED], id__lte=newest
    ).filter(_at_or_after(start, id_field="id"))
    windows = {
        leagues[league_id].period_bounds(played_at)
        for league_id, played_at in in_range.filter(due_at__isnull=False, league__isnull=False)
        .filter(Q(status=Match.Status.RATED) | _due(now))
        .values_list("league_id", "played_at")
    } - {None}
    apply = _MatchApplier(
        system=system,
        parameters=parameters,
        rules=rules,
        writer=_LedgerWriter(game_id=game.pk),
        snapshots=_PeriodSnapshots(windows),
    )
    context = _ApplyContext(game=game, start=start)
    applied, last = 0, None
    for page in _match_chunks(in_range, REPLAY_CHUNK):
        chunk = [match for match in page if match.rateable(now)]
        if not chunk:
            continue
        inputs = load(chunk, context)
        needed = {player_id for players, _ in inputs for player_id in players} - apply.pool.keys()
        if needed:
            _pool_load(game=game, pool=apply.pool, needed=needed, entry_league=entry_league, start=start_rating)
        for match, (players, engine_input) in zip(chunk, inputs, strict=True):
            window = (
                leagues[match.league_id].period_bounds(match.played_at) if match.due_at and match.league_id else None
            )
            apply(match, players, engine_input, window)
            applied += 1
            last = LedgerKey(match.played_at, match.id)
        apply.writer.flush()
    apply.writer.flush(force=True)
    _pool_save(game=game, pool=apply.pool)
    return applied, last


class _MatchApplier:
    """Rates one match at a time on top of the in-memory pool and buffers its ledger rows."""

    def __init__(self, *, system, parameters, rules: dict[int, _LeagueRules], writer: _LedgerWriter, snapshots):
        self.system = system
        self.parameters = parameters
        self.rules = rules
        self.writer = writer
        self.snapshots = snapshots
        self.pool: dict[int, _Standing] = {}

    def __call__(
        self, match: _MatchRow, players: tuple[int, ...], engine_input, window: tuple[datetime, datetime] | None
    ) -> None:
        """Rate one match and buffer its ledger rows and promotions.

        Outside a rating period the engine applies floors and promotion unit by
        unit (a floor set by a promotion holds from the next unit of the same
        game on), and says which unit promoted whom. In a rating period
        (``window``) the engine sees every player's rating at the period's
        start, the deltas it computes are added to the current ratings, and the
        floor and promotion are applied here, unit by unit, to those ratings.
        """
        pool, rules, writer = self.pool, self.rules, self.writer
        states = {}
        for player_id in players:
            standing = pool[player_id]
            if window:
                basis = self.snapshots.rating_at_start(window, player_id, standing.rating)
                states[player_id] = PlayerState(rating=basis / 100, rated_matches=standing.rated_matches)
                continue
            league = rules[standing.league_id]
            states[player_id] = PlayerState(
                rating=standing.rating / 100,
                rated_matches=standing.rated_matches,
                floor=league.floor / 100 if league.floor is not None else None,
                promote_at=league.promote_at / 100 if league.promote_at is not None else None,
                promoted_floor=league.promoted_floor / 100 if league.promoted_floor is not None else None,
            )
        if window and hasattr(engine_input, "frozen"):
            engine_input = replace(engine_input, frozen=True)
        changes = self.system.rate(engine_input, states, self.parameters)
        for player_id in states:
            pool[player_id].rated_matches += 1
        played_at_text = match.played_at.isoformat()
        for change in changes:
            standing = pool[change.player]
            before = standing.rating
            league = rules[standing.league_id]
            details = change.details
            if self.snapshots.ratings:
                self.snapshots.before_change(change.player, match.played_at, before)
            if window:
                period_before = to_cents(change.rating_before)
                after = stop_at_floor(before, before + to_cents(change.rating_after) - period_before, league.floor)
                details = {**details, "period_start": window[0].isoformat(), "period_rating": period_before / 100}
                promoted = league.promote_at is not None and after >= league.promote_at
            else:
                after = to_cents(change.rating_after)
                promoted = change.promoted
            standing.rating = after
            if after > standing.peak:
                standing.peak = after
            if promoted:
                standing.league_id = league.promote_to
                writer.promotions.append(
                    Promotion(
                        player_id=change.player,
                        game_id=writer.game_id,
                        from_league_id=league.pk,
                        to_league_id=league.promote_to,
                        match_id=match.id,
                        played_at=match.played_at,
                        rating=cents_decimal(after),
                    )
                )
            writer.add_change(match, played_at_text, change.player, change.unit, standing, before, details)
        if match.status == Match.Status.SUBMITTED:
            writer.rated_match_ids.append(match.id)


# --- queueing -------------------------------------------------------------------------------


def ratings_enqueue(*, match_id: int) -> None:
    """Queue the rating task for a committed match; never fail the caller.

    If the broker cannot be reached the match stays ``submitted`` and the
    periodic sweeper (``ratings_sweep``) rates it later.
    """
    from ratings.tasks import ratings_apply_match

    try:
        ratings_apply_match.delay(match_id)
    except Exception:
        logger.warning("Could not queue rating of match %s; the sweeper will pick it up.", match_id, exc_info=True)


def ratings_enqueue_game(*, game_id: int) -> None:
    """Queue processing of a whole game (replays); like ``ratings_enqueue``, never fails the caller."""
    from ratings.tasks import ratings_process

    try:
        ratings_process.delay(game_id)
    except Exception:
        logger.warning("Could not queue rating of game %s; the sweeper will pick it up.", game_id, exc_info=True)


def ratings_close_periods() -> int:
    """Rate the results whose rating period has closed (a Celery beat task, every minute)."""
    now = timezone.now()
    game_ids = set(
        Match.objects.filter(status=Match.Status.SUBMITTED, due_at__isnull=False, due_at__lte=now).values_list(
            "game_id", flat=True
        )
    )
    return _process_games(game_ids)


def ratings_pending_games(*, stored_before: datetime | None = None) -> set[int]:
    """The games with rating work left: a due ``submitted`` result, or a replay asked for.

    A void or a correction changes a match and asks for its replay in one
    transaction, so an empty answer means every rating is final: no result
    waits to be rated and no rated one waits to be taken out again.
    ``stored_before`` leaves out results stored after it (the sweeper's grace).
    """
    now = timezone.now()
    submitted = Match.objects.filter(status=Match.Status.SUBMITTED).filter(_due(now))
    if stored_before is not None:
        submitted = submitted.filter(created_at__lte=stored_before)
    game_ids = set(submitted.order_by().values_list("game_id", flat=True).distinct())
    game_ids |= set(_replays_asked().values_list("game_id", flat=True))
    return game_ids


def ratings_sweep() -> int:
    """Process every game with results left ``submitted`` for a while, or a replay pending."""
    game_ids = ratings_pending_games(stored_before=timezone.now() - settings.CARDRANK_SWEEP_AFTER)
    return _process_games(game_ids)


# --- calculators ----------------------------------------------------------------------------

CALCULATOR_RATING_LIMIT = 100_000


def _calculator_number(data, field: str, errors: dict, *, default=None, minimum=0.0, maximum=CALCULATOR_RATING_LIMIT):
    raw = data.get(field)
    if raw in (None, ""):
        if default is None:
            errors.setdefault(field, []).append("This field is required.")
        return default
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors.setdefault(field, []).append("Enter a number.")
        return None
    if value != value or value in (float("inf"), float("-inf")) or not minimum <= value <= maximum:
        errors.setdefault(field, []).append(f"Enter a number between {minimum:g} and {maximum:g}.")
        return None
    return value


def rating_calculate_elo(*, data, game: Game | None = None) -> dict:
    """What one Slaps match would do to a rating: the calculator page and API."""
    from ratings.engines.elo import elo_update

    errors: dict[str, list[str]] = {}
    rating = _calculator_number(data, "rating", errors)
    opponent = _calculator_number(data, "opponent", errors)
    score = _calculator_number(data, "score", errors, default=1.0, maximum=1)
    rated_matches = _calculator_number(data, "rated_matches", errors, default=0.0, maximum=10**9)
    if score is not None and score not in (0.0, 0.5, 1.0):
        errors.setdefault("score", []).append("Score is 1 (win), 0 (loss) or 0.5 (draw).")
    if rated_matches is not None and rated_matches != int(rated_matches):
        errors.setdefault("rated_matches", []).append("Enter a whole number.")
    if errors:
        raise ValidationError(errors)
    game = game or Game.objects.filter(rating_system="elo").order_by("pk").first()
    parameters = rating_parameters(game=game) if game else get_rating_system("elo").parameters_class()
    update = elo_update(
        rating=rating, opponent_rating=opponent, score=score, rated_matches=int(rated_matches), parameters=parameters
    )
    return {
        "expected": round(update.expected, 4),
        "k": update.k,
        "delta": int(update.delta_from(rating)) if rating == int(rating) else update.delta_from(rating),
        "new_rating": int(update.rating_after),
    }


CALCULATOR_GRID_RATINGS = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 4500)
CALCULATOR_GRID_TABLES = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000)


def _calculator_opponents(data, errors: dict) -> list[float] | None:
    raw = data.get("opponents")
    if raw in (None, ""):
        errors.setdefault("opponents", []).append("This field is required: one to three ratings, comma-separated.")
        return None
    parts = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    parts = [part for part in (str(p).strip() for p in parts) if part]
    if not 1 <= len(parts) <= 3:
        errors.setdefault("opponents", []).append("Give one to three opponents' ratings.")
        return None
    values = []
    for part in parts:
        value = _calculator_number({"opponents": part}, "opponents", errors)
        if value is None:
            return None
        values.append(value)
    return values


def rating_calculate_preferans(*, data, game: Game | None = None, grid: bool = False) -> dict:
    """What one Preferans deal would do to a rating (seed 001's calculator), and optionally its grid.

    The grid shows, for the whists entered, the delta for each of your ratings
    (rows) against a table whose opponents all have one average rating (columns).
    """
    from ratings.engines.preferans import deal_update

    errors: dict[str, list[str]] = {}
    rating = _calculator_number(data, "rating", errors)
    opponents = _calculator_opponents(data, errors)
    whists = _calculator_number(data, "whists", errors, minimum=-10_000, maximum=10_000)
    if errors:
        raise ValidationError(errors)
    game = game or Game.objects.filter(rating_system="preferans").order_by("pk").first()
    parameters = rating_parameters(game=game) if game else get_rating_system("preferans").parameters_class()
    update = deal_update(rating=rating, opponents=opponents, whists=whists, parameters=parameters)
    result = {
        "table_rating": round(update.table_rating, 2),
        "kv": round(update.kv, 4),
        "expected_whists": round(update.expected_whists, 4),
        "kd": round(update.kd, 4),
        "smoothing": round(update.smoothing, 4),
        "delta": round(update.rating_after - rating, 2),
        "new_rating": update.rating_after,
    }
    if grid:
        result["grid"] = {
            "tables": list(CALCULATOR_GRID_TABLES),
            "rows": [
                {
                    "rating": row,
                    "deltas": [
                        round(
                            deal_update(
                                rating=row, opponents=[table] * len(opponents), whists=whists, parameters=parameters
                            ).rating_after
                            - row,
                            2,
                        )
                        for table in CALCULATOR_GRID_TABLES
                    ],
                }
                for row in CALCULATOR_GRID_RATINGS
            ],
        }
    return result
