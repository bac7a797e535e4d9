"""Reading ratings: leaderboards, ranks, profiles and histories.

Every selector returns querysets or plain data with its related rows already
joined or prefetched, so a page costs a fixed number of queries whatever the
size of the league.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db import connection
from django.db.models import (
    Count,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from config.language import plural_forms
from leagues.kinds import kind_of
from leagues.models import Game, League, Player
from leagues.names import name_key
from matches.models import Match, Seat
from matches.parts import hold, match_holds_parts
from matches.selectors import match_detail, match_detail_queryset
from ratings.caching import cached, rating_version, rating_version_of, rating_version_site
from ratings.cents import cents_decimal, decimal_cents
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


SEARCH_MAX = 100
# Leaderboard page sizes whose pages are cached: the site's pages (25) and the API's default (50) and
# maximum (200). Pages of other sizes, and searches, are computed per request (``leaderboard_cacheable``).
CACHED_PAGE_SIZES = frozenset({25, 50, 200})


def leaderboard_cacheable(*, search: str, page_size: int) -> bool:
    """Whether a leaderboard page may be cached: a bounded set of keys, whatever visitors send.

    Search text is free (one entry per string typed would fill the cache, and
    is rarely read again), and so is an API page size from 1 to 200 (every size
    its own copy of the league): those pages come from the database each time.
    """
    return not search and page_size in CACHED_PAGE_SIZES


def leaderboard_search(value: str | None) -> str:
    """A leaderboard's search text as typed: trimmed, at most ``SEARCH_MAX`` characters, no NUL
    (PostgreSQL refuses NUL in text, so it could never match a name)."""
    return (value or "").replace("\x00", "").strip()[:SEARCH_MAX]


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

    Only the ISF Elo has one (seed 000: K drops after 32 rated matches). Pages only mark ratings
    as provisional with it: a stored parameter set the engine refuses (its rating task fails loudly,
    ``parameters.rating_parameters``) leaves leaderboards and profiles readable, marked by the
    engine's default.
    """
    from django.core.exceptions import ValidationError

    from ratings.parameters import rating_parameters

    if game.rating_system not in REGISTRY:
        return 0
    try:
        parameters = rating_parameters(game=game)
    except ValidationError:
        parameters = REGISTRY[game.rating_system].parameters_class()
    return int(getattr(parameters, "provisional_matches", 0))


def activity_today(now: datetime | None = None) -> date:
    """The day it is at ``now`` (default: now) in the site's time zone: the day activity is judged on.

    The site's zone, not a request's active one, so every process and every visitor agrees.
    """
    return timezone.localtime(now or timezone.now(), timezone.get_default_timezone()).date()


@dataclass(frozen=True)
class Activity:
    """Who a league counts as active on a day, and whether a leaderboard shows the others.

    A player is *inactive* in a league with ``inactive_after_days`` N when
    their last rated result in the game (``PlayerRating.last_played_at``) was
    played more than N full days ago: a result on day D keeps them active
    through day D + N, and they are *inactive since* day D + N + 1 (days in
    the site's time zone). They keep their rating and are active again with
    their next rated result. A league without the setting has nobody inactive.

    ``everyone``: the leaderboard shows inactive players too, marked and ranked
    among everyone; otherwise it shows only the active ones, ranked among
    themselves. ``active_from``: the earliest last result that keeps a player
    active today (None: everyone is active). ``key``: what cache keys of
    pages that show activity carry (the day matters only when the league has
    the setting).
    """

    days: int | None
    today: date
    active_from: datetime | None
    everyone: bool = False

    @property
    def shown_from(self) -> datetime | None:
        """The ``active_from`` the shown players are filtered by: None when everyone is shown."""
        return None if self.everyone else self.active_from

    @property
    def key(self) -> str:
        if self.days is None:
            return "always-active"
        return f"{'everyone' if self.everyone else 'active'}:{self.days}:{self.today.isoformat()}"

    def active(self, last_played_at: datetime | None) -> bool:
        """Whether a player whose last rated result was played at ``last_played_at`` is active (None: no
        rated result known, inactive wherever the setting applies)."""
        if self.active_from is None:
            return True
        return last_played_at is not None and last_played_at >= self.active_from

    def inactive_since(self, last_played_at: datetime | None) -> date | None:
        """The first day the player is inactive (day D of their last result + N + 1), or None when active
        or when their last result is not known."""
        if self.days is None or last_played_at is None or self.active(last_played_at):
            return None
        return activity_today(last_played_at) + timedelta(days=self.days + 1)


def league_activity(*, league: League, today: date | None = None, everyone: bool = False) -> Activity:
    """The league's ``Activity`` on ``today`` (default: today in the site's time zone)."""
    today = today or activity_today()
    return Activity(
        days=league.inactive_after_days, today=today, active_from=league.active_from(today), everyone=everyone
    )


@dataclass(frozen=True)
class Standings:
    """How many players of a league hold each rating (or peak), best first: the league's histogram.

    ``values`` holds the distinct ratings in cents, negated so the array
    ascends (best first); ``before[i]`` is how many players rate strictly above
    ``values[i]`` (``before[-1]`` is the league's size). One grouped read of the
    league's rating index builds it; from it, without scanning the league again:
    the player count, how many players rate above a given rating (a rank, up to
    ties), and where the leaderboard's row number N starts (a seek key for deep
    pages instead of OFFSET N).
    """

    values: array
    before: array

    @property
    def count(self) -> int:
        return self.before[-1]

    def above(self, value: Decimal) -> int:
        """How many players rate strictly above ``value``."""
        return self.before[bisect_left(self.values, -decimal_cents(value))]

    def seek(self, offset: int) -> tuple[Decimal, int]:
        """The rating at row ``offset`` (0-based) and how many rows of that rating come before it."""
        index = bisect_right(self.before, offset) - 1
        return cents_decimal(-self.values[index]), offset - self.before[index]


def league_standings(*, league: League, sort: str, version: str, active_from: datetime | None = None) -> Standings:
    """The league's histogram for a sort, cached under the game's ratings version.

    ``active_from``: only the players whose last rated result was played then or later (the active ones,
    ``Activity.shown_from``); None: everyone.
    """
    field = Sort.FIELDS[Sort.clean(sort)]

    def compute() -> Standings:
        rows = _shown(PlayerRating.objects.filter(league=league), active_from)
        rows = rows.order_by(f"-{field}").values_list(field).annotate(players=Count("pk"))
        values, before, total = array("q"), array("q", [0]), 0
        for value, players in rows:
            values.append(-decimal_cents(value))
            total += players
            before.append(total)
        return Standings(values=values, before=before)

    shown = "everyone" if active_from is None else active_from.isoformat()
    return cached(("standings", league.pk, field, shown, version), compute)


def _shown(ratings: QuerySet[PlayerRating], active_from: datetime | None) -> QuerySet[PlayerRating]:
    """The ratings a leaderboard shows: those last played at or after ``active_from`` (None: all)."""
    return ratings if active_from is None else ratings.filter(last_played_at__gte=active_from)


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    player_id: int
    name: str
    rating: Decimal
    peak_rating: Decimal
    rated_matches: int
    #: Whether the player is active in the league today, and if not since when (``Activity``).
    active: bool = True
    inactive_since: date | None = None


@dataclass(frozen=True)
class LeaderboardPage:
    """One page of a leaderboard, with what a pager needs; plain data, safe to cache."""

    rows: list[LeaderboardRow]
    number: int
    page_size: int
    count: int

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.count // self.page_size))

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_other_pages(self) -> bool:
        return self.num_pages > 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def previous_page_number(self) -> int:
        return self.number - 1


def _page_number(raw, *, count: int, page_size: int, clamp: bool) -> int:
    """Django's paginator rules: clamped (pages) or refused with InvalidPage (API, then 404)."""
    pages = max(1, -(-count // page_size))
    if raw in (None, ""):
        return 1
    if raw == "last":
        return pages
    try:
        number = int(raw)
    except (TypeError, ValueError):
        if clamp:
            return 1
        raise PageNotAnInteger(_("That page number is not an integer.")) from None
    if 1 <= number <= pages:
        return number
    if clamp:
        return pages
    raise EmptyPage(_("That page contains no results."))


def _ties_ahead(field: str, active_from: datetime | None = None):
    """League members with the same rating whose name (then id) comes first: the rank within a tie
    (among the players last played at or after ``active_from``, when given)."""
    ahead = (
        _shown(PlayerRating.objects.filter(league=OuterRef("league"), **{field: OuterRef(field)}), active_from)
        .filter(
            Q(player__search_name__lt=OuterRef("player__search_name"))
            | Q(player__search_name=OuterRef("player__search_name"), player_id__lt=OuterRef("player_id"))
        )
        .order_by()
        .values("league")
        .annotate(ahead=Count("pk"))
        .values("ahead")
    )
    return Coalesce(Subquery(ahead, output_field=IntegerField()), Value(0))


def leaderboard_page_number(
    *,
    league: League,
    sort: str = Sort.CURRENT,
    search: str = "",
    page,
    page_size: int,
    clamp: bool = True,
    version: str,
    activity: Activity | None = None,
) -> int:
    """The page number ``leaderboard_page`` will show for the raw ``page`` parameter (cached reads only, when warm).

    Callers that cache what they make of a page key it on this number, not on
    the raw parameter (``page=007``, ``page=99999`` clamped): one entry per page.
    """
    activity = activity or league_activity(league=league)
    _standings, count = _leaderboard_count(league=league, sort=sort, search=search, version=version, activity=activity)
    return _page_number(page, count=count, page_size=page_size, clamp=clamp)


def _leaderboard_count(
    *, league: League, sort: str, search: str, version: str, activity: Activity
) -> tuple[Standings, int]:
    """The histogram of the shown players for ``sort`` and how many the leaderboard lists (all, or the search's)."""
    standings = league_standings(league=league, sort=Sort.clean(sort), version=version, active_from=activity.shown_from)
    if not search:
        return standings, standings.count
    # Not cached: search text is the visitor's (see ``leaderboard_cacheable``).
    found = _shown(PlayerRating.objects.filter(league=league), activity.shown_from)
    return standings, found.filter(player__search_name__contains=name_key(search)).count()


def leaderboard_page(
    *,
    league: League,
    sort: str = Sort.CURRENT,
    search: str = "",
    page,
    page_size: int,
    clamp: bool = True,
    version: str | None = None,
    activity: Activity | None = None,
) -> LeaderboardPage:
    """A page of the league's leaderboard, best first, ties broken by name (then id).

    Ranks are ranks among the shown players, in search results too: the
    active ones by default, everyone with ``activity.everyone`` (inactive
    rows marked). Cached under the game's ratings version and the activity's
    key (its day); on a miss the page costs the histogram (cached as well),
    one read of its rows from the (league, rating) index seeking from the
    page's first rating, and for a search its count. ``page`` is the raw page
    parameter; out of range it is clamped (``clamp``) or refused with
    ``InvalidPage``. ``version``: the game's ratings version, if the caller has read it already.
    ``activity``: the league's activity (``league_activity``; default: today, active players only).
    """
    sort = Sort.clean(sort)
    field = Sort.FIELDS[sort]
    version = version or rating_version(game_id=league.game_id)
    activity = activity or league_activity(league=league)
    standings, count = _leaderboard_count(league=league, sort=sort, search=search, version=version, activity=activity)
    ratings = _shown(PlayerRating.objects.filter(league=league), activity.shown_from).select_related("player")
    if search:
        # By the players' search keys (``leagues.names``): any case and script, ё as its undotted letter.
        ratings = ratings.filter(player__search_name__contains=name_key(search))
    number = _page_number(page, count=count, page_size=page_size, clamp=clamp)

    def compute() -> LeaderboardPage:
        offset = (number - 1) * page_size
        order = (f"-{field}", "player__search_name", "player_id")
        if search:
            found = ratings.annotate(ties_ahead=_ties_ahead(field, activity.shown_from)).order_by(*order)[
                offset : offset + page_size
            ]
            ranked = [(standings.above(getattr(rating, field)) + rating.ties_ahead + 1, rating) for rating in found]
        elif offset < count:
            # Keyset seek: start at the page's first rating instead of skipping `offset` rows.
            value, skip = standings.seek(offset)
            found = ratings.filter(**{f"{field}__lte": value}).order_by(*order)[skip : skip + page_size]
            ranked = [(offset + index + 1, rating) for index, rating in enumerate(found)]
        else:
            ranked = []
        rows = [
            LeaderboardRow(
                rank=rank,
                player_id=rating.player_id,
                name=rating.player.name,
                rating=rating.rating,
                peak_rating=rating.peak_rating,
                rated_matches=rating.rated_matches,
                active=activity.active(rating.last_played_at),
                inactive_since=activity.inactive_since(rating.last_played_at),
            )
            for rank, rating in ranked
        ]
        return LeaderboardPage(rows=rows, number=number, page_size=page_size, count=count)

    return cached(
        ("leaderboard", league.pk, sort, search, number, page_size, activity.key, version),
        compute,
        keep=leaderboard_cacheable(search=search, page_size=page_size),
    )


def player_ratings(*, player: Player, version: str | None = None, today: date | None = None) -> list[PlayerRating]:
    """The player's rating in every game they played, each with its league rank (``rank``) and activity.

    ``active`` and ``inactive_since`` say whether the player is active in their
    league on ``today`` (default: today in the site's time zone; ``Activity``).
    ``rank`` is the player's rank on the leaderboard they appear on: among the
    league's active players when active, among everyone (the leaderboard's
    "everyone" view) when inactive.

    Cached under the ratings versions of all games and the day; on a miss, one
    query plus each league's histogram (itself cached), and for an active player
    in a league with an inactivity setting a count of their ties among active
    players. ``version``: the site version, if the caller has read it already.
    """
    version = version or rating_version_site()
    today = today or activity_today()
    field = Sort.FIELDS[Sort.CURRENT]

    def compute() -> list[PlayerRating]:
        ratings = list(
            PlayerRating.objects.filter(player=player)
            .select_related("game", "league")
            .annotate(ties_ahead=_ties_ahead(field))
            .order_by("game__name")
        )
        for rating in ratings:
            activity = league_activity(league=rating.league, today=today)
            rating.active = activity.active(rating.last_played_at)
            rating.inactive_since = activity.inactive_since(rating.last_played_at)
            active_from = activity.active_from if rating.active else None
            ties_ahead = rating.ties_ahead
            if active_from is not None:
                ties_ahead = (
                    _shown(PlayerRating.objects.filter(league=rating.league, rating=rating.rating), active_from)
                    .filter(
                        Q(player__search_name__lt=player.search_name)
                        | Q(player__search_name=player.search_name, player_id__lt=player.pk)
                    )
                    .count()
                )
            game_version = rating_version_of(version, game_id=rating.game_id)
            standings = league_standings(
                league=rating.league, sort=Sort.CURRENT, version=game_version, active_from=active_from
            )
            rating.rank = standings.above(rating.rating) + ties_ahead + 1
        return ratings

    return cached(("player-ratings", player.pk, today.isoformat(), version), compute)


def player_history(*, player: Player, game: Game | None = None) -> QuerySet[RatingChange]:
    """One row per rated unit, oldest first."""
    queryset = RatingChange.objects.filter(player=player).select_related("game", "match")
    if game is not None:
        queryset = queryset.filter(game=game)
    return queryset.order_by("played_at", "match_id", "unit")


#: The history API's page: ``HISTORY_API_PAGE_SIZE`` ledger rows by default, at most ``HISTORY_API_PAGE_MAX``
#: (a bigger ``page_size`` gets that many, as the leaderboard's does). A page of 1,000 rows is about
#: 300 KB of JSON; the whole ledger of a player with 80,000 deals was 24 MB in one answer.
HISTORY_API_PAGE_SIZE = 100
HISTORY_API_PAGE_MAX = 1000


def player_history_page(*, player: Player, game: Game | None = None, number: int, page_size: int) -> Page:
    """Page ``number`` (from 1) of ``player_history``, ``page_size`` rows (at most ``HISTORY_API_PAGE_MAX``).

    Three queries whatever the history's length: its count, the page's keys (played_at, match, unit:
    the ledger's player index holds them, so a deep page sorts narrow keys read from the index, not
    80,000 rows with their details), then the rows from the page's first key to its last, with their
    game (the match is not joined: a row names it by id). The keys are unique for a player, so the
    range is exactly the page. Raises ``InvalidPage`` for a page past the last (an empty history has
    one empty page).
    """
    ordered = player_history(player=player, game=game).select_related(None)
    paginator = Paginator(ordered.values_list("pk", flat=True), min(page_size, HISTORY_API_PAGE_MAX))
    page = paginator.page(number)
    start = (page.number - 1) * paginator.per_page
    keys = list(ordered.values_list("played_at", "match_id", "unit")[start : start + paginator.per_page])
    rows = []
    if keys:
        (first_at, first_match, first_unit), (last_at, last_match, last_unit) = keys[0], keys[-1]
        from_first = (
            Q(played_at__gt=first_at)
            | Q(played_at=first_at, match_id__gt=first_match)
            | Q(played_at=first_at, match_id=first_match, unit__gte=first_unit)
        )
        to_last = (
            Q(played_at__lt=last_at)
            | Q(played_at=last_at, match_id__lt=last_match)
            | Q(played_at=last_at, match_id=last_match, unit__lte=last_unit)
        )
        rows = list(ordered.filter(from_first, to_last).select_related("game"))
    page.object_list = rows
    return page


@dataclass(frozen=True)
class RecentMatch:
    match: Match
    seat: Seat
    opponents: list[Seat]
    changes: list[RatingChange]
    #: What the game's kind read for this row's plain-words line (``profile_change_notes``); {} if nothing.
    notes: dict = dataclass_field(default_factory=dict)

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


def _player_matches(player: Player) -> QuerySet[Match]:
    """Every match the player sat in, newest first, with what a row of the profile shows."""
    return (
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
        .order_by("-played_at", "-id")
    )


def _recent_rows(matches, *, player: Player) -> list[RecentMatch]:
    """Rows of the profile's match lists, each with the game's notes for its plain-words line: one query
    per game whose kind reads any (``profile_change_notes``), none for a game that reads nothing."""
    recent = []
    for match in matches:
        seats = list(match.seats.all())
        own = next(seat for seat in seats if seat.player_id == player.pk)
        recent.append(
            RecentMatch(
                match=match, seat=own, opponents=[s for s in seats if s is not own], changes=match.player_changes
            )
        )
    by_kind: dict = {}
    for row in recent:
        kind = kind_of(row.match.game)
        if kind is not None:
            by_kind.setdefault(kind.slug, (kind, []))[1].append(row.match)
    for kind, kind_matches in by_kind.values():
        notes = kind.profile_change_notes(kind_matches, player)
        for row in recent:
            if row.match.pk in notes:
                row.notes.update(notes[row.match.pk])
    return recent


def player_recent_matches(*, player: Player, limit: int = 20) -> list[RecentMatch]:
    """The player's latest matches, each with the other seats and the player's rating changes."""
    return _recent_rows(_player_matches(player)[:limit], player=player)


HISTORY_PAGE_SIZE = 25


@dataclass(frozen=True)
class HistoryFilter:
    """A player's history page's filters, cleaned: each is None when not given (or not understood)."""

    game: Game | None = None
    league: League | None = None
    since: date | None = None
    until: date | None = None
    opponent: str = ""

    def query(self) -> dict[str, str]:
        """The filters as query parameters (for the pager's links), only those given."""
        values = {
            "game": self.game.slug if self.game else "",
            "league": self.league.slug if self.league else "",
            "since": self.since.isoformat() if self.since else "",
            "until": self.until.isoformat() if self.until else "",
            "opponent": self.opponent,
        }
        return {name: value for name, value in values.items() if value}


def player_history_matches(*, player: Player, filters: HistoryFilter) -> QuerySet[Match]:
    """The player's matches, newest first, narrowed by ``filters`` (rows come from ``player_history_rows``).

    A league is the match's own (its rating period) or one the player's ledger rows left them in;
    dates are whole days in the site's time zone, both ends included; an opponent is any other seat
    whose player's name contains the text.
    """
    matches = _player_matches(player)
    if filters.game is not None:
        matches = matches.filter(game=filters.game)
    if filters.league is not None:
        rated_in = RatingChange.objects.filter(player=player, league_after=filters.league).values("match_id")
        matches = matches.filter(Q(league=filters.league) | Q(pk__in=rated_in))
    # Days in the site's time zone (Django converts played_at with it), both ends included.
    if filters.since is not None:
        matches = matches.filter(played_at__date__gte=filters.since)
    if filters.until is not None:
        matches = matches.filter(played_at__date__lte=filters.until)
    if filters.opponent:
        opponents = Seat.objects.filter(player__search_name__contains=name_key(filters.opponent))
        met = opponents.exclude(player=player).values("match_id")
        matches = matches.filter(pk__in=met)
    return matches


def player_history_rows(*, player: Player, matches) -> list[RecentMatch]:
    """A page of ``player_history_matches`` as the profile's rows."""
    return _recent_rows(matches, player=player)


def player_promotions(*, player: Player, version: str | None = None) -> list[Promotion]:
    """Promotions come only from the rating pipeline: cached under the ratings versions."""
    return cached(
        ("player-promotions", player.pk, version or rating_version_site()),
        lambda: list(
            Promotion.objects.filter(player=player).select_related("game", "from_league", "to_league", "match")
        ),
    )


CHART_POINTS = 600


@dataclass(frozen=True)
class ChartDay:
    """A day the player played a game: how many rated units, and the rating after the day's last one."""

    day: date
    units: int
    rating_before: float
    rating_after: float


@dataclass(frozen=True)
class ChartSeries:
    """A game's rating history for the profile chart.

    ``points`` are [epoch milliseconds, rating, rated units so far], from the
    rating before the first unit to the rating after each match (a match's
    units share its time: drawn on a date axis, one point a match is the
    honest line; ``matches`` counts them). A history longer
    than ``CHART_POINTS`` keeps its whole span at reduced resolution: each
    stretch of units keeps its lowest and highest point (so peaks and dips stay
    on the chart) and the first and last points are always kept. ``days`` is
    the same history a row per day played (in the site's time zone): the
    chart's table alternative. ``unit``/``units_name``: what the game rates,
    one and many (``profile_rating_units``: "deal", "deals"); ``units_text``
    the count of them in words (``rated_units``: "12 rated deals") and
    ``unit_forms`` that phrase in each plural form of the language, for the
    chart's script (``config.language.plural_forms``).
    """

    game: str
    slug: str
    unit: str
    units_name: str
    units: int
    matches: int
    points: list[list[float]]
    days: list[ChartDay] = dataclass_field(default_factory=list)
    units_text: str = ""
    unit_forms: list[str] = dataclass_field(default_factory=list)

    @property
    def reduced(self) -> bool:
        return len(self.points) < self.matches + 1

    def as_json(self) -> dict:
        """What the chart's script reads (a ``json_script`` element): the game, its units and the points."""
        return {
            "game": self.game,
            "unit": self.unit,
            "units": self.units_name,
            "unit_forms": self.unit_forms,
            "points": self.points,
        }


# The chart's one query, read in a single pass over the player's ledger in order of play (one sort).
# ``units``: each ledger row numbered per game (``seq``: rated units so far), with its neighbours' match
# and day (in the site's zone). A match's units are consecutive (they share its time), and so are a
# day's: a unit is its match's last when the next unit is another match's, and a day's first or last
# when its neighbour is another day's. ``ends``: those last units, one point a match, numbered (``n`` of
# ``matches``). A history of more points than the limit keeps the last match and, of the others cut into
# ``buckets`` stretches of play, each stretch's lowest and highest (the first of equals); a shorter one
# keeps every point (each its own stretch). ``days``: one row a day played, from its first and last
# units: its units, the rating before the first and after the last. Answered as part 0 (the days, the
# first of which gives the start point) then part 1 (the points), with each game's name.
_CHART_QUERY = """
    WITH ledger AS (
        SELECT id, game_id, match_id, unit, played_at, rating_before, rating_after, {day} AS played_day
        FROM ratings_ratingchange WHERE player_id = %s
    ),
    units AS (
        SELECT id, game_id, match_id, played_at, rating_before, rating_after, played_day,
               ROW_NUMBER() OVER play AS seq,
               LEAD(match_id) OVER play AS next_match,
               LAG(played_day) OVER play AS previous_day,
               LEAD(played_day) OVER play AS next_day
        FROM ledger
        WINDOW play AS (PARTITION BY game_id ORDER BY played_at, match_id, unit)
    ),
    ends AS (
        SELECT id, game_id, played_at, rating_after, seq,
               ROW_NUMBER() OVER (PARTITION BY game_id ORDER BY seq) AS n,
               COUNT(*) OVER (PARTITION BY game_id) AS matches
        FROM units WHERE next_match IS NULL OR next_match <> match_id
    ),
    stretched AS (
        SELECT id, game_id, played_at, rating_after, seq, matches,
               CASE WHEN matches + 1 <= %s OR n = matches THEN -n
                    ELSE ((n - 1) * %s) / (matches - 1) END AS stretch
        FROM ends
    ),
    marked AS (
        SELECT id, game_id, played_at, rating_after, seq, matches,
               ROW_NUMBER() OVER (PARTITION BY game_id, stretch ORDER BY rating_after, seq) AS low,
               ROW_NUMBER() OVER (PARTITION BY game_id, stretch ORDER BY rating_after DESC, seq) AS high
        FROM stretched
    ),
    edges AS (
        SELECT id, game_id, played_at, rating_before, rating_after, played_day, seq,
               previous_day IS NULL OR previous_day <> played_day AS opens,
               next_day IS NULL OR next_day <> played_day AS closes
        FROM units
        WHERE previous_day IS NULL OR previous_day <> played_day OR next_day IS NULL OR next_day <> played_day
    ),
    days AS (
        SELECT MIN(id) AS id, game_id, played_day, MIN(played_at) AS played_at,
               MAX(seq) - MIN(seq) + 1 AS units,
               MAX(CASE WHEN opens THEN rating_before END) AS rating_before,
               MAX(CASE WHEN closes THEN rating_after END) AS rating_after
        FROM edges GROUP BY game_id, played_day
    ),
    parts AS (
        SELECT 0 AS part, id, game_id, played_at, rating_before, rating_after, played_day, units,
               NULL AS units_so_far, NULL AS matches
        FROM days
        UNION ALL
        SELECT 1, id, game_id, played_at, NULL, rating_after, NULL, NULL, seq, matches
        FROM marked WHERE low = 1 OR high = 1
    )
    SELECT parts.*, game.name AS game_name, game.slug AS game_slug, game.rating_system AS game_system
    FROM parts JOIN leagues_game game ON game.id = parts.game_id
    ORDER BY game.name, game.slug, parts.part, parts.played_day, parts.units_so_far
"""


def _as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def player_chart_series(*, player: Player, limit: int = CHART_POINTS, version: str | None = None) -> list[ChartSeries]:
    """The player's rating history per game, at most ``limit`` points each (see ``ChartSeries``).

    Reduced by the database (``_CHART_QUERY``): one query returns at most ``limit`` points a game and one
    row a day played, however many rated units the history holds (a player with 80,000 deals had all
    80,000 rows read and walked here, seconds of the profile's first view after any rating). Cached
    under the ratings versions. Games come in name order, as the rating cards above the chart.
    """
    day_sql, day_params = connection.ops.datetime_cast_date_sql("played_at", (), timezone.get_current_timezone_name())
    query = _CHART_QUERY.format(day=day_sql)
    params = (*day_params, player.pk, limit, (limit - 2) // 2)

    def compute() -> list[ChartSeries]:
        games: dict[str, dict] = {}  # by slug, in the query's order (by name)
        for row in RatingChange.objects.raw(query, params):  # typed as the ORM reads them: times, ratings
            game = games.get(row.game_slug)
            if game is None:  # the game's first row: its first day, whose first unit starts the chart
                start = [int(row.played_at.timestamp() * 1000), float(row.rating_before), 0]
                game = games[row.game_slug] = {"row": row, "points": [start], "days": [], "matches": 0}
            if row.part == 0:
                game["days"].append(
                    ChartDay(_as_date(row.played_day), row.units, float(row.rating_before), float(row.rating_after))
                )
            else:
                moment = int(row.played_at.timestamp() * 1000)
                game["points"].append([moment, float(row.rating_after), row.units_so_far])
                game["matches"] = row.matches
        series = []
        for slug, game in games.items():
            kind = kind_of(game["row"].game_system)
            unit, units_name = kind.profile_rating_units() if kind is not None else ("match", "matches")
            units = game["points"][-1][2]
            words = kind.rated_units if kind is not None else str
            series.append(
                ChartSeries(
                    game=game["row"].game_name,
                    slug=slug,
                    unit=unit,
                    units_name=units_name,
                    units=units,
                    matches=game["matches"],
                    points=game["points"],
                    days=game["days"],
                    units_text=words(units),
                    unit_forms=plural_forms(words),
                )
            )
        return series

    return cached(("player-chart", player.pk, limit, version or rating_version_site()), compute)


# --- a match with its ledger rows --------------------------------------------------------------
# The match pages and the API show a match's rating changes beside its seats and parts: the match
# is read by ``matches.selectors``, its ledger rows here (the results side never reads ratings).

# Results not rated (yet), so without ledger rows: none are asked for.
UNRATED = (Match.Status.SUBMITTED, Match.Status.FRIENDLY)


def _ledger_rows() -> Prefetch:
    return Prefetch("rating_changes", queryset=RatingChange.objects.order_by("unit", "player_id"))


def match_detail_rated_queryset() -> QuerySet[Match]:
    """``matches.selectors.match_detail_queryset`` with each match's ledger rows."""
    return match_detail_queryset().prefetch_related(_ledger_rows())


def match_detail_rated(*, match_id: int) -> Match:
    """``matches.selectors.match_detail`` with the match's ledger rows (no query for a match not rated)."""
    match = match_detail(match_id=match_id)
    if match.status in UNRATED:
        rows = Prefetch("rating_changes", queryset=RatingChange.objects.none())
    else:
        rows = _ledger_rows()
    prefetch_related_objects([match], rows)
    return match


def match_detail_rated_of(match: Match) -> Match:
    """``match_detail_rated`` of a match in hand: the match itself when it holds its stored parts (the
    submission service keeps them on it as it stores them, ``matches.parts``) and its status, read
    after the commit, says it is not rated, so no ledger rows can exist; otherwise read again (a
    retried submission, or one rated at once).

    A submission's reply comes from here: three queries fewer on the busiest write path.
    """
    if match.status in UNRATED and match_holds_parts(match):
        hold(match, "rating_changes", [])
        return match
    return match_detail_rated(match_id=match.pk)
