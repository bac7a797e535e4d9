"""How well ratings predicted results (seed 003's measure, and two more), and forecasts.

Each rated unit gives a prediction ``p`` (the expected score before the
unit) and an outcome ``s`` (1 win, 1/2 draw, 0 loss). Over a history:

    RMSE       sqrt(mean((p - s)^2)), the thesis's metric
    log-loss   mean(-(s*ln p + (1-s)*ln(1-p))), p clipped to [1e-6, 1-1e-6]
    baseline   the RMSE of always predicting 1/2: a rating system is worth
               its keep when its RMSE is below this
    calibration  predictions grouped in tenths, each group's mean prediction
               against the mean outcome it got: a well-calibrated system
               puts them on the diagonal
    ECE        the expected calibration error: sum over the tenths of
               (count / all) * |mean prediction - mean outcome|

Forecasts: what a rating system claimed before a rated unit, in one shape for
every game, so quality reports and tuning score them all alike.

    forecast   one duel as the system saw it just before rating it: ``gap``,
               this side's rating minus the other side's, and ``outcome``, 1
               when this side did better, 1/2 even, 0 worse. One per duel,
               seen from one side (the other side's is its mirror and adds
               nothing): a Slaps match, a pair of seats at a Preferans table,
               two sides of a bridge board.
    scale      the rating gap at which the stronger side is expected to do
               better 10 times to 1: ``probability(gap, scale)`` =
               1 / (1 + 10^(-gap/scale)). An Elo-style system implies its own
               (its 400); where a system predicts something else (Preferans
               predicts whists) ``fit_scale`` finds the scale that makes its
               rating gaps most likely, by maximum likelihood.

A system gives its forecasts through ``forecasts(match, states, parameters)``
and its scale through ``forecast_scale(parameters)`` (None: fit it). Both are
optional for an engine written before them: ``forecasts_of`` gives no
forecasts for such a system, so reports leave it out.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

EPSILON = 1e-6


@dataclass
class CalibrationBin:
    low: float
    high: float
    count: int = 0
    predicted_sum: float = 0.0
    observed_sum: float = 0.0

    @property
    def predicted(self) -> float | None:
        return self.predicted_sum / self.count if self.count else None

    @property
    def observed(self) -> float | None:
        return self.observed_sum / self.count if self.count else None


@dataclass
class QualityReport:
    count: int = 0
    squared_error: float = 0.0
    baseline_squared_error: float = 0.0
    log_loss_sum: float = 0.0
    bins: list[CalibrationBin] = field(
        default_factory=lambda: [CalibrationBin(i / 10, (i + 1) / 10) for i in range(10)]
    )

    def add(self, predicted: float, outcome: float) -> None:
        if not (0.0 <= predicted <= 1.0 and 0.0 <= outcome <= 1.0):
            return
        self.count += 1
        self.squared_error += (predicted - outcome) ** 2
        self.baseline_squared_error += (0.5 - outcome) ** 2
        p = min(max(predicted, EPSILON), 1 - EPSILON)
        self.log_loss_sum += -(outcome * math.log(p) + (1 - outcome) * math.log(1 - p))
        calibration = self.bins[min(int(predicted * 10), 9)]
        calibration.count += 1
        calibration.predicted_sum += predicted
        calibration.observed_sum += outcome

    @property
    def rmse(self) -> float | None:
        return math.sqrt(self.squared_error / self.count) if self.count else None

    @property
    def baseline_rmse(self) -> float | None:
        return math.sqrt(self.baseline_squared_error / self.count) if self.count else None

    @property
    def log_loss(self) -> float | None:
        return self.log_loss_sum / self.count if self.count else None

    @property
    def ece(self) -> float | None:
        """The expected calibration error: each tenth's gap between its mean prediction and its mean outcome,
        weighted by its share of the forecasts (0 for a perfectly calibrated system)."""
        if not self.count:
            return None
        return sum(abs(b.predicted_sum - b.observed_sum) for b in self.bins if b.count) / self.count

    def as_dict(self) -> dict:
        return {
            "units": self.count,
            "rmse": self.rmse,
            "baseline_rmse": self.baseline_rmse,
            "log_loss": self.log_loss,
            "calibration": [
                {"from": b.low, "to": b.high, "units": b.count, "predicted": b.predicted, "observed": b.observed}
                for b in self.bins
            ],
        }


def quality_report(pairs: Iterable[tuple[float, float]]) -> QualityReport:
    report = QualityReport()
    for predicted, outcome in pairs:
        report.add(predicted, outcome)
    return report


class Forecast(NamedTuple):
    gap: float  # this side's rating minus the other side's, as the system saw them just before the duel
    outcome: float  # 1 this side did better, 0.5 even, 0 worse


# Scales ``fit_scale`` chooses from: below 50 a gap of a few points would be near-certain; at the top the
# probability of any everyday gap is 1/2 to within a few thousandths (the ratings say nothing).
SCALE_MIN = 50.0
SCALE_MAX = 100_000.0
_LN10 = math.log(10.0)


def probability(gap: float, scale: float) -> float:
    """The chance this side does better, by the logistic on ``scale``: 1 / (1 + 10^(-gap/scale))."""
    exponent = min(max(-gap / scale, -300.0), 300.0)
    return 1.0 / (1.0 + 10.0**exponent)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def fit_scale(forecasts: Iterable[Forecast]) -> float:
    """The maximum-likelihood scale of ``probability`` for these forecasts, within [SCALE_MIN, SCALE_MAX].

    With b = ln 10 / scale the model is p = sigmoid(b * gap), a logistic
    regression through the origin: its log-likelihood is concave in b, so the
    slope ``sum(gap * (outcome - p))`` falls as b grows and its zero is the
    one maximum. It is found by Newton steps kept inside a shrinking bracket
    (bisection when a step would leave it): deterministic, a few dozen passes
    at most. Ratings that predict nothing or the wrong way (the slope is not
    positive even at the largest scale), or gaps that are all 0, give
    SCALE_MAX. Forecasts no engine makes (a gap that is not a finite number,
    an outcome outside 0..1) are left out, as ``QualityReport.add`` leaves
    them out.
    """
    pairs = [
        (float(gap), float(outcome))
        for gap, outcome in forecasts
        if gap and math.isfinite(gap) and 0.0 <= outcome <= 1.0  # an impossible forecast says nothing
    ]
    low, high = _LN10 / SCALE_MAX, _LN10 / SCALE_MIN

    def slope_and_curvature(b: float) -> tuple[float, float]:
        slope = curvature = 0.0
        for gap, outcome in pairs:
            p = _sigmoid(b * gap)
            slope += gap * (outcome - p)
            curvature += gap * gap * p * (1.0 - p)
        return slope, curvature

    if not pairs or slope_and_curvature(low)[0] <= 0:
        return SCALE_MAX
    if slope_and_curvature(high)[0] >= 0:
        return SCALE_MIN
    b = low
    for _ in range(100):
        slope, curvature = slope_and_curvature(b)
        if slope > 0:
            low = b
        else:
            high = b
        step = b + slope / curvature if curvature > 0 else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - b) <= 1e-12 * b or high - low <= 1e-12 * high:
            b = step
            break
        b = step
    return min(max(_LN10 / b, SCALE_MIN), SCALE_MAX)


def forecast_report(forecasts: Iterable[Forecast], scale: float) -> QualityReport:
    """The quality report of these forecasts read on ``scale``: (probability(gap, scale), outcome) pairs.

    A gap that is not a finite number is left out, as ``fit_scale`` leaves it out (and the report any
    outcome outside 0..1).
    """
    return quality_report((probability(gap, scale), outcome) for gap, outcome in forecasts if math.isfinite(gap))


def pairwise_forecasts(ratings: Sequence[float], scores: Sequence[float]) -> list[Forecast]:
    """One forecast for each pair of seats (i before j): gap rating_i - rating_j, outcome by their scores.

    For games where several seats score against each other (Preferans'
    whists over a game): "i did better than j" is ``scores[i] > scores[j]``.
    """
    forecasts = []
    for i in range(len(ratings)):
        for j in range(i + 1, len(ratings)):
            difference = scores[i] - scores[j]
            outcome = 1.0 if difference > 0 else 0.0 if difference < 0 else 0.5
            forecasts.append(Forecast(ratings[i] - ratings[j], outcome))
    return forecasts


def forecasts_of(system: Any, match: Any, states: Mapping[Hashable, Any], parameters: Any) -> list[Forecast]:
    """``system.forecasts(...)``, or none for a system written before forecasts (its reports are left out)."""
    forecasts = getattr(system, "forecasts", None)
    return [] if forecasts is None else forecasts(match, states, parameters)


def scale_of(system: Any, parameters: Any) -> float | None:
    """``system.forecast_scale(parameters)``, or None (fit it) for a system written before forecasts."""
    forecast_scale = getattr(system, "forecast_scale", None)
    return None if forecast_scale is None else forecast_scale(parameters)
