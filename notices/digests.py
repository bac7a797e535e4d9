"""An evening's digest: which are due, and what one says.

Vocabulary: an *evening* is the rated results of one player in one game on one day in the site's time zone
(``activity_today``: the day the ratings' pages judge activity by). The player is a claimed record
(``Player.user``) whose person chose the digest (``NoticeChoices.evening_digest``) and has an address.

An evening is *due* when
  - its day has ended, or its last rated result was played at least ``CARDRANK_DIGEST_QUIET_MINUTES`` ago
    (the club has gone home), and
  - none of the player's results of that day in that game still waits to be rated (submitted, a rating
    period not yet closed, or waiting for a second referee; a *disputed* result waits for an admin, maybe for
    days, and does not hold the digest back), and
  - it was not sent (``DigestSent``), and its day is not before the day the person turned the digest on, and
    it is at most ``DAYS_BACK`` days old (a sweep that did not run for longer does not mail old news).

One mail per person and day: the evenings of several games on one day that are due together are one
mail with a section per game; a game whose evening becomes due later that night gets a mail of its own.

What a section says is read with the profile's own selectors (``ratings.selectors``: the rows of
``player_history_rows`` with the kind's plain-words "why", ``player_ratings`` for the rank,
``leaderboard_page`` for the players around), and whatever the game's kind adds (``digest_extra``: a bridge
evening's scorecard and hand records). Reads only; the sending is ``notices.tasks``'.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Max
from django.db.models.functions import TruncDate
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from leagues.kinds import kind_of
from leagues.models import Game, Player
from matches.models import Match
from notices.mail import links_absolute, site_url, words
from notices.models import DigestSent
from ratings.models import RatingChange
from ratings.selectors import (
    HistoryFilter,
    LeaderboardRow,
    activity_today,
    leaderboard_page,
    player_history_matches,
    player_history_rows,
    player_ratings,
)

#: The oldest evening a sweep still sends, in days before today.
DAYS_BACK = 7
#: The players shown around the person's in the league's standing: a leaderboard page of this many.
AROUND = 5


@dataclass(frozen=True)
class Evening:
    user_id: int
    player_id: int
    game_id: int
    day: datetime.date


def _day():
    return TruncDate("played_at", tzinfo=timezone.get_default_timezone())


def digests_due(*, now: datetime.datetime | None = None, user_id: int | None = None) -> list[Evening]:
    """The evenings due at ``now`` (default: now), of every person or of ``user_id`` only. Four queries
    whatever the number of people: the claimed players' evenings in the window, their results still waiting,
    the sent records, and nothing per person."""
    now = now or timezone.now()
    today = activity_today(now)
    first_day = today - datetime.timedelta(days=DAYS_BACK)
    # Local midnight of the first day, a day early to be safe across any time zone's offset.
    window = now - datetime.timedelta(days=DAYS_BACK + 1)
    quiet_before = now - datetime.timedelta(minutes=settings.CARDRANK_DIGEST_QUIET_MINUTES)
    chosen = {
        "player__user__is_active": True,
        "player__user__notice_choices__evening_digest": True,
    }
    if user_id is not None:
        chosen["player__user_id"] = user_id
    evenings = (
        RatingChange.objects.filter(played_at__gte=window, **chosen)
        .exclude(player__user__email="")
        .annotate(day=_day())
        .values("player_id", "player__user_id", "game_id", "day", "player__user__notice_choices__evening_digest_since")
        .annotate(last_at=Max("played_at"))
        .order_by()
    )
    seat_chosen = {f"seats__{name}": value for name, value in chosen.items()}
    waiting = set(
        Match.objects.filter(
            status=Match.Status.SUBMITTED, rated=True, disputed_at__isnull=True, played_at__gte=window, **seat_chosen
        )
        .annotate(day=_day())
        .values_list("seats__player_id", "game_id", "day")
    )
    sent_filter = {"user_id": user_id} if user_id is not None else {}
    sent = set(
        DigestSent.objects.filter(day__gte=first_day, **sent_filter).values_list(
            "user_id", "player_id", "game_id", "day"
        )
    )
    due = []
    for row in evenings:
        day, since = row["day"], row["player__user__notice_choices__evening_digest_since"]
        if day < first_day or (since is not None and day < activity_today(since)):
            continue
        if not (day < today or row["last_at"] <= quiet_before):
            continue
        key = (row["player__user_id"], row["player_id"], row["game_id"], day)
        if key in sent or (row["player_id"], row["game_id"], day) in waiting:
            continue
        due.append(Evening(*key))
    return sorted(due, key=lambda evening: (evening.user_id, evening.day, evening.game_id))


@dataclass
class DigestRow:
    """One result of the evening as the mail shows it: the profile's row and its parts rendered once, as HTML
    (the game's own partials) and as plain text."""

    item: object  # ratings.selectors.RecentMatch
    url: str
    opponents_html: str
    opponents_text: str
    result_html: str
    result_text: str
    why_html: str
    why_text: str


@dataclass
class DigestSection:
    """A game's part of the mail."""

    game: Game
    rows: list[DigestRow]
    rating: object | None  # ratings.models.PlayerRating with its rank, or None
    around: list[LeaderboardRow] = field(default_factory=list)
    league_url: str = ""
    extra_html: str = ""
    extra_text: str = ""

    @property
    def before(self):
        return self.rows[0].item.first_change.rating_before if self.rows and self.rows[0].item.changes else None

    @property
    def after(self):
        return self.rows[-1].item.last_change.rating_after if self.rows and self.rows[-1].item.changes else None


def _row(item, player: Player) -> DigestRow:
    templates = item.match.game.kind.templates
    context = {"item": item, "player": player}
    parts = {
        name: links_absolute(render_to_string(templates[template], context))
        for name, template in (
            ("opponents", "profile_opponents"),
            ("result", "profile_result"),
            ("why", "profile_change"),
        )
    }
    return DigestRow(
        item=item,
        url=site_url(item.match.get_absolute_url()),
        opponents_html=parts["opponents"],
        opponents_text=words(parts["opponents"]),
        result_html=parts["result"],
        result_text=words(parts["result"]),
        why_html=parts["why"],
        why_text=words(parts["why"]),
    )


def digest_sections(*, player: Player, day: datetime.date, game_ids: list[int]) -> list[DigestSection]:
    """What the digest of ``player``'s ``day`` says, a section per game of ``game_ids`` with rated results."""
    ratings = {rating.game_id: rating for rating in player_ratings(player=player)}
    sections = []
    for game in Game.objects.filter(pk__in=game_ids).order_by("name"):
        matches = player_history_matches(player=player, filters=HistoryFilter(game=game, since=day, until=day)).filter(
            status=Match.Status.RATED
        )
        items = [item for item in reversed(player_history_rows(player=player, matches=matches)) if item.changes]
        if not items:
            continue
        rating = ratings.get(game.pk)
        around, league_url = [], ""
        if rating is not None:
            number = (rating.rank - 1) // AROUND + 1
            around = leaderboard_page(league=rating.league, page=number, page_size=AROUND).rows
            league_url = site_url(rating.league.get_absolute_url())
        section = DigestSection(
            game=game, rows=[_row(item, player) for item in items], rating=rating, around=around, league_url=league_url
        )
        kind = kind_of(game)
        extra = kind.digest_extra([item.match for item in items], player) if kind is not None else None
        if extra:
            section.extra_html, section.extra_text = links_absolute(extra[0]), extra[1]
        sections.append(section)
    return sections


def digest_context(*, player: Player, day: datetime.date, sections: list[DigestSection]) -> dict:
    return {
        "player": player,
        "day": day,
        "sections": sections,
        "profile_url": site_url(player.get_absolute_url()),
        "history_url": site_url(reverse("player-history", args=[player.pk])),
    }
