"""A pairs Elo for bridge (seed 003, a thesis on rating bridge players).

Vocabulary:
    board       one deal, played at one or more tables by different pairs.
    pair        two partners sitting North-South (NS) or East-West (EW).
    IMP         International Match Point: a raw score difference turned
                into 0-24 points by the WBF IMP scale (``imps``).
    duel        the unit the ratings are computed on. A board played at
                tables t and u is the duel {NS(t), EW(u)} against
                {NS(u), EW(t)}, scored by the IMPs of NS(t) - NS(u): the NS
                pair at t and the EW pair at u hold the same cards as a team
                of four would. With T tables every pair of tables is a duel
                (the "free for all into duels" split of Days of Wonder). A
                two-table team match may give the IMPs of {NS(1), EW(2)}
                directly, and a single table entered in IMPs is one duel,
                NS against EW.
    side        the players on one side of a duel: one or two pairs.

Formulas (seed 003, chapter 4):
    Rn = Rn-1 + K * (S - E)
    E  = 1 / (1 + 10^(rd/400)), rd = opponents' side rating - own side
         rating, clamped to +-400 (the rule of 400: E stays within
         0.09..0.91)
    S  = 1 when the side gains more than 1 IMP, 0 when it loses more than
         1 IMP, 1/2 within the 1-IMP margin (a draw)

Where the thesis leaves a parameter open the project chooses, and each is a
field of ``BridgeParameters`` (editable per game in admin):
    pair rating      the mean of the two partners' ratings plus a partnership
                     bonus ``bonus_max * (1 - exp(-deals / bonus_scale))``:
                     0 for strangers, growing with the deals the pair has
                     played together and saturating at ``bonus_max`` (50
                     rating points by default, reached at about 3x
                     ``bonus_scale`` = 300 deals)
    side rating      the mean of its pairs' ratings
    K by margin      World Football Elo style, one "goal" being
                     ``imps_per_goal`` IMPs (3): K = k_base for margins of up
                     to one goal, 1.5 * k_base up to two goals, and
                     k_base * (11 + goals) / 8 beyond
    player's change  the mean of K * (S - E) over the duels they played on
                     the board (so a player's board counts once, however
                     many tables played it)

Floor and promotion, board by board: a floor only stops a fall (a board that
would take a player below it leaves them at ``max(after, min(before, floor))``,
``base.stop_at_floor``) and never lifts anyone. The board that takes an
amateur to ``PlayerState.promote_at`` promotes them (``Change.promoted``);
from the next board of the same session on, ``PlayerState.promoted_floor`` is
their floor. In a rating period (``frozen``) the service applies both itself,
to the ratings the period's deltas lead to.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from .base import (
    Change,
    EngineInputError,
    Param,
    PlayerState,
    round_half_away_from_zero,
    stop_at_floor,
)
from .quality import Forecast

# WBF IMP scale: (lowest score difference, IMPs).
IMP_SCALE: tuple[tuple[int, int], ...] = (
    (0, 0), (20, 1), (50, 2), (90, 3), (130, 4), (170, 5), (220, 6), (270, 7), (320, 8), (370, 9),
    (430, 10), (500, 11), (600, 12), (750, 13), (900, 14), (1100, 15), (1300, 16), (1500, 17),
    (1750, 18), (2000, 19), (2250, 20), (2500, 21), (3000, 22), (3500, 23), (4000, 24),
)  # fmt: skip


def imps(score_difference: float) -> int:
    """The WBF IMP scale: 0-10 -> 0 ... 20-40 -> 1 ... 4000 and more -> 24, with the sign kept."""
    size = abs(score_difference)
    result = 0
    for lowest, value in IMP_SCALE:
        if size >= lowest:
            result = value
        else:
            break
    return result if score_difference >= 0 else -result


@dataclass(frozen=True, slots=True)
class BridgeParameters:
    k_base: float = 24.0
    scale: float = 400.0
    rating_difference_cap: float = 400.0  # the rule of 400
    draw_margin_imps: float = 1.0
    imps_per_goal: float = 3.0
    bonus_max: float = 50.0
    bonus_scale: float = 100.0

    # What a game may set (``base.Param``). K as for Slaps (above 0, at most 200; margins multiply
    # it by at most 7.4); the scale and the rule of 400 as for Elo, the cap at most 10,000 (wider
    # than any two sides' gap); margins in IMPs within the scale's 24; a partnership bonus of at most
    # 400 points (the rule of 400 ignores more), growing over at least one deal.
    #: The K a tuning candidate is named by first (its Apply button: "Apply K 24 / 16").
    K_NAMES: ClassVar[tuple[str, ...]] = ("k_base",)
    #: Parameters that define a forecast's outcome (a duel within the draw margin is a draw, 1/2): forecasts
    #: made under different values answer different questions, so tuning keeps them as the game has them.
    OUTCOME: ClassVar[tuple[str, ...]] = ("draw_margin_imps",)
    RANGES: ClassVar[tuple[Param, ...]] = (
        Param("k_base", 0, 200, minimum_excluded=True),
        Param("scale", 100, 2000),
        Param("rating_difference_cap", 0, 10_000, minimum_excluded=True),
        Param("draw_margin_imps", 0, 24),
        Param("imps_per_goal", 0.5, 24),
        Param("bonus_max", 0, 400),
        Param("bonus_scale", 1, 100_000),
    )


Pair = tuple[Hashable, Hashable]


@dataclass(frozen=True, slots=True)
class BridgeTable:
    """One table of a board: the NS and EW pairs, and the NS score or (single table) the NS IMPs."""

    ns: Pair
    ew: Pair
    ns_score: float | None = None
    ns_imps: float | None = None


@dataclass(frozen=True, slots=True)
class BridgeBoard:
    tables: tuple[BridgeTable, ...]


@dataclass(frozen=True, slots=True)
class BridgeSession:
    """The boards of a session, in order; partnership history is read from ``deals_together``."""

    boards: tuple[BridgeBoard, ...]
    # Deals each pair (as a frozenset of its two players) played together before this session.
    deals_together: Mapping[frozenset, int]
    # In a rating period every board is computed from the ratings given (those
    # at the period's start) instead of from the previous board's.
    frozen: bool = False


@dataclass(frozen=True, slots=True)
class Duel:
    side_a: tuple[Pair, ...]
    side_b: tuple[Pair, ...]
    imps_a: float  # IMPs won by side A (negative: lost)


def pair_key(pair: Pair) -> frozenset:
    return frozenset(pair)


def partnership_bonus(deals_together: int, p: BridgeParameters) -> float:
    if deals_together <= 0 or p.bonus_max == 0:
        return 0.0
    return p.bonus_max * (1.0 - math.exp(-deals_together / p.bonus_scale))


def expected_score(side_rating: float, opponents_rating: float, p: BridgeParameters) -> float:
    difference = min(max(opponents_rating - side_rating, -p.rating_difference_cap), p.rating_difference_cap)
    return 1.0 / (1.0 + 10.0 ** (difference / p.scale))


def actual_score(imps_won: float, p: BridgeParameters) -> float:
    if imps_won > p.draw_margin_imps:
        return 1.0
    if imps_won < -p.draw_margin_imps:
        return 0.0
    return 0.5


def margin_k(imps_won: float, p: BridgeParameters) -> float:
    goals = abs(imps_won) / p.imps_per_goal
    if goals <= 1:
        return p.k_base
    if goals <= 2:
        return 1.5 * p.k_base
    return p.k_base * (11.0 + goals) / 8.0


def board_duels(board: BridgeBoard) -> list[Duel]:
    """Split a board into duels (see the module docstring)."""
    tables = board.tables
    if len(tables) == 1:
        table = tables[0]
        if table.ns_imps is None:
            raise EngineInputError("a board played at one table needs the NS IMPs")
        return [Duel(side_a=(table.ns,), side_b=(table.ew,), imps_a=float(table.ns_imps))]
    if len(tables) == 2 and tables[0].ns_imps is not None and tables[1].ns_score is None:
        # A two-table team match scored in IMPs: the IMPs won by {NS(1), EW(2)}.
        first, second = tables
        return [Duel(side_a=(first.ns, second.ew), side_b=(second.ns, first.ew), imps_a=float(first.ns_imps))]
    if any(table.ns_score is None for table in tables):
        raise EngineInputError("a board played at several tables needs every table's NS score")
    duels = []
    for t in range(len(tables)):
        for u in range(t + 1, len(tables)):
            first, second = tables[t], tables[u]
            duels.append(
                Duel(
                    side_a=(first.ns, second.ew),
                    side_b=(second.ns, first.ew),
                    imps_a=float(imps(first.ns_score - second.ns_score)),
                )
            )
    return duels


def _check_board(board: BridgeBoard) -> None:
    seen: set = set()
    for table in board.tables:
        for player in (*table.ns, *table.ew):
            if player in seen:
                raise EngineInputError("a player sits at two seats of one board")
            seen.add(player)


class BridgeSystem:
    slug = "bridge"
    label = "Pairs Elo (bridge)"
    decimals = 2
    parameters_class = BridgeParameters

    def rate(
        self, match: BridgeSession, states: Mapping[Hashable, PlayerState], parameters: BridgeParameters
    ) -> list[Change]:
        return self._rate(match, states, parameters, None)

    def _rate(
        self,
        match: BridgeSession,
        states: Mapping[Hashable, PlayerState],
        parameters: BridgeParameters,
        forecasts: list[Forecast] | None,
    ) -> list[Change]:
        """``rate``, also appending each duel's forecast to ``forecasts`` when given (see ``forecasts``)."""
        p = parameters
        ratings = {player: float(state.rating) for player, state in states.items()}
        floors = {player: state.floor for player, state in states.items()}
        # Players still to be promoted in this session: player -> (threshold, the floor they get then).
        promoting = {
            player: (state.promote_at, state.promoted_floor)
            for player, state in states.items()
            if state.promote_at is not None
        }
        together = dict(match.deals_together)
        changes: list[Change] = []
        for unit, board in enumerate(match.boards):
            _check_board(board)

            def pair_rating(pair: Pair) -> float:
                base = (ratings[pair[0]] + ratings[pair[1]]) / 2.0
                return base + partnership_bonus(together.get(pair_key(pair), 0), p)

            def side_rating(side: Sequence[Pair]) -> float:
                return sum(pair_rating(pair) for pair in side) / len(side)

            sums: dict[Hashable, list[float]] = {}  # player -> [sum of K(S-E), duels, sum E, sum S]
            for duel in board_duels(board):
                rating_a, rating_b = side_rating(duel.side_a), side_rating(duel.side_b)
                k = margin_k(duel.imps_a, p)
                if forecasts is not None:
                    cap = p.rating_difference_cap
                    gap = min(max(rating_a - rating_b, -cap), cap)
                    forecasts.append(Forecast(gap, actual_score(duel.imps_a, p)))
                for side, own, other, won in (
                    (duel.side_a, rating_a, rating_b, duel.imps_a),
                    (duel.side_b, rating_b, rating_a, -duel.imps_a),
                ):
                    expected = expected_score(own, other, p)
                    score = actual_score(won, p)
                    for pair in side:
                        for player in pair:
                            entry = sums.setdefault(player, [0.0, 0, 0.0, 0.0, 0.0])
                            entry[0] += k * (score - expected)
                            entry[1] += 1
                            entry[2] += expected
                            entry[3] += score
                            entry[4] += won
            after_board = {}
            for player, (total, duels, expected_sum, score_sum, imps_sum) in sums.items():
                before = ratings[player]
                after = round_half_away_from_zero(before + total / duels, 2)
                floored = stop_at_floor(before, after, floors[player])
                floor_applied = floored != after
                after = float(floored)
                promoted = player in promoting and after >= promoting[player][0]
                if promoted:
                    # Pro, with the pro floor, from the next board on.
                    floors[player] = promoting.pop(player)[1]
                after_board[player] = after
                changes.append(
                    Change(
                        unit=unit,
                        player=player,
                        rating_before=before,
                        rating_after=after,
                        details={
                            "duels": duels,
                            "expected": round(expected_sum / duels, 4),
                            "score": round(score_sum / duels, 4),
                            "imps": round(imps_sum / duels, 2),
                            "floor_applied": floor_applied,
                        },
                        promoted=promoted,
                    )
                )
            if not match.frozen:
                ratings.update(after_board)
            for table in board.tables:
                for pair in (table.ns, table.ew):
                    together[pair_key(pair)] = together.get(pair_key(pair), 0) + 1
        return changes

    def forecasts(
        self, match: BridgeSession, states: Mapping[Hashable, PlayerState], parameters: BridgeParameters
    ) -> list[Forecast]:
        """One forecast per duel of every board (``board_duels``), never averaged per player.

        Seen from side A: the gap is side A's rating minus side B's (pairs'
        means plus partnership bonuses, as ``rate`` computes them just before
        the board), clamped by the rule of 400 as the expected score is, and
        the outcome is A's score S by the IMP margin (1, 1/2 within the draw
        margin, 0). ``probability(gap, forecast_scale(parameters))`` is
        exactly the thesis's E. A board of T tables gives T(T-1)/2 duels. The
        session is rated on the way (ratings move board by board unless the
        session is frozen in a rating period), so later boards are forecast
        from the ratings the earlier ones left.
        """
        forecasts: list[Forecast] = []
        self._rate(match, states, parameters, forecasts)
        return forecasts

    def forecast_scale(self, parameters: BridgeParameters) -> float:
        return parameters.scale


SYSTEM = BridgeSystem()


def pair_rating(ratings: tuple[float, float], deals_together: int, p: BridgeParameters) -> float:
    """A pair's rating as the engine rates it (module docstring): the partners' mean plus the partnership
    bonus of the deals they have played together."""
    return (ratings[0] + ratings[1]) / 2.0 + partnership_bonus(deals_together, p)


def pairs_expected_score(
    pair_a: tuple[float, float], together_a: int, pair_b: tuple[float, float], together_b: int, p: BridgeParameters
) -> float:
    """The expected score of pair A in a duel against pair B (seed 003's E, with the rule of 400): each pair
    rated by ``pair_rating``, one pair a side."""
    return expected_score(pair_rating(pair_a, together_a, p), pair_rating(pair_b, together_b, p), p)
