"""A game's engine parameters: its stored overrides on its engine's defaults, read for the engines.

Reads, not writes: the rating services, the calculators, the pages and the
system check read a game's parameters through ``rating_parameters``; admin's
game form and ``Game.full_clean`` refuse a set the engine would reject (``Game.parameters_validate``).

The engines are pure Python and speak English; ``parameters_problem`` says what they refuse in the
reader's language (issue 28).

What each parameter does is the game's to say (its kind's ``parameter_texts``, written in
``games/<game>/parameters.py`` beside the seed it follows): ``parameters_explained`` lists them for the
quality page, ``parameter_change`` words one change for the tuning page (issue 29).
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.kinds import kind_of
from leagues.models import Game
from ratings.engines import EngineInputError, Param, get_rating_system, parameters_from_mapping


class ParameterText(NamedTuple):
    """What a club admin reads about one engine parameter, in lazy-translatable words (``gettext_lazy``).

    ``label`` is its short name ("K for established players"); ``does`` one sentence on what it does to the
    formula, in plain words; ``higher`` and ``lower`` what raising or lowering it does to the ratings, a
    clause each ("ratings follow recent form faster"), which ``parameter_change`` puts after a change.
    """

    label: str
    does: str
    higher: str
    lower: str


def rating_parameters(*, game: Game):
    """The game's engine parameters: its stored overrides on the engine's defaults.

    Admin refuses overrides outside the engine's ranges (``Game.parameters_validate``);
    a set stored before the ranges existed, or written around admin, raises a
    ValidationError naming the game and the parameter, so the rating task
    fails loudly and writes nothing, and a calculator answers 400, rather
    than either dividing by zero or rating with numbers no formula meant.
    """
    system = get_rating_system(game.rating_system)
    try:
        return parameters_from_mapping(system.parameters_class, game.parameters)
    except (EngineInputError, TypeError) as error:
        problem = parameters_problem(error)
        raise ValidationError(
            {
                "parameters": [
                    _(
                        "The rating parameters stored for %(game)s (%(slug)s) cannot be used: %(problem)s "
                        "An admin must correct them on the game's admin page; its results are not rated until then."
                    )
                    % {"game": game.name, "slug": game.slug, "problem": problem}
                ]
            }
        ) from error


def figure(value: float) -> str:
    """A parameter's value in the reader's language: 24, 0.225 (0,225 in Russian), never "24.0" or "1e+05"."""
    if float(value).is_integer():
        return str(int(value))
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return number_format(value, len(text.split(".")[1]) if "." in text else 0)


def _given(value: Any) -> str:
    """A value as the engine quotes it (``:g``, else ``repr``), with the reader's decimal mark."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        text = f"{value:g}"
        if "." in text and "e" not in text:
            return number_format(value, len(text.split(".")[1]))
        return text
    return repr(value)


def parameters_problem(error: Exception) -> str:
    """What ``parameters_from_mapping`` refused, in the reader's language: the engine's refusal carries a
    ``code`` and what it was about (``EngineInputError``), worded here; one without a code (a ``TypeError``)
    is the engine's text as it is."""
    code, params = getattr(error, "code", ""), getattr(error, "params", {})
    if code == "unknown_parameters":
        names = params["names"]
        return ngettext("Unknown parameter: %(names)s.", "Unknown parameters: %(names)s.", len(names)) % {
            "names": ", ".join(names)
        }
    if code == "not_finite":
        return _("Parameter %(name)s must be a finite number.") % {"name": params["name"]}
    if code == "parameter_range":
        param = params["param"]
        words = {
            "name": param.name,
            "minimum": figure(param.minimum),
            "maximum": figure(param.maximum),
            "value": _given(params["value"]),
        }
        if param.integer and param.minimum_excluded:
            text = _(
                "Parameter %(name)s must be a whole number above %(minimum)s and at most %(maximum)s; got %(value)s."
            )
        elif param.integer:
            text = _("Parameter %(name)s must be a whole number from %(minimum)s to %(maximum)s; got %(value)s.")
        elif param.minimum_excluded:
            text = _("Parameter %(name)s must be a number above %(minimum)s and at most %(maximum)s; got %(value)s.")
        else:
            text = _("Parameter %(name)s must be a number from %(minimum)s to %(maximum)s; got %(value)s.")
        return text % words
    if code == "parameters_order":
        return _("Parameter %(low)s (%(low_value)s) must not exceed %(high)s (%(high_value)s).") % {
            "low": params["low"],
            "low_value": figure(params["low_value"]),
            "high": params["high"],
            "high_value": figure(params["high_value"]),
        }
    return str(error)


def range_words(param: Param) -> str:
    """A parameter's range as ``Param.describe`` says it ("a number from 100 to 2000"), in the reader's language
    and number format: for a list of parameters, in parentheses after each (admin's game page)."""
    values = {"minimum": figure(param.minimum), "maximum": figure(param.maximum)}
    if param.integer and param.minimum_excluded:
        return _("a whole number above %(minimum)s and at most %(maximum)s") % values
    if param.integer:
        return _("a whole number from %(minimum)s to %(maximum)s") % values
    if param.minimum_excluded:
        return _("a number above %(minimum)s and at most %(maximum)s") % values
    return _("a number from %(minimum)s to %(maximum)s") % values


def _parameter_names(parameters_class: type) -> list[str]:
    """The parameters a game may set, in the engine's order: its dataclass's fields that hold a number (what
    ``parameters_from_mapping`` holds to a range or to being finite)."""
    defaults = parameters_class()
    return [
        field.name
        for field in fields(parameters_class)
        if isinstance(getattr(defaults, field.name), int | float)
        and not isinstance(getattr(defaults, field.name), bool)
    ]


def parameter_texts(game: Game | str) -> dict[str, ParameterText]:
    """Each parameter's text, by name, as the game's kind words it (``parameter_texts``); a parameter the kind
    says nothing about is named by itself, with no sentence, so a game plugin without texts still shows its
    parameters."""
    kind = kind_of(game)
    given = kind.parameter_texts() if kind is not None else {}
    system = get_rating_system(game if isinstance(game, str) else game.rating_system)
    return {
        name: given.get(name) or ParameterText(label=name, does="", higher="", lower="")
        for name in _parameter_names(system.parameters_class)
    }


def parameters_explained(*, game: Game) -> list[dict]:
    """The game's parameters for a reader, in the engine's order: each one's name, label, sentence, value and
    the engine's default (both as ``figure`` writes them), and whether the game changed it.

    In memory, from the game's stored overrides: the quality page lists them without a replay. Stored
    overrides the engine refuses raise ``rating_parameters``' ValidationError.
    """
    system = get_rating_system(game.rating_system)
    parameters, defaults = rating_parameters(game=game), system.parameters_class()
    texts = parameter_texts(game)
    explained = []
    for name, text in texts.items():
        value, default = getattr(parameters, name), getattr(defaults, name)
        explained.append(
            {
                "name": name,
                "label": str(text.label),
                "does": str(text.does),
                "value": figure(value),
                "default": figure(default),
                "changed": value != default,
            }
        )
    return explained


def parameter_change(*, game: Game | str, name: str, old: float, new: float) -> str:
    """One change of one parameter in a sentence: "K for established players 16 → 24: ratings follow recent
    form faster" (the ``higher`` clause for a rise, ``lower`` for a fall); only "label old → new" when the
    game gives no clause for that direction, or nothing changed."""
    text = parameter_texts(game).get(name) or ParameterText(label=name, does="", higher="", lower="")
    effect = text.higher if new > old else text.lower if new < old else ""
    words = {"label": text.label, "old": figure(old), "new": figure(new)}
    if not effect:
        return _("%(label)s %(old)s → %(new)s") % words
    return _("%(label)s %(old)s → %(new)s: %(effect)s") % (words | {"effect": effect})
