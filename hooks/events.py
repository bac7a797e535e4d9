"""The events' bodies: what a receiver is told, read from the database in a few bounded queries.

A body is ``{"event", "id", "created", "data", "text", "content"}``: ``data`` holds the facts (ids, names,
ratings as strings, absolute URLs from ``CARDRANK_SITE_URL``); ``text`` is a one-paragraph summary for a
person, which is what a chat service's incoming webhook shows (Slack, Mattermost and Rocket.Chat read
``text``, Discord reads ``content``: the same words, cut to fit Discord's limit). ``id`` is the delivery's
own id and ``created`` its time, so each webhook's body is its own (``body``).

The facts of an event are read once (``results_facts``, ``list_facts``, ``season_facts``, ``ping_facts``)
and shared by every webhook that wants it; reads only, no writes.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Max, OuterRef, Subquery, Sum
from django.urls import reverse
from django.utils import translation
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.decimals import CENT
from hooks.models import Event
from leagues.models import Game, League, Season, SeasonStanding
from matches.models import Match
from ratings.models import RatingChange, RatingList, RatingListRow

#: Results in one ``result.rated`` event at most: a larger send (an import) becomes several events.
RESULTS_PER_EVENT = 100
#: Rows of a list or season table an event carries (the whole is on its page).
TOP_ROWS = 10
#: Results named in an event's ``text``; the rest are counted.
TEXT_RESULTS = 5
#: Discord's ``content`` holds at most 2,000 characters.
CONTENT_MAX = 1900
DEFAULT_SITE_URL = "http://127.0.0.1:8000"


def absolute(path: str) -> str:
    """``path`` on this site, for a reader elsewhere (a task has no request to build it from)."""
    return (getattr(settings, "CARDRANK_SITE_URL", "") or DEFAULT_SITE_URL).rstrip("/") + path


def _iso(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def _number(value) -> str | None:
    """A rating or points as a string with two decimals, however the database returned it (SQLite sums
    decimals as floating point)."""
    return None if value is None else str(Decimal(str(value)).quantize(CENT))


def _in_words(text: str) -> str:
    """A number of the ``text`` (never of ``data``) with the decimal separator of the active language."""
    return text.replace(".", get_format("DECIMAL_SEPARATOR"))


def _signed(value: Decimal) -> str:
    shown = value.normalize() if value == value.to_integral() else value
    shown = _in_words(f"{shown:f}")
    return shown if value < 0 else f"+{shown}"


def _whole(value: Decimal) -> str:
    return _in_words(f"{value.to_integral_value():f}" if value == value.to_integral_value() else f"{value:f}")


def in_site_language(facts_of):
    """An event's ``text`` goes to a club's chat, read by everyone there: it is written in the site's
    language (``LANGUAGE_CODE``), never in that of the request or worker that happens to build it."""

    @functools.wraps(facts_of)
    def wrapped(*args, **kwargs):
        with translation.override(settings.LANGUAGE_CODE):
            return facts_of(*args, **kwargs)

    return wrapped


def _league(league: League | None) -> dict | None:
    if league is None:
        return None
    return {
        "id": league.pk,
        "slug": league.slug,
        "name": league.name,
        "url": absolute(reverse("league-leaderboard", args=[league.slug])),
    }


def _game(game: Game) -> dict:
    return {"id": game.pk, "slug": game.slug, "name": game.name}


@dataclass
class Facts:
    """What an event says, before it becomes a webhook's body: its data and its text."""

    event: str
    data: dict
    text: str


@dataclass
class RatedResult:
    match_id: int
    league_id: int | None
    facts: dict
    players: list[dict] = field(default_factory=list)
    last_change_id: int = 0


def results_read(*, game_id: int, match_ids: list[int]) -> tuple[Game, list[RatedResult]]:
    """The rated results ``match_ids`` (in the order given), each with its players' change summed over its
    units and their rating after it: two queries a ``RESULTS_PER_EVENT`` of them."""
    game = Game.objects.get(pk=game_id)
    results: list[RatedResult] = []
    for start in range(0, len(match_ids), RESULTS_PER_EVENT):
        chunk = match_ids[start : start + RESULTS_PER_EVENT]
        matches = {
            match.pk: match
            for match in Match.objects.filter(pk__in=chunk)
            .select_related("league")
            .only("id", "played_at", "league__id", "league__slug", "league__name", "league__game_id")
        }
        rating_after = (
            RatingChange.objects.filter(match_id=OuterRef("match_id"), player_id=OuterRef("player_id"))
            .order_by("-unit")
            .values("rating_after")[:1]
        )
        totals = (
            RatingChange.objects.filter(match_id__in=chunk)
            .values("match_id", "player_id", "player__name")
            .annotate(change=Sum("delta"), last_id=Max("id"), rating=Subquery(rating_after))
            .order_by("match_id", "-change", "player__name")
        )
        players: dict[int, list[dict]] = {}
        last_ids: dict[int, int] = {}
        for row in totals:
            players.setdefault(row["match_id"], []).append(
                {
                    "id": row["player_id"],
                    "name": row["player__name"],
                    "url": absolute(reverse("player-profile", args=[row["player_id"]])),
                    "rating": _number(row["rating"]),
                    "change": _number(row["change"]),
                }
            )
            last_ids[row["match_id"]] = max(last_ids.get(row["match_id"], 0), row["last_id"])
        for match_id in chunk:
            match = matches.get(match_id)
            if match is None:
                continue
            results.append(
                RatedResult(
                    match_id=match_id,
                    league_id=match.league_id,
                    facts={
                        "id": match_id,
                        "url": absolute(reverse("match-detail", args=[match_id])),
                        "played_at": _iso(match.played_at),
                        "league": _league(match.league),
                        "players": players.get(match_id, []),
                    },
                    players=players.get(match_id, []),
                    last_change_id=last_ids.get(match_id, 0),
                )
            )
    return game, results


@in_site_language
def results_facts(*, game: Game, results: list[RatedResult], part: int, parts: int) -> Facts:
    """One ``result.rated`` event: up to ``RESULTS_PER_EVENT`` results, part ``part`` of ``parts``."""
    data = {
        "game": _game(game),
        "results": [result.facts for result in results],
        "part": part,
        "parts": parts,
    }
    lines = []
    for result in results[:TEXT_RESULTS]:
        players = ", ".join(
            f"{player['name']} {_whole(Decimal(player['rating']))} ({_signed(Decimal(player['change']))})"
            for player in result.players
            if player["rating"] is not None and player["change"] is not None
        )
        lines.append(f"{players} <{result.facts['url']}>" if players else f"<{result.facts['url']}>")
    text = ngettext("%(game)s: %(count)s result rated.", "%(game)s: %(count)s results rated.", len(results)) % {
        "game": game.name,
        "count": len(results),
    }
    if lines:
        text += " " + "; ".join(lines)
    if len(results) > TEXT_RESULTS:
        text += " " + _("…and %(more)s more.") % {"more": len(results) - TEXT_RESULTS}
    if parts > 1:
        text += " " + _("(Part %(part)s of %(parts)s.)") % {"part": part, "parts": parts}
    return Facts(event=Event.RESULT_RATED, data=data, text=text)


@in_site_language
def list_facts(*, rating_list: RatingList) -> Facts:
    game = rating_list.game
    day = rating_list.day.isoformat()
    url = absolute(reverse("rating-list", args=[game.slug, day]))
    if rating_list.version > 1:
        url += f"?version={rating_list.version}"
    rows = list(RatingListRow.objects.filter(rating_list=rating_list).order_by("rank", "name", "player_id")[:TOP_ROWS])
    data = {
        "game": _game(game),
        "date": day,
        "version": rating_list.version,
        "published_at": _iso(rating_list.published_at),
        "players": rating_list.players,
        "url": url,
        "csv_url": absolute(reverse("rating-list-csv", args=[game.slug, day])),
        "top": [
            {
                "rank": row.rank,
                "player": {
                    "id": row.player_id,
                    "name": row.name,
                    "url": absolute(reverse("player-profile", args=[row.player_id])),
                },
                "rating": _number(row.rating),
                "peak": _number(row.peak),
                "units": row.units,
                "change": _number(row.change),
                "new": row.new,
                "provisional": row.provisional,
                "inactive": row.inactive,
            }
            for row in rows
        ],
    }
    leaders = ", ".join(f"{row.rank}. {row.name} {_whole(row.rating)}" for row in rows[:3])
    text = ngettext(
        "%(game)s rating list of %(day)s published: %(count)s player.",
        "%(game)s rating list of %(day)s published: %(count)s players.",
        rating_list.players,
    ) % {"game": game.name, "day": day, "count": rating_list.players}
    if leaders:
        text += " " + leaders + "."
    text += f" <{url}>"
    return Facts(event=Event.LIST_PUBLISHED, data=data, text=text)


@in_site_language
def season_facts(*, season: Season) -> Facts:
    league = season.league
    standings = list(SeasonStanding.objects.filter(season=season).order_by("rank", "name", "player_id")[:TOP_ROWS])
    data = {
        "game": _game(league.game),
        "league": _league(league),
        "season": {
            "id": season.pk,
            "name": season.name,
            "first_day": season.first_day.isoformat(),
            "last_day": season.last_day.isoformat(),
            "closed_at": _iso(season.closed_at) if season.closed_at else None,
        },
        "standings": [
            {
                "rank": line.rank,
                "player": {
                    "id": line.player_id,
                    "name": line.name,
                    "url": absolute(reverse("player-profile", args=[line.player_id])),
                },
                "points": _number(line.points),
                "results": line.results,
                "won": line.won,
                "drawn": line.drawn,
                "lost": line.lost,
                "tied": line.tied,
            }
            for line in standings
        ],
    }
    text = _("%(league)s: season %(season)s (%(first)s to %(last)s) is over.") % {
        "league": league.name,
        "season": season.name,
        "first": data["season"]["first_day"],
        "last": data["season"]["last_day"],
    }
    if standings:
        podium = ", ".join(f"{line.rank}. {line.name} ({_whole(line.points)})" for line in standings[:3])
        text += " " + _("Champion: %(name)s.") % {"name": standings[0].name} + " " + podium + "."
    text += f" <{data['league']['url']}>"
    return Facts(event=Event.SEASON_CLOSED, data=data, text=text)


@in_site_language
def ping_facts(*, webhook_name: str, by: str) -> Facts:
    data = {"webhook": webhook_name, "by": by}
    text = _("Cardrank test event for the webhook %(name)s: it reaches you.") % {"name": webhook_name}
    return Facts(event=Event.PING, data=data, text=text)


def body(*, facts: Facts, delivery_id: str, created: datetime.datetime) -> dict:
    """The JSON body of ``facts`` for one delivery."""
    return {
        "event": str(facts.event),
        "id": delivery_id,
        "created": _iso(created),
        "data": facts.data,
        "text": facts.text,
        "content": facts.text if len(facts.text) <= CONTENT_MAX else facts.text[: CONTENT_MAX - 1] + "…",
    }
