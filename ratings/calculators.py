"""Calculators: what one result would do to a rating, without storing anything. What the games' share.

Each game's calculator (its read, page, API and template) lives with its
kind (``games/<x>/calculator.py``); a kind offers one by naming its page
(``GameKind.calculator_url_name``). Here: reading the numbers typed, the
parameters that apply, and the list of calculators the index and each
page's tabs show. Reads, not services: they store nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from django.core.exceptions import ValidationError

from leagues.kinds import KINDS
from leagues.models import Game
from ratings.engines import get_rating_system
from ratings.parameters import rating_parameters

CALCULATOR_RATING_LIMIT = 100_000
# What a rating typed into a calculator may be (``calculator_number`` checks it); the APIs' schema says so.
RATING_PARAMETER = {"type": "number", "minimum": 0, "maximum": CALCULATOR_RATING_LIMIT}


def calculator_query(params) -> dict:
    """A calculator API's query as given (``config.api.query_params_once``), a parameter given with no value
    refused: the schema names each one's type, and ``rated_matches=`` is no number. (The pages read a blank
    field as "not given": a form sends every field.)"""
    blank = sorted(name for name, value in params.items() if value == "")
    if blank:
        raise ValidationError({name: ["Give a value, or leave the parameter out."] for name in blank})
    return params


def calculator_number(data, field: str, errors: dict, *, default=None, minimum=0.0, maximum=CALCULATOR_RATING_LIMIT):
    """``data[field]`` as a finite number within the bounds; a missing one is ``default`` (required if None).

    A problem is added to ``errors`` under the field (and None returned), so
    one answer names every field typed wrong.
    """
    raw = data.get(field)
    if raw in (None, ""):
        if default is None:
            errors.setdefault(field, []).append("This field is required.")
        return default
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors.setdefault(field, []).append("Enter a number.")
        return None
    if value != value or value in (float("inf"), float("-inf")) or not minimum <= value <= maximum:
        errors.setdefault(field, []).append(f"Enter a number between {minimum:g} and {maximum:g}.")
        return None
    return value


def calculator_game(*, rating_system: str) -> Game | None:
    """The game whose parameters a calculator uses: the first of its rating system (None: the defaults)."""
    return Game.objects.filter(rating_system=rating_system).order_by("pk").first()


def calculator_parameters(*, game: Game | None, rating_system: str):
    """The game's rating parameters, or the engine's defaults when the system has no game yet."""
    return rating_parameters(game=game) if game else get_rating_system(rating_system).parameters_class()


class CalculatorLink(NamedTuple):
    label: str
    url_name: str


def calculator_links() -> list[CalculatorLink]:
    """The calculators the registered kinds offer, by label (the index page and each calculator's tabs)."""
    links = [
        CalculatorLink(kind.calculator_label, kind.calculator_url_name)
        for kind in KINDS.values()
        if kind.calculator_url_name
    ]
    return sorted(links)
