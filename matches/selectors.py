"""Reading matches with everything a page or the API shows, in a fixed number of queries."""

from django.db.models import Prefetch, QuerySet

from matches.models import Match, Seat
from ratings.models import RatingChange


def match_detail_queryset() -> QuerySet[Match]:
    return Match.objects.select_related("game", "referee").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")),
        Prefetch("rating_changes", queryset=RatingChange.objects.order_by("unit", "player_id")),
    )


def match_detail(*, match_id: int) -> Match:
    return match_detail_queryset().get(pk=match_id)


def matches_recent(*, game=None, limit: int = 20) -> list[Match]:
    queryset = match_detail_queryset().order_by("-played_at", "-id")
    if game is not None:
        queryset = queryset.filter(game=game)
    return list(queryset[:limit])
