"""Calculators: what one result would do to a rating, without storing anything. What the games' share.

Each game's calculator (its read, page, API and template) lives with its
kind (``games/<x>/calculator.py``); a kind offers one by naming its page
(``GameKind.calculator_url_name``). Here: reading the numbers typed, the
parameters that apply, and the list of calculators the index and each
page's tabs show. Reads, not services: they store nothing.

Every number a calculator's explanation states (K, the scale, Kd's bounds,
…) is the game's current parameter (``ratings.parameters.rating_parameters``),
never a constant: a page and an API answer name the game whose parameters
they used (``calculator_about``), and its answer carries them
(``calculator_parameters_serializer``), so an admin's change shows at once.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from config.api import AnswerSerializer
from leagues.kinds import KINDS
from leagues.models import Game
from ratings.engines import get_rating_system, parameter_ranges
from ratings.parameters import figure, rating_parameters

CALCULATOR_RATING_LIMIT = 100_000
# What a rating typed into a calculator may be (``calculator_number`` checks it); the APIs' schema says so.
RATING_PARAMETER = {"type": "number", "minimum": 0, "maximum": CALCULATOR_RATING_LIMIT}


def calculator_query(params) -> dict:
    """A calculator API's query as given (``config.api.query_params_once``), a parameter given with no value
    refused: the schema names each one's type, and ``rated_matches=`` is no number. (The pages read a blank
    field as "not given": a form sends every field.)"""
    blank = sorted(name for name, value in params.items() if value == "")
    if blank:
        raise ValidationError({name: [_("Give a value, or leave the parameter out.")] for name in blank})
    return params


def calculator_number(data, field: str, errors: dict, *, default=None, minimum=0.0, maximum=CALCULATOR_RATING_LIMIT):
    """``data[field]`` as a finite number within the bounds; a missing one is ``default`` (required if None).

    A problem is added to ``errors`` under the field (and None returned), so
    one answer names every field typed wrong.
    """
    raw = data.get(field)
    if raw in (None, ""):
        if default is None:
            errors.setdefault(field, []).append(_("This field is required."))
        return default
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors.setdefault(field, []).append(_("Enter a number."))
        return None
    if value != value or value in (float("inf"), float("-inf")) or not minimum <= value <= maximum:
        errors.setdefault(field, []).append(
            _("Enter a number between %(minimum)s and %(maximum)s.")
            % {"minimum": figure(minimum), "maximum": figure(maximum)}
        )
        return None
    return value


def calculator_game(*, rating_system: str) -> Game | None:
    """The game whose parameters a calculator uses: the first of its rating system (None: the defaults)."""
    return Game.objects.filter(rating_system=rating_system).order_by("pk").first()


def calculator_parameters(*, game: Game | None, rating_system: str):
    """The game's rating parameters, or the engine's defaults when the system has no game yet."""
    return rating_parameters(game=game) if game else get_rating_system(rating_system).parameters_class()


def calculator_figure(value) -> str:
    """A parameter as a calculator's text states it: 48, 0.225, 100000 (no "48.0", no "1e+05")."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def calculator_figures(parameters) -> dict[str, str]:
    """Every parameter of a set, by name, as ``calculator_figure`` writes it (the pages' explanations)."""
    return {name: calculator_figure(value) for name, value in dataclasses.asdict(parameters).items()}


def calculator_about(game: Game | None) -> str:
    """Whose parameters a calculator used, in words: the game's (set on its admin page), or the engine's defaults."""
    if game is None:
        return _("No game uses this rating system yet: the calculator uses the engine's default parameters.")
    return _("With the parameters %(game)s uses now (an admin sets them on the game's page).") % {"game": game.name}


def calculator_parameters_serializer(parameters_class: type, *, name: str) -> type[AnswerSerializer]:
    """The API answer's ``parameters``: each of the engine's parameters, the value the calculation used.

    Built from the parameters class, so a parameter an engine adds is answered and documented without
    editing a calculator; a whole-number parameter is an integer in the schema.
    """
    ranges = parameter_ranges(parameters_class)
    fields = {}
    for field in dataclasses.fields(parameters_class):
        described = f" ({ranges[field.name].describe()})" if field.name in ranges else ""
        help_text = f"The game's {field.name}{described}."
        number = serializers.IntegerField if field.type in (int, "int") else serializers.FloatField
        fields[field.name] = number(help_text=help_text)
    return type(AnswerSerializer)(name, (AnswerSerializer,), fields)


def calculator_answer_fields(*, game: Game | None, parameters, explanation: str) -> dict:
    """What every calculator's answer adds to its figures: the game used, its parameters and the rule in words."""
    return {
        "game": game.slug if game else None,
        "parameters": dataclasses.asdict(parameters),
        "explanation": explanation,
    }


GAME_FIELD_HELP = gettext_lazy(
    "The game whose parameters were used (its slug); null: no game uses this rating system yet (the engine's defaults)."
)
EXPLANATION_FIELD_HELP = gettext_lazy(
    "The rule in words, with the numbers the calculation used: the game's current parameters."
)


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
