"""Paired tests, intervals and corrections against independent oracles."""

import itertools

import numpy as np
import pytest
from scipy import stats

from skirm.stats import adjust_pvalues, paired_test, tukey_hsd
from skirm.stats._moments import _moments


def _pair(seed, n, shift=0.05, ties=False):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + rng.normal(shift, 0.15, n)
    if ties:  # equal values and repeated differences, as real metrics have
        a, b = np.round(a, 1), np.round(b, 1)
    return a, b


def _mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


# --------------------------------------------------------------------------
# t, Wilcoxon, sign: equal to scipy
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(5))
def test_t_equals_scipy_ttest_rel(seed, alternative):
    a, b = _pair(seed, 10 + 7 * seed, ties=seed % 2 == 1)
    res = paired_test(a, b, alternative=alternative, confidence=0.9)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert abs(res.pvalue - ref.pvalue) < 1e-12
    assert abs(res.statistic - ref.statistic) < 1e-12
    low, high = ref.confidence_interval(0.9)
    np.testing.assert_allclose(res.confidence_interval, (low, high), rtol=0, atol=1e-12)
    assert res.random_state is None and res.n_resamples is None


@pytest.mark.oracle
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [pytest.param(12, marks=pytest.mark.slow), 80])
def test_wilcoxon_equals_scipy(zero_method, alternative, n):
    a, b = _pair(n, n, ties=True)
    assert (a == b).any()  # zero differences are exercised
    res = paired_test(
        a, b, test="wilcoxon", alternative=alternative, zero_method=zero_method
    )
    ref = stats.wilcoxon(a, b, zero_method=zero_method, alternative=alternative)
    assert abs(res.pvalue - ref.pvalue) < 1e-12
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(4))
def test_sign_equals_scipy_binomtest(seed, alternative):
    a, b = _pair(seed, 25, shift=0.03, ties=True)
    res = paired_test(a, b, test="sign", alternative=alternative)
    wins, losses = int((a > b).sum()), int((a < b).sum())
    ref = stats.binomtest(wins, wins + losses, 0.5, alternative=alternative)
    assert abs(res.pvalue - ref.pvalue) < 1e-12
    assert (res.wins, res.losses, res.ties) == (wins, losses, 25 - wins - losses)


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
def test_identical_systems_have_p_one():
    a = np.linspace(0, 1, 10)
    for test in ["t", "randomization", "wilcoxon", "sign", "bootstrap"]:
        res = paired_test(a, a, test=test, random_state=0)
        assert res.pvalue == 1.0, test
        assert res.ties == 10 and res.mean_difference == 0


# --------------------------------------------------------------------------
# Randomization: exact = scipy.stats.permutation_test; Monte Carlo within 3 SE
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [5, 9, 12, 14])
def test_exact_randomization_equals_permutation_test(n, alternative):
    a, b = _pair(n, n, shift=0.04, ties=n % 2 == 0)
    res = paired_test(a, b, test="randomization", alternative=alternative)
    ref = stats.permutation_test(
        (a, b),
        _mean_diff,
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
        alternative=alternative,
    )
    assert res.exact and res.n_resamples == 2**n
    assert abs(res.pvalue - ref.pvalue) < 1e-12
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-15)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_monte_carlo_randomization_within_three_standard_errors(seed):
    a, b = _pair(100 + seed, 16, shift=0.06)
    exact = paired_test(a, b, test="randomization", exact=True).pvalue
    B = 20_000
    mc = paired_test(
        a, b, test="randomization", exact=False, n_resamples=B, random_state=seed
    )
    assert not mc.exact and mc.n_resamples == B
    se = np.sqrt(exact * (1 - exact) / B)
    assert 0.01 < exact < 0.99
    assert abs(mc.pvalue - exact) <= 3 * se + 1 / B


def test_exact_auto_rule():
    a, b = _pair(0, 17)
    assert not paired_test(a, b, test="randomization", random_state=0).exact
    assert paired_test(a, b, test="randomization", n_resamples=2**17).exact
    a, b = _pair(0, 1100)  # 2**n overflows a float
    assert not paired_test(a, b, test="randomization", n_resamples=10).exact


def test_monte_carlo_is_deterministic_and_never_zero():
    a, b = _pair(7, 300, shift=0.3)
    r1 = paired_test(a, b, test="randomization", n_resamples=999, random_state=3)
    r2 = paired_test(a, b, test="randomization", n_resamples=999, random_state=3)
    assert r1 == r2
    assert r1.pvalue == 1 / 1000  # (0 + 1) / (B + 1): never 0
    r3 = paired_test(a, b, test="randomization", random_state=None)
    assert isinstance(r3.random_state, int)
    again = paired_test(a, b, test="randomization", random_state=r3.random_state)
    assert again.pvalue == r3.pvalue


def _slow_sign_flip_p(d, w):
    """Every sign vector, one at a time."""
    w = np.ones_like(d) if w is None else w
    obs = abs(np.sum(w * d) / w.sum())
    count = 0
    for signs in itertools.product([1, -1], repeat=d.size):
        stat = abs(np.sum(np.array(signs) * w * d) / w.sum())
        count += stat >= obs * (1 - 1e-12)
    return count / 2**d.size


@pytest.mark.oracle
def test_weighted_exact_randomization_against_enumeration():
    a, b = _pair(11, 10, shift=0.05)
    w = np.random.default_rng(1).integers(1, 5, 10).astype(float)
    res = paired_test(a, b, test="randomization", sample_weight=w)
    assert res.pvalue == pytest.approx(_slow_sign_flip_p(a - b, w), abs=1e-12)
    assert res.mean_difference == pytest.approx(np.average(a - b, weights=w))


# --------------------------------------------------------------------------
# Bootstrap: intervals = scipy.stats.bootstrap; the shift test from the draws
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_intervals_equal_scipy(method, seed):
    # Without tied values for BCa: with ties, a bootstrap mean can equal the
    # estimate in exact arithmetic and fall either side of it in floating point.
    a, b = _pair(seed, 40, ties=seed == 1 and method == "percentile")
    res = paired_test(
        a,
        b,
        test="bootstrap",
        interval=method,
        n_resamples=5000,
        random_state=seed,
        confidence=0.9,
    )
    ref = stats.bootstrap(
        (a - b,),
        np.mean,
        method=method,
        n_resamples=5000,
        confidence_level=0.9,
        rng=np.random.default_rng(seed),
    )
    np.testing.assert_allclose(
        res.confidence_interval, ref.confidence_interval, rtol=0, atol=1e-12
    )


@pytest.mark.oracle
def test_bootstrap_shift_test_against_a_loop():
    a, b = _pair(5, 30, shift=0.05)
    d = a - b
    B = 3000
    res = paired_test(a, b, test="bootstrap", n_resamples=B, random_state=9)
    index = np.random.default_rng(9).integers(0, d.size, size=(B, d.size))
    count = 0
    for row in index:
        count += abs(d[row].mean() - d.mean()) >= abs(d.mean())
    assert res.pvalue == pytest.approx((count + 1) / (B + 1), abs=1e-15)
    assert res.statistic == pytest.approx(d.mean())


@pytest.mark.oracle
def test_weighted_bootstrap_interval_against_a_loop():
    a, b = _pair(6, 25)
    d, w = a - b, np.random.default_rng(2).random(25) + 0.5
    B = 2000
    res = paired_test(
        a,
        b,
        test="bootstrap",
        interval="percentile",
        n_resamples=B,
        sample_weight=w,
        random_state=4,
    )
    index = np.random.default_rng(4).integers(0, d.size, size=(B, d.size))
    boot = np.array([np.average(d[row], weights=w[row]) for row in index])
    expected = np.percentile(boot, [2.5, 97.5])
    np.testing.assert_allclose(res.confidence_interval, expected, rtol=0, atol=1e-12)


def test_weighted_t_with_equal_weights_is_the_plain_t():
    a, b = _pair(3, 20)
    plain = paired_test(a, b)
    weighted = paired_test(a, b, sample_weight=np.full(20, 2.5))
    assert weighted.pvalue == pytest.approx(plain.pvalue, abs=1e-12)
    np.testing.assert_allclose(
        weighted.confidence_interval, plain.confidence_interval, atol=1e-12
    )


def test_effect_size_is_d_z():
    a, b = _pair(8, 30)
    d = a - b
    res = paired_test(a, b)
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_large_n_note():
    a, b = _pair(1, 2000, shift=0.01)
    assert "note: with 2000 queries" in str(paired_test(a, b))
    assert "note:" not in str(paired_test(a[:50], b[:50]))


# --------------------------------------------------------------------------
# Corrections: R's p.adjust values and the definitions
# --------------------------------------------------------------------------

# p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), method=...) in R
R_FACTS = {
    "holm": [0.05, 0.08, 0.09, 0.09, 0.09],
    "bonferroni": [0.05, 0.10, 0.15, 0.20, 0.25],
    "fdr_bh": [0.05, 0.05, 0.05, 0.05, 0.05],
}
# p.adjust(c(0.04, 0.001, 0.03, 0.2, 0.012, 0.5), method=...) in R
R_FACTS_2 = {
    "holm": [0.12, 0.006, 0.12, 0.4, 0.06, 0.5],
    "bonferroni": [0.24, 0.006, 0.18, 1.0, 0.072, 1.0],
    "fdr_bh": [0.06, 0.006, 0.06, 0.24, 0.036, 0.5],
}


@pytest.mark.oracle
@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_equal_r_p_adjust(method):
    got = adjust_pvalues([0.01, 0.02, 0.03, 0.04, 0.05], method)
    np.testing.assert_allclose(got, R_FACTS[method], atol=1e-15)
    got = adjust_pvalues([0.04, 0.001, 0.03, 0.2, 0.012, 0.5], method)
    np.testing.assert_allclose(got, R_FACTS_2[method], atol=1e-15)


def _slow_adjust(p, method):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        if method == "holm":
            out[i] = max(min(1, (m - r) * p[order[r]]) for r in range(rank + 1))
        elif method == "fdr_bh":
            out[i] = min(min(1, m * p[order[r]] / (r + 1)) for r in range(rank, m))
        else:
            out[i] = min(1, m * p[i])
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_equal_definitions(method):
    rng = np.random.default_rng(0)
    for m in [1, 2, 7, 30]:
        p = np.round(rng.random(m) ** 3, 3)  # rounding makes ties
        assert adjust_pvalues(p, method) == pytest.approx(_slow_adjust(p, method))
    grid = rng.random((4, 9))
    rows = np.array([_slow_adjust(row, method) for row in grid])
    np.testing.assert_allclose(adjust_pvalues(grid, method), rows, atol=1e-15)


def test_no_correction_copies():
    p = np.array([0.2, 0.01])
    out = adjust_pvalues(p, None)
    assert out is not p and out.tolist() == [0.2, 0.01]


def test_adjust_defaults_to_holm():
    got = adjust_pvalues([0.04, 0.001, 0.03, 0.2, 0.012, 0.5])
    np.testing.assert_allclose(got, R_FACTS_2["holm"], atol=1e-15)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh", None])
def test_adjusted_pvalues_are_float64_whatever_the_input_dtype(method):
    p32 = np.array([0.01, 0.04, 0.03, 0.005, 0.3], dtype=np.float32)
    p64 = p32.astype(np.float64)  # the same numbers, exactly
    want = p64 if method is None else _slow_adjust(p64, method)
    got = adjust_pvalues(p32, method)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-15)
    got = adjust_pvalues([0, 1, 1], method)
    assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0, 1.0]


def test_adjust_accepts_pvalues_of_exactly_0_and_1():
    # sorted 0, 0.5, 1: Holm 3 * 0, 2 * 0.5, 1 * 1; BH 0, 3 * 0.5 / 2, 3 * 1 / 3
    p = [0.0, 1.0, 0.5]
    assert adjust_pvalues(p, "holm").tolist() == [0.0, 1.0, 1.0]
    assert adjust_pvalues(p, "bonferroni").tolist() == [0.0, 1.0, 1.0]
    assert adjust_pvalues(p, "fdr_bh").tolist() == [0.0, 1.0, 0.75]


# --------------------------------------------------------------------------
# Tukey HSD: hand-derived two-way ANOVA; randomised version from a loop
# --------------------------------------------------------------------------


def _systems(seed, k=4, n=30):
    rng = np.random.default_rng(seed)
    topic = rng.random(n)  # query difficulty dominates the variance
    return topic + rng.normal(0, 0.05, (k, n)) + np.linspace(0, 0.06, k)[:, None]


@pytest.mark.oracle
def test_paired_tukey_against_a_hand_derived_anova():
    x = _systems(0)
    k, n = x.shape
    grand = sum(x[i, j] for i in range(k) for j in range(n)) / (k * n)
    sys_mean = [sum(x[i]) / n for i in range(k)]
    q_mean = [sum(x[i, j] for i in range(k)) / k for j in range(n)]
    ss_total = sum((x[i, j] - grand) ** 2 for i in range(k) for j in range(n))
    ss_sys = n * sum((m - grand) ** 2 for m in sys_mean)
    ss_q = k * sum((m - grand) ** 2 for m in q_mean)
    df = (k - 1) * (n - 1)
    ms_e = (ss_total - ss_sys - ss_q) / df
    res = tukey_hsd(x)
    assert res.df == df and res.ms_error == pytest.approx(ms_e, rel=1e-10)
    crit = stats.studentized_range.ppf(0.95, k, df) * np.sqrt(ms_e / n)
    for i, j in itertools.combinations(range(k), 2):
        q = abs(sys_mean[i] - sys_mean[j]) / np.sqrt(ms_e / n)
        assert res.statistic[i, j] == pytest.approx(q, rel=1e-10)
        p = stats.studentized_range.sf(q, k, df)
        assert res.pvalue[i, j] == pytest.approx(p, rel=1e-8)
        assert res.pvalue[j, i] == res.pvalue[i, j]
        assert res.ci_high[i, j] - res.mean_difference[i, j] == pytest.approx(crit)
    # The pairing matters: scipy's test for independent samples sees the
    # query variance as noise and finds nothing.
    independent = stats.tukey_hsd(*x)
    assert res.pvalue[0, 3] < 0.01 and independent.pvalue[0, 3] > 0.5


@pytest.mark.oracle
def test_paired_tukey_with_two_systems_is_the_paired_t():
    x = _systems(1, k=2)
    res = tukey_hsd(x)
    assert res.pvalue[0, 1] == pytest.approx(
        stats.ttest_rel(x[0], x[1]).pvalue, abs=1e-10
    )


@pytest.mark.oracle
def test_randomized_tukey_with_two_systems_is_the_randomization_test():
    """Permuting two systems within a query flips the sign of its difference."""
    a, b = _pair(24, 14, shift=0.05)
    exact = paired_test(a, b, test="randomization").pvalue
    B = 20_000
    res = tukey_hsd(
        np.stack([a, b]), method="randomized", n_resamples=B, random_state=0
    )
    assert 0.01 < exact < 0.99
    assert abs(res.pvalue[0, 1] - exact) <= 3 * np.sqrt(exact * (1 - exact) / B) + 1 / B


def test_studentized_range_near_zero_does_not_warn():
    from skirm.stats._tukey import range_sf

    p = range_sf(0.12659062995736667, 10, 8991)  # scipy warns here
    assert 1 - 1e-6 < p <= 1


@pytest.mark.oracle
def test_randomized_tukey_against_a_loop():
    x = _systems(2, k=3, n=12)
    B = 500
    res = tukey_hsd(x, method="randomized", n_resamples=B, random_state=5)
    identity = np.broadcast_to(np.arange(3), (B, 12, 3))
    orders = np.random.default_rng(5).permuted(identity, axis=2)
    ranges = []
    for b in range(B):
        means = np.zeros(3)
        for q in range(12):
            means += x[orders[b, q], q] / 12
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    for i, j in itertools.combinations(range(3), 2):
        obs = abs(x[i].mean() - x[j].mean())
        expected = ((ranges >= obs * (1 - 1e-12)).sum() + 1) / (B + 1)
        assert res.pvalue[i, j] == pytest.approx(expected, abs=1e-15)


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"a": [1, 2, 3], "b": [1, 2]}, ValueError, "same length"),
        ({"a": [1, np.nan, 3], "b": [1, 2, 3]}, ValueError, "`a` must hold finite"),
        ({"a": [1], "b": [2]}, ValueError, "at least 2 queries"),
        ({"a": [[1, 2]], "b": [[1, 2]]}, ValueError, "`a` must be 1-D"),
        ({"test": "z"}, ValueError, "`test` must be one of"),
        ({"alternative": "up"}, ValueError, "`alternative` must be one of"),
        ({"n_resamples": 0}, ValueError, "`n_resamples` must be a positive"),
        ({"confidence": 1.5}, ValueError, "`confidence` must be a number in"),
        ({"exact": "yes"}, ValueError, "`exact` must be 'auto', True or False"),
        ({"random_state": "x"}, TypeError, "`random_state` must be"),
        ({"random_state": -1}, ValueError, "`random_state` must be"),
        ({"sample_weight": [1, 2]}, ValueError, "one weight per query"),
        (
            {"test": "sign", "sample_weight": [1, 1, 1]},
            ValueError,
            "not supported by test='sign'",
        ),
        ({"a": ["x", "y", "z"]}, TypeError, "`a` must be an array-like of real"),
        ({"interval": "normal"}, ValueError, "`interval` must be one of"),
    ],
)
def test_paired_test_bad_input(kwargs, error, match):
    args = {"a": [0.1, 0.5, 0.3], "b": [0.2, 0.4, 0.2], **kwargs}
    a, b = args.pop("a"), args.pop("b")
    with pytest.raises(error, match=match):
        paired_test(a, b, **args)


def test_exact_refuses_too_many_queries():
    with pytest.raises(ValueError, match="too many"):
        paired_test(np.zeros(30), np.ones(30), test="randomization", exact=True)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "fast"}, "`method` must be one of"),
        ({"values": [[1, 2, 3]]}, r"shape \(k systems >= 2"),
        ({"values": [[1, np.nan], [1, 2]]}, "finite"),
        ({"sample_weight": [1, 1, 1]}, "method='randomized' only"),
    ],
)
def test_tukey_bad_input(kwargs, match):
    args = {"values": [[1.0, 2, 3], [1, 3, 2]], **kwargs}
    with pytest.raises(ValueError, match=match):
        tukey_hsd(args.pop("values"), **args)


_OUT_OF_RANGE = r"^`pvalues` must hold numbers in \[0, 1\], got NaN or out of range$"


@pytest.mark.parametrize(
    ("pvalues", "method", "match"),
    [
        ([0.1, 1.2], "holm", _OUT_OF_RANGE),
        ([0.1, np.nan], "holm", _OUT_OF_RANGE),
        ([-0.01, 0.5], "fdr_bh", _OUT_OF_RANGE),
        (
            [0.1],
            "hochberg",
            r"^`method` must be one of 'holm', 'bonferroni', 'fdr_bh' or None, "
            r"got 'hochberg' \(str\)$",
        ),
        (0.1, "holm", r"^`pvalues` must hold at least one p-value, got a scalar$"),
    ],
)
def test_adjust_bad_input(pvalues, method, match):
    with pytest.raises(ValueError, match=match):
        adjust_pvalues(pvalues, method)


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
def test_inputs_are_not_modified():
    a, b = _pair(0, 20)
    a0, b0 = a.copy(), b.copy()
    w = np.ones(20)
    paired_test(a, b, test="bootstrap", sample_weight=w, random_state=0)
    assert (a == a0).all() and (b == b0).all() and (w == 1).all()


def test_moments_weighted_reduce_to_plain():
    d = np.random.default_rng(0).random((3, 15))
    plain = _moments(d, None)
    weighted = _moments(d, np.full(15, 0.3))
    for x, y in zip(plain, weighted, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-12)
