"""Each engine declares the range of each of its parameters (``base.Param``), and overrides outside it are refused.

Issue 12 item 7: ``{"scale": 0}``, a negative K, ``1e300`` and
``provisional_matches: -5`` used to pass validation; with a scale of 0 the
Elo calculator divided by zero.
"""

import math
import re
from dataclasses import fields

import pytest

from ratings.engines import REGISTRY, EngineInputError, Param, parameter_ranges, parameters_from_mapping
from ratings.engines.bridge import BridgeParameters
from ratings.engines.elo import EloParameters, elo_update, expected_score
from ratings.engines.preferans import PreferansParameters


@pytest.mark.parametrize("system", REGISTRY.values(), ids=REGISTRY.keys())
def test_every_numeric_parameter_of_every_engine_has_a_range_holding_its_default(system):
    defaults = system.parameters_class()
    ranges = parameter_ranges(system.parameters_class)
    numeric = {f.name for f in fields(system.parameters_class) if isinstance(getattr(defaults, f.name), int | float)}
    assert numeric, system.slug
    assert set(ranges) == numeric
    for name, param in ranges.items():
        assert param.clean(getattr(defaults, name)) == getattr(defaults, name), name
    assert parameters_from_mapping(system.parameters_class, {}) == defaults


# (parameters class, values, the message): the values the issue names, and each bound.
REFUSED = [
    (EloParameters, {"scale": 0}, "Parameter scale must be a number from 100 to 2000; got 0."),
    (EloParameters, {"scale": 99.9}, "Parameter scale must be a number from 100 to 2000; got 99.9."),
    (EloParameters, {"scale": 2001}, "Parameter scale must be a number from 100 to 2000; got 2001."),
    (EloParameters, {"k_provisional": -8}, "Parameter k_provisional must be a number above 0 and at most 200; got -8."),
    (EloParameters, {"k_established": 0}, "Parameter k_established must be a number above 0 and at most 200; got 0."),
    (
        EloParameters,
        {"k_provisional": 1e300},
        "Parameter k_provisional must be a number above 0 and at most 200; got 1e+300.",
    ),
    (
        EloParameters,
        {"provisional_matches": -5},
        "Parameter provisional_matches must be a whole number from 0 to 10000; got -5.",
    ),
    (
        EloParameters,
        {"provisional_matches": 2.5},
        "Parameter provisional_matches must be a whole number from 0 to 10000; got 2.5.",
    ),
    (EloParameters, {"scale": None}, "Parameter scale must be a number from 100 to 2000; got None."),
    # Python's json reads NaN and Infinity (the API's and admin's parser refuse them first).
    (EloParameters, {"scale": float("nan")}, "Parameter scale must be a number from 100 to 2000; got nan."),
    (
        EloParameters,
        {"k_established": float("inf")},
        "Parameter k_established must be a number above 0 and at most 200; got inf.",
    ),
    (PreferansParameters, {"kv_base": 0}, "Parameter kv_base must be a number from 1 to 1000; got 0."),
    (PreferansParameters, {"kv_below": -22}, "Parameter kv_below must be a number from 1 to 1000; got -22."),
    (PreferansParameters, {"kd_scale": 0}, "Parameter kd_scale must be a number from 1 to 100000; got 0."),
    (
        PreferansParameters,
        {"smoothing_scale": 0},
        "Parameter smoothing_scale must be a number from 1 to 100000; got 0.",
    ),
    (PreferansParameters, {"kd_max": 0}, "Parameter kd_max must be a number above 0 and at most 20; got 0."),
    (PreferansParameters, {"kd_min": 3}, "Parameter kd_min (3) must not exceed kd_max (2)."),
    (PreferansParameters, {"kd_min": 1, "kd_max": 0.5}, "Parameter kd_min (1) must not exceed kd_max (0.5)."),
    (BridgeParameters, {"scale": 0}, "Parameter scale must be a number from 100 to 2000; got 0."),
    (BridgeParameters, {"k_base": -24}, "Parameter k_base must be a number above 0 and at most 200; got -24."),
    (BridgeParameters, {"imps_per_goal": 0}, "Parameter imps_per_goal must be a number from 0.5 to 24; got 0."),
    (BridgeParameters, {"bonus_scale": 0}, "Parameter bonus_scale must be a number from 1 to 100000; got 0."),
    (
        BridgeParameters,
        {"rating_difference_cap": 0},
        "Parameter rating_difference_cap must be a number above 0 and at most 10000; got 0.",
    ),
    (BridgeParameters, {"draw_margin_imps": 25}, "Parameter draw_margin_imps must be a number from 0 to 24; got 25."),
]


@pytest.mark.parametrize(("parameters_class", "values", "message"), REFUSED)
def test_values_outside_an_engines_range_are_refused(parameters_class, values, message):
    with pytest.raises(EngineInputError, match=f"^{re.escape(message)}$"):
        parameters_from_mapping(parameters_class, values)


@pytest.mark.parametrize(
    ("parameters_class", "values", "expected"),
    [
        (EloParameters, {"scale": 100, "k_provisional": 200, "provisional_matches": 0}, (100.0, 200.0, 0)),
        (EloParameters, {"scale": 2000, "k_established": 0.5, "provisional_matches": 10_000.0}, (2000.0, 0.5, 10_000)),
        (PreferansParameters, {"kd_min": 2, "kd_max": 2}, (2.0, 2.0)),
        (BridgeParameters, {"bonus_max": 0, "imps_per_goal": 0.5}, (0.0, 0.5)),
    ],
)
def test_the_bounds_themselves_are_accepted(parameters_class, values, expected):
    parameters = parameters_from_mapping(parameters_class, values)
    assert tuple(getattr(parameters, name) for name in values) == expected
    assert all(type(getattr(parameters, name)) is type(value) for name, value in zip(values, expected, strict=True))


def test_param_describes_its_range():
    assert Param("k", 0, 200, minimum_excluded=True).describe() == "a number above 0 and at most 200"
    assert Param("n", 0, 10, integer=True).describe() == "a whole number from 0 to 10"
    assert Param("n", 0, 10, integer=True).clean(4.0) == 4
    assert type(Param("n", 0, 10, integer=True).clean(4.0)) is int


@pytest.mark.parametrize(("rating", "opponent", "expected"), [(0, 100_000, 0.0), (100_000, 0, 1.0)])
def test_the_elo_expected_score_never_overflows_at_the_smallest_scale(rating, opponent, expected):
    """At scale 100 a gap of 100,000 is 10^1000, beyond a float: the calculator answered 500 for it."""
    slow = EloParameters(scale=100)
    assert math.isclose(expected_score(rating, opponent, slow.scale), expected, abs_tol=1e-12)
    update = elo_update(rating=rating, opponent_rating=opponent, score=1, rated_matches=0, parameters=slow)
    assert update.rating_after == rating + round(32 * (1 - expected))
