"""Atom feeds and a league's calendar, for those who follow a league or a player without email (issue 27).

- ``GET leagues/SLUG/feed.atom``: the league's newest rated results (each with its players' rating
  changes) and its game's newest official rating lists, newest first.
- ``GET players/ID/feed.atom``: the player's newest rated results (their change in each) and their line
  in each new list.
- ``GET leagues/SLUG/seasons.ics``: the league's seasons as all-day events (iCalendar, RFC 5545, written
  by the ``icalendar`` library), for a calendar app to subscribe to.

A feed reader asks often, so each feed is a few bounded queries: at most ``RESULTS`` results and
``LISTS`` lists, a result's changes summed in the database (one row a player, whatever the deals or
boards). An entry's time is when it happened (a result's play, a list's publication); its id is its
page's URL, which never changes. Names are read when the feed is, so an erased player's old name is
never in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.syndication.views import Feed
from django.db.models import Sum
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.kinds import kind_of
from leagues.models import League, Player, Season
from leagues.season_selectors import season_honours
from matches.models import Match
from ratings.list_selectors import rating_lists_of
from ratings.models import RatingChange
from ratings.selectors import UNRATED, rating_decimals
from web.list_pages import profile_list_lines, shown_change

#: The newest results and lists a feed holds.
RESULTS = 30
LISTS = 12
SEASONS = 6  # a league's closed seasons in its feed


@dataclass(frozen=True)
class Entry:
    title: str
    link: str
    description: str
    at: datetime


def _results(matches: list[Match], *, only: Player | None = None) -> list[Entry]:
    """An entry a result: its title (the kind's ``match_title``) and each player's change, summed in SQL."""
    changes: dict[int, list[tuple[str, object]]] = {}
    totals = (
        RatingChange.objects.filter(match__in=[match.pk for match in matches])
        .values("match_id", "player_id", "player__name")
        .annotate(delta=Sum("delta"))
        .order_by("match_id", "-delta", "player__name")
    )
    if only is not None:
        totals = totals.filter(player=only)
    for row in totals:
        changes.setdefault(row["match_id"], []).append((row["player__name"], row["delta"]))
    entries = []
    for match in matches:
        decimals = rating_decimals(match.game)
        kind = kind_of(match.game)
        title = kind.match_title(match) if kind is not None else f"{match.game.name} #{match.pk}"
        said = ", ".join(f"{name} {shown_change(delta, decimals)}" for name, delta in changes.get(match.pk, []))
        entries.append(
            Entry(
                title=title,
                link=match.get_absolute_url(),
                description=_("Rating changes: %(changes)s.") % {"changes": said} if said else _("Rated."),
                at=match.played_at,
            )
        )
    return entries


def _list_entry(rating_list, description: str) -> Entry:
    day = date_format(rating_list.day, "DATE_FORMAT")
    return Entry(
        title=_("The %(game)s rating list of %(day)s") % {"game": rating_list.game.name, "day": day},
        link=reverse("rating-list", args=[rating_list.game.slug, rating_list.day.isoformat()]),
        description=description,
        at=rating_list.published_at,
    )


def _season_entries(league: League) -> list[Entry]:
    """An entry a closed season (its final table: the podium and who moved), the newest ``SEASONS``."""
    seasons = list(Season.objects.filter(league=league, closed_at__isnull=False).order_by("-closed_at")[:SEASONS])
    entries = []
    for honours in season_honours(seasons):
        season = honours.season
        podium = ", ".join(f"{line.rank}. {line.name}" for line in honours.podium)
        moved = ", ".join(
            f"{move.player.name} ({'↑' if move.direction == 'up' else '↓'} {move.to_league.name})"
            for move in [*honours.up, *honours.down]
        )
        description = _("Final table: %(podium)s.") % {"podium": podium or _("nobody listed")}
        if moved:
            description += " " + _("Moved: %(moved)s.") % {"moved": moved}
        entries.append(
            Entry(
                title=_("%(league)s: the %(season)s season's final table")
                % {"league": league.name, "season": season.name},
                link=reverse("league-season", args=[league.slug, season.pk]),
                description=description,
                at=season.closed_at,
            )
        )
    return entries


def _rated(matches):
    return matches.filter(rated=True).exclude(status__in=UNRATED).exclude(status=Match.Status.VOID)


class EntriesFeed(Feed):
    """What both feeds share: entries (``Entry``) newest first, in Atom."""

    feed_type = Atom1Feed

    def item_title(self, item: Entry) -> str:
        return item.title

    def item_link(self, item: Entry) -> str:
        return item.link

    def item_description(self, item: Entry) -> str:
        return item.description

    def item_updateddate(self, item: Entry) -> datetime:
        return item.at

    def item_pubdate(self, item: Entry) -> datetime:
        return item.at

    def feed_updateddate(self, obj) -> datetime:
        entries = self.items(obj)
        return entries[0].at if entries else timezone.now()


class LeagueFeed(EntriesFeed):
    def get_object(self, request, slug):
        league = get_object_or_404(League.objects.select_related("game"), slug=slug)
        league.entries = None
        return league

    def title(self, league: League) -> str:
        return _("%(league)s: results, rating lists and seasons") % {"league": league.name}

    def subtitle(self, league: League) -> str:
        return _("The newest rated results of %(league)s and the official rating lists of %(game)s.") % {
            "league": league.name,
            "game": league.game.name,
        }

    def link(self, league: League) -> str:
        return league.get_absolute_url()

    def items(self, league: League) -> list[Entry]:
        if league.entries is None:
            matches = list(
                _rated(Match.objects.filter(league=league))
                .select_related("game")
                .order_by("-played_at", "-id")[:RESULTS]
            )
            lists = [
                _list_entry(
                    rating_list,
                    ngettext("%(players)d player.", "%(players)d players.", rating_list.players)
                    % {"players": rating_list.players},
                )
                for rating_list in rating_lists_of(game=league.game).select_related("game")[:LISTS]
            ]
            seasons = _season_entries(league)
            league.entries = sorted([*_results(matches), *lists, *seasons], key=lambda entry: entry.at, reverse=True)
        return league.entries


class PlayerFeed(EntriesFeed):
    def get_object(self, request, pk):
        player = get_object_or_404(Player, pk=pk)
        player.entries = None
        return player

    def title(self, player: Player) -> str:
        return _("%(player)s: results and rating lists") % {"player": player.name}

    def subtitle(self, player: Player) -> str:
        return _("%(player)s's newest rated results and lines in the official rating lists.") % {"player": player.name}

    def link(self, player: Player) -> str:
        return player.get_absolute_url()

    def items(self, player: Player) -> list[Entry]:
        if player.entries is None:
            matches = list(
                _rated(Match.objects.filter(seats__player=player))
                .select_related("game")
                .distinct()
                .order_by("-played_at", "-id")[:RESULTS]
            )
            lines = [
                _list_entry(
                    line.rating_list,
                    _("Rank %(rank)d, rating %(rating)s.")
                    % {
                        "rank": line.rank,
                        "rating": line.shown_rating,
                    },
                )
                for line in profile_list_lines(player)[:LISTS]
            ]
            player.entries = sorted([*_results(matches, only=player), *lines], key=lambda entry: entry.at, reverse=True)
        return player.entries


#: The seasons a league's calendar holds (the newest; a league has a few a year).
SEASONS = 100


def league_seasons_ics(request, slug):
    """``GET leagues/SLUG/seasons.ics``: each season an all-day event from its first day through its last (an
    all-day event's end is the day after, RFC 5545), its id stable across downloads so a calendar updates
    an edited season rather than adding it twice."""
    import icalendar
    from django.http import HttpResponse

    league = get_object_or_404(League.objects.select_related("game"), slug=slug)
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Cardrank//seasons//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", _("%(league)s seasons") % {"league": league.name})
    host = request.get_host().split(":")[0]
    stamp = timezone.now()
    for season in league.seasons.order_by("-first_day")[:SEASONS]:
        event = icalendar.Event()
        event.add("uid", f"season-{season.pk}@{host}")
        event.add("dtstamp", stamp)
        event.add("summary", f"{league.name}: {season.name}")
        event.add("dtstart", season.first_day)
        event.add("dtend", season.last_day + timedelta(days=1))
        event.add("url", request.build_absolute_uri(league.get_absolute_url()))
        calendar.add_component(event)
    response = HttpResponse(calendar.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{league.slug}-seasons.ics"'
    return response
