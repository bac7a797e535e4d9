"""Two sides compared, a player's head-to-head list and a league's crosstable: the reads behind their pages
and APIs (``web.compare_pages``, ``web.compare_apis``).

A *side* is one player, or for a game of pairs (bridge, ``kind.compare_side_size`` 2) two partners, given
as ids: ``12`` or ``12,13``. The game's kind says what a record is and what the rating system expects
(``games.base.BaseKind``: ``compare_record``, ``compare_expected``, ``head_to_head``, ``crosstable``);
this module checks the input, reads the ratings and puts the answer together. Reads only.

Input errors are ``ValidationError``s keyed by parameter (``game``, ``a``, ``b``), answered 400; a side
naming a player that does not exist is ``Player.DoesNotExist``, answered 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from leagues.models import Game, League, Player
from matches.models import Match
from ratings.figures import crosstable_name, figure_kept
from ratings.headtohead import HeadToHeadRow, Opponent, game_ratings, league_top_players

#: The recent meetings a compare shows.
COMPARE_MEETINGS = 10
#: The opponents a profile's head-to-head shows before linking to the full list.
PROFILE_HEAD_TO_HEAD = 8
#: The league's best players a crosstable crosses.
CROSSTABLE_PLAYERS = 10
#: The longest id list a side takes, as text (two ids of up to 18 digits and a comma; more is refused).
SIDE_TEXT_MAX = 40


@dataclass(frozen=True)
class SidePlayer:
    player: Player
    rating: Decimal  # the game's start rating for a player not yet rated in it
    rated_matches: int
    league: League | None


@dataclass(frozen=True)
class Side:
    players: tuple[SidePlayer, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(side.player.pk for side in self.players)

    @property
    def name(self) -> str:
        return " & ".join(side.player.name for side in self.players)

    @property
    def rating(self) -> Decimal:
        """The player's rating; a pair's is its partners' mean (the engine adds the partnership bonus)."""
        return sum((side.rating for side in self.players), Decimal(0)) / len(self.players)

    @property
    def query(self) -> str:
        return ",".join(str(pk) for pk in self.ids)


@dataclass(frozen=True)
class Comparison:
    game: Game
    a: Side
    b: Side
    expected_score_a: float | None  # None: the game's pair scale is being computed (Preferans)
    record_a: HeadToHeadRow | None  # a's record against b; None if they never met in a rated result
    record_b: HeadToHeadRow | None
    meetings: list[Match]

    @property
    def points_shown(self) -> bool:
        return bool(self.game.kind.points_label)


def compare_game(slug: str | None) -> Game:
    """The game named by ``slug``; a ValidationError on ``game`` when it is missing or unknown."""
    if not slug:
        raise ValidationError({"game": [_("Name a game by its slug.")]})
    game = Game.objects.filter(slug=slug[:100]).first()
    if game is None:
        raise ValidationError({"game": [_("Unknown game %(game)s.") % {"game": repr(slug[:50])}]})
    return game


def side_ids(raw: str | None, *, name: str, size: int) -> tuple[int, ...]:
    """A side's player ids from its parameter: ``size`` different positive whole numbers, comma-separated."""
    if size == 1:
        give = _("Give a player's id.")
        whole = _("Player ids are positive whole numbers; give a player's id.")
    else:
        give = _("Give %(count)d players' ids, comma-separated (a pair: 12,13).") % {"count": size}
        whole = _(
            "Player ids are positive whole numbers; give %(count)d players' ids, comma-separated (a pair: 12,13)."
        ) % {"count": size}
    if not raw:
        raise ValidationError({name: [give]})
    parts = raw[: SIDE_TEXT_MAX + 1].split(",")
    if len(raw) > SIDE_TEXT_MAX or len(parts) != size:
        raise ValidationError({name: [give]})
    ids = []
    for part in parts:
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 2**63 - 1:
            raise ValidationError({name: [whole]})
        ids.append(int(part))
    if len(set(ids)) != len(ids):
        raise ValidationError({name: [_("A pair is two different players.")]})
    return tuple(ids)


def compare_sides(*, game: Game, a: tuple[int, ...], b: tuple[int, ...]) -> Comparison:
    """Sides ``a`` and ``b`` of ``game`` compared: their ratings, the expected score of ``a`` by the game's
    rating system, their record both ways round and their latest meetings.

    Refused (ValidationError on ``b``) when the sides share a player; ``Player.DoesNotExist`` when an id
    names no player (a bot's id included: bots are not players)."""
    if set(a) & set(b):
        raise ValidationError({"b": [_("Compare two different players (or pairs with no player in common).")]})
    ids = [*a, *b]
    players = Player.objects.in_bulk(ids)
    missing = [pk for pk in ids if pk not in players]
    if missing:
        raise Player.DoesNotExist(f"No player {missing[0]}.")
    rows = game_ratings(game=game, player_ids=ids)

    def side(side_ids: tuple[int, ...]) -> Side:
        return Side(
            players=tuple(
                SidePlayer(
                    player=players[pk],
                    rating=rows[pk].rating if rows[pk] else game.start_rating,
                    rated_matches=rows[pk].rated_matches if rows[pk] else 0,
                    league=rows[pk].league if rows[pk] else None,
                )
                for pk in side_ids
            )
        )

    kind = game.kind
    ratings = {pk: float(rows[pk].rating if rows[pk] else game.start_rating) for pk in ids}
    return Comparison(
        game=game,
        a=side(a),
        b=side(b),
        expected_score_a=kind.compare_expected(game=game, a=a, b=b, ratings=ratings),
        record_a=kind.compare_record(game=game, a=a, b=b),
        record_b=kind.compare_record(game=game, a=b, b=a),
        meetings=kind.compare_meetings(game=game, a=a, b=b, limit=COMPARE_MEETINGS),
    )


def comparison_record(comparison: Comparison) -> dict:
    """The record of a comparison as the API answers it (and the page reads it)."""
    mine, theirs = comparison.record_a, comparison.record_b
    points = comparison.points_shown
    return {
        "meetings": mine.meetings if mine else 0,
        "wins_a": mine.wins if mine else 0,
        "wins_b": mine.losses if mine else 0,
        "draws": mine.draws if mine else 0,
        "last_met": mine.last_met if mine else None,
        "rating_change_a": mine.rating_change if mine else Decimal(0),
        "rating_change_b": theirs.rating_change if theirs else Decimal(0),
        "points_a": (mine.points_for if mine else Decimal(0)) if points else None,
        "points_b": (theirs.points_for if theirs else Decimal(0)) if points else None,
    }


def player_head_to_head(*, player: Player, game: Game) -> list[HeadToHeadRow]:
    """The player's record against every opponent in ``game``, most meetings first (the game's kind reads it)."""
    return game.kind.head_to_head(player=player, game=game)


@dataclass(frozen=True)
class Crosstable:
    league: League
    players: list[Player]  # best first, each with its ``rating``
    cells: dict[tuple[int, int], HeadToHeadRow] | None  # None: the game's opponents are not single players

    def rows(self) -> list[tuple[Player, list[tuple[Player, HeadToHeadRow | None]]]]:
        return [
            (player, [(other, (self.cells or {}).get((player.pk, other.pk))) for other in self.players])
            for player in self.players
        ]


def league_crosstable(*, league: League, size: int = CROSSTABLE_PLAYERS) -> Crosstable:
    """The records among the league's ``size`` best rated players (their results in any league of the game).
    Two queries: the players, and every record among them."""
    players = league_top_players(league=league, limit=size)
    cells = league.game.kind.crosstable(game=league.game, player_ids=[player.pk for player in players])
    return Crosstable(league=league, players=players, cells=cells)


def league_crosstable_kept(*, league: League) -> tuple[Crosstable | None, datetime | None]:
    """The league's crosstable as ``ratings.figures``' last run kept it, and when: (None, None) while being
    computed. Its players are read now, so their names are today's."""
    kept = figure_kept(game=league.game, name=crosstable_name(league.pk))
    return (None, None) if kept.computing else (crosstable_of(kept.value, league=league), kept.computed_at)


def crosstable_value(table) -> dict:
    cells = []
    for (a, b), row in (table.cells or {}).items():
        cells.append(
            [
                a,
                b,
                row.meetings,
                row.wins,
                row.draws,
                row.losses,
                row.last_met.isoformat() if row.last_met else None,
                str(row.rating_change),
                None if row.points_for is None else str(row.points_for),
                None if row.points_against is None else str(row.points_against),
            ]
        )
    return {
        "players": [[player.pk, str(player.rating)] for player in table.players],
        "cells": None if table.cells is None else cells,
    }


def crosstable_of(value: dict, *, league: League):
    """The kept crosstable, its players read now (their names as they are today; one erased is anonymous)."""
    people = Player.objects.in_bulk([pk for pk, _rating in value["players"]])
    players = []
    for pk, rating in value["players"]:
        player = people.get(pk)
        if player is not None:  # a player merged away since
            player.rating = Decimal(rating)
            players.append(player)
    cells = None
    if value["cells"] is not None:
        cells = {}
        for a, b, meetings, wins, draws, losses, last_met, change, points_for, points_against in value["cells"]:
            if b not in people:
                continue
            cells[(a, b)] = HeadToHeadRow(
                opponents=(Opponent(id=b, name=people[b].name),),
                meetings=meetings,
                wins=wins,
                draws=draws,
                losses=losses,
                last_met=parse_datetime(last_met) if last_met else None,
                rating_change=Decimal(change),
                points_for=None if points_for is None else Decimal(points_for),
                points_against=None if points_against is None else Decimal(points_against),
            )
    return Crosstable(league=league, players=players, cells=cells)
