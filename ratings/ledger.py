"""The ledger: the rating state's lock, rolling the ledger back, and writing it.

Every write to ``RatingChange``, ``Promotion`` and ``PlayerRating`` made by
rating happens here, inside the transaction that holds the game's
``RatingState`` row lock (``rating_state_lock``). Standings are kept in cents
while a replay runs (``Standing``) and written in bulk: ledger rows by COPY on
PostgreSQL (``LedgerWriter``), ratings with one UPDATE joined to arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import orjson
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from leagues.models import Game, League, SeasonMove
from matches.models import Match
from ratings.cents import cents_decimal, decimal_cents
from ratings.history import LedgerKey, MatchRow, key_at_or_after, key_before
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from ratings.signals import results_rated

# Ledger rows written per INSERT (or per COPY).
WRITE_BATCH = 2000


# --- the state lock -------------------------------------------------------------------------


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


def replays_asked():
    """The rating states with a replay asked for (``rating_replay_mark``) and not yet run."""
    return RatingState.objects.filter(replay_from_played_at__isnull=False)


def ledger_end(game_id: int) -> LedgerKey | None:
    last = (
        RatingChange.objects.filter(game_id=game_id)
        .order_by("-played_at", "-match_id")
        .values_list("played_at", "match_id")
        .first()
    )
    return LedgerKey(*last) if last else None


# --- rollback and writing ---------------------------------------------------------------------


def ledger_rollback(*, game: Game, start: LedgerKey) -> None:
    """Delete the ledger from ``start`` on and restore every affected player from their last row before it.

    Those rows are found before the delete, each with one seek down the
    player's ledger index from ``start``; after it, every seek would first
    wade through the rows the delete left dead in this transaction (a full
    replay stalled there: docs/performance.md).
    """
    later = RatingChange.objects.filter(game=game).filter(key_at_or_after(start))
    player_ids = set(later.order_by().values_list("player_id", flat=True).distinct())
    restore: dict[int, tuple] = {}
    if player_ids:
        last_before = (
            RatingChange.objects.filter(game=game, player_id=OuterRef("player_id"))
            .filter(key_before(start))
            .order_by("-played_at", "-match_id", "-unit")
            .values("pk")[:1]
        )
        rated = (
            PlayerRating.objects.filter(game=game, player_id__in=player_ids)
            .annotate(last=Subquery(last_before))
            .values_list("pk", "last", "player_id")
        )
        last_pks, players_of = {}, {}
        for rating_pk, last_pk, player_id in rated:
            last_pks[rating_pk], players_of[rating_pk] = last_pk, player_id
        rows = RatingChange.objects.filter(pk__in=[pk for pk in last_pks.values() if pk is not None])
        by_pk = {
            row[0]: row[1:]
            for row in rows.values_list(
                "pk", "rating_after", "peak_after", "rated_matches_after", "league_after_id", "played_at"
            )
        }
        restore = {rating_pk: by_pk.get(last_pk) for rating_pk, last_pk in last_pks.items()}
        _season_moves_keep(game, start, restore, players_of)
    Promotion.objects.filter(game=game).filter(key_at_or_after(start)).delete()
    later.delete()
    restored = [
        Standing(rating_pk, decimal_cents(row[0]), decimal_cents(row[1]), row[2], row[3], row[4])
        for rating_pk, row in restore.items()
        if row is not None
    ]
    _standings_update(restored)
    PlayerRating.objects.filter(pk__in=[rating_pk for rating_pk, row in restore.items() if row is None]).delete()


def _season_moves_keep(game: Game, start: LedgerKey, restore: dict[int, tuple | None], players_of: dict) -> None:
    """A player promoted or relegated at a season's end up to ``start`` after their last row before it keeps
    the move: their restored league is the latest such move's (the replay moves the later ones itself)."""
    restored = {players_of[rating_pk]: rating_pk for rating_pk, row in restore.items() if row is not None}
    moves = SeasonMove.objects.filter(game=game, player_id__in=list(restored), at__lte=start.played_at).order_by(
        "at", "id"
    )
    for player_id, at, league_id in moves.values_list("player_id", "at", "to_league_id"):
        rating_pk = restored[player_id]
        row = restore[rating_pk]
        if row[4] is None or row[4] < at:  # row: rating, peak, matches, league, played_at
            restore[rating_pk] = (*row[:3], league_id, row[4])


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
class Standing:
    """A player's rating state in the replay's pool, in cents; ``pk`` is None until their first rating is saved."""

    pk: int | None
    rating: int
    peak: int
    rated_matches: int
    league_id: int
    #: When the player's last rated result was played (``PlayerRating.last_played_at``).
    last_played_at: datetime | None = None


class LedgerWriter:
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
        match: MatchRow,
        played_at_text: str,
        player_id: int,
        unit: int,
        standing: Standing,
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
            first_rated = self._status_flip(self.rated_match_ids)
            if first_rated:
                game_id = self.game_id
                transaction.on_commit(
                    lambda: results_rated.send_robust(sender=Match, game_id=game_id, match_ids=first_rated)
                )
            self.rated_match_ids = []

    def _status_flip(self, match_ids: list[int]) -> list[int]:
        """Mark these results rated; return those rated for the first time (submitted until now, in the
        order given): a replay re-rating rated results flips none, so ``results_rated`` hears only news."""
        table = Match._meta.db_table
        if self.postgres:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET status = %s WHERE id = ANY(%s) AND status = %s RETURNING id",  # noqa: S608 - the table is the model's own name
                    [Match.Status.RATED, match_ids, Match.Status.SUBMITTED],
                )
                flipped = {row[0] for row in cursor.fetchall()}
        else:
            waiting = Match.objects.filter(pk__in=match_ids, status=Match.Status.SUBMITTED)
            flipped = set(waiting.values_list("pk", flat=True))
            Match.objects.filter(pk__in=flipped).update(status=Match.Status.RATED)
        return [match_id for match_id in match_ids if match_id in flipped]


def pool_load(*, game: Game, pool: dict[int, Standing], needed: set[int], entry_league: League, start: int) -> None:
    rows = PlayerRating.objects.filter(game=game, player_id__in=needed).values_list(
        "pk", "player_id", "rating", "peak_rating", "rated_matches", "league_id", "last_played_at"
    )
    for pk, player_id, rating, peak, rated_matches, league_id, last_played_at in rows:
        pool[player_id] = Standing(
            pk, decimal_cents(rating), decimal_cents(peak), rated_matches, league_id, last_played_at
        )
    for player_id in needed - pool.keys():
        pool[player_id] = Standing(None, start, start, 0, entry_league.pk)


def pool_save(*, game: Game, pool: dict[int, Standing]) -> None:
    """Write the pool's final state to ``PlayerRating``: new players inserted, the others updated in place."""
    new = [
        PlayerRating(
            player_id=player_id,
            game=game,
            league_id=standing.league_id,
            rating=cents_decimal(standing.rating),
            peak_rating=cents_decimal(standing.peak),
            rated_matches=standing.rated_matches,
            last_played_at=standing.last_played_at,
        )
        for player_id, standing in pool.items()
        if standing.pk is None
    ]
    PlayerRating.objects.bulk_create(new, batch_size=WRITE_BATCH)
    _standings_update([standing for standing in pool.values() if standing.pk is not None])


def _standings_update(standings: list[Standing]) -> None:
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
                    league_id = v.league_id, last_played_at = v.last_played_at, updated_at = now()
                FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::integer[], %s::bigint[], %s::timestamptz[])
                    AS v(id, rating, peak, rated_matches, league_id, last_played_at)
                WHERE r.id = v.id
                """,
                [
                    [standing.pk for standing in standings],
                    [standing.rating for standing in standings],
                    [standing.peak for standing in standings],
                    [standing.rated_matches for standing in standings],
                    [standing.league_id for standing in standings],
                    [standing.last_played_at for standing in standings],
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
                last_played_at=standing.last_played_at,
            )
            for standing in standings
        ),
        ["rating", "peak_rating", "rated_matches", "league", "last_played_at"],
        batch_size=WRITE_BATCH,
    )
