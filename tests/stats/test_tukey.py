"""tukey_hsd at its edges: the fields of its result, whole error messages,
weighted and exact-tie randomized tests against loops, identical systems,
the rounding bound of the ANOVA error, and several metrics in compare."""

import itertools
import os
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from skirm.metrics import EvaluationResult
from skirm.stats import compare, tukey_hsd

A = np.array([0.5, 0.2, 0.9, 0.4])
_CONSTANT = (
    "the systems' values differ by a constant per query up to rounding: the "
    "ANOVA error is taken as 0, so the studentized range is infinite, its "
    "p-value 0 and the interval of width 0; method='randomized' reads such "
    "values without a variance"
)


def _systems(seed, k=3, n=10):
    rng = np.random.default_rng(seed)
    return (
        rng.random(n) + rng.normal(0, 0.05, (k, n)) + np.linspace(0, 0.06, k)[:, None]
    )


def _loop_ranges(x, weights, B, seed):
    """The randomized test's ranges of system means, one permutation at a time."""
    k, n = x.shape
    w = np.ones(n) if weights is None else np.asarray(weights, float)
    identity = np.broadcast_to(np.arange(k), (B, n, k))
    orders = np.random.default_rng(seed).permuted(identity, axis=2)
    ranges = []
    for b in range(B):
        means = np.zeros(k)
        for q in range(n):
            means += w[q] * x[orders[b, q], q]
        means /= w.sum()
        ranges.append(means.max() - means.min())
    return np.array(ranges)


def _results(values_by_metric, ids):
    """One EvaluationResult per system from ``{metric: (k, n) values}``."""
    k = next(iter(values_by_metric.values())).shape[0]
    return {
        f"s{i}": EvaluationResult(
            np.asarray(ids), {m: v[i] for m, v in values_by_metric.items()}, {}
        )
        for i in range(k)
    }


def test_paired_result_fields_and_interval_against_the_anova():
    x = _systems(0, k=3, n=8)
    k, n = x.shape
    grand = x.mean()
    resid = x - x.mean(axis=0) - x.mean(axis=1)[:, None] + grand
    df = (k - 1) * (n - 1)
    ms_e = sum(r**2 for r in resid.ravel()) / df
    crit = stats.studentized_range.ppf(0.9, k, df) * np.sqrt(ms_e / n)
    res = tukey_hsd(x, confidence=0.9, random_state=3)
    assert res.method == "paired" and res.n == n and res.confidence == 0.9
    assert res.df == df and res.ms_error == pytest.approx(ms_e, rel=1e-12)
    assert res.n_resamples is None and res.random_state is None
    delta = x.mean(axis=1)[:, None] - x.mean(axis=1)[None, :]
    np.testing.assert_allclose(res.mean_difference, delta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res.ci_low, delta - crit, rtol=1e-10)
    np.testing.assert_allclose(res.ci_high, delta + crit, rtol=1e-10)


def test_randomized_result_fields_and_interval_against_a_loop():
    x = _systems(1, k=3, n=9)
    B = 300
    res = tukey_hsd(
        x, method="randomized", n_resamples=B, confidence=0.8, random_state=11
    )
    assert res.method == "randomized" and res.n == 9 and res.confidence == 0.8
    assert res.n_resamples == B and res.random_state == 11
    assert res.ms_error is None and res.df is None
    half = np.quantile(_loop_ranges(x, None, B, 11), 0.8)
    delta = x.mean(axis=1)[:, None] - x.mean(axis=1)[None, :]
    np.testing.assert_allclose(res.ci_low, delta - half, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res.ci_high, delta + half, rtol=1e-12, atol=1e-15)


def test_weighted_randomized_tukey_against_a_loop():
    x = _systems(2, k=3, n=8)
    w = np.array([1.0, 3.0, 0.5, 2.0, 1.0, 4.0, 0.0, 2.5])
    B = 400
    res = tukey_hsd(
        x, method="randomized", n_resamples=B, sample_weight=w, random_state=5
    )
    means = x @ w / w.sum()
    np.testing.assert_allclose(
        res.mean_difference, means[:, None] - means[None, :], rtol=1e-12, atol=1e-15
    )
    ranges = _loop_ranges(x, w, B, 5)
    for i, j in itertools.combinations(range(3), 2):
        obs = abs(means[i] - means[j])
        expected = ((ranges >= obs * (1 - 1e-12)).sum() + 1) / (B + 1)
        assert res.pvalue[i, j] == pytest.approx(expected, abs=1e-15)
    half = np.quantile(ranges, 0.95)
    assert res.ci_high[0, 1] - res.mean_difference[0, 1] == pytest.approx(half)


def test_randomized_tukey_counts_draws_equal_to_the_observed_range():
    """Two systems on three queries: a draw that swaps every query or none
    gives the observed range exactly (a quarter of them), and counts."""
    x = np.array([[0.3, 0.9, 0.4], [0.1, 0.2, 0.6]])
    B = 200
    res = tukey_hsd(x, method="randomized", n_resamples=B, random_state=8)
    ranges = _loop_ranges(x, None, B, 8)
    obs = abs(x[0].mean() - x[1].mean())
    assert np.count_nonzero(ranges == obs) > B // 8
    expected = ((ranges >= obs * (1 - 1e-12)).sum() + 1) / (B + 1)
    assert res.pvalue[0, 1] == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("method", ["paired", "randomized"])
def test_identical_systems_do_not_differ(method):
    """The ANOVA error of two identical systems is 0, but so is their
    difference: no evidence, no warning."""
    x = np.stack([A, A])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = tukey_hsd(x, method=method, n_resamples=100, random_state=0)
    assert res.pvalue.dtype == np.float64
    assert res.statistic[0, 1] == res.statistic[1, 0] == 0.0
    assert res.pvalue[0, 1] == res.pvalue[1, 0] == 1.0
    np.testing.assert_array_equal(np.diag(res.statistic), 0.0)


def test_systems_of_zeros_do_not_differ():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = tukey_hsd(np.zeros((2, 4)))
    np.testing.assert_array_equal(res.statistic, 0.0)
    np.testing.assert_array_equal(res.pvalue, 1.0)


def test_regression_constant_shift_warning_in_full_at_the_caller():
    # It pointed at the line that called the caller of tukey_hsd.
    with pytest.warns(RuntimeWarning, match=f"^{re.escape(_CONSTANT)}$") as record:
        res = tukey_hsd(np.stack([A, A + 0.1]))
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut adds frames to every call
        assert [w.filename for w in record] == [__file__]
    assert res.statistic[0, 1] == np.inf and res.pvalue[0, 1] == 0.0


def test_regression_compare_warnings_point_at_the_caller():
    # They pointed at a line of skirm/stats/_compare.py.
    ids = ["q1", "q2", "q3", "q4"]
    results = _results({"m": np.stack([A, A + 0.1])}, ids)
    for test in ("t", "tukey_hsd"):
        with pytest.warns(RuntimeWarning, match="constant") as record:
            compare(results, test=test)
        if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut adds frames
            assert {w.filename for w in record} == {__file__}


def test_residuals_exactly_at_the_rounding_bound_are_rounding():
    # The residuals are +-2**-46, which is 64 eps times the largest value 1.
    x = np.array([[1.0, 0.5], [1 - 2.0**-44, 0.5]])
    with pytest.warns(RuntimeWarning, match="constant per query"):
        res = tukey_hsd(x)
    assert res.ms_error == 0.0 and res.statistic[0, 1] == np.inf


def test_default_n_resamples_is_10_000():
    x = _systems(4, k=3, n=6)
    ref = tukey_hsd(x, method="randomized", n_resamples=10_000, random_state=2)
    res = tukey_hsd(x, method="randomized", random_state=2)
    assert res.n_resamples == 10_000
    np.testing.assert_array_equal(res.pvalue, ref.pvalue)


@pytest.mark.parametrize(
    ("values", "kwargs", "error", "message"),
    [
        (
            [["a", "b"], ["c", "d"]],
            {},
            TypeError,
            "`values` must be an array-like of real numbers, got an array of dtype "
            "<U1 and shape (2, 2)",
        ),
        (
            [[1.0, 2, 3]],
            {},
            ValueError,
            "`values` must have shape (k systems >= 2, n queries >= 2), got shape "
            "(1, 3)",
        ),
        (
            [[1.0, np.nan], [1, 2]],
            {},
            ValueError,
            "`values` must hold finite values, got NaN or inf",
        ),
        (
            [[1.0, 2, 3], [1, 3, 2]],
            {"sample_weight": [1, 1, 1]},
            ValueError,
            "`sample_weight` is supported by method='randomized' only",
        ),
    ],
)
def test_tukey_error_messages_in_full(values, kwargs, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        tukey_hsd(values, **kwargs)


def test_paired_tukey_in_compare_reads_each_metric_on_its_own():
    """A metric whose systems differ by a constant per query next to one
    whose systems vary, of other means: each is the test of its values
    alone (its own grand mean, residuals and rounding bound)."""
    rng = np.random.default_rng(3)
    shifted = np.stack([A, A + 0.1, A + 0.2]) + 5.0
    varying = rng.random((3, 4))
    ids = ["q1", "q2", "q3", "q4"]
    results = _results({"shifted": shifted, "varying": varying}, ids)
    with pytest.warns(RuntimeWarning) as record:
        pairs = compare(results, test="tukey_hsd").to_frame("pairs")
    assert any("constant per query" in str(w.message) for w in record)
    ref = tukey_hsd(varying)
    for row in pairs.itertuples():
        i, j = int(row.system[1]), int(row.other[1])
        if row.metric == "shifted":
            assert row.statistic == np.inf and row.p_value == 0.0
        else:
            assert row.statistic == pytest.approx(ref.statistic[i, j], rel=1e-12)
            assert row.ci_low == pytest.approx(ref.ci_low[i, j], rel=1e-12)


def test_randomized_tukey_in_compare_reads_each_metric_on_its_own():
    rng = np.random.default_rng(4)
    small, large = rng.random((3, 6)), 100 * rng.random((3, 6))
    ids = [f"q{i}" for i in range(6)]
    results = _results({"small": small, "large": large}, ids)
    cmp = compare(results, test="randomized_tukey_hsd", n_resamples=300, random_state=6)
    for metric, values in (("small", small), ("large", large)):
        ref = tukey_hsd(values, method="randomized", n_resamples=300, random_state=6)
        pairs = cmp.to_frame("pairs")
        for row in pairs[pairs.metric == metric].itertuples():
            i, j = int(row.system[1]), int(row.other[1])
            assert row.p_value == pytest.approx(ref.pvalue[i, j], abs=1e-15)
            assert row.ci_low == pytest.approx(ref.ci_low[i, j], rel=1e-12)
            assert row.ci_high == pytest.approx(ref.ci_high[i, j], rel=1e-12)


def test_tukey_in_compare_reads_each_metric_at_its_own_scale():
    """A metric of values near 1e12 next to one of values below 1: the small
    metric's small residuals are variation, not the rounding of the large
    metric's values, and its test is the one of its values alone."""
    rng = np.random.default_rng(7)
    small = np.stack([A, A + 0.1, A + 0.2])
    small = small + rng.normal(0, 1e-3, small.shape)
    large = 1e12 * (1 + rng.random((3, 4)))
    ids = ["q1", "q2", "q3", "q4"]
    results = {
        name: EvaluationResult(
            np.asarray(ids), {"small": small[i], "large": large[i]}, {}
        )
        for i, name in enumerate("abc")
    }
    frame = compare(results, test="tukey_hsd", metrics=["small"]).to_frame("pairs")
    both = compare(results, test="tukey_hsd").to_frame("pairs")
    both = both[both.metric == "small"]
    ref = tukey_hsd(small)
    assert np.isfinite(ref.statistic).all()
    np.testing.assert_array_equal(both.statistic, frame.statistic)
    np.testing.assert_array_equal(both.p_value, frame.p_value)
    for _, row in frame.iterrows():
        i, j = "abc".index(row.system), "abc".index(row.other)
        assert row.statistic == pytest.approx(ref.statistic[i, j], rel=1e-9)
