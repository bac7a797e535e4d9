"""Apply: rating a game's matches from a start on, on top of the ledger as it stands there.

``ledger_apply`` streams the matches in ledger order, asks the game's kind
(``leagues.kinds.kind_of``) to load the engine's input, rates each match on
an in-memory pool of standings (``MatchApplier``: floors, promotions,
rating periods) and hands the rows to the ledger's writer. The caller holds the state lock and has rolled the
ledger back to ``start`` (``ratings.services.ratings_process_game``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db.models import Max, Q
from django.utils.translation import gettext as _

from leagues.kinds import kind_of
from leagues.models import Game, League, SeasonMove
from matches.models import Match, due_condition
from ratings.cents import CENT, cents_decimal, decimal_cents, to_cents
from ratings.engines import PlayerState, get_rating_system
from ratings.engines.base import stop_at_floor, tuple_new
from ratings.history import LedgerKey, MatchRow, key_at_or_after, match_chunks
from ratings.ledger import LedgerWriter, Standing, pool_load, pool_save
from ratings.loaders import ReplayContext
from ratings.models import Promotion
from ratings.parameters import rating_parameters
from ratings.periods import PeriodSnapshots

# Matches read per query while replaying.
REPLAY_CHUNK = 1000


@dataclass(frozen=True, slots=True)
class LeagueRules:
    """A league's rules in the replay's units: cents, and the league to promote to."""

    pk: int
    floor: int | None
    promote_at: int | None
    promote_to: int | None
    promoted_floor: int | None  # the floor of ``promote_to``, from the unit after the promotion


def _floor_cents(league: League) -> int | None:
    return decimal_cents(league.rating_floor) if league.rating_floor is not None else None


def league_rules(leagues: dict[int, League], pro_league: League | None) -> dict[int, LeagueRules]:
    rules = {}
    for league in leagues.values():
        promotes = (
            pro_league is not None and league.tier == League.Tier.AMATEUR and league.promotion_threshold is not None
        )
        rules[league.pk] = LeagueRules(
            pk=league.pk,
            floor=_floor_cents(league),
            promote_at=decimal_cents(league.promotion_threshold) if promotes else None,
            promote_to=pro_league.pk if promotes else None,
            promoted_floor=_floor_cents(pro_league) if promotes else None,
        )
    return rules


class GameSetup(NamedTuple):
    """What a replay of a game reads before its first result: its engine, its kind, its leagues (by id and
    by tier) and the league a player new to the game starts in."""

    system: object
    kind: object
    leagues: dict[int, League]
    by_tier: dict[str, League]
    entry_league: League


def game_setup(game: Game) -> GameSetup:
    """The game's engine, kind and leagues, refused with a clear error when a replay cannot read its results
    (no kind registered for its rating system) or place its players (no league). The ledger's replay and
    the in-memory one (``ratings.evaluation``) start alike."""
    system = get_rating_system(game.rating_system)
    kind = kind_of(game)
    if kind is None:
        raise ImproperlyConfigured(f"No game kind is registered for {system.slug!r}: {game}'s results cannot be read.")
    leagues = {league.pk: league for league in League.objects.filter(game=game)}
    by_tier = {league.tier: league for league in leagues.values()}
    entry_league = by_tier.get(League.Tier.AMATEUR) or next(iter(leagues.values()), None)
    if entry_league is None:
        raise ValidationError(_("The game %(game)s has no league to place players in.") % {"game": game})
    return GameSetup(system, kind, leagues, by_tier, entry_league)


def ledger_apply(*, game: Game, start: LedgerKey, now: datetime) -> tuple[int, LedgerKey | None]:
    """Apply every rated match of the game from ``start`` on, in ledger order; returns (count, last applied).

    Results still waiting for their rating period to close are skipped; they
    are applied (with a replay from their period's start) once it has.
    Matches are streamed in chunks, so memory holds one chunk and the
    players met so far, however long the history.
    """
    system, kind, leagues, by_tier, entry_league = game_setup(game)
    parameters = rating_parameters(game=game)
    rules = league_rules(leagues, by_tier.get(League.Tier.PRO))
    start_rating = decimal_cents(Decimal(game.start_rating).quantize(CENT))

    # Results stored after this run began wait for the next run (each queued its own task):
    # the rating periods below are read once, at the start.
    newest = Match.objects.filter(game=game).aggregate(newest=Max("id"))["newest"] or 0
    # Which results are due is read with each row (``MatchRow.rateable``), not filtered on:
    # in SQL's WHERE its ORs tempt the planner off the (game, played_at, id) index the chunks seek on.
    in_range = Match.objects.filter(
        game=game, status__in=[Match.Status.SUBMITTED, Match.Status.RATED], id__lte=newest
    ).filter(key_at_or_after(start, id_field="id"))
    windows = {
        leagues[league_id].period_bounds(played_at)
        for league_id, played_at in in_range.filter(due_at__isnull=False, league__isnull=False)
        .filter(Q(status=Match.Status.RATED) | due_condition(now))
        .values_list("league_id", "played_at")
    } - {None}
    apply = MatchApplier(
        system=system,
        parameters=parameters,
        rules=rules,
        writer=LedgerWriter(game_id=game.pk),
        snapshots=PeriodSnapshots(windows),
    )
    context = ReplayContext(game=game, start=start, state=kind.replay_state())
    # Promotions and relegations at seasons' ends (leagues.SeasonMove), in time order among the matches;
    # those up to ``start`` are in the players' restored standings already (ledger_rollback).
    moves = list(
        SeasonMove.objects.filter(game=game, at__gt=start.played_at, at__lte=now)
        .order_by("-at", "-id")
        .values_list("at", "player_id", "to_league_id")
    )

    def move_until(moment: datetime | None) -> None:
        due = []
        while moves and (moment is None or moves[-1][0] <= moment):
            due.append(moves.pop())
        if not due:
            return
        needed = {player_id for _at, player_id, _league in due} - apply.pool.keys()
        if needed:
            pool_load(game=game, pool=apply.pool, needed=needed, entry_league=entry_league, start=start_rating)
        for _at, player_id, league_id in due:
            apply.pool[player_id].league_id = league_id

    applied, last = 0, None
    for page in match_chunks(in_range, REPLAY_CHUNK, now=now):
        chunk = [match for match in page if match.rateable()]
        if not chunk:
            continue
        inputs = kind.load(chunk, context)
        needed = {player_id for players, _ in inputs for player_id in players} - apply.pool.keys()
        if needed:
            pool_load(game=game, pool=apply.pool, needed=needed, entry_league=entry_league, start=start_rating)
        for match, (players, engine_input) in zip(chunk, inputs, strict=True):
            if moves:
                move_until(match.played_at)
            window = (
                leagues[match.league_id].period_bounds(match.played_at) if match.due_at and match.league_id else None
            )
            apply(match, players, engine_input, window)
            applied += 1
            last = LedgerKey(match.played_at, match.id)
        apply.writer.flush()
    move_until(None)
    apply.writer.flush(force=True)
    pool_save(game=game, pool=apply.pool)
    return applied, last


class MatchApplier:
    """Rates one match at a time on top of the in-memory pool and hands its ledger rows to ``writer``.

    The writer is the ledger's (``LedgerWriter``) in a replay, or an in-memory
    sink when a history is replayed under other parameters without writing it
    (``ratings.evaluation``); ``observe``, when given, is called with each match,
    its engine input and the states the engine is about to rate it from.
    """

    def __init__(self, *, system, parameters, rules: dict[int, LeagueRules], writer, snapshots, observe=None):
        self.system = system
        self.parameters = parameters
        self.rules = rules
        self.writer = writer
        self.snapshots = snapshots
        self.observe = observe
        self.pool: dict[int, Standing] = {}
        # Each league's floor and promotion as a player's state ends (PlayerState's last three fields),
        # worked out once: a state is built per player per match.
        self.tails = {
            pk: tuple(
                cents / 100 if cents is not None else None
                for cents in (rule.floor, rule.promote_at, rule.promoted_floor)
            )
            for pk, rule in rules.items()
        }
        # An in-memory sink has no use for the match time as text (``ratings.evaluation``).
        self.texts = getattr(writer, "wants_text", True)

    def __call__(
        self, match: MatchRow, players: tuple[int, ...], engine_input, window: tuple[datetime, datetime] | None
    ) -> None:
        """Rate one match and buffer its ledger rows and promotions.

        Outside a rating period the engine applies floors and promotion unit by
        unit (a floor set by a promotion holds from the next unit of the same
        game on), and says which unit promoted whom. In a rating period
        (``window``) the engine sees every player's rating at the period's
        start, the deltas it computes are added to the current ratings, and the
        floor and promotion are applied here, unit by unit, to those ratings.
        """
        pool, rules, writer, tails = self.pool, self.rules, self.writer, self.tails
        states = {}
        for player_id in players:
            standing = pool[player_id]
            if window:
                basis = self.snapshots.rating_at_start(window, player_id, standing.rating)
                states[player_id] = PlayerState(rating=basis / 100, rated_matches=standing.rated_matches)
                continue
            states[player_id] = tuple_new(
                PlayerState, (standing.rating / 100, standing.rated_matches, *tails[standing.league_id])
            )
        if window and hasattr(engine_input, "frozen"):
            engine_input = replace(engine_input, frozen=True)
        if self.observe is not None:
            self.observe(match, engine_input, states)
        changes = self.system.rate(engine_input, states, self.parameters)
        for player_id in states:
            standing = pool[player_id]
            standing.rated_matches += 1
            # Matches come in ledger order, so the last one seen is the latest (a player's activity).
            standing.last_played_at = match.played_at
        played_at_text = match.played_at.isoformat() if self.texts else None
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
