"""The oracle's bridge to the database: read a game's stored results as plain data, diff the ledger.

Kept outside ``tests/oracle/`` because it imports Django and the models; the
oracle itself stays pure. It reads raw model fields (seats, deals, boards,
the league each match is filed under, bots as the seat stores them) and never
the kinds' loaders (``ratings.loaders``, ``games/*/loading.py``), so a loader bug cannot hide in both
sides.

Vocabulary:
    difference   one line naming a ledger row, promotion or player rating
                 whose stored value is not the oracle's (or that exists on
                 one side only). ``ledger_diff`` returns them all, so a test
                 can print how many differ before asserting there are none.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.utils import timezone

from games.bridge.models import BoardTable
from games.preferans.models import Deal
from leagues.models import Game, League
from matches.models import Match, Seat
from ratings.models import PlayerRating, Promotion, RatingChange
from tests.oracle import GameSpec, LeagueSpec, Outcome, ResultSpec, oracle_replay


def oracle_game_spec(*, game: Game) -> GameSpec:
    leagues = tuple(
        LeagueSpec(
            slug=league.slug,
            tier=league.tier,
            promotion_threshold=league.promotion_threshold,
            floor=league.rating_floor,
            period_days=league.rating_period_days,
            period_anchor=league.rating_period_anchor,
        )
        for league in League.objects.filter(game=game).order_by("pk")
    )
    return GameSpec(
        rating_system=game.rating_system,
        leagues=leagues,
        parameters=dict(game.parameters or {}),
        start_rating=game.start_rating,
        time_zone=settings.TIME_ZONE,
    )


def _bot_seat(seat: Seat) -> dict:
    """The bot as played: the seat's own copy when the schema has one, else the Bot row (today's schema)."""
    rating = getattr(seat, "bot_rating", None)
    maximum = getattr(seat, "bot_max_rating", None)
    if rating is None or maximum is None:
        rating, maximum = seat.bot.rating, seat.bot.max_rating
    return {"bot": seat.bot.slug, "rating": str(rating), "max_rating": str(maximum)}


def _status(match: Match) -> str:
    if match.status in (Match.Status.VOID, Match.Status.FRIENDLY):
        return str(match.status)
    if match.awaiting_confirmation:
        return "pending"
    # Rated, or submitted: a submitted result that is due must have been rated, so the oracle rates it
    # (the oracle decides for itself whether a rating period still holds it back).
    return "rated"


def oracle_results(*, game: Game) -> list[ResultSpec]:
    """Every stored result of the game, as the oracle's plain input."""
    matches = list(Match.objects.filter(game=game).select_related("league").order_by("pk"))
    ids = [match.pk for match in matches]
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(match_id__in=ids).select_related("bot").order_by("match_id", "position"):
        seats.setdefault(seat.match_id, []).append(seat)
    deals: dict[int, list[list]] = {}
    for deal in Deal.objects.filter(match_id__in=ids).order_by("match_id", "number"):
        deals.setdefault(deal.match_id, []).append([str(whist) for whist in deal.whists])
    boards: dict[int, dict[int, dict]] = {}
    tables = BoardTable.objects.filter(board__match_id__in=ids).select_related("board")
    for table in tables.order_by("board__match_id", "board__position", "table"):
        board = boards.setdefault(table.board.match_id, {}).setdefault(
            table.board.position, {"number": table.board.number, "tables": []}
        )
        board["tables"].append(
            {
                "ns": [table.ns_1_id, table.ns_2_id],
                "ew": [table.ew_1_id, table.ew_2_id],
                "ns_score": table.ns_score,
                "ns_imps": None if table.ns_imps is None else str(table.ns_imps),
            }
        )
    results = []
    for match in matches:
        match_seats = seats.get(match.pk, [])
        if game.rating_system == "elo":
            first, second = match_seats
            winner = first if first.result >= second.result else second
            body = {"players": [first.player_id, second.player_id], "winner": winner.player_id}
        elif game.rating_system == "preferans":
            body = {
                "seats": [_bot_seat(seat) if seat.bot_id else {"player": seat.player_id} for seat in match_seats],
                "deals": deals.get(match.pk, []),
            }
        else:
            body = {"boards": [boards[match.pk][position] for position in sorted(boards.get(match.pk, {}))]}
        results.append(
            ResultSpec(
                id=match.pk,
                played_at=match.played_at,
                league=match.league.slug if match.league else "",
                status=_status(match),
                body=body,
            )
        )
    return results


def oracle_result_from_body(*, match_id: int, body: dict, bots: dict, default_league: str, status: str = "rated"):
    """A submitted API body (API.md) as the oracle's input, for tests that keep what they sent.

    ``bots`` maps a bot slug to its (rating, max_rating) when the body was
    submitted: the values as played. ``default_league`` is the league a body
    without ``"league"`` is filed under (the game's amateur league).
    """
    played_at = body["played_at"]
    if isinstance(played_at, str):
        played_at = dt.datetime.fromisoformat(played_at)
    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at)
    if body.get("rated", True) is False:
        status = "friendly"
    plain = {key: body[key] for key in ("players", "winner", "deals", "boards") if key in body}
    if "seats" in body:
        plain["seats"] = [
            seat if "player" in seat else {"bot": seat["bot"], "rating": str(bots[seat["bot"]][0]),
                                            "max_rating": str(bots[seat["bot"]][1])}
            for seat in body["seats"]
        ]  # fmt: skip
        plain["deals"] = [[str(whist) for whist in deal] for deal in body["deals"]]
    return ResultSpec(
        id=match_id, played_at=played_at, league=body.get("league") or default_league, status=status, body=plain
    )


def oracle_outcome_from_db(*, game: Game, now: dt.datetime | None = None) -> Outcome:
    """The oracle's replay of everything stored for the game."""
    return oracle_replay(oracle_game_spec(game=game), oracle_results(game=game), now=now or timezone.now())


def _exact(value) -> Fraction:
    return Fraction(Decimal(str(value)))


def ledger_diff(*, game: Game, outcome: Outcome) -> list[str]:
    """Every ledger row, promotion and player rating of the game that differs from ``outcome``."""
    tiers = dict(League.objects.filter(game=game).values_list("pk", "tier"))
    differences = []
    stored = {}
    for row in RatingChange.objects.filter(game=game):
        stored[(row.match_id, row.unit, row.player_id)] = row
    for key in sorted(set(stored) | set(outcome.rows)):
        mine, theirs = stored.get(key), outcome.rows.get(key)
        if theirs is None:
            differences.append(f"ledger row {key}: stored, but the rules give none")
            continue
        if mine is None:
            differences.append(f"ledger row {key}: missing (the rules give {theirs.rating_after} after)")
            continue
        got = {
            "rating_before": _exact(mine.rating_before),
            "rating_after": _exact(mine.rating_after),
            "delta": _exact(mine.delta),
            "rated_matches_after": mine.rated_matches_after,
            "peak_after": _exact(mine.peak_after),
            "league_after": tiers.get(mine.league_after_id),
        }
        want = {name: getattr(theirs, name) for name in got}
        for name in got:
            if got[name] != want[name]:
                differences.append(f"ledger row {key} {name}: stored {_shown(got[name])}, rules {_shown(want[name])}")
    promoted = {(p.player_id, p.match_id): _exact(p.rating) for p in Promotion.objects.filter(game=game)}
    expected = {(p.player, p.match): p.rating for p in outcome.promotions}
    for key in sorted(set(promoted) | set(expected)):
        if promoted.get(key) != expected.get(key):
            stored_rating, rules_rating = _shown(promoted.get(key)), _shown(expected.get(key))
            differences.append(f"promotion (player, match) {key}: stored {stored_rating}, rules {rules_rating}")
    ratings = {r.player_id: r for r in PlayerRating.objects.filter(game=game)}
    for player in sorted(set(ratings) | set(outcome.standings)):
        mine, theirs = ratings.get(player), outcome.standings.get(player)
        if mine is None or theirs is None:
            differences.append(f"player rating {player}: {'missing' if mine is None else 'stored but never rated'}")
            continue
        got = (_exact(mine.rating), _exact(mine.peak_rating), mine.rated_matches, tiers.get(mine.league_id))
        want = (theirs.rating, theirs.peak, theirs.rated_matches, theirs.league)
        if got != want:
            differences.append(
                f"player rating {player}: stored {tuple(map(_shown, got))}, rules {tuple(map(_shown, want))}"
            )
    return differences


def _shown(value) -> str:
    if isinstance(value, Fraction):
        return (
            f"{float(value):.2f}" if value.denominator in (1, 2, 4, 5, 10, 20, 25, 50, 100) else f"{float(value):.6f}"
        )
    return str(value)


def assert_ledger_is_the_oracles(*, game: Game, now: dt.datetime | None = None) -> int:
    """Assert every ledger row, promotion and player rating of ``game`` is the oracle's; return the rows compared.

    For tests above the engines: the expected ledger is the oracle's replay of
    what is stored (``oracle_outcome_from_db``), never the service's own
    replay. A failure prints how many differ and the first 25 differences.
    The returned count lets a test assert it compared something.
    """
    game = Game.objects.get(pk=game.pk)
    outcome = oracle_outcome_from_db(game=game, now=now)
    differences = ledger_diff(game=game, outcome=outcome)
    assert differences == [], (
        f"{game.slug}: {len(differences)} differences from the oracle over {len(outcome.rows)} ledger rows:\n"
        + "\n".join(differences[:25])
    )
    return len(outcome.rows)
