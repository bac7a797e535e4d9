"""Seasons' tables, their end, and the moves between leagues (issue 27).

A season (``leagues.Season``) is a stretch of whole days of a league's calendar. Its table ranks the
players of the results filed under the league and rated in those days, by the league's rule
(``League.season_rule``):

- **points**: each result's points, a win, a draw or a loss (``season_win_points`` ...). A result of
  more than two sides (a Preferans table, a bridge session's pairs) counts each other side of the same
  contest as one result shared out: beating two of three opponents at a table of four is
  (2 * win + loss) / 3. The game's kind says what the contests and sides are (``season_sides``);
- **best**: the same points, the best ``season_best_of`` results only (a Bridgewebs ladder);
- **rating**: the rating the player gained in the season's results (the ledger's changes, summed).

A player is listed with at least ``season_min_results`` results; equal points share a rank (1, 1, 3).
Won, drawn and lost count each opponent beaten, tied with or beaten by.

While a season runs, its table is worked out again by a task (after results are rated and hourly,
``season_tables_refresh``); pages read the stored lines. At its end (local midnight after the last day)
the periodic task closes it (``season_close``): the table is worked out a last time with every result of
the season rated, frozen, and the league's top and bottom players move to the leagues it names
(``season_up``, ``season_down``), recorded as ``SeasonMove``, with an audit entry; every replay of the
game's ratings makes the moves again at the season's end (``ratings.replay``).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from config.decimals import CENT
from leagues.models import League, Player, Season, SeasonMove, SeasonStanding, local_midnight
from leagues.signals import season_closed
from matches.models import AuditEntry, Match
from ratings.ledger import rating_replay_mark, rating_state_lock
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_process_game

#: Matches read at a time while a table is worked out.
CHUNK = 500


def season_bounds(season: Season) -> tuple[datetime.datetime, datetime.datetime]:
    """[start, end) of a season in UTC: local midnight of its first day to local midnight after its last
    (the site's time zone, as rating periods and lists count days)."""
    zone = timezone.get_default_timezone()
    return local_midnight(season.first_day, zone), local_midnight(season.last_day + datetime.timedelta(days=1), zone)


@dataclass
class Line:
    """A player's line while a table is worked out."""

    player_id: int
    points: Decimal = Decimal(0)
    results: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    each: list[Decimal] = field(default_factory=list)  # each result's points (the best-N rule)


def _season_matches(season: Season):
    start, end = season_bounds(season)
    return Match.objects.filter(
        league_id=season.league_id, status=Match.Status.RATED, played_at__gte=start, played_at__lt=end
    )


def _points_lines(season: Season, league: League) -> dict[int, Line]:
    kind = league.game.kind
    win, draw, loss = league.season_win_points, league.season_draw_points, league.season_loss_points
    lines: dict[int, Line] = {}
    ids = list(_season_matches(season).order_by("played_at", "id").values_list("id", flat=True))
    for first in range(0, len(ids), CHUNK):
        for contests in kind.season_sides(ids[first : first + CHUNK]).values():
            for sides in contests:
                if len(sides) < 2:
                    continue
                for position, (score, players) in enumerate(sides):
                    if not players:
                        continue  # a bot
                    beaten = tied = lost = 0
                    for other, (other_score, _players) in enumerate(sides):
                        if other == position:
                            continue
                        if score > other_score:
                            beaten += 1
                        elif score == other_score:
                            tied += 1
                        else:
                            lost += 1
                    points = (beaten * win + tied * draw + lost * loss) / (len(sides) - 1)
                    for player_id in players:
                        line = lines.setdefault(player_id, Line(player_id))
                        line.results += 1
                        line.won, line.drawn, line.lost = line.won + beaten, line.drawn + tied, line.lost + lost
                        line.each.append(points)
    best = league.season_best_of if league.season_rule == League.SeasonRule.BEST else None
    for line in lines.values():
        counted = sorted(line.each, reverse=True)[:best] if best else line.each
        line.points = sum(counted, Decimal(0)).quantize(CENT)
    return lines


def _rating_lines(season: Season) -> dict[int, Line]:
    rows = (
        RatingChange.objects.filter(match__in=_season_matches(season))
        .values("player_id")
        .annotate(gained=Sum("delta"), results=Count("match_id", distinct=True))
    )
    return {row["player_id"]: Line(row["player_id"], points=row["gained"], results=row["results"]) for row in rows}


def season_table(season: Season) -> list[SeasonStanding]:
    """The season's table as it stands, unsaved: the lines of the players listed, ranked (see the module)."""
    league = League.objects.select_related("game").get(pk=season.league_id)
    rating = league.season_rule == League.SeasonRule.RATING
    lines = _rating_lines(season) if rating else _points_lines(season, league)
    listed = [line for line in lines.values() if line.results >= league.season_min_results]
    names = dict(Player.objects.filter(pk__in=[line.player_id for line in listed]).values_list("pk", "name"))
    listed.sort(key=lambda line: (-line.points, -line.won, line.results, names.get(line.player_id, ""), line.player_id))
    standings: list[SeasonStanding] = []
    for position, line in enumerate(listed):
        previous = standings[-1] if standings else None
        tied = previous is not None and previous.points == line.points
        if tied:
            previous.tied = True
        standings.append(
            SeasonStanding(
                season=season,
                rank=previous.rank if tied else position + 1,
                player_id=line.player_id,
                name=names.get(line.player_id, "?"),
                points=line.points,
                results=line.results,
                won=line.won,
                drawn=line.drawn,
                lost=line.lost,
                tied=tied,
            )
        )
    return standings


def _table_write(season: Season, now: datetime.datetime) -> list[SeasonStanding]:
    standings = season_table(season)
    SeasonStanding.objects.filter(season=season).delete()
    SeasonStanding.objects.bulk_create(standings, batch_size=1000)
    Season.objects.filter(pk=season.pk).update(table_at=now)
    season.table_at = now
    return standings


def season_table_refresh(*, season_id: int, now: datetime.datetime | None = None) -> bool:
    """Work out a running season's table again and store it; False (nothing done) once it is closed."""
    now = now or timezone.now()
    with transaction.atomic():
        season = Season.objects.select_for_update().filter(pk=season_id).first()
        if season is None or season.closed_at is not None:
            return False
        _table_write(season, now)
    return True


def seasons_running(*, league_ids, now: datetime.datetime | None = None) -> list[int]:
    """The seasons of these leagues whose days include today (site time zone) and that are not closed."""
    today = timezone.localdate(now or timezone.now(), timezone.get_default_timezone())
    return list(
        Season.objects.filter(
            league_id__in=list(league_ids), first_day__lte=today, last_day__gte=today, closed_at__isnull=True
        ).values_list("pk", flat=True)
    )


def _moves(season: Season, league: League, standings: list[SeasonStanding]) -> list[SeasonMove]:
    """The top ``season_up_count`` and bottom ``season_down_count`` listed players still in the league."""
    _start, end = season_bounds(season)
    in_league = set(
        PlayerRating.objects.filter(
            game_id=league.game_id, league=league, player_id__in=[line.player_id for line in standings]
        ).values_list("player_id", flat=True)
    )
    eligible = [line for line in standings if line.player_id in in_league]
    up = eligible[: league.season_up_count] if league.season_up_id else []
    taken = {line.player_id for line in up}
    down = (
        [line for line in eligible[::-1] if line.player_id not in taken][: league.season_down_count][::-1]
        if league.season_down_id
        else []
    )
    return [
        SeasonMove(
            season=season,
            player_id=line.player_id,
            game_id=league.game_id,
            from_league=league,
            to_league_id=target,
            direction=direction,
            at=end,
        )
        for lines, target, direction in (
            (up, league.season_up_id, SeasonMove.Direction.UP),
            (down, league.season_down_id, SeasonMove.Direction.DOWN),
        )
        for line in lines
    ]


@dataclass
class Closed:
    season: Season
    closed: bool  # False: it was closed already (nothing done)
    moves: list[SeasonMove] = field(default_factory=list)


def season_close(*, season_id: int, now: datetime.datetime | None = None, by=None) -> Closed:
    """End a season: its table worked out a last time and frozen, its moves made (see the module).

    Refused (ValidationError) before the season's last day is over. Closing a closed season is a no-op
    (``Closed.closed`` False). The game's waiting results are rated first, so the table counts them all.
    """
    now = now or timezone.now()
    season = Season.objects.select_related("league").filter(pk=season_id).first()
    if season is None:
        raise ValidationError({"season": [_("No such season.")]})
    _start, end = season_bounds(season)
    if end > now:
        raise ValidationError(
            {"last_day": [_("The season runs until the end of %(day)s.") % {"day": season.last_day.isoformat()}]}
        )
    if season.closed_at is not None:
        return Closed(season, closed=False)
    game_id = season.league.game_id
    ratings_process_game(game_id=game_id)
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)  # the ledger and the leagues hold still
        season = Season.objects.select_for_update().select_related("league").get(pk=season_id)
        if season.closed_at is not None:
            return Closed(season, closed=False)
        league = season.league
        standings = _table_write(season, now)
        moves = _moves(season, league, standings)
        SeasonMove.objects.bulk_create(moves)
        for move in moves:
            PlayerRating.objects.filter(game_id=game_id, player_id=move.player_id).update(league_id=move.to_league_id)
        if moves and RatingChange.objects.filter(game_id=game_id, played_at__gte=end).exists():
            rating_replay_mark(state=state, played_at=end, match_id=0)  # results after the end: rated again
        season.closed_at = now
        season.save(update_fields=["closed_at"])
        names = {line.player_id: line.name for line in standings}
        slugs = dict(League.objects.filter(game_id=game_id).values_list("pk", "slug"))
        AuditEntry.objects.create(
            actor=by if by is not None and by.is_authenticated else None,
            action=AuditEntry.Action.SEASON,
            match=None,
            data={
                "season": season.pk,
                "league": league.slug,
                "name": season.name,
                "champion": standings[0].player_id if standings else None,
                "moves": [
                    {
                        "player": move.player_id,
                        "name": names[move.player_id],
                        "direction": move.direction,
                        "to": slugs[move.to_league_id],
                    }
                    for move in moves
                ],
            },
        )
        transaction.on_commit(lambda: season_closed.send_robust(sender=Season, season_id=season_id))
    if moves:
        ratings_process_game(game_id=game_id)
    return Closed(season, closed=True, moves=moves)


def seasons_close_due(*, now: datetime.datetime | None = None) -> int:
    """Close every season whose last day is over (the periodic task); refresh the running ones' tables.
    Returns how many were closed."""
    now = now or timezone.now()
    today = timezone.localdate(now, timezone.get_default_timezone())
    closed = 0
    for season_id in Season.objects.filter(closed_at__isnull=True, last_day__lt=today).values_list("pk", flat=True):
        if season_close(season_id=season_id, now=now).closed:
            closed += 1
    for season_id in Season.objects.filter(
        closed_at__isnull=True, first_day__lte=today, last_day__gte=today
    ).values_list("pk", flat=True):
        season_table_refresh(season_id=season_id, now=now)
    return closed
