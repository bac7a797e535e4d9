"""Reading the official rating lists (``ratings.lists`` publishes them) and a player's rating on a day.

Every read is bounded: a list's rows are read a page at a time (the callers page them), a game's lists
are one row each, and "rating on a day" is one indexed row of the ledger.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from leagues.models import Game, Player
from leagues.names import name_key
from matches.models import AuditEntry
from ratings.models import RatingChange, RatingList, RatingListRow

#: How a list's rows may be ordered (``rating_list_rows``): by rank (the list's own order) or by change.
LIST_SORTS = {
    "rank": ("rank",),
    "name": ("name_key", "rank"),
    "change": ("-change", "rank"),
    "-change": ("change", "rank"),
}
#: Movers shown on a list's movers page, each way.
MOVERS = 10


def list_closes_at(day: datetime.date) -> datetime.datetime:
    """The end of ``day`` in the site's time zone: the next day's local midnight (aware)."""
    zone = timezone.get_default_timezone()
    return datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(), tzinfo=zone)


def _current() -> Q:
    """A list that no later version of its day replaces."""
    later = RatingList.objects.filter(game=OuterRef("game"), day=OuterRef("day"), version__gt=OuterRef("version"))
    return ~Q(Exists(later))


def rating_lists_of(*, game: Game) -> QuerySet[RatingList]:
    """The game's published lists, the current version of each day, newest first."""
    return RatingList.objects.filter(game=game).filter(_current()).order_by("-day")


def rating_list_of(*, game: Game, day: datetime.date, version: int | None = None) -> RatingList | None:
    """The game's list of ``day``: the current version, or ``version`` when given (None: not published)."""
    lists = RatingList.objects.filter(game=game, day=day).select_related("game")
    if version is not None:
        return lists.filter(version=version).first()
    return lists.order_by("-version").first()


def rating_list_versions(rating_list: RatingList) -> list[int]:
    """Every version of the list's day, oldest first (one, unless an admin republished it)."""
    return list(
        RatingList.objects.filter(game_id=rating_list.game_id, day=rating_list.day)
        .order_by("version")
        .values_list("version", flat=True)
    )


def rating_list_rows(rating_list: RatingList, *, search: str = "", sort: str = "rank") -> QuerySet[RatingListRow]:
    """The list's rows in ``sort``'s order (``LIST_SORTS``), those whose name holds ``search`` when given.

    Names are searched and ordered by the players' search keys (``leagues.names``: any case and script, ё as
    its undotted letter); a row whose player is gone (merged) by its published name."""
    rows = RatingListRow.objects.filter(rating_list=rating_list)
    if search:
        players = Player.objects.filter(search_name__contains=name_key(search)).values("pk")
        rows = rows.filter(Q(player_id__in=players) | Q(name__icontains=search))
    order = LIST_SORTS.get(sort, LIST_SORTS["rank"])
    if "name_key" in order:
        key = Player.objects.filter(pk=OuterRef("player_id")).values("search_name")[:1]
        rows = rows.annotate(name_key=Coalesce(Subquery(key), "name"))
    return rows.order_by(*order)


@dataclass(frozen=True)
class Movers:
    gains: list[RatingListRow]
    falls: list[RatingListRow]
    new: list[RatingListRow]


def rating_list_movers(rating_list: RatingList, *, limit: int = MOVERS) -> Movers:
    """The biggest gains and falls since the previous list, and the best new entries."""
    rows = RatingListRow.objects.filter(rating_list=rating_list)
    return Movers(
        gains=list(rows.filter(change__gt=0).order_by("-change", "rank")[:limit]),
        falls=list(rows.filter(change__lt=0).order_by("change", "rank")[:limit]),
        new=list(rows.filter(new=True).order_by("rank")[:limit]),
    )


#: What the audit log records that moves ratings: a result stored, corrected, confirmed (rated then) or voided.
MOVING = (
    AuditEntry.Action.SUBMITTED,
    AuditEntry.Action.CORRECTED,
    AuditEntry.Action.CONFIRMED,
    AuditEntry.Action.VOIDED,
)


def rating_list_later_corrections(rating_list: RatingList) -> bool:
    """Whether a result played before the list's closing time was stored, corrected, confirmed or voided after
    the list was published: the ratings of its day have moved since, and the next list shows it. One
    ``EXISTS`` over the audit log from the publication on (its time, ``at``, is indexed)."""
    return AuditEntry.objects.filter(
        match__game_id=rating_list.game_id,
        match__played_at__lt=rating_list.closes_at,
        at__gt=rating_list.published_at,
        action__in=MOVING,
    ).exists()


def player_list_lines(*, player: Player, limit: int = 24) -> list[RatingListRow]:
    """The player's line in each list (current versions), newest first, at most ``limit``."""
    return list(
        RatingListRow.objects.filter(player=player)
        .filter(Exists(RatingList.objects.filter(pk=OuterRef("rating_list")).filter(_current())))
        .select_related("rating_list", "rating_list__game")
        .order_by("-rating_list__day", "rating_list__game__name")[:limit]
    )


@dataclass(frozen=True)
class RatingOn:
    """A player's rating in a game at the end of a day: their ledger row last before it."""

    rating: Decimal
    peak: Decimal
    units: int
    as_of: datetime.datetime  # when the unit that gave it was played


def player_rating_on(*, player: Player, game: Game, day: datetime.date) -> RatingOn | None:
    """The player's rating at the end of ``day`` (site's time zone), None when they had none by then."""
    row = (
        RatingChange.objects.filter(player=player, game=game, played_at__lt=list_closes_at(day))
        .order_by("-played_at", "-match_id", "-unit")
        .values_list("rating_after", "peak_after", "rated_matches_after", "played_at")
        .first()
    )
    return RatingOn(*row) if row else None
