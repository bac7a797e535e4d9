"""Preferans results: cleaning a game's seats and deals, storing and reading them back.

A game is 2 to 4 seats, each a player or a bot (bots are never rated), and
its *deals*: each deal the *whists* (points, in cents) every seat won or
lost in it, in seat order, summing to zero. A seat's result is its total
over the deals. Body fields: ``seats`` (``{"player": id}`` or
``{"bot": slug}`` each) and ``deals`` (a list of whists per deal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.formats import get_format
from django.utils.translation import gettext as _

from games.preferans.models import Deal
from leagues.models import Bot, Game
from matches.inputs import Errors, GameInput, MatchInput, SeatInput, is_slug, parse_cents, parse_id, players_by_id
from matches.models import Match

PREFERANS_SEATS = (2, 4)
PREFERANS_MAX_DEALS = 500
WHIST_LIMIT = Decimal(10_000)


def _clean_preferans_seats(raw_seats: Any, errors: Errors, game: Game) -> tuple[SeatInput, ...]:
    low, high = PREFERANS_SEATS
    if raw_seats in (None, "", []):
        errors.add(
            "seats",
            _('This field is required: %(low)s to %(high)s seats, each {"player": id} or {"bot": slug}.')
            % {"low": low, "high": high},
        )
        return ()
    if not isinstance(raw_seats, list | tuple):
        errors.add("seats", _("Give a list of seats."))
        return ()
    if not low <= len(raw_seats) <= high:
        errors.add(
            "seats",
            _("A Preferans table has %(low)s to %(high)s seats, not %(count)s.")
            % {"low": low, "high": high, "count": len(raw_seats)},
        )
        return ()
    player_ids: list[int] = []
    bot_slugs: list[str] = []
    shapes: list[tuple[str, Any]] = []
    for number, seat in enumerate(raw_seats, start=1):
        if not isinstance(seat, Mapping) or len(seat) != 1 or next(iter(seat)) not in ("player", "bot"):
            errors.add("seats", _('Seat %(number)s: give either {"player": id} or {"bot": slug}.') % {"number": number})
            return ()
        kind, value = next(iter(seat.items()))
        if kind == "player":
            player_id = parse_id(value)
            if player_id is None:
                errors.add("seats", _("Seat %(number)s: player ids are positive whole numbers.") % {"number": number})
                return ()
            player_ids.append(player_id)
            shapes.append(("player", player_id))
        else:
            if not isinstance(value, str) or not value.strip():
                errors.add(
                    "seats", _('Seat %(number)s: a bot is named by its difficulty, e.g. "normal".') % {"number": number}
                )
                return ()
            bot_slugs.append(value.strip())
            shapes.append(("bot", value.strip()))
    if not player_ids:
        errors.add("seats", _("At least one seat must be a player: bots are never rated."))
        return ()
    if len(set(player_ids)) != len(player_ids):
        errors.add("seats", _("The same player cannot hold two seats."))
        return ()
    players = players_by_id(player_ids, errors, "seats")
    if players is None:
        return ()
    wanted = [slug for slug in bot_slugs if is_slug(slug)]
    bots = {bot.slug: bot for bot in Bot.objects.filter(game=game, slug__in=wanted, active=True)}
    unknown = sorted({slug for slug in bot_slugs if slug not in bots})
    if unknown:
        known = ", ".join(Bot.objects.filter(game=game, active=True).values_list("slug", flat=True))
        shown = ", ".join(repr(slug[:30]) for slug in unknown)
        errors.add("seats", _("Unknown bot(s): %(shown)s. Bots: %(known)s.") % {"shown": shown, "known": known})
        return ()
    return tuple(
        SeatInput(player=players[value], result=Decimal(0))
        if kind == "player"
        else SeatInput(player=None, bot=bots[value], result=Decimal(0))
        for kind, value in shapes
    )


def preferans_clean(data: Mapping[str, Any], errors: Errors, game: Game) -> GameInput:
    seats = _clean_preferans_seats(data.get("seats"), errors, game)
    raw_deals = data.get("deals")
    if raw_deals in (None, "", []):
        errors.add("deals", _("This field is required: at least one deal, each the whists of every seat."))
        return GameInput()
    if not isinstance(raw_deals, list | tuple):
        errors.add("deals", _("Give a list of deals, each a list of whists in seat order."))
        return GameInput()
    if len(raw_deals) > PREFERANS_MAX_DEALS:
        errors.add("deals", _("At most %(count)s deals in one game.") % {"count": PREFERANS_MAX_DEALS})
        return GameInput()
    deals: list[tuple[Decimal, ...]] = []
    for number, raw in enumerate(raw_deals, start=1):
        if not isinstance(raw, list | tuple):
            errors.add("deals", _("Deal %(number)s: give a list of whists, one per seat.") % {"number": number})
            continue
        if seats and len(raw) != len(seats):
            errors.add(
                "deals",
                _("Deal %(number)s: %(scores)s scores for %(seats)s seats.")
                % {"number": number, "scores": len(raw), "seats": len(seats)},
            )
            continue
        whists = tuple(parse_cents(value, limit=WHIST_LIMIT) for value in raw)
        if None in whists:
            errors.add(
                "deals",
                _("Deal %(number)s: whists are numbers with at most two decimals, each within ±10,000.")
                % {"number": number},
            )
            continue
        total = sum(whists, Decimal(0))
        if total != 0:
            errors.add(
                "deals",
                _("Deal %(number)s: the whists sum to %(total)s, not 0 (each deal is zero-sum).")
                % {"number": number, "total": signed_decimal(total)},
            )
            continue
        deals.append(whists)
    if not seats or "deals" in errors:
        return GameInput()
    totals = [sum((deal[index] for deal in deals), Decimal(0)) for index in range(len(seats))]
    return GameInput(
        seats=tuple(
            SeatInput(player=seat.player, bot=seat.bot, result=total) for seat, total in zip(seats, totals, strict=True)
        ),
        parts={"deals": tuple(deals)},
    )


def signed_decimal(value: Decimal) -> str:
    """A signed sum of whists as a message says it, in the language's format: "+1.5" ("+1,5" in Russian)."""
    return f"{value:+}".replace(".", get_format("DECIMAL_SEPARATOR"))


def preferans_stored_body(match: Match) -> dict[str, Any]:
    return {
        "seats": [
            {"player": seat.player_id} if seat.player_id else {"bot": seat.bot.slug} for seat in match.seats.all()
        ],
        "deals": [deal.whists for deal in match.deals.all()],
    }


def preferans_deal_rows(match: Match, cleaned: MatchInput) -> list[Deal]:
    """The game's deals, unsaved, in play order: each the whists of every seat, in seat order."""
    return [
        Deal(match=match, number=number, whists=[float(whist) for whist in whists])
        for number, whists in enumerate(cleaned.parts["deals"], start=1)
    ]


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
        whists = [parse_cents(cell, limit=WHIST_LIMIT) for cell in row]
        if None in whists:
            previews.append(DealPreview(number=number, total=None, status="incomplete"))
            continue
        total = sum(whists, Decimal(0))
        previews.append(DealPreview(number=number, total=total, status="ok" if total == 0 else "unbalanced"))
        totals = [running + whist for running, whist in zip(totals, whists, strict=True)]
    return previews, totals
