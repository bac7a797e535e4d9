"""Quality measures of seed 003: RMSE, log-loss and calibration, on hand-worked numbers."""

import math

import pytest

from ratings.engines.quality import quality_report


def test_rmse_log_loss_and_baseline():
    report = quality_report([(0.8, 1.0), (0.6, 0.0), (0.5, 0.5)])
    assert report.count == 3
    assert report.rmse == pytest.approx(math.sqrt((0.04 + 0.36 + 0) / 3))
    assert report.baseline_rmse == pytest.approx(math.sqrt((0.25 + 0.25 + 0) / 3))
    expected_log_loss = (-math.log(0.8) - math.log(0.4) - (0.5 * math.log(0.5) + 0.5 * math.log(0.5))) / 3
    assert report.log_loss == pytest.approx(expected_log_loss)


def test_calibration_bins():
    report = quality_report([(0.05, 0.0), (0.95, 1.0), (0.92, 0.0), (1.0, 1.0)])
    assert report.bins[0].count == 1
    assert report.bins[9].count == 3
    assert report.bins[9].predicted == pytest.approx((0.95 + 0.92 + 1.0) / 3)
    assert report.bins[9].observed == pytest.approx(2 / 3)


def test_certain_mistakes_are_clipped_not_infinite():
    report = quality_report([(1.0, 0.0)])
    assert math.isfinite(report.log_loss)
    assert report.rmse == 1.0


def test_empty_history():
    report = quality_report([])
    assert report.rmse is None
    assert report.log_loss is None
    assert report.count == 0
