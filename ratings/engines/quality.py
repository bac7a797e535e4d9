"""How well ratings predicted results (seed 003's measure, and two more).

Each rated unit gives a prediction ``p`` (the expected score before the
unit) and an outcome ``s`` (1 win, 1/2 draw, 0 loss). Over a history:

    RMSE       sqrt(mean((p - s)^2)), the thesis's metric
    log-loss   mean(-(s*ln p + (1-s)*ln(1-p))), p clipped to [1e-6, 1-1e-6]
    baseline   the RMSE of always predicting 1/2: a rating system is worth
               its keep when its RMSE is below this
    calibration  predictions grouped in tenths, each group's mean prediction
               against the mean outcome it got: a well-calibrated system
               puts them on the diagonal
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

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


# --- forecasts: what a rating system predicted before a unit -------------------------------------


class Forecast(NamedTuple):
    """One side of one duel as the system saw it just before rating it."""

    gap: float  # this side's rating minus the other side's
    outcome: float  # 1 this side did better, 0.5 even, 0 worse


# The fitted scale's bounds: below 50 an everyday gap is a certainty; a huge scale says ratings predict nothing.
SCALE_MIN = 50.0
SCALE_MAX = 100_000.0
_LN10 = math.log(10.0)


def probability(gap: float, scale: float) -> float:
    """1 / (1 + 10^(-gap / scale)), without overflow for any gap."""
    exponent = min(max(-gap / scale, -300.0), 300.0)
    return 1.0 / (1.0 + 10.0**exponent)


def fit_scale(forecasts: Iterable[Forecast]) -> float:
    """The maximum-likelihood logistic scale of the forecasts, within [SCALE_MIN, SCALE_MAX].

    With b = 1 / scale the log-likelihood is concave in b (a logistic regression
    through the origin), so its derivative sum(gap * ln10 * (s - p)) falls as b
    grows: bisection on its sign over [1/SCALE_MAX, 1/SCALE_MIN] finds the
    maximum, deterministically. No information (no gaps) gives SCALE_MAX.
    """
    pairs = [(gap * _LN10, outcome) for gap, outcome in forecasts if gap]
    if not pairs:
        return SCALE_MAX

    def slope(b: float) -> float:
        total = 0.0
        for x, s in pairs:
            z = min(max(-b * x, -700.0), 700.0)
            total += x * (s - 1.0 / (1.0 + math.exp(z)))
        return total

    low, high = 1.0 / SCALE_MAX, 1.0 / SCALE_MIN
    if slope(low) <= 0:
        return SCALE_MAX
    if slope(high) >= 0:
        return SCALE_MIN
    for _ in range(60):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    return 1.0 / ((low + high) / 2)


def forecast_report(forecasts: Iterable[Forecast], scale: float) -> QualityReport:
    """The quality report of the forecasts read as win chances on ``scale``."""
    report = QualityReport()
    for gap, outcome in forecasts:
        report.add(probability(gap, scale), outcome)
    return report
