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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from leagues.models import Game, Player
from matches.models import Match, Seat
from ratings.services import rating_replay_mark, rating_state_lock, ratings_enqueue

MAX_ID = 2**63 - 1
# Clocks of referees' devices drift; a result a few minutes "in the future" is accepted.
FUTURE_TOLERANCE = timedelta(minutes=10)


def user_can_submit(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.has_perm("matches.submit_result"))


def user_can_void(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.has_perm("matches.void_match"))


@dataclass(frozen=True)
class SeatInput:
    player: Player
    result: int


@dataclass(frozen=True)
class MatchInput:
    game: Game
    played_at: datetime
    rated: bool
    seats: tuple[SeatInput, ...]


class _Errors(dict):
    def add(self, field: str, message: str) -> None:
        self.setdefault(field, []).append(message)


# --- field cleaners: each returns a value or records an error ----------------------------------


def _clean_game(value: Any, errors: _Errors) -> Game | None:
    if value in (None, ""):
        errors.add("game", "This field is required.")
        return None
    if not isinstance(value, str):
        errors.add("game", 'Give the game\'s slug, e.g. "slaps".')
        return None
    game = Game.objects.filter(slug=value).first()
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
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        number = int(value.strip())
    else:
        return None
    return number if 1 <= number <= MAX_ID else None


def _clean_slaps(data: Mapping[str, Any], errors: _Errors) -> tuple[SeatInput, ...]:
    raw_players = data.get("players")
    if raw_players in (None, "", []):
        errors.add("players", "This field is required: the two players' ids.")
        return ()
    if not isinstance(raw_players, list | tuple):
        errors.add("players", "Give a list of two player ids.")
        return ()
    if len(raw_players) != 2:
        errors.add("players", f"A Slaps match has exactly two players, not {len(raw_players)}.")
        return ()
    ids = [_parse_id(value) for value in raw_players]
    if None in ids:
        errors.add("players", "Player ids must be positive whole numbers.")
        return ()
    if ids[0] == ids[1]:
        errors.add("players", "The same player cannot play both sides of a match.")
        return ()
    players = Player.objects.in_bulk(ids)
    missing = [str(player_id) for player_id in ids if player_id not in players]
    if missing:
        errors.add("players", f"Unknown player id(s): {', '.join(missing)}.")
        return ()
    raw_winner = data.get("winner")
    if raw_winner in (None, ""):
        errors.add("winner", "This field is required: the id of the player who won.")
        return ()
    winner = _parse_id(raw_winner)
    if winner not in ids:
        errors.add("winner", "The winner must be one of the match's two players.")
        return ()
    return tuple(SeatInput(player=players[player_id], result=1 if player_id == winner else 0) for player_id in ids)


SEAT_CLEANERS: dict[str, Callable[[Mapping[str, Any], _Errors], tuple[SeatInput, ...]]] = {"elo": _clean_slaps}


def match_clean(*, data: Mapping[str, Any]) -> MatchInput:
    """Validate a result body; raise ValidationError({field: [messages]}) or return typed input."""
    if not isinstance(data, Mapping):
        raise ValidationError({"non_field_errors": ["Send a JSON object."]})
    errors = _Errors()
    game = _clean_game(data.get("game"), errors)
    played_at = _clean_played_at(data.get("played_at"), errors)
    rated = _clean_rated(data.get("rated"), errors)
    seats: tuple[SeatInput, ...] = ()
    if game is not None:
        cleaner = SEAT_CLEANERS.get(game.rating_system)
        if cleaner is None:
            errors.add("game", f"Results for {game.name} cannot be entered yet.")
        else:
            seats = cleaner(data, errors)
    if errors:
        raise ValidationError(dict(errors))
    return MatchInput(game=game, played_at=played_at, rated=rated, seats=seats)


def match_submit(*, referee, data: Mapping[str, Any]) -> Match:
    """Store a validated result and queue its rating once the transaction commits."""
    if not user_can_submit(referee):
        raise PermissionDenied("Only referees can submit results.")
    cleaned = match_clean(data=data)
    with transaction.atomic():
        match = Match.objects.create(
            game=cleaned.game,
            played_at=cleaned.played_at,
            rated=cleaned.rated,
            status=Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY,
            referee=referee,
        )
        Seat.objects.bulk_create(
            Seat(match=match, position=position, player=seat.player, result=seat.result)
            for position, seat in enumerate(cleaned.seats, start=1)
        )
        if cleaned.rated:
            transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
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
        if was_rated:
            rating_replay_mark(state=state, played_at=match.played_at, match_id=match.pk)
            transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
    return match


def match_correct(*, match_id: int, by, data: Mapping[str, Any]) -> Match:
    """Replace a match's result (players, winner, time, rated) with a corrected one.

    The body has the same shape and the same validation as a submission, and
    the game cannot change. Ratings are replayed from the earlier of the old
    and the new place of the match in the history. Takes the game's rating
    lock first, like ``match_void``.
    """
    if not user_can_void(by):
        raise PermissionDenied("Only admins can correct results.")
    match = Match.objects.select_related("game").filter(pk=match_id).first()
    if match is None:
        raise Match.DoesNotExist(f"No match {match_id}.")
    cleaned = match_clean(data=data)
    if cleaned.game != match.game:
        raise ValidationError({"game": [f"A correction cannot move the match to another game ({match.game.slug})."]})
    with transaction.atomic():
        state = rating_state_lock(game_id=match.game_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": ["A voided match cannot be corrected."]})
        if match.status == Match.Status.RATED:
            rating_replay_mark(state=state, played_at=match.played_at, match_id=match.pk)
        match.played_at = cleaned.played_at
        match.rated = cleaned.rated
        match.status = Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY
        match.save(update_fields=["played_at", "rated", "status"])
        match.seats.all().delete()
        Seat.objects.bulk_create(
            Seat(match=match, position=position, player=seat.player, result=seat.result)
            for position, seat in enumerate(cleaned.seats, start=1)
        )
        transaction.on_commit(lambda: ratings_enqueue(match_id=match.pk))
    return match
