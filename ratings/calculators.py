"""Calculators: what one match or deal would do to a rating (the calculator pages and API).

Reads, not services: they store nothing, and only read a game's parameters.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from leagues.models import Game
from ratings.engines import get_rating_system
from ratings.parameters import rating_parameters

CALCULATOR_RATING_LIMIT = 100_000


def _calculator_number(data, field: str, errors: dict, *, default=None, minimum=0.0, maximum=CALCULATOR_RATING_LIMIT):
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


def rating_calculate_elo(*, data, game: Game | None = None) -> dict:
    """What one Slaps match would do to a rating: the calculator page and API."""
    from ratings.engines.elo import elo_update

    errors: dict[str, list[str]] = {}
    rating = _calculator_number(data, "rating", errors)
    opponent = _calculator_number(data, "opponent", errors)
    score = _calculator_number(data, "score", errors, default=1.0, maximum=1)
    rated_matches = _calculator_number(data, "rated_matches", errors, default=0.0, maximum=10**9)
    if score is not None and score not in (0.0, 0.5, 1.0):
        errors.setdefault("score", []).append("Score is 1 (win), 0 (loss) or 0.5 (draw).")
    if rated_matches is not None and rated_matches != int(rated_matches):
        errors.setdefault("rated_matches", []).append("Enter a whole number.")
    if errors:
        raise ValidationError(errors)
    game = game or Game.objects.filter(rating_system="elo").order_by("pk").first()
    parameters = rating_parameters(game=game) if game else get_rating_system("elo").parameters_class()
    update = elo_update(
        rating=rating, opponent_rating=opponent, score=score, rated_matches=int(rated_matches), parameters=parameters
    )
    return {
        "expected": round(update.expected, 4),
        "k": update.k,
        "delta": int(update.delta_from(rating)) if rating == int(rating) else update.delta_from(rating),
        "new_rating": int(update.rating_after),
    }


CALCULATOR_GRID_RATINGS = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 4500)
CALCULATOR_GRID_TABLES = (1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000)


def _calculator_opponents(data, errors: dict) -> list[float] | None:
    raw = data.get("opponents")
    if raw in (None, ""):
        errors.setdefault("opponents", []).append("This field is required: one to three ratings, comma-separated.")
        return None
    parts = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    parts = [part for part in (str(p).strip() for p in parts) if part]
    if not 1 <= len(parts) <= 3:
        errors.setdefault("opponents", []).append("Give one to three opponents' ratings.")
        return None
    values = []
    for part in parts:
        value = _calculator_number({"opponents": part}, "opponents", errors)
        if value is None:
            return None
        values.append(value)
    return values


def rating_calculate_preferans(*, data, game: Game | None = None, grid: bool = False) -> dict:
    """What one Preferans deal would do to a rating (seed 001's calculator), and optionally its grid.

    The grid shows, for the whists entered, the delta for each of your ratings
    (rows) against a table whose opponents all have one average rating (columns).
    """
    from ratings.engines.preferans import deal_update

    errors: dict[str, list[str]] = {}
    rating = _calculator_number(data, "rating", errors)
    opponents = _calculator_opponents(data, errors)
    whists = _calculator_number(data, "whists", errors, minimum=-10_000, maximum=10_000)
    if errors:
        raise ValidationError(errors)
    game = game or Game.objects.filter(rating_system="preferans").order_by("pk").first()
    parameters = rating_parameters(game=game) if game else get_rating_system("preferans").parameters_class()
    update = deal_update(rating=rating, opponents=opponents, whists=whists, parameters=parameters)
    result = {
        "table_rating": round(update.table_rating, 2),
        "kv": round(update.kv, 4),
        "expected_whists": round(update.expected_whists, 4),
        "kd": round(update.kd, 4),
        "smoothing": round(update.smoothing, 4),
        "delta": round(update.rating_after - rating, 2),
        "new_rating": update.rating_after,
    }
    if grid:
        result["grid"] = {
            "tables": list(CALCULATOR_GRID_TABLES),
            "rows": [
                {
                    "rating": row,
                    "deltas": [
                        round(
                            deal_update(
                                rating=row, opponents=[table] * len(opponents), whists=whists, parameters=parameters
                            ).rating_after
                            - row,
                            2,
                        )
                        for table in CALCULATOR_GRID_TABLES
                    ],
                }
                for row in CALCULATOR_GRID_RATINGS
            ],
        }
    return result
