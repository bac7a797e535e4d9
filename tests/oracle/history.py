"""A game's whole history, replayed the slow way: the ledger rows the rules give.

Input is plain data (see ``GameSpec``, ``LeagueSpec``, ``ResultSpec``);
output is an ``Outcome``: one ``LedgerRow`` per (match, unit, player), the
promotions, and each player's final standing. Nothing is remembered between
calls and nothing is incremental: every call starts from the start rating
and walks every counted result in (played_at, id) order.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from fractions import Fraction
from zoneinfo import ZoneInfo

from . import exact, rules

F = Fraction


@dataclass(frozen=True)
class LeagueSpec:
    slug: str
    tier: str  # "amateur" or "pro"
    promotion_threshold: object = None  # a decimal string or number; None: nobody is promoted out of it
    floor: object = None  # None: no floor
    period_days: int = 0  # 0: results are rated at once
    period_anchor: dt.date = dt.date(2026, 1, 5)


@dataclass(frozen=True)
class GameSpec:
    rating_system: str  # "elo", "preferans" or "bridge"
    leagues: tuple[LeagueSpec, ...]
    parameters: dict = field(default_factory=dict)
    start_rating: object = 1000
    time_zone: str = "UTC"


@dataclass(frozen=True)
class ResultSpec:
    """One stored result. ``status``: "rated" (counts), "void", "friendly" or "pending"
    (waiting for a second referee); ``body`` is API-shaped (API.md), bot seats as
    {"bot": slug, "rating": r, "max_rating": m} with the values as played."""

    id: int
    played_at: dt.datetime  # aware
    league: str  # the slug of the league it is filed under
    status: str
    body: dict


@dataclass(frozen=True)
class LedgerRow:
    match: int
    unit: int
    player: object
    rating_before: Fraction
    rating_after: Fraction
    delta: Fraction
    rated_matches_after: int
    peak_after: Fraction
    league_after: str  # tier


@dataclass(frozen=True)
class PromotionRow:
    player: object
    match: int
    rating: Fraction


@dataclass(frozen=True)
class Standing:
    rating: Fraction
    peak: Fraction
    rated_matches: int
    league: str  # tier


@dataclass
class Outcome:
    rows: dict[tuple[int, int, object], LedgerRow]
    promotions: list[PromotionRow]
    standings: dict[object, Standing]
    pending: list[int]  # results that count but wait for their rating period to close


def period_bounds(league: LeagueSpec, moment: dt.datetime, zone: str) -> tuple[dt.datetime, dt.datetime] | None:
    """The period containing ``moment``: from local midnight of anchor + k*days to local midnight
    of anchor + (k+1)*days, on the calendar of ``zone`` (so a period across a daylight-saving
    change is an hour shorter or longer, and still starts at midnight)."""
    if not league.period_days:
        return None
    tz = ZoneInfo(zone)
    local_day = moment.astimezone(tz).date()
    index = (local_day - league.period_anchor).days // league.period_days
    first = league.period_anchor + dt.timedelta(days=index * league.period_days)
    last = first + dt.timedelta(days=league.period_days)
    start = dt.datetime.combine(first, dt.time(), tzinfo=tz)
    end = dt.datetime.combine(last, dt.time(), tzinfo=tz)
    assert start <= moment < end, (moment, start, end)
    # In UTC: Python subtracts and compares two datetimes of the same zone by their wall clocks.
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)


class _Player:
    def __init__(self, start: Fraction, entry: LeagueSpec) -> None:
        self.rating = start
        self.peak = start
        self.rated_matches = 0
        self.league = entry
        # (played_at, rating after) of every unit, to read the rating at a period's start.
        self.timeline: list[tuple[dt.datetime, Fraction]] = []

    def rating_before(self, moment: dt.datetime, start: Fraction) -> Fraction:
        rating = start
        for played_at, after in self.timeline:
            if played_at < moment:
                rating = after
        return rating


def oracle_replay(game: GameSpec, results: list[ResultSpec], *, now: dt.datetime) -> Outcome:
    """Every ledger row the rules give for ``results`` (in any order), as of ``now``."""
    p = rules.parameters_with_defaults(game.rating_system, game.parameters)
    start = exact.to_fraction(game.start_rating)
    leagues = {league.slug: league for league in game.leagues}
    by_tier = {league.tier: league for league in game.leagues}
    entry = by_tier["amateur"]
    pro = by_tier.get("pro")
    players: dict[object, _Player] = {}
    rows: dict[tuple[int, int, object], LedgerRow] = {}
    promotions: list[PromotionRow] = []
    pending: list[int] = []
    deals_together: dict[frozenset, int] = {}

    def player(key) -> _Player:
        if key not in players:
            players[key] = _Player(start, entry)
        return players[key]

    def record(result: ResultSpec, unit: int, key, before: Fraction, proposed: Fraction) -> None:
        """League rules on one unit's proposed rating, then the ledger row.

        The floor of the league the player is in *at this unit* only stops a
        fall: after = max(proposed, min(before, floor)). Promotion happens at
        the unit that reaches the threshold and takes effect from the next unit.
        """
        state = players[key]
        after = proposed
        if state.league.floor is not None:
            after = max(after, min(before, exact.to_fraction(state.league.floor)))
        state.rating = after
        state.peak = max(state.peak, after)
        state.timeline.append((result.played_at, after))
        threshold = state.league.promotion_threshold
        promotes = state.league.tier == "amateur" and pro is not None and threshold is not None
        if promotes and after >= exact.to_fraction(threshold):
            state.league = pro
            promotions.append(PromotionRow(player=key, match=result.id, rating=after))
        rows[(result.id, unit, key)] = LedgerRow(
            match=result.id,
            unit=unit,
            player=key,
            rating_before=before,
            rating_after=after,
            delta=after - before,
            rated_matches_after=state.rated_matches,
            peak_after=state.peak,
            league_after=state.league.tier,
        )

    counted = sorted((r for r in results if r.status == "rated"), key=lambda r: (r.played_at, r.id))
    for result in counted:
        body = result.body
        if game.rating_system == "elo":
            a, b = body["players"]
            for key in (a, b):
                player(key)
            ra, rb = players[a].rating, players[b].rating
            new_a = rules.slaps_new_rating(
                rating=ra, opponent=rb, won=body["winner"] == a,
                completed_rated_matches=players[a].rated_matches, parameters=p,
            )  # fmt: skip
            new_b = rules.slaps_new_rating(
                rating=rb, opponent=ra, won=body["winner"] == b,
                completed_rated_matches=players[b].rated_matches, parameters=p,
            )  # fmt: skip
            # A match counts as completed for both before either row is written.
            players[a].rated_matches += 1
            players[b].rated_matches += 1
            record(result, 0, a, ra, new_a)
            record(result, 0, b, rb, new_b)
        elif game.rating_system == "preferans":
            seats = body["seats"]
            keys = [seat["player"] for seat in seats if "player" in seat]
            for key in keys:
                player(key)
                players[key].rated_matches += 1
            maxima = [exact.to_fraction(seat["max_rating"]) for seat in seats if "bot" in seat]
            bot_maximum = max(maxima) if maxima else None
            for unit, deal in enumerate(body["deals"]):
                # Every seat's change in a deal is computed from the ratings at the deal's start.
                at_start = [
                    exact.to_fraction(seat["rating"]) if "bot" in seat else players[seat["player"]].rating
                    for seat in seats
                ]
                proposals = []
                for index, seat in enumerate(seats):
                    if "bot" in seat:
                        continue
                    opponents = at_start[:index] + at_start[index + 1 :]
                    proposed = rules.preferans_deal_rating(
                        rs=at_start[index], opponents=opponents, vs=exact.to_fraction(str(deal[index])),
                        bot_maximum=bot_maximum, p=p,
                    )  # fmt: skip
                    proposals.append((seat["player"], at_start[index], proposed))
                for key, before, proposed in proposals:
                    record(result, unit, key, before, proposed)
        elif game.rating_system == "bridge":
            league = leagues[result.league]
            window = period_bounds(league, result.played_at, game.time_zone)
            if window is not None and window[1] > now:
                pending.append(result.id)
                continue
            keys = []
            for board in body["boards"]:
                for table in board["tables"]:
                    for key in (*table["ns"], *table["ew"]):
                        if key not in keys:
                            keys.append(key)
            for key in keys:
                player(key)
                players[key].rated_matches += 1
            if window is not None:
                # A rating period: every board is computed from the ratings at the period's start,
                # and each board's change is added to the rating the player has now.
                basis = {key: players[key].rating_before(window[0], start) for key in keys}
            for unit, board in enumerate(body["boards"]):
                tables = [{**table, "ns": tuple(table["ns"]), "ew": tuple(table["ew"])} for table in board["tables"]]
                ratings = basis if window is not None else {key: players[key].rating for key in keys}
                gains = rules.bridge_board_changes(tables=tables, ratings=ratings, deals_together=deals_together, p=p)
                proposals = []
                for key, gain in gains.items():
                    computed = exact.round_half_away_from_zero(ratings[key] + gain, 2)
                    before = players[key].rating
                    proposals.append((key, before, before + (computed - ratings[key])))
                for key, before, proposed in proposals:
                    record(result, unit, key, before, proposed)
                # Partnerships grow by one deal per board played together, whichever the table.
                for table in tables:
                    for pair in (table["ns"], table["ew"]):
                        deals_together[frozenset(pair)] = deals_together.get(frozenset(pair), 0) + 1
        else:
            raise ValueError(f"unknown rating system {game.rating_system!r}")

    standings = {
        key: Standing(rating=state.rating, peak=state.peak, rated_matches=state.rated_matches, league=state.league.tier)
        for key, state in players.items()
    }
    return Outcome(rows=rows, promotions=promotions, standings=standings, pending=pending)
