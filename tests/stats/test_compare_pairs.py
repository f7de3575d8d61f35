"""compare's pairs against paired_test and tukey_hsd, one pair at a time,
for the paths the shared draws take: exact enumeration, two systems, the
Wilcoxon test, a randomized Tukey test after the pairs."""

import numpy as np
import pytest
from scipy import stats

from skirm.metrics import EvaluationResult
from skirm.stats import compare, paired_test, tukey_hsd


def _systems(k, n, seed=0):
    rng = np.random.default_rng(seed)
    values = (
        rng.random(n) + rng.normal(0, 0.1, (k, n)) + np.linspace(0, 0.1, k)[:, None]
    )
    ids = np.arange(n)
    return {
        f"s{i}": EvaluationResult(ids, {"m": row}, {"m": float(row.mean())}, None)
        for i, row in enumerate(values)
    }, values


@pytest.mark.parametrize(("k", "n"), [(4, 12), (2, 30)])
def test_randomization_pairs_equal_paired_test(k, n):
    """Four systems on 12 queries: exact, more pairs than systems; two
    systems on 30 queries: random flips, more systems than pairs."""
    results, _ = _systems(k, n)
    cmp = compare(
        results, test="randomization", n_resamples=999, random_state=3, correction=None
    )
    pairs = cmp.to_frame("pairs")
    assert len(pairs) == k * (k - 1) // 2
    for row in pairs.itertuples():
        ref = paired_test(
            results[row.system].per_query["m"],
            results[row.other].per_query["m"],
            test="randomization",
            n_resamples=999,
            random_state=3,
        )
        assert ref.exact == (n <= 16)
        assert row.p_value == pytest.approx(ref.pvalue, abs=1e-15)


@pytest.mark.oracle
def test_wilcoxon_pairs_equal_scipy():
    results, values = _systems(3, 25, seed=1)
    pairs = compare(results, test="wilcoxon", correction=None).to_frame("pairs")
    assert len(pairs) == 3
    for row in pairs.itertuples():
        a, b = values[int(row.system[1])], values[int(row.other[1])]
        assert row.p_value == pytest.approx(stats.wilcoxon(a, b).pvalue, abs=1e-12)


def test_randomized_tukey_in_compare_equals_tukey_hsd():
    results, values = _systems(3, 20, seed=2)
    cmp = compare(results, test="randomized_tukey_hsd", n_resamples=500, random_state=4)
    ref = tukey_hsd(values, method="randomized", n_resamples=500, random_state=4)
    for row in cmp.to_frame("pairs").itertuples():
        i, j = int(row.system[1]), int(row.other[1])
        assert row.p_value == pytest.approx(ref.pvalue[i, j], abs=1e-15)


def test_compare_on_differences_constant_up_to_the_rounding_of_large_values():
    a = np.array([600.5, 900.2, 1200.9, 1500.4, 1900.7])
    ids = np.arange(5)
    results = {
        name: EvaluationResult(ids, {"m": v}, {"m": float(v.mean())}, None)
        for name, v in [("a", a), ("b", a + 0.1)]
    }
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        row = compare(results, baseline="a").to_frame("pairs").iloc[0]
    assert row.statistic == np.inf and row.p_value == 0.0
    assert row.ci_low == row.ci_high and np.isnan(row.effect_size)


def test_weighted_system_intervals():
    rng = np.random.default_rng(5)
    values, w = rng.random((2, 12)), rng.integers(1, 5, 12).astype(float)
    ids = np.arange(12)
    results = {
        f"s{i}": EvaluationResult(ids, {"m": v}, {"m": float(v.mean())}, w)
        for i, v in enumerate(values)
    }
    frame = compare(results, confidence=0.9).to_frame().set_index("system")
    total = w.sum()
    n_eff = total**2 / np.sum(w**2)
    for i, v in enumerate(values):
        mean = np.sum(w * v) / total
        var = np.sum(w * (v - mean) ** 2) / (total - np.sum(w**2) / total)
        half = stats.t.ppf(0.95, n_eff - 1) * np.sqrt(var / n_eff)
        row = frame.loc[f"s{i}"]
        assert row.ci_low == pytest.approx(mean - half, rel=1e-12)
        assert row.ci_high == pytest.approx(mean + half, rel=1e-12)


_CONSTANT = np.array([0.5, 0.2, 0.9, 0.4])


def _one(ids, values):
    return EvaluationResult(np.asarray(ids), {"m": np.asarray(values, float)}, {})


def test_compare_tells_each_pair_constant_zero_or_varying_on_its_own():
    """Baseline ``a``; ``b`` differs by a constant, ``c`` by varying amounts,
    ``d`` by its last bits only: each pair is read at its own spread and
    magnitude, and the warning counts the one constant pair."""
    ids = ["q1", "q2", "q3", "q4"]
    varying = np.array([0.7, 0.1, 0.8, 0.9])
    results = {
        "a": _one(ids, _CONSTANT),
        "b": _one(ids, _CONSTANT + 0.1),
        "c": _one(ids, varying),
        "d": _one(ids, _CONSTANT * (1 + 2 * np.finfo(float).eps)),
    }
    with pytest.warns(RuntimeWarning, match="constant up to rounding in 1 of 3 rows"):
        frame = compare(results, baseline="a", correction=None).to_frame()
    rows = frame.set_index("system")
    assert rows.loc["b", "statistic"] == np.inf and rows.loc["b", "p_value"] == 0.0
    ref = paired_test(varying, _CONSTANT, test="t")
    assert rows.loc["c", "statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert rows.loc["c", "p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert np.isnan(rows.loc["d", "statistic"]) and rows.loc["d", "p_value"] == 1.0
