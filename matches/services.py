"""Writing results: the one path shared by the HTMX pages, the API and admin.

``match_submit`` validates a result given as plain data (a JSON body, or a
form turned into the same shape), stores it, and on commit queues its
rating. Validation lives here and nowhere else, so the page and the API
always agree. Errors are raised as ``ValidationError`` keyed by the field
the user got wrong (``game``, ``played_at``, ``players``, ``winner`` ...);
nothing is stored when any field is wrong.

Body shapes are those of API.md, e.g. for Slaps::

    {"game": "slaps", "played_at": "2026-11-01T18:00:00Z", "rated": true,
     "players": [12, 13], "winner": 12}
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import slug_re
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from config.decimals import CENT
from config.permissions import user_can_submit, user_can_void
from games.bridge.results import BRIDGE_IMPS_LIMIT, BRIDGE_MAX_BOARDS, BRIDGE_MAX_TABLES, BRIDGE_SCORE_LIMIT
from games.preferans.results import PREFERANS_MAX_DEALS, PREFERANS_SEATS, WHIST_LIMIT
from leagues.models import Bot, Game, League, Player
from matches.models import AuditEntry, Board, BoardTable, Deal, Match, ResultsVersion, Seat
from matches.selectors import (
    match_as_body,
    match_author_id,
    match_detail,
    match_version_id,
    player_leagues_in_game,
)
from ratings.ledger import rating_replay_mark, rating_state_lock
from ratings.services import ratings_enqueue

MAX_ID = 2**63 - 1
# Clocks of referees' devices drift; a result a few minutes "in the future" is accepted.
FUTURE_TOLERANCE = timedelta(minutes=10)


def results_version_bump(*, game_ids) -> None:
    """Raise the results version of these games (see ``ResultsVersion``); call it last in the write's transaction.

    One upsert per game, which PostgreSQL and SQLite both run; the row lock
    it takes is held until the commit, so it goes after every other write.
    """
    table = connection.ops.quote_name(ResultsVersion._meta.db_table)
    with connection.cursor() as cursor:
        for game_id in sorted(set(game_ids)):  # one order for every writer: no deadlock between two games
            cursor.execute(
                f"INSERT INTO {table} (game_id, version) VALUES (%s, 1) "  # noqa: S608 - the table name is ours
                f"ON CONFLICT (game_id) DO UPDATE SET version = {table}.version + 1",
                [game_id],
            )


@dataclass(frozen=True)
class SeatInput:
    player: Player | None
    result: Decimal
    bot: Bot | None = None


@dataclass(frozen=True)
class TableInput:
    table: int
    ns: tuple[Player, Player]  # lowest id first
    ew: tuple[Player, Player]
    ns_score: int | None = None
    ns_imps: Decimal | None = None


@dataclass(frozen=True)
class BoardInput:
    number: int
    tables: tuple[TableInput, ...]


@dataclass(frozen=True)
class GameInput:
    """What a game-specific cleaner returns: the seats and the deals (Preferans) or boards (bridge)."""

    seats: tuple[SeatInput, ...] = ()
    deals: tuple[tuple[Decimal, ...], ...] = ()
    boards: tuple[BoardInput, ...] = ()


@dataclass(frozen=True)
class MatchInput:
    game: Game
    played_at: datetime
    rated: bool
    seats: tuple[SeatInput, ...]
    deals: tuple[tuple[Decimal, ...], ...] = ()
    boards: tuple[BoardInput, ...] = ()
    league: League | None = None
    leagues: tuple[League, ...] = ()  # all the game's leagues, as read while cleaning


class _Errors(dict):
    def add(self, field: str, message: str) -> None:
        self.setdefault(field, []).append(message)


# --- field cleaners: each returns a value or records an error ----------------------------------


def _is_slug(value: Any) -> bool:
    """Only well-formed slugs are looked up: anything else (a NUL byte, say) is simply unknown."""
    return isinstance(value, str) and slug_re.fullmatch(value) is not None


def _clean_game(value: Any, errors: _Errors) -> Game | None:
    if value in (None, ""):
        errors.add("game", "This field is required.")
        return None
    if not isinstance(value, str):
        errors.add("game", 'Give the game\'s slug, e.g. "slaps".')
        return None
    game = Game.objects.filter(slug=value).first() if _is_slug(value) else None
    if game is None:
        slugs = ", ".join(Game.objects.order_by("slug").values_list("slug", flat=True))
        errors.add("game", f"Unknown game {value[:50]!r}. Known games: {slugs}.")
    return game


def _clean_played_at(value: Any, errors: _Errors) -> datetime | None:
    if value in (None, ""):
        errors.add("played_at", "This field is required.")
        return None
    if isinstance(value, datetime):
        played_at = value
    elif isinstance(value, str):
        try:
            played_at = parse_datetime(value.strip())
        except ValueError:
            played_at = None
        if played_at is None:
            errors.add("played_at", "Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z).")
            return None
    else:
        errors.add("played_at", "Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z).")
        return None
    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at)
    if played_at > timezone.now() + FUTURE_TOLERANCE:
        errors.add("played_at", "The match cannot have been played in the future.")
        return None
    if played_at.year < 1900:
        errors.add("played_at", "The date is too far in the past.")
        return None
    return played_at


def _clean_rated(value: Any, errors: _Errors) -> bool | None:
    if value is None or value == "":
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "1", "on", "yes", "rated"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "0", "off", "no", "friendly"}:
        return False
    errors.add("rated", "Must be true (rated) or false (friendly).")
    return None


def _parse_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii() and len(value.strip()) <= 20:
        number = int(value.strip())
    else:
        return None
    return number if 1 <= number <= MAX_ID else None


def _clean_slaps(data: Mapping[str, Any], errors: _Errors, game: Game) -> GameInput:
    raw_players = data.get("players")
    if raw_players in (None, "", []):
        errors.add("players", "This field is required: the two players' ids.")
        return GameInput()
    if not isinstance(raw_players, list | tuple):
        errors.add("players", "Give a list of two player ids.")
        return GameInput()
    if len(raw_players) != 2:
        errors.add("players", f"A Slaps match has exactly two players, not {len(raw_players)}.")
        return GameInput()
    ids = [_parse_id(value) for value in raw_players]
    if None in ids:
        errors.add("players", "Player ids must be positive whole numbers.")
        return GameInput()
    if ids[0] == ids[1]:
        errors.add("players", "The same player cannot play both sides of a match.")
        return GameInput()
    players = Player.objects.in_bulk(ids)
    missing = [str(player_id) for player_id in ids if player_id not in players]
    if missing:
        errors.add("players", f"Unknown player id(s): {', '.join(missing)}.")
        return GameInput()
    raw_winner = data.get("winner")
    if raw_winner in (None, ""):
        errors.add("winner", "This field is required: the id of the player who won.")
        return GameInput()
    winner = _parse_id(raw_winner)
    if winner not in ids:
        errors.add("winner", "The winner must be one of the match's two players.")
        return GameInput()
    return GameInput(
        seats=tuple(
            SeatInput(player=players[player_id], result=Decimal(1 if player_id == winner else 0)) for player_id in ids
        )
    )


def _clean_whist(value: Any) -> Decimal | None:
    """A finite number with at most two decimals within +-10,000, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        return None
    try:
        number = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    if not number.is_finite() or abs(number) > WHIST_LIMIT or number != number.quantize(CENT):
        return None
    return number.quantize(CENT)


def _clean_preferans_seats(raw_seats: Any, errors: _Errors, game: Game) -> tuple[SeatInput, ...]:
    low, high = PREFERANS_SEATS
    if raw_seats in (None, "", []):
        errors.add("seats", f'This field is required: {low} to {high} seats, each {{"player": id}} or {{"bot": slug}}.')
        return ()
    if not isinstance(raw_seats, list | tuple):
        errors.add("seats", "Give a list of seats.")
        return ()
    if not low <= len(raw_seats) <= high:
        errors.add("seats", f"A Preferans table has {low} to {high} seats, not {len(raw_seats)}.")
        return ()
    player_ids: list[int] = []
    bot_slugs: list[str] = []
    shapes: list[tuple[str, Any]] = []
    for number, seat in enumerate(raw_seats, start=1):
        if not isinstance(seat, Mapping) or len(seat) != 1 or next(iter(seat)) not in ("player", "bot"):
            errors.add("seats", f'Seat {number}: give either {{"player": id}} or {{"bot": slug}}.')
            return ()
        kind, value = next(iter(seat.items()))
        if kind == "player":
            player_id = _parse_id(value)
            if player_id is None:
                errors.add("seats", f"Seat {number}: player ids are positive whole numbers.")
                return ()
            player_ids.append(player_id)
            shapes.append(("player", player_id))
        else:
            if not isinstance(value, str) or not value.strip():
                errors.add("seats", f'Seat {number}: a bot is named by its difficulty, e.g. "normal".')
                return ()
            bot_slugs.append(value.strip())
            shapes.append(("bot", value.strip()))
    if not player_ids:
        errors.add("seats", "At least one seat must be a player: bots are never rated.")
        return ()
    if len(set(player_ids)) != len(player_ids):
        errors.add("seats", "The same player cannot hold two seats.")
        return ()
    players = Player.objects.in_bulk(player_ids)
    missing = [str(player_id) for player_id in player_ids if player_id not in players]
    if missing:
        errors.add("seats", f"Unknown player id(s): {', '.join(missing)}.")
        return ()
    wanted = [slug for slug in bot_slugs if _is_slug(slug)]
    bots = {bot.slug: bot for bot in Bot.objects.filter(game=game, slug__in=wanted, active=True)}
    unknown = sorted({slug for slug in bot_slugs if slug not in bots})
    if unknown:
        known = ", ".join(Bot.objects.filter(game=game, active=True).values_list("slug", flat=True))
        shown = ", ".join(repr(slug[:30]) for slug in unknown)
        errors.add("seats", f"Unknown bot(s): {shown}. Bots: {known}.")
        return ()
    return tuple(
        SeatInput(player=players[value], result=Decimal(0))
        if kind == "player"
        else SeatInput(player=None, bot=bots[value], result=Decimal(0))
        for kind, value in shapes
    )


def _clean_preferans(data: Mapping[str, Any], errors: _Errors, game: Game) -> GameInput:
    seats = _clean_preferans_seats(data.get("seats"), errors, game)
    raw_deals = data.get("deals")
    if raw_deals in (None, "", []):
        errors.add("deals", "This field is required: at least one deal, each the whists of every seat.")
        return GameInput()
    if not isinstance(raw_deals, list | tuple):
        errors.add("deals", "Give a list of deals, each a list of whists in seat order.")
        return GameInput()
    if len(raw_deals) > PREFERANS_MAX_DEALS:
        errors.add("deals", f"At most {PREFERANS_MAX_DEALS} deals in one game.")
        return GameInput()
    deals: list[tuple[Decimal, ...]] = []
    for number, raw in enumerate(raw_deals, start=1):
        if not isinstance(raw, list | tuple):
            errors.add("deals", f"Deal {number}: give a list of whists, one per seat.")
            continue
        if seats and len(raw) != len(seats):
            errors.add("deals", f"Deal {number}: {len(raw)} scores for {len(seats)} seats.")
            continue
        whists = tuple(_clean_whist(value) for value in raw)
        if None in whists:
            errors.add(
                "deals", f"Deal {number}: whists are numbers with at most two decimals, each within \u00b110,000."
            )
            continue
        total = sum(whists, Decimal(0))
        if total != 0:
            errors.add("deals", f"Deal {number}: the whists sum to {total:+}, not 0 (each deal is zero-sum).")
            continue
        deals.append(whists)
    if not seats or "deals" in errors:
        return GameInput()
    totals = [sum((deal[index] for deal in deals), Decimal(0)) for index in range(len(seats))]
    return GameInput(
        seats=tuple(
            SeatInput(player=seat.player, bot=seat.bot, result=total) for seat, total in zip(seats, totals, strict=True)
        ),
        deals=tuple(deals),
    )


BRIDGE_SCORE_TEXT = re.compile(r"-?[0-9]{1,7}")


def _bridge_score(value: Any) -> int | None:
    """A table's NS score as a number, or None: a whole multiple of 10 within +-10,000, given as a
    JSON integer or as text ("420", " -50 "). The one reading of a score, for the API, the entry
    page and its preview alike."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and BRIDGE_SCORE_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or abs(value) > BRIDGE_SCORE_LIMIT or value % 10:
        return None
    return value


def _clean_pair(raw: Any, where: str, errors: _Errors) -> tuple[int, int] | None:
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        errors.add("boards", f"{where}: a pair is a list of two player ids.")
        return None
    ids = [_parse_id(value) for value in raw]
    if None in ids:
        errors.add("boards", f"{where}: player ids are positive whole numbers.")
        return None
    if ids[0] == ids[1]:
        errors.add("boards", f"{where}: a pair needs two different players.")
        return None
    return (min(ids), max(ids))


def _clean_bridge_table(raw: Any, where: str, errors: _Errors) -> dict | None:
    if not isinstance(raw, Mapping):
        errors.add("boards", f"{where}: a table is an object with ns, ew and ns_score (or ns_imps).")
        return None
    if raw.get("ns") in (None, "", []) or raw.get("ew") in (None, "", []):
        errors.add("boards", f"{where}: both pairs are required (ns and ew), four players in all.")
        return None
    ns = _clean_pair(raw.get("ns"), f"{where}, NS", errors)
    ew = _clean_pair(raw.get("ew"), f"{where}, EW", errors)
    if ns is None or ew is None:
        return None
    table = {"ns": ns, "ew": ew, "ns_score": None, "ns_imps": None}
    has_score, has_imps = raw.get("ns_score") not in (None, ""), raw.get("ns_imps") not in (None, "")
    if has_score and has_imps:
        errors.add("boards", f"{where}: give the NS score or the NS IMPs, not both.")
        return None
    if has_score:
        score = _bridge_score(raw["ns_score"])
        if score is None:
            errors.add(
                "boards", f"{where}: the NS score is a whole multiple of 10 within \u00b1{BRIDGE_SCORE_LIMIT:,}."
            )
            return None
        table["ns_score"] = score
    if has_imps:
        imps = _clean_whist(raw["ns_imps"])
        if imps is None or abs(imps) > BRIDGE_IMPS_LIMIT:
            errors.add("boards", f"{where}: the NS IMPs are a number within \u00b124 with at most two decimals.")
            return None
        table["ns_imps"] = imps
    return table


def _bridge_scoring_error(tables: list[dict]) -> str | None:
    """Which scores a board needs: every table's NS score, or IMPs for one table or a two-table match."""
    scores = [table["ns_score"] is not None for table in tables]
    imps = [table["ns_imps"] is not None for table in tables]
    if len(tables) == 1:
        return None if imps[0] else "a board played at one table is entered in IMPs (ns_imps), not a score"
    if all(scores):
        return None
    if len(tables) == 2 and imps[0] and not scores[1] and not imps[1]:
        return None
    if not any(scores) and not any(imps):
        return "the board has no scores"
    return "give every table's NS score, or for a two-table team match the IMPs of NS at table 1 (with EW at table 2)"


def _clean_bridge(data: Mapping[str, Any], errors: _Errors, game: Game) -> GameInput:
    raw_boards = data.get("boards")
    if raw_boards in (None, "", []):
        errors.add("boards", "This field is required: at least one board with its tables.")
        return GameInput()
    if not isinstance(raw_boards, list | tuple):
        errors.add("boards", "Give a list of boards.")
        return GameInput()
    if len(raw_boards) > BRIDGE_MAX_BOARDS:
        errors.add("boards", f"At most {BRIDGE_MAX_BOARDS} boards in one session.")
        return GameInput()
    boards: list[tuple[int, list[dict]]] = []
    numbers: set[int] = set()
    for position, raw in enumerate(raw_boards, start=1):
        if not isinstance(raw, Mapping):
            errors.add("boards", f"Board {position}: a board is an object with number and tables.")
            continue
        number = _parse_id(raw.get("number", position))
        if number is None or number > 10_000:
            errors.add("boards", f"Board {position}: the board number is a positive whole number.")
            continue
        where = f"Board {number}"
        if number in numbers:
            errors.add("boards", f"{where} appears twice in the session.")
            continue
        numbers.add(number)
        raw_tables = raw.get("tables")
        if not isinstance(raw_tables, list | tuple) or not raw_tables:
            errors.add("boards", f"{where}: no tables, so no scores.")
            continue
        if len(raw_tables) > BRIDGE_MAX_TABLES:
            errors.add("boards", f"{where}: at most {BRIDGE_MAX_TABLES} tables.")
            continue
        tables = [_clean_bridge_table(t, f"{where}, table {i}", errors) for i, t in enumerate(raw_tables, 1)]
        if None in tables:
            continue
        problem = _bridge_scoring_error(tables)
        if problem:
            errors.add("boards", f"{where}: {problem}.")
            continue
        seated = [player for table in tables for pair in (table["ns"], table["ew"]) for player in pair]
        twice = sorted({player for player in seated if seated.count(player) > 1})
        if twice:
            errors.add("boards", f"{where}: player(s) {', '.join(map(str, twice))} sit at two seats of the board.")
            continue
        boards.append((number, tables))
    if "boards" in errors:
        return GameInput()
    ids = sorted({player for _, tables in boards for t in tables for pair in (t["ns"], t["ew"]) for player in pair})
    players = Player.objects.in_bulk(ids)
    missing = [str(player_id) for player_id in ids if player_id not in players]
    if missing:
        errors.add("boards", f"Unknown player id(s): {', '.join(missing)}.")
        return GameInput()
    order: list[int] = []
    for _, tables in boards:
        for table in tables:
            for player in (*table["ns"], *table["ew"]):
                if player not in order:
                    order.append(player)
    return GameInput(
        seats=tuple(SeatInput(player=players[player_id], result=Decimal(0)) for player_id in order),
        boards=tuple(
            BoardInput(
                number=number,
                tables=tuple(
                    TableInput(
                        table=index,
                        ns=(players[t["ns"][0]], players[t["ns"][1]]),
                        ew=(players[t["ew"][0]], players[t["ew"][1]]),
                        ns_score=t["ns_score"],
                        ns_imps=t["ns_imps"],
                    )
                    for index, t in enumerate(tables, start=1)
                ),
            )
            for number, tables in boards
        ),
    )


GAME_CLEANERS: dict[str, Callable[[Mapping[str, Any], _Errors, Game], GameInput]] = {
    "elo": _clean_slaps,
    "preferans": _clean_preferans,
    "bridge": _clean_bridge,
}


def _clean_league(value: Any, leagues: tuple[League, ...], game: Game | None, errors: _Errors) -> League | None:
    if value in (None, ""):
        return None
    if game is None:
        return None
    league = next((league for league in leagues if league.slug == value), None) if _is_slug(value) else None
    if league is None:
        slugs = ", ".join(league.slug for league in leagues)
        errors.add("league", f"Unknown league for {game.name}. Leagues: {slugs}.")
    return league


# Leagues are tiers: a player may play in their own league's results and in any lower tier's.
TIER_RANK = {League.Tier.AMATEUR: 0, League.Tier.PRO: 1}


class _EntryLeague:
    """``match_clean``'s default for a body without ``league``: the game's entry (amateur) league."""


ENTRY_LEAGUE = _EntryLeague()


def _check_league_players(
    league: League, seats: tuple[SeatInput, ...], leagues: tuple[League, ...], errors: _Errors, *, kept: bool
) -> None:
    """Record an error unless every player of the result may play in ``league``.

    A player is in one league of the game at a time: the one their rating
    holds (``PlayerRating.league``: promotion moves them up), or the entry
    (amateur) league until they are first rated. A result filed under a
    league is that league's result, so each of its players must be in that
    league or a higher tier: the pro league's results are between pros, while
    the amateur league, where everyone starts, takes anyone (a pro may play an
    amateur; the pages file every result there). Bots have no league.
    Membership is read when the result is entered or corrected, as
    ``match_needs_confirmation`` reads it.
    """
    rank = TIER_RANK.get(league.tier, 0)
    if rank == 0:
        return  # the entry tier: no query on the usual path
    entry = next((other for other in leagues if other.tier == League.Tier.AMATEUR), None)
    players = [seat.player for seat in seats if seat.player is not None]
    current = player_leagues_in_game(game=league.game_id, player_ids=[player.pk for player in players])
    by_pk = {other.pk: other for other in leagues}
    outside = []
    for player in players:
        own = by_pk.get(current.get(player.pk)) or entry
        if own is None or TIER_RANK.get(own.tier, 0) < rank:
            outside.append((player, own))
    if not outside:
        return
    named = [f"{player.name} (id {player.pk})" for player, _ in outside[:4]]
    if len(outside) > 4:
        named.append(f"{len(outside) - 4} more")
    names = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    their = sorted({own.name if own else "no league" for _, own in outside})
    filed = f"{league.name} ({league.slug})"
    if kept:
        filed += ", where this result is filed (a correction without league keeps it),"
    message = (
        f"{filed} takes results between players of that league or a higher one, but {names} "
        f"{'is' if len(outside) == 1 else 'are'} in {' and '.join(their)}."
    )
    if entry is not None:
        message += f' File the result under "{entry.slug}"' + (
            "." if kept else " (the default when league is left out)."
        )
    errors.add("league", message)


def match_clean(*, data: Mapping[str, Any], unnamed_league: League | _EntryLeague | None = ENTRY_LEAGUE) -> MatchInput:
    """Validate a result body; raise ValidationError({field: [messages]}) or return typed input.

    A body without ``league`` is filed under ``unnamed_league``: the game's
    entry (amateur) league for a new result, the league a corrected match is
    filed under for a correction. Either way the league must admit every
    player (``_check_league_players``).
    """
    if not isinstance(data, Mapping):
        raise ValidationError({"non_field_errors": ["Send a JSON object."]})
    errors = _Errors()
    game = _clean_game(data.get("game"), errors)
    played_at = _clean_played_at(data.get("played_at"), errors)
    rated = _clean_rated(data.get("rated"), errors)
    result = GameInput()
    if game is not None:
        cleaner = GAME_CLEANERS.get(game.rating_system)
        if cleaner is None:
            errors.add("game", f"Results for {game.name} cannot be entered yet.")
        else:
            result = cleaner(data, errors, game)
    # One query for the game's leagues: the one named, the default, and their two-step settings.
    leagues = tuple(League.objects.filter(game=game).order_by("slug")) if game is not None else ()
    league = _clean_league(data.get("league"), leagues, game, errors)
    if errors:
        raise ValidationError(dict(errors))
    kept = league is None and not isinstance(unnamed_league, _EntryLeague)
    if league is None:
        if isinstance(unnamed_league, _EntryLeague):
            # Unless the body names one, a result is filed under the game's entry (amateur) league.
            league = next((league for league in leagues if league.tier == League.Tier.AMATEUR), None)
        else:
            league = unnamed_league
    if league is not None:
        _check_league_players(league, result.seats, leagues, errors, kept=kept)
        if errors:
            raise ValidationError(dict(errors))
    return MatchInput(
        game=game,
        played_at=played_at,
        rated=rated,
        seats=result.seats,
        deals=result.deals,
        boards=result.boards,
        league=league,
        leagues=leagues,
    )


def match_due_at(*, game: Game, league: League | None, played_at: datetime) -> datetime | None:
    """When a result may be rated: at once (None), or at the close of its league's rating period.

    Rating periods are the bridge thesis's; other games rate every result at once.
    """
    if league is None or game.rating_system != "bridge":
        return None
    bounds = league.period_bounds(played_at)
    return bounds[1] if bounds else None


def _hold(instance, related: str, objects: list) -> None:
    """Make ``instance.<related>.all()`` answer ``objects`` without a query, as ``prefetch_related`` leaves it.

    Django's own recipe (``prefetch_one_level``): the relation's queryset with its result cache filled.
    """
    queryset = getattr(instance, related).get_queryset()
    queryset._result_cache = list(objects)
    queryset._prefetch_done = True
    instance.__dict__.setdefault("_prefetched_objects_cache", {})[related] = queryset


def _match_parts_keep(match: Match, *, seats: list[Seat], deals: list[Deal], boards: list[tuple[Board, list]]) -> None:
    """Keep a just-stored match's parts on it, as ``match_detail`` loads them, so that
    ``selectors.match_detail_of`` answers a fresh submission without reading them back."""
    _hold(match, "seats", sorted(seats, key=lambda seat: seat.position))
    _hold(match, "deals", sorted(deals, key=lambda deal: deal.number))
    for board, tables in boards:
        _hold(board, "tables", sorted(tables, key=lambda table: table.table))
    _hold(match, "boards", [board for board, _ in sorted(boards, key=lambda pair: pair[0].position)])
    _hold(match, "rating_changes", [])


def _match_store_result(
    match: Match, cleaned: MatchInput, *, bots_as_played: dict[int, tuple[Decimal, Decimal]] | None = None
) -> None:
    """Store the result's seats, deals and boards, and keep them on ``match`` as ``match_detail`` would load them.

    A bot seat keeps the bot's rating and maximum as played: its values now,
    or, for a bot already at the table of a result being corrected, the values
    stored with it then (``bots_as_played``, bot id -> (rating, maximum)), so
    a correction of a deal does not slip an edited bot into an old game.
    """
    played = bots_as_played or {}
    as_played = {
        seat.bot.pk: played.get(seat.bot.pk, (seat.bot.rating, seat.bot.max_rating))
        for seat in cleaned.seats
        if seat.bot
    }
    seats = Seat.objects.bulk_create(
        Seat(
            match=match,
            position=position,
            player=seat.player,
            bot=seat.bot,
            result=seat.result,
            # The bot as played, whatever admins make of it later.
            bot_rating=as_played[seat.bot.pk][0] if seat.bot else None,
            bot_max_rating=as_played[seat.bot.pk][1] if seat.bot else None,
        )
        for position, seat in enumerate(cleaned.seats, start=1)
    )
    deals = Deal.objects.bulk_create(
        Deal(match=match, number=number, whists=[float(whist) for whist in whists])
        for number, whists in enumerate(cleaned.deals, start=1)
    )
    boards = []
    for position, board_input in enumerate(cleaned.boards, start=1):
        board = Board.objects.create(match=match, number=board_input.number, position=position)
        tables = BoardTable.objects.bulk_create(
            BoardTable(
                board=board,
                table=table.table,
                ns_1=table.ns[0],
                ns_2=table.ns[1],
                ew_1=table.ew[0],
                ew_2=table.ew[1],
                ns_score=table.ns_score,
                ns_imps=table.ns_imps,
            )
            for table in board_input.tables
        )
        boards.append((board, tables))
    _match_parts_keep(match, seats=seats, deals=deals, boards=boards)


def _submitted_body(cleaned: MatchInput) -> dict:
    """The result as the audit log keeps it: the validated result (``match_input_as_body``), never the raw body.

    The log is append-only, so nothing the service did not validate goes in:
    fields the body's game does not use (a Preferans body's ``players``) and
    fields no game knows are ignored by validation, and not stored either. It
    is the shape a correction's before and after take. No query: everything
    was read while cleaning.
    """
    return match_input_as_body(cleaned)


def match_input_as_body(cleaned: MatchInput) -> dict:
    """A validated result as the body ``match_as_body`` reads back once it is stored.

    The two agree field for field (tests hold them to it), so comparing them
    says whether storing ``cleaned`` would change a stored match, and hashing
    this body fingerprints a request by what it would store: JSON key order,
    whitespace, ids given as strings, a time in another zone, ``"rated": true``
    spelled out or omitted, the game's amateur league named or omitted: all
    the same request.
    """
    body: dict[str, Any] = {
        "game": cleaned.game.slug,
        "played_at": cleaned.played_at.astimezone(UTC).isoformat(),
        "rated": cleaned.rated,
    }
    system = cleaned.game.rating_system
    if system == "elo":
        body["players"] = [seat.player.pk for seat in cleaned.seats]
        winners = [seat.player.pk for seat in cleaned.seats if seat.result > 0]
        body["winner"] = winners[0] if winners else None
    elif system == "preferans":
        body["seats"] = [
            {"player": seat.player.pk} if seat.player is not None else {"bot": seat.bot.slug} for seat in cleaned.seats
        ]
        body["deals"] = [[float(whist) for whist in deal] for deal in cleaned.deals]
    elif system == "bridge":
        body["boards"] = [
            {
                "number": board.number,
                "tables": [
                    {
                        "ns": [table.ns[0].pk, table.ns[1].pk],
                        "ew": [table.ew[0].pk, table.ew[1].pk],
                        **({"ns_score": table.ns_score} if table.ns_score is not None else {}),
                        **({"ns_imps": float(table.ns_imps)} if table.ns_imps is not None else {}),
                    }
                    for table in board.tables
                ],
            }
            for board in cleaned.boards
        ]
    if cleaned.league is not None:
        body["league"] = cleaned.league.slug
    return body


def match_body_fingerprint(body: Mapping[str, Any]) -> str:
    """SHA-256 of a stored-shape body (``match_input_as_body``) as canonical JSON: sorted keys, no spaces.

    Whists of -0 and 0 are one number (PostgreSQL's jsonb keeps no negative zero).
    """

    def plain(value):
        if isinstance(value, float) and value == 0:
            return 0.0
        if isinstance(value, list):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        return value

    text = json.dumps(plain(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def match_needs_confirmation(*, cleaned: MatchInput) -> bool:
    """Whether a result waits for a second referee: what a league's ``requires_confirmation`` covers.

    A rated result needs confirmation when the league it is filed under, or
    any league one of its players is in when it is entered (or corrected),
    requires it. Players without a rating in the game yet are in its entry
    (amateur) league. So the setting follows the players, whichever page,
    API call or correction brings the result in, and naming another league
    in the body can add the requirement but never remove it. Friendlies are
    never rated, so never wait. Bots have no league.
    """
    if not cleaned.rated:
        return False
    leagues = cleaned.leagues or tuple(League.objects.filter(game=cleaned.game))
    two_step = {league.pk for league in leagues if league.requires_confirmation}
    if not two_step:
        return False  # the usual case: no query beyond cleaning's
    if cleaned.league is not None and cleaned.league.pk in two_step:
        return True
    entry = next((league.pk for league in leagues if league.tier == League.Tier.AMATEUR), None)
    player_ids = [seat.player.pk for seat in cleaned.seats if seat.player is not None]
    current = player_leagues_in_game(game=cleaned.game, player_ids=player_ids)
    return any(current.get(player_id, entry) in two_step for player_id in player_ids)


IDEMPOTENCY_KEY_MAX = 64


class IdempotencyKeyReused(ValidationError):
    """The referee's ``Idempotency-Key`` already stored a different result: the API answers 422."""


def _idempotent_replay(existing: Match, *, key: str, fingerprint: str) -> Match:
    if existing.idempotency_fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            {
                "Idempotency-Key": [
                    f"The key {key!r} was used for another request (match {existing.pk}), with a different body; "
                    "nothing was stored. Send a new key for a new result."
                ]
            }
        )
    return existing


def match_submit_idempotent(*, referee, data: Mapping[str, Any], key: str | None) -> tuple[Match, bool]:
    """``match_submit`` that a client may retry safely: returns (match, created).

    A submission carrying an ``Idempotency-Key`` the referee already used
    returns the match stored the first time and stores nothing (a retry after
    a lost response, a timeout or a 5xx) when its body is the same request,
    i.e. would store the same result (``match_input_as_body``). The same key
    with another body raises ``IdempotencyKeyReused`` (422) and stores
    nothing, as the IETF ``Idempotency-Key`` draft says. Without a key it is a
    plain submit.

    The body is validated before the key is looked up, so a retry is judged
    by what it would store; one consequence: a retry naming a bot an admin
    deactivated in between is refused (400) like any new result naming it.
    Two requests racing with one key meet at the unique (referee, key)
    constraint: the loser reads the winner's match and compares fingerprints.
    """
    if key is None:
        return match_submit(referee=referee, data=data), True
    if not (0 < len(key) <= IDEMPOTENCY_KEY_MAX and key.isascii() and key.isprintable()):
        raise ValidationError({"Idempotency-Key": [f"1 to {IDEMPOTENCY_KEY_MAX} printable ASCII characters."]})
    if not user_can_submit(referee):
        raise PermissionDenied("Only referees can submit results.")
    cleaned = match_clean(data=data)
    fingerprint = match_body_fingerprint(match_input_as_body(cleaned))
    existing = Match.objects.filter(referee=referee, idempotency_key=key).first()
    if existing is not None:
        return _idempotent_replay(existing, key=key, fingerprint=fingerprint), False
    try:
        with transaction.atomic():
            match = _match_store(
                referee=referee, data=data, cleaned=cleaned, idempotency_key=key, fingerprint=fingerprint
            )
    except IntegrityError:
        # The same key raced in from another request: the first one won.
        existing = Match.objects.filter(referee=referee, idempotency_key=key).first()
        if existing is None:
            raise
        return _idempotent_replay(existing, key=key, fingerprint=fingerprint), False
    match.refresh_from_db(fields=["status"])  # after this outer commit, which may have rated it (eager Celery)
    return match, True


def match_submit(*, referee, data: Mapping[str, Any]) -> Match:
    """Store a validated result and queue its rating once the transaction commits."""
    if not user_can_submit(referee):
        raise PermissionDenied("Only referees can submit results.")
    return match_record(referee=referee, data=data)


def match_record(*, referee, data: Mapping[str, Any], queue_rating: bool = True) -> Match:
    """``match_submit`` for a caller with no request to check: an operator's command (``demo_data``).

    The same validation, stored parts, audit entry and results version; only
    the permission check is left to the caller, so ``referee`` is recorded as
    the result's referee and the audit entry's actor whatever its groups (an
    existing account the command must not change). ``queue_rating=False``
    leaves the rating task out, for a caller that stores many results and
    then rates their game itself (``ratings_process_game``) in the same
    transaction; a rated result it leaves unrated is the sweeper's.
    """
    return _match_store(referee=referee, data=data, cleaned=match_clean(data=data), queue_rating=queue_rating)


def _match_store(
    *,
    referee,
    data: Mapping[str, Any],
    cleaned: MatchInput,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
    queue_rating: bool = True,
) -> Match:
    due_at = match_due_at(game=cleaned.game, league=cleaned.league, played_at=cleaned.played_at)
    awaiting_confirmation = match_needs_confirmation(cleaned=cleaned)
    with transaction.atomic():
        match = Match.objects.create(
            game=cleaned.game,
            # In UTC, as the database gives them back: the reply is built from this object.
            played_at=cleaned.played_at.astimezone(UTC),
            rated=cleaned.rated,
            status=Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY,
            referee=referee,
            idempotency_key=idempotency_key,
            idempotency_fingerprint=fingerprint,
            league=cleaned.league,
            due_at=due_at.astimezone(UTC) if due_at else None,
            awaiting_confirmation=awaiting_confirmation,
        )
        _match_store_result(match, cleaned)
        AuditEntry.objects.create(
            actor=referee, action=AuditEntry.Action.SUBMITTED, match=match, data=_submitted_body(cleaned)
        )
        if cleaned.rated and queue_rating:
            transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
        results_version_bump(game_ids=[match.game_id])
    match.refresh_from_db(fields=["status"])
    return match


def match_void(*, match_id: int, by) -> Match:
    """Void a match: it stops counting and the game's ratings are replayed from it.

    Takes the game's rating lock first (the same order as the rating task),
    so a void never races a rating run. Voiding twice changes nothing.
    """
    if not user_can_void(by):
        raise PermissionDenied("Only admins can void matches.")
    game_id = Match.objects.filter(pk=match_id).values_list("game_id", flat=True).first()
    if game_id is None:
        raise Match.DoesNotExist(f"No match {match_id}.")
    with transaction.atomic():
        state = rating_state_lock(game_id=game_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.VOID:
            return match
        was_rated = match.status == Match.Status.RATED
        match.status = Match.Status.VOID
        match.voided_at = timezone.now()
        match.voided_by = by
        match.save(update_fields=["status", "voided_at", "voided_by"])
        AuditEntry.objects.create(
            actor=by, action=AuditEntry.Action.VOIDED, match=match, data={"was": "rated" if was_rated else "not rated"}
        )
        if was_rated:
            rating_replay_mark(state=state, played_at=match.played_at, match_id=match.pk)
            transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
        results_version_bump(game_ids=[game_id])
    return match


def match_correct(*, match_id: int, by, data: Mapping[str, Any]) -> Match:
    """Replace a match's result (players, winner, time, rated, league) with a corrected one.

    The body has the same shape and the same validation as a submission, and
    the game cannot change. A body without ``league`` keeps the league the
    match is filed under (a submission without one is filed under the
    amateur league; a correction is not a new filing). Ratings are replayed
    from the earlier of the old and the new place of the match in the
    history. Takes the game's rating lock first, like ``match_void``.

    A correction that would store exactly what is stored (``match_as_body``
    of the match equals ``match_input_as_body`` of the body) changes
    nothing: no field, no replay, no audit entry, no results version; the
    match is returned as it is. Any other correction is re-examined for
    two-step confirmation (``match_needs_confirmation``) as a new entry
    would be: if it needs one, it waits for a referee other than the admin
    who corrected it, even if the earlier version was confirmed.
    """
    if not user_can_void(by):
        raise PermissionDenied("Only admins can correct results.")
    match = Match.objects.select_related("game", "league").filter(pk=match_id).first()
    if match is None:
        raise Match.DoesNotExist(f"No match {match_id}.")
    if not isinstance(data, Mapping) or data.get("game") != match.game.slug:
        match_clean(data=data)  # the body's own errors first, if it has any
        raise ValidationError({"game": [f"A correction cannot move the match to another game ({match.game.slug})."]})
    cleaned = match_clean(data=data, unnamed_league=match.league)
    awaiting_confirmation = match_needs_confirmation(cleaned=cleaned)
    with transaction.atomic():
        state = rating_state_lock(game_id=match.game_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": ["A voided match cannot be corrected."]})
        before = match_as_body(match_detail(match_id=match.pk))
        if match_input_as_body(cleaned) == before:
            return match  # nothing to correct: nothing changes
        if match.status == Match.Status.RATED:
            rating_replay_mark(state=state, played_at=match.played_at, match_id=match.pk)
        match.played_at = cleaned.played_at
        match.rated = cleaned.rated
        match.status = Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY
        match.league = cleaned.league
        match.due_at = match_due_at(game=cleaned.game, league=cleaned.league, played_at=cleaned.played_at)
        match.awaiting_confirmation = awaiting_confirmation
        if awaiting_confirmation:
            match.confirmed_by = None  # a confirmation was of the old version
        match.save(
            update_fields=["played_at", "rated", "status", "league", "due_at", "awaiting_confirmation", "confirmed_by"]
        )
        bots_as_played = {
            bot_id: (rating, max_rating)
            for bot_id, rating, max_rating in match.seats.filter(bot__isnull=False).values_list(
                "bot_id", "bot_rating", "bot_max_rating"
            )
        }
        match.seats.all().delete()
        match.deals.all().delete()
        match.boards.all().delete()
        _match_store_result(match, cleaned, bots_as_played=bots_as_played)
        after = match_as_body(match_detail(match_id=match.pk))
        AuditEntry.objects.create(
            actor=by, action=AuditEntry.Action.CORRECTED, match=match, data={"before": before, "after": after}
        )
        transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
        results_version_bump(game_ids=[match.game_id])
    return match


@dataclass(frozen=True)
class DealPreview:
    number: int
    total: Decimal | None  # None while a cell is blank or not a number
    status: str  # "blank", "incomplete", "ok" or "unbalanced"


def preferans_deals_preview(*, rows: list[list[str]]) -> tuple[list[DealPreview], list[Decimal]]:
    """The entry page's live zero-sum check: each row's sum and each seat's running total.

    Only a preview: ``match_clean`` is what decides when the game is saved.
    """
    previews, totals = [], [Decimal(0)] * (len(rows[0]) if rows else 0)
    for number, row in enumerate(rows, start=1):
        if all(not cell.strip() for cell in row):
            previews.append(DealPreview(number=number, total=None, status="blank"))
            continue
        whists = [_clean_whist(cell) for cell in row]
        if None in whists:
            previews.append(DealPreview(number=number, total=None, status="incomplete"))
            continue
        total = sum(whists, Decimal(0))
        previews.append(DealPreview(number=number, total=total, status="ok" if total == 0 else "unbalanced"))
        totals = [running + whist for running, whist in zip(totals, whists, strict=True)]
    return previews, totals


@dataclass(frozen=True)
class DuelPreview:
    first: int  # table numbers, from 1
    second: int
    imps: int | Decimal  # won by {NS(first), EW(second)}

    @property
    def outcome(self) -> str:
        if self.imps > 1:
            return "win"
        if self.imps < -1:
            return "loss"
        return "draw"


def bridge_board_preview(*, scores: list[str], imps: str | None = None) -> tuple[str, list[DuelPreview]]:
    """The entry page's IMP preview for one board: ("blank" | "incomplete" | "bad" | "ok", duels).

    ``scores`` are the NS scores per table as typed; ``imps`` the IMPs typed
    for a one- or two-table board scored in IMPs. Only a preview: the engine
    computes the same duels when the session is rated.
    """
    from ratings.engines.bridge import imps as to_imps

    if imps is not None:
        if not imps.strip():
            return "blank", []
        value = _clean_whist(imps)
        if value is None or abs(value) > BRIDGE_IMPS_LIMIT:
            return "bad", []
        return "ok", [DuelPreview(first=1, second=2 if len(scores) == 2 else 1, imps=value)]
    if all(not score.strip() for score in scores):
        return "blank", []
    parsed = []
    for text in scores:
        if not text.strip():
            return "incomplete", []
        score = _bridge_score(text)
        if score is None:
            return "bad", []
        parsed.append(score)
    duels = [
        DuelPreview(first=t + 1, second=u + 1, imps=to_imps(parsed[t] - parsed[u]))
        for t in range(len(parsed))
        for u in range(t + 1, len(parsed))
    ]
    return "ok", duels


def league_due_dates_refresh(*, league: League) -> int:
    """Recompute when each waiting result of a league may be rated, after its rating period changed.

    Rated results are replayed by the caller (a rule change replays the game);
    this only moves the ``due_at`` of every match filed under the league.
    """
    matches = list(Match.objects.filter(league=league).select_related("game").only("pk", "played_at", "game", "league"))
    for match in matches:
        match.due_at = match_due_at(game=match.game, league=league, played_at=match.played_at)
    with transaction.atomic():
        Match.objects.bulk_update(matches, ["due_at"], batch_size=1000)
        if matches:
            results_version_bump(game_ids=[league.game_id])
    return len(matches)


def match_confirm(*, match_id: int, by, version: int | None = None) -> Match:
    """Confirm a result waiting for a second referee (``match_needs_confirmation``); it is then rated.

    The confirming referee must not be the author of the version waiting:
    the referee who entered it, or the admin who last corrected it
    (Tabbycat's ballot confirmation). Confirming twice, a result that
    needs no confirmation, or a voided one (it no longer counts, so there
    is nothing left to confirm: a void keeps the waiting flag as it was, for
    the record) is a clear error that changes nothing. ``version``, when
    given, is the version the referee read (``selectors.match_version_id``,
    the confirmation page sends it): a result an admin corrected since is
    refused, so nobody confirms a version they have not seen.
    """
    if not user_can_submit(by):
        raise PermissionDenied("Only referees can confirm results.")
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": ["This result was voided: there is nothing to confirm."]})
        if not match.awaiting_confirmation:
            raise ValidationError({"non_field_errors": ["This result is not waiting for confirmation."]})
        if version is not None and match_version_id(match) != version:
            raise ValidationError(
                {"non_field_errors": ["This result was corrected after you read it: read it again, then confirm."]}
            )
        if match_author_id(match) == by.pk:
            raise ValidationError(
                {"non_field_errors": ["A second referee must confirm: you entered (or corrected) this result."]}
            )
        match.awaiting_confirmation = False
        match.confirmed_by = by
        match.save(update_fields=["awaiting_confirmation", "confirmed_by"])
        AuditEntry.objects.create(actor=by, action=AuditEntry.Action.CONFIRMED, match=match, data={})
        transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
        results_version_bump(game_ids=[match.game_id])
    return match
