"""confidence_intervals and describe: query weights, the smallest sample,
the seed, the defaults, the frame and the messages."""

import os
import re
import sys

import numpy as np
import pytest
from scipy import stats

from skirm.metrics import EvaluationResult
from skirm.stats import confidence_intervals, describe, paired_test


def _weighted(n=20, seed=0):
    rng = np.random.default_rng(seed)
    values, w = rng.random(n), rng.integers(1, 5, n).astype(float)
    values[3] = np.nan  # left out, with its weight
    result = EvaluationResult(np.arange(n), {"m": values}, {"m": 0.0}, w)
    keep = ~np.isnan(values)
    return result, values[keep], w[keep]


def test_weighted_t_interval_mean_and_std_against_the_formulas():
    result, v, w = _weighted()
    total = w.sum()
    mean = np.sum(w * v) / total
    var = np.sum(w * (v - mean) ** 2) / (total - np.sum(w**2) / total)
    n_eff = total**2 / np.sum(w**2)
    half = stats.t.ppf(0.95, n_eff - 1) * np.sqrt(var / n_eff)
    low, high = confidence_intervals(result, confidence=0.9)["m"]
    assert (low, high) == pytest.approx((mean - half, mean + half), rel=1e-12)
    row = describe(result, confidence=0.9).loc["m"]
    assert row["mean"] == pytest.approx(mean, rel=1e-12)
    assert row["std"] == pytest.approx(np.sqrt(var), rel=1e-12)
    assert row["n"] == v.size


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
@pytest.mark.parametrize(
    ("method", "interval"),
    [("percentile", "percentile"), ("bca", "bca"), ("bootstrap", "bca")],
)
def test_weighted_bootstrap_intervals_equal_paired_tests(method, interval):
    """The interval of one system's weighted mean is that of its difference
    from a system of zeros, which paired_test's tests check against loops."""
    result, v, w = _weighted(seed=1)
    got = confidence_intervals(result, method, n_resamples=800, random_state=6)["m"]
    ref = paired_test(
        v,
        np.zeros(v.size),
        test="bootstrap",
        interval=interval,
        sample_weight=w,
        n_resamples=800,
        random_state=6,
    )
    assert got == pytest.approx(ref.confidence_interval, abs=1e-14)


def test_two_query_values_are_enough():
    # (0.2, 0.6): mean 0.4, se 0.2 on 1 degree of freedom: tan(0.475 pi) * 0.2
    result = EvaluationResult(np.arange(3), {"m": np.array([0.2, np.nan, 0.6])}, {})
    low, high = confidence_intervals(result)["m"]
    half = np.tan(0.475 * np.pi) * 0.2
    # scipy's t quantile at 1 degree of freedom agrees with tan() to ~1e-11
    # (scipy 1.15) or to the last bits (newer)
    assert (low, high) == pytest.approx((0.4 - half, 0.4 + half), rel=1e-9)


def test_one_query_value_is_refused_by_name():
    result = EvaluationResult(np.arange(2), {"m": np.array([0.2, np.nan])}, {})
    message = "metric 'm' has 1 query values; an interval needs at least 2"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        confidence_intervals(result)


def test_constant_values_warn_in_full():
    values = np.array([0.1, 0.2, 0.3]) + np.array([0.2, 0.1, 0.0])  # 0.3 each
    result = EvaluationResult(np.arange(3), {"m": values}, {})
    message = (
        "query values are constant up to rounding in 1 of 1 rows (their spread "
        "is within 1.4e-14 of their magnitude): their variance is taken as 0, so "
        "the t interval has width 0"
    )
    with pytest.warns(RuntimeWarning, match=f"^{re.escape(message)}$"):
        confidence_intervals(result)


@pytest.mark.parametrize("function", [confidence_intervals, describe])
def test_regression_constant_values_warning_points_at_the_caller(function):
    # It pointed at a line of skirm/stats/_intervals.py.
    pytest.importorskip("pandas")
    values = np.array([0.1, 0.2, 0.3]) + np.array([0.2, 0.1, 0.0])  # 0.3 each
    result = EvaluationResult(np.arange(3), {"m": values}, {})
    with pytest.warns(RuntimeWarning, match="constant up to rounding") as record:
        function(result)
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut adds frames to every call
        assert [w.filename for w in record] == [__file__]


def test_a_generator_draws_as_its_seed_does():
    result, _, _ = _weighted(seed=2)
    by_seed = confidence_intervals(
        result, "percentile", n_resamples=500, random_state=9
    )
    rng = np.random.default_rng(9)
    by_rng = confidence_intervals(
        result, "percentile", n_resamples=500, random_state=rng
    )
    assert by_rng == by_seed


def test_default_n_resamples_is_10_000_and_describe_takes_the_seed():
    result, _, _ = _weighted(seed=3)
    ref = confidence_intervals(result, "percentile", n_resamples=10_000, random_state=1)
    assert confidence_intervals(result, "percentile", random_state=1) == ref
    frame = describe(result, "percentile", random_state=1)
    assert tuple(frame.loc["m", ["ci_low", "ci_high"]]) == ref["m"]


def test_describe_frame_layout():
    result, _, _ = _weighted()
    frame = describe(result)
    assert list(frame.columns) == ["mean", "ci_low", "ci_high", "std", "n"]
    assert frame.index.name == "metric" and list(frame.index) == ["m"]


def test_describe_without_pandas_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    message = (
        "skirm.stats.describe requires pandas; install it with "
        "`pip install skirm[pandas]`"
    )
    with pytest.raises(ImportError, match=f"^{re.escape(message)}$"):
        describe(_weighted()[0])


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_regression_zero_weight_queries_are_not_drawn(method):
    # A query of weight 0 is not in the weighted mean. The bootstrap drew
    # it anyway: a draw of weight-0 queries only was 0/0, and the interval
    # came out (0.1, nan) with a RuntimeWarning.
    values = np.array([0.1, 0.5, 0.3, 0.6, 0.9, 0.2])
    w = np.array([1.0, 2.0, 0.0, 0.0, 1.0, 0.0])
    zero = EvaluationResult(np.arange(6), {"m": values}, {"m": 0.0}, w)
    kept = EvaluationResult(np.arange(3), {"m": values[w > 0]}, {"m": 0.0}, w[w > 0])
    for result in (zero, kept):
        assert np.isfinite(
            confidence_intervals(result, method, n_resamples=500, random_state=3)["m"]
        ).all()
    got = confidence_intervals(zero, method, n_resamples=500, random_state=3)["m"]
    want = confidence_intervals(kept, method, n_resamples=500, random_state=3)["m"]
    assert got == want
