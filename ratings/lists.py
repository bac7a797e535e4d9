"""Official rating lists: a game's ratings frozen at a closing time, published once and never changed.

A list is dated by its *closing day* and holds the ratings at the end of that day in the site's time zone
(``closes_at``, local midnight after it): every player with a rated unit played before then, ranked by
rating (ties by name, then id), with their peak and rated units at that moment, read from the ledger
(each player's last ``RatingChange`` before the closing time). Each row also carries the change since the
previous list (the latest list of an earlier day; null and marked *new* when the player was not on it),
and marks *provisional* (fewer rated units than the game's provisional count, the ISF Elo's 32) and
*inactive* (by the league the player was in at their last unit: ``League.inactive_after_days``, judged on
the closing day).

Publishing (``rating_list_publish``) first brings the game's ratings up to date (``ratings_process_game``,
so a result rated late is in), then, under the game's rating lock, reads the ledger and writes the list in
one transaction. Publishing a day already published is a no-op that says so; ``republish=True`` (an admin,
explicitly) writes a new version, the old one still readable. A list never changes afterwards: a late
result or a correction dated before the closing time moves ratings by a replay, as always, and shows in
the next list's change (on PostgreSQL a trigger refuses any other change, ``ratings`` migration 0009).

When a game publishes: ``Game.rating_list_period`` (monthly by default, closing on the month's last day;
quarterly; weekly, closing on Sunday; none), published by the periodic task (``rating_lists_publish_due``)
or at once by ``manage.py publish_rating_list``. Heavy (a scan of the game's ledger): a task's or a
command's work, never a request's.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Max, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Game, League
from ratings.ledger import rating_state_lock
from ratings.list_selectors import list_closes_at
from ratings.models import RatingChange, RatingList, RatingListRow
from ratings.selectors import provisional_matches
from ratings.services import ratings_process_game
from ratings.signals import rating_list_published

#: Rows written a statement at a time.
BATCH = 5_000


def list_day_due(period: str, today: datetime.date) -> datetime.date | None:
    """The closing day of the latest period of ``period`` that ended before ``today`` (None: never)."""
    if period == Game.ListPeriod.MONTHLY:
        return today.replace(day=1) - datetime.timedelta(days=1)
    if period == Game.ListPeriod.QUARTERLY:
        first = today.replace(month=(today.month - 1) // 3 * 3 + 1, day=1)
        return first - datetime.timedelta(days=1)
    if period == Game.ListPeriod.WEEKLY:
        return today - datetime.timedelta(days=today.isoweekday())  # the last Sunday before today
    return None


@dataclass(frozen=True)
class Published:
    """What publishing did: the list (the one already there for a no-op) and whether it was written now."""

    rating_list: RatingList
    created: bool


def rating_list_latest(*, game: Game, day: datetime.date) -> RatingList | None:
    """The current version of the game's list of ``day`` (None: not published)."""
    return RatingList.objects.filter(game=game, day=day).order_by("-version").first()


def _ledger_at(game: Game, closes_at: datetime.datetime):
    """Each player's last ledger row before ``closes_at``, best rating first (ties by name, then id)."""
    return (
        RatingChange.objects.filter(game=game, played_at__lt=closes_at)
        .annotate(
            last=Window(
                RowNumber(),
                partition_by=[F("player_id")],
                order_by=[F("played_at").desc(), F("match_id").desc(), F("unit").desc()],
            )
        )
        .filter(last=1)
        .order_by("-rating_after", "player__search_name", "player_id")  # ties in name order (leagues.names)
        .values_list(
            "player_id", "player__name", "rating_after", "peak_after", "rated_matches_after", "played_at",
            "league_after_id",
        )
    )  # fmt: skip


def rating_list_publish(
    *, game: Game, day: datetime.date, republish: bool = False, by: str = "", now: datetime.datetime | None = None
) -> Published:
    """Publish the game's list of ``day`` (see the module). Refuses, with a ValidationError on ``day``, a day
    that has not closed yet. ``by``: who asked (empty for the periodic task)."""
    now = now or timezone.now()
    if not isinstance(day, datetime.date) or isinstance(day, datetime.datetime):
        raise ValidationError({"day": [_("A list's day is a date (YYYY-MM-DD).")]})
    closes_at = list_closes_at(day)
    if closes_at > now:
        raise ValidationError(
            {
                "day": [
                    _("The list of %(day)s closes at the end of that day: it cannot be published before then.")
                    % {"day": day.isoformat()}
                ]
            }
        )
    if not republish and (kept := rating_list_latest(game=game, day=day)) is not None:
        return Published(kept, created=False)
    ratings_process_game(game_id=game.pk)  # a result waiting to be rated is rated before the list is read
    with transaction.atomic():
        rating_state_lock(game_id=game.pk)  # no rating work moves the ledger while the list is read
        latest_version = RatingList.objects.filter(game=game, day=day).aggregate(v=Max("version"))["v"]
        if latest_version is not None and not republish:
            return Published(rating_list_latest(game=game, day=day), created=False)  # published meanwhile
        previous = RatingList.objects.filter(game=game, day__lt=day).order_by("-day", "-version").only("pk").first()
        before = (
            dict(RatingListRow.objects.filter(rating_list=previous).values_list("player_id", "rating"))
            if previous
            else {}
        )
        provisional_below = provisional_matches(game)
        active_from = {
            league.pk: league.active_from(day) for league in League.objects.filter(game=game)
        }  # None: nobody inactive in that league
        ledger = _ledger_at(game, closes_at)
        rating_list = RatingList.objects.create(
            game=game,
            day=day,
            version=(latest_version or 0) + 1,
            closes_at=closes_at,
            published_at=now,
            players=ledger.count(),  # a list is written once: its size first (the ledger holds still, locked)
            published_by=by,
        )
        rows = []
        for rank, (player_id, name, rating, peak, units, played_at, league_id) in enumerate(
            ledger.iterator(chunk_size=BATCH), start=1
        ):
            earlier: Decimal | None = before.get(player_id)
            floor = active_from.get(league_id)
            rows.append(
                RatingListRow(
                    rating_list=rating_list,
                    rank=rank,
                    player_id=player_id,
                    name=name,
                    rating=rating,
                    peak=peak,
                    units=units,
                    change=None if earlier is None else rating - earlier,
                    new=earlier is None,
                    provisional=units < provisional_below,
                    inactive=floor is not None and played_at < floor,
                )
            )
            if len(rows) == BATCH:
                RatingListRow.objects.bulk_create(rows)
                rows = []
        RatingListRow.objects.bulk_create(rows)
        transaction.on_commit(
            lambda: rating_list_published.send_robust(sender=RatingList, rating_list_id=rating_list.pk)
        )
    return Published(rating_list, created=True)


def rating_lists_publish_due(*, now: datetime.datetime | None = None) -> int:
    """Publish each game's list of its latest closed period, where not published yet (the periodic task).

    A game without a rated unit before the closing time publishes nothing (a game added later has no list
    of the months before it). Returns the number of lists written.
    """
    now = now or timezone.now()
    today = timezone.localtime(now, timezone.get_default_timezone()).date()
    written = 0
    for game in Game.objects.exclude(rating_list_period=Game.ListPeriod.NONE).order_by("pk"):
        day = list_day_due(game.rating_list_period, today)
        if day is None or RatingList.objects.filter(game=game, day=day).exists():
            continue
        if not RatingChange.objects.filter(game=game, played_at__lt=list_closes_at(day)).exists():
            continue
        written += rating_list_publish(game=game, day=day, now=now).created
    return written
