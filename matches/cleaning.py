"""Cleaning a result body: the fields every game shares, the game's own through its kind, the league.

``match_clean`` validates a result given as plain data (a JSON body, or a
form turned into the same shape) and returns a ``MatchInput``, or raises
``ValidationError`` keyed by the field the user got wrong (``game``,
``played_at``, ``players``, ``winner`` ...); it writes nothing. Validation
lives here and in the game kinds' cleaners (``kind_of(game).clean``) and
nowhere else, so the pages, the API and admin always agree.

Body shapes are those of API.md, e.g. for Slaps::

    {"game": "slaps", "played_at": "2026-11-01T18:00:00Z", "rated": true,
     "players": [12, 13], "winner": 12}

A result is filed under a league, which must admit every player
(``_check_league_players``): leagues are tiers, and membership is read from
ratings through their one door (``ratings.intake``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.kinds import kind_of
from leagues.models import Game, League, Player
from matches.inputs import Errors, GameInput, MatchInput, SeatInput, batch_players, is_slug
from ratings.intake import player_leagues_in_game

# Clocks of referees' devices drift; a result a few minutes "in the future" is accepted.
FUTURE_TOLERANCE = timedelta(minutes=10)


@dataclass
class ResultBatch:
    """Many results stored in one all-or-nothing transaction (an import: ``matches.services.match_record``'s
    ``batch``). What they all read alike is read once for the batch, not once a result: the games by slug
    and each game's leagues, as they were when the batch first asked (the batch's own view of them), and
    the players its results name (``matches.inputs.players_by_id``: an id once read, or given by
    ``players_add``, is not read again)."""

    games: dict[str, Game | None] = field(default_factory=dict)
    leagues: dict[int, tuple[League, ...]] = field(default_factory=dict)
    players: dict[int, Player] = field(default_factory=dict)

    def players_add(self, players: Iterable[Player]) -> None:
        """Players the caller holds already (an import's, matched and created): its results find them here."""
        self.players.update((player.pk, player) for player in players)


def _clean_game(value: Any, errors: Errors, batch: ResultBatch | None = None) -> Game | None:
    if value in (None, ""):
        errors.add("game", _("This field is required."))
        return None
    if not isinstance(value, str):
        errors.add("game", _('Give the game\'s slug, e.g. "slaps".'))
        return None
    if batch is not None and value in batch.games:
        game = batch.games[value]
    else:
        game = Game.objects.filter(slug=value).first() if is_slug(value) else None
        if batch is not None:
            batch.games[value] = game
    if game is None:
        slugs = ", ".join(Game.objects.order_by("slug").values_list("slug", flat=True))
        errors.add(
            "game", _("Unknown game %(game)s. Known games: %(games)s.") % {"game": repr(value[:50]), "games": slugs}
        )
    return game


def _clean_played_at(value: Any, errors: Errors) -> datetime | None:
    if value in (None, ""):
        errors.add("played_at", _("This field is required."))
        return None
    if isinstance(value, datetime):
        played_at = value
    elif isinstance(value, str):
        try:
            played_at = parse_datetime(value.strip())
        except ValueError:
            played_at = None
        if played_at is None:
            errors.add("played_at", _("Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z)."))
            return None
    else:
        errors.add("played_at", _("Enter a valid date and time (ISO 8601, e.g. 2026-11-01T18:00:00Z)."))
        return None
    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at)
    if played_at > timezone.now() + FUTURE_TOLERANCE:
        errors.add("played_at", _("The match cannot have been played in the future."))
        return None
    if played_at.year < 1900:
        errors.add("played_at", _("The date is too far in the past."))
        return None
    return played_at


def _clean_rated(value: Any, errors: Errors) -> bool | None:
    if value is None or value == "":
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "1", "on", "yes", "rated"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "0", "off", "no", "friendly"}:
        return False
    errors.add("rated", _("Must be true (rated) or false (friendly)."))
    return None


def _clean_league(value: Any, leagues: tuple[League, ...], game: Game | None, errors: Errors) -> League | None:
    if value in (None, ""):
        return None
    if game is None:
        return None
    league = next((league for league in leagues if league.slug == value), None) if is_slug(value) else None
    if league is None:
        slugs = ", ".join(league.slug for league in leagues)
        errors.add(
            "league", _("Unknown league for %(game)s. Leagues: %(leagues)s.") % {"game": game.name, "leagues": slugs}
        )
    return league


# Leagues are tiers: a player may play in their own league's results and in any lower tier's.
TIER_RANK = {League.Tier.AMATEUR: 0, League.Tier.PRO: 1}


class _EntryLeague:
    """``match_clean``'s default for a body without ``league``: the game's entry (amateur) league."""


ENTRY_LEAGUE = _EntryLeague()


def _check_league_players(
    league: League, seats: tuple[SeatInput, ...], leagues: tuple[League, ...], errors: Errors, *, kept: bool
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
    named = [_("%(name)s (id %(id)s)") % {"name": player.name, "id": player.pk} for player, _own in outside[:4]]
    if len(outside) > 4:
        more = len(outside) - 4
        named.append(ngettext("%(count)d more", "%(count)d more", more) % {"count": more})
    their = sorted({own.name if own else _("no league") for _player, own in outside})
    values = {
        "league": f"{league.name} ({league.slug})",
        "names": _listed(named),
        "leagues": _listed(their),
    }
    if kept:
        message = ngettext(
            "%(league)s, where this result is filed (a correction without league keeps it), takes results between "
            "players of that league or a higher one, but %(names)s is in %(leagues)s.",
            "%(league)s, where this result is filed (a correction without league keeps it), takes results between "
            "players of that league or a higher one, but %(names)s are in %(leagues)s.",
            len(outside),
        )
    else:
        message = ngettext(
            "%(league)s takes results between players of that league or a higher one, but %(names)s is in %(leagues)s.",
            "%(league)s takes results between players of that league or a higher one, but %(names)s are in "
            "%(leagues)s.",
            len(outside),
        )
    message %= values
    if entry is not None:
        if kept:
            advice = _('File the result under "%(league)s".')
        else:
            advice = _('File the result under "%(league)s" (the default when league is left out).')
        message = f"{message} {advice % {'league': entry.slug}}"
    errors.add("league", message)


def _listed(items: list[str]) -> str:
    """Items in a sentence: "A", "A and B", "A, B and C"."""
    if len(items) == 1:
        return items[0]
    return _("%(items)s and %(last)s") % {"items": ", ".join(items[:-1]), "last": items[-1]}


def match_clean(
    *,
    data: Mapping[str, Any],
    unnamed_league: League | _EntryLeague | None = ENTRY_LEAGUE,
    batch: ResultBatch | None = None,
) -> MatchInput:
    """Validate a result body; raise ValidationError({field: [messages]}) or return typed input.

    A body without ``league`` is filed under ``unnamed_league``: the game's
    entry (amateur) league for a new result, the league a corrected match is
    filed under for a correction. Either way the league must admit every
    player (``_check_league_players``). A result of a ``batch`` reads its
    game and leagues once for the batch; every check is the same.
    """
    if not isinstance(data, Mapping):
        raise ValidationError({"non_field_errors": [_("Send a JSON object.")]})
    errors = Errors()
    game = _clean_game(data.get("game"), errors, batch)
    played_at = _clean_played_at(data.get("played_at"), errors)
    rated = _clean_rated(data.get("rated"), errors)
    result = GameInput()
    if game is not None:
        kind = kind_of(game)
        if kind is None:
            errors.add("game", _("Results for %(game)s cannot be entered yet.") % {"game": game.name})
        else:
            known = batch_players.set(batch.players) if batch is not None else None
            try:
                result = kind.clean(data, errors, game)
            finally:
                if known is not None:
                    batch_players.reset(known)
    # One query for the game's leagues: the one named, the default, and their two-step settings.
    if game is None:
        leagues = ()
    elif batch is not None and game.pk in batch.leagues:
        leagues = batch.leagues[game.pk]
    else:
        leagues = tuple(League.objects.filter(game=game).order_by("slug"))
        if batch is not None:
            batch.leagues[game.pk] = leagues
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
        parts=result.parts,
        league=league,
        leagues=leagues,
    )
