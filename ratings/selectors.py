"""Reading ratings: leaderboards, ranks, profiles and histories.

Every selector returns querysets or plain data with its related rows already
joined or prefetched, so a page costs a fixed number of queries whatever the
size of the league.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from leagues.models import Game, League, Player
from matches.models import BoardTable, Match, Seat
from ratings.engines import REGISTRY
from ratings.models import PlayerRating, Promotion, RatingChange


class Sort:
    CURRENT = "current"
    PEAK = "peak"
    CHOICES = (CURRENT, PEAK)
    FIELDS = {CURRENT: "rating", PEAK: "peak_rating"}

    @classmethod
    def clean(cls, value: str | None) -> str:
        return value if value in cls.CHOICES else cls.CURRENT


def rating_decimals(game: Game) -> int:
    system = REGISTRY.get(game.rating_system)
    return system.decimals if system else 2


def rating_number(value: Decimal | None, *, decimals: int) -> int | float | None:
    """A rating as a JSON number: whole numbers for Elo games, two decimals otherwise."""
    if value is None:
        return None
    return int(value) if decimals == 0 else float(value)


def provisional_matches(game: Game) -> int:
    """How many rated matches a player needs before their rating is established (0: no such notion).

    Only the ISF Elo has one (seed 000: K drops after 32 rated matches).
    """
    from ratings.services import rating_parameters

    if game.rating_system not in REGISTRY:
        return 0
    return int(getattr(rating_parameters(game=game), "provisional_matches", 0))


def leaderboard(*, league: League, sort: str = Sort.CURRENT, search: str = "") -> QuerySet[PlayerRating]:
    """Ratings of a league, best first; ties broken by name (then id, for a total order)."""
    field = Sort.FIELDS[Sort.clean(sort)]
    queryset = (
        PlayerRating.objects.filter(league=league)
        .select_related("player")
        .order_by(f"-{field}", "player__name", "player_id")
    )
    if search:
        queryset = queryset.filter(player__name__icontains=search).annotate(rank=rank_expression(sort))
    return queryset


def rank_expression(sort: str):
    """1 + the number of league members ordered before this row (by rating, then name, then id)."""
    field = Sort.FIELDS[Sort.clean(sort)]
    ahead = (
        PlayerRating.objects.filter(league=OuterRef("league"))
        .filter(
            Q(**{f"{field}__gt": OuterRef(field)})
            | Q(**{field: OuterRef(field), "player__name__lt": OuterRef("player__name")})
            | Q(
                **{
                    field: OuterRef(field),
                    "player__name": OuterRef("player__name"),
                    "player_id__lt": OuterRef("player_id"),
                }
            )
        )
        .order_by()
        .values("league")
        .annotate(ahead=Count("pk"))
        .values("ahead")
    )
    return Coalesce(Subquery(ahead, output_field=IntegerField()), Value(0)) + 1


def player_ratings(*, player: Player) -> list[PlayerRating]:
    """The player's rating in every game they played, each with its league rank."""
    return list(
        PlayerRating.objects.filter(player=player)
        .select_related("game", "league")
        .annotate(rank=rank_expression(Sort.CURRENT))
        .order_by("game__name")
    )


def player_history(*, player: Player, game: Game | None = None) -> QuerySet[RatingChange]:
    """One row per rated unit, oldest first."""
    queryset = RatingChange.objects.filter(player=player).select_related("game", "match")
    if game is not None:
        queryset = queryset.filter(game=game)
    return queryset.order_by("played_at", "match_id", "unit")


@dataclass(frozen=True)
class RecentMatch:
    match: Match
    seat: Seat
    opponents: list[Seat]
    changes: list[RatingChange]

    @property
    def delta(self) -> Decimal | None:
        return sum((change.delta for change in self.changes), Decimal(0)) if self.changes else None

    @property
    def first_change(self) -> RatingChange | None:
        return self.changes[0] if self.changes else None

    @property
    def last_change(self) -> RatingChange | None:
        return self.changes[-1] if self.changes else None

    @property
    def has_bots(self) -> bool:
        return any(seat.bot_id for seat in self.opponents)


def player_recent_matches(*, player: Player, limit: int = 20) -> list[RecentMatch]:
    """The player's latest matches, each with the other seats and the player's rating changes."""
    matches = (
        Match.objects.filter(seats__player=player)
        .select_related("game")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player", "bot").order_by("position")),
            Prefetch(
                "rating_changes",
                queryset=RatingChange.objects.filter(player=player).order_by("unit"),
                to_attr="player_changes",
            ),
        )
        .order_by("-played_at", "-id")[:limit]
    )
    recent = []
    for match in matches:
        seats = list(match.seats.all())
        own = next(seat for seat in seats if seat.player_id == player.pk)
        recent.append(
            RecentMatch(
                match=match, seat=own, opponents=[s for s in seats if s is not own], changes=match.player_changes
            )
        )
    return recent


def player_promotions(*, player: Player) -> list[Promotion]:
    return list(Promotion.objects.filter(player=player).select_related("game", "from_league", "to_league", "match"))


def player_chart_series(*, player: Player) -> dict[str, list[list[float]]]:
    """Rating after every rated unit, per game name, starting from the rating before the first.

    Points are [epoch milliseconds, rating]: compact for long histories (every
    deal of a Preferans career), read in the order of the ledger's player
    index so the database does not sort.
    """
    series: dict[str, list[list[float]]] = {}
    rows = (
        RatingChange.objects.filter(player=player)
        .order_by("game_id", "played_at", "match_id", "unit")
        .values_list("game__name", "played_at", "rating_before", "rating_after")
    )
    for name, played_at, rating_before, rating_after in rows:
        moment = int(played_at.timestamp() * 1000)
        if name not in series:
            series[name] = [[moment, float(rating_before)]]
        series[name].append([moment, float(rating_after)])
    return series


@dataclass
class PairRecord:
    """A player's record with a partner, or against an opposing pair, on bridge boards."""

    players: tuple[Player, ...]
    deals: int = 0
    first_played: datetime | None = None
    last_played: datetime | None = None
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pending: int = 0

    def add(self, played_at: datetime, score: float | None) -> None:
        self.deals += 1
        self.first_played = min(filter(None, (self.first_played, played_at)))
        self.last_played = max(filter(None, (self.last_played, played_at)))
        if score is None:
            self.pending += 1
        elif score > 0.5:
            self.wins += 1
        elif score < 0.5:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def name(self) -> str:
        return " & ".join(player.name for player in self.players)


def player_bridge_records(*, player: Player) -> tuple[list[PairRecord], list[PairRecord]]:
    """The player's partnerships and head-to-head records against opposing pairs.

    A board's result for the player is their rated score on it (the mean of
    their duels: above 1/2 a win, 1/2 a draw, below a loss); boards not yet
    rated count as pending. Two queries, whatever the history's length.
    """
    seated = Q(ns_1=player) | Q(ns_2=player) | Q(ew_1=player) | Q(ew_2=player)
    tables = (
        BoardTable.objects.filter(seated)
        .filter(board__match__status__in=[Match.Status.SUBMITTED, Match.Status.RATED])
        .values_list("board__match_id", "board__position", "board__match__played_at", "ns_1", "ns_2", "ew_1", "ew_2")
    )
    rows = list(tables)
    if not rows:
        return [], []
    scores = {
        (match_id, unit): score
        for match_id, unit, score in RatingChange.objects.filter(
            player=player, match_id__in={row[0] for row in rows}
        ).values_list("match_id", "unit", "details__score")
    }
    ids = {pid for row in rows for pid in row[3:]}
    names = Player.objects.in_bulk(ids)
    partners: dict[int, PairRecord] = {}
    opponents: dict[tuple[int, int], PairRecord] = {}
    for match_id, position, played_at, ns_1, ns_2, ew_1, ew_2 in rows:
        ours, theirs = ((ns_1, ns_2), (ew_1, ew_2)) if player.pk in (ns_1, ns_2) else ((ew_1, ew_2), (ns_1, ns_2))
        partner = ours[1] if ours[0] == player.pk else ours[0]
        score = scores.get((match_id, position - 1))
        partners.setdefault(partner, PairRecord(players=(names[partner],))).add(played_at, score)
        opponents.setdefault(theirs, PairRecord(players=(names[theirs[0]], names[theirs[1]]))).add(played_at, score)

    def order(record: PairRecord):
        return (-record.deals, record.name)

    return sorted(partners.values(), key=order), sorted(opponents.values(), key=order)
