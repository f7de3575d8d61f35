"""paired_test at its edges: whole error messages, the bounds of each
option, one-sided bootstrap intervals and the printed report."""

import os
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from skirm.stats import paired_test

A = [0.1, 0.5, 0.3]
B = [0.2, 0.4, 0.2]
_FINITE = "must hold finite values, got NaN or inf"
_WEIGHTS = (
    "`sample_weight` must hold finite, non-negative weights, at least two of "
    "them positive"
)
_CONFIDENCE = "`confidence` must be a number in (0, 1), got "
_NOT_WEIGHTED = "; use 't', 'randomization' or 'bootstrap'"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"a": [1, 2, 3], "b": [1, 2]},
            "`a` and `b` must be aligned per query (same length), got 3 and 2 values",
        ),
        ({"a": [1, np.nan, 3]}, "`a` " + _FINITE),
        ({"b": [1, np.inf, 3]}, "`b` " + _FINITE),
        ({"a": [1], "b": [2]}, "the tests need at least 2 queries, got 1"),
        (
            {"a": [[1, 2]], "b": [[1, 2]]},
            "`a` must be 1-D (one value per query), got shape (1, 2)",
        ),
        (
            {"zero_method": "drop"},
            "`zero_method` must be one of 'wilcox', 'pratt', 'zsplit', "
            "got 'drop' (str)",
        ),
        ({"b": [[1, 2, 3]]}, "`b` must be 1-D (one value per query), got shape (1, 3)"),
        ({"confidence": 1.5}, _CONFIDENCE + "1.5 (float)"),
        ({"confidence": 0}, _CONFIDENCE + "0 (int)"),
        ({"confidence": 1}, _CONFIDENCE + "1 (int)"),
        ({"confidence": True}, _CONFIDENCE + "True (bool)"),
        ({"confidence": "0.9"}, _CONFIDENCE + "'0.9' (str)"),
        ({"exact": "yes"}, "`exact` must be 'auto', True or False, got 'yes' (str)"),
        ({"exact": 1}, "`exact` must be 'auto', True or False, got 1 (int)"),
        (
            {"sample_weight": [1, 2]},
            "`sample_weight` must hold one weight per query (3), got shape (2,)",
        ),
        ({"sample_weight": [1, 0, 0]}, _WEIGHTS),
        ({"sample_weight": [1, -1, 2]}, _WEIGHTS),
        ({"sample_weight": [1, np.nan, 2]}, _WEIGHTS),
        (
            {"test": "sign", "sample_weight": [1, 1, 1]},
            "`sample_weight` is not supported by test='sign'" + _NOT_WEIGHTED,
        ),
        (
            {"test": "wilcoxon", "sample_weight": [1, 1, 1]},
            "`sample_weight` is not supported by test='wilcoxon'" + _NOT_WEIGHTED,
        ),
    ],
)
def test_paired_test_error_messages(kwargs, message):
    args = {"a": A, "b": B, **kwargs}
    a, b = args.pop("a"), args.pop("b")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        paired_test(a, b, **args)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"b": ["x", "y", "z"]}, "b"), ({"sample_weight": ["x"] * 3}, "sample_weight")],
)
def test_paired_test_names_an_argument_that_is_not_numeric(kwargs, name):
    args = {"a": A, "b": B, **kwargs}
    a, b = args.pop("a"), args.pop("b")
    message = re.escape(f"`{name}` must be an array-like of real numbers")
    with pytest.raises(TypeError, match=f"^{message}"):
        paired_test(a, b, **args)


def test_paired_test_on_exactly_two_queries():
    # d = (1, 3): mean 2, sd sqrt(2), se 1, t = 2 on 1 degree of freedom,
    # where t's distribution is Cauchy's: p = 1 - 2 atan(2) / pi, and the
    # 95% half-width is tan(0.475 pi).
    res = paired_test([1.0, 3.0], [0.0, 0.0])
    assert res.statistic == pytest.approx(2.0, rel=1e-14)
    assert res.pvalue == pytest.approx(1 - 2 * np.arctan(2) / np.pi, rel=1e-12)
    half = np.tan(0.475 * np.pi)
    np.testing.assert_allclose(res.confidence_interval, (2 - half, 2 + half))
    assert res.n == 2


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap", "sign"])
@pytest.mark.parametrize("values", [np.zeros(5), np.linspace(0, 1, 20)])
def test_identical_systems_have_p_one_for_every_alternative(values, test, alternative):
    res = paired_test(
        values, values, test=test, alternative=alternative, random_state=0
    )
    assert res.pvalue == 1.0
    assert res.mean_difference == 0 and res.ties == values.size


def test_weighted_t_test_against_the_formulas():
    rng = np.random.default_rng(3)
    a, b = rng.random(15), rng.random(15)
    w = rng.integers(1, 6, 15).astype(float)
    d = a - b
    total = w.sum()
    mean = np.sum(w * d) / total
    var = np.sum(w * (d - mean) ** 2) / (total - np.sum(w**2) / total)
    n_eff = total**2 / np.sum(w**2)
    se = np.sqrt(var / n_eff)
    t = mean / se
    res = paired_test(a, b, sample_weight=w, confidence=0.9)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), n_eff - 1), rel=1e-10)
    half = stats.t.ppf(0.95, n_eff - 1) * se
    np.testing.assert_allclose(
        res.confidence_interval, (mean - half, mean + half), rtol=1e-12
    )


def test_differences_constant_up_to_the_rounding_of_large_values():
    """Values from 600 to 1900: ``b = a + 0.1`` rounds to their last bits.

    The spread of ``a - b`` is then far above the rounding of the
    differences themselves (about 0.1) but within that of the values they
    came from: the differences are constant, the t statistic infinite, and
    the warning points at the call.
    """
    a = np.array([600.5, 900.2, 1200.9, 1500.4, 1900.7])
    b = a + 0.1
    d = a - b
    assert np.ptp(d) > 64 * np.finfo(float).eps * 0.1
    message = (
        "paired differences are constant up to rounding in 1 of 1 rows (their "
        "spread is within 1.4e-14 of their magnitude): their variance is taken "
        "as 0, so the t statistic is infinite, its p-value 0 and the t interval "
        "of width 0; test='randomization' or test='sign' read such differences "
        "without a variance"
    )
    with pytest.warns(RuntimeWarning, match=f"^{re.escape(message)}$") as record:
        res = paired_test(a, b)
    if "MUTANT_UNDER_TEST" not in os.environ:  # mutmut adds frames to every call
        assert [w.filename for w in record] == [__file__]
    assert res.statistic == -np.inf and res.pvalue == 0.0
    low, high = res.confidence_interval
    assert low == high == res.mean_difference
    assert np.isnan(res.effect_size)


def test_two_queries_with_constant_differences_warn():
    with pytest.warns(RuntimeWarning, match="constant up to rounding in 1 of 1 rows"):
        res = paired_test([0.5, 0.2], [0.6, 0.3], test="t")
    assert res.statistic == -np.inf and res.pvalue == 0.0


def test_differences_zero_up_to_rounding_do_not_warn():
    """``b`` equals ``a`` but for the last bits: the differences are constant
    and nonzero, yet within the rounding of the values they came from, so
    they read as 0 (no statistic, p-value 1) and warrant no warning."""
    a = np.array([0.5, 0.2, 0.9, 0.4])
    b = a * (1 + 2 * np.finfo(float).eps)
    assert np.all(a != b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = paired_test(a, b, test="t")
    assert np.isnan(res.statistic) and res.pvalue == 1.0


def test_sign_test_with_one_untied_query():
    # One win of one: P(X >= 1) = 1/2, P(X <= 1) = 1, two-sided 1.
    a, b = [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    assert paired_test(a, b, test="sign", alternative="greater").pvalue == 0.5
    assert paired_test(a, b, test="sign", alternative="less").pvalue == 1.0
    assert paired_test(a, b, test="sign").pvalue == 1.0


def test_sign_test_with_as_many_wins_as_losses_has_p_one():
    # 2 * P(X <= 1) for X ~ Binomial(2, 1/2) is 1.5: a p-value is at most 1.
    res = paired_test([1.0, 0.0, 0.5], [0.0, 1.0, 0.5], test="sign")
    assert res.pvalue == 1.0 == stats.binomtest(1, 2).pvalue


# --------------------------------------------------------------------------
# The tolerance of the randomization test: equal in exact arithmetic
# --------------------------------------------------------------------------

EPS = np.finfo(np.float64).eps


def _near_tie(k):
    """Differences whose sign vectors (+, +, +) and (+, -, -) give means
    ``(x + k eps) / 3`` and ``(x - k eps) / 3``, exactly.

    Besides scipy's relative tolerance (100 eps of the mean, negligible at
    x = 2**-10), two means count as equal within the rounding bound of a sum
    of n = 3 terms, ``4 eps n max|w d| / sum w``: 4 eps here, so the two
    means (2 k eps / 3 apart) are equal up to k = 6.
    """
    d = np.array([2.0**-10, 1.0, -1.0 + k * EPS])
    assert d[2] + 1 == k * EPS
    return d


@pytest.mark.parametrize(
    ("k", "pvalues"),
    [(5.5, (1.0, 0.5, 0.75)), (6.5, (0.75, 0.375, 0.75))],
)
@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 2.0]])
def test_randomization_counts_means_within_rounding_as_equal(k, pvalues, weights):
    """Of the 8 sign vectors, 4 give means far from the observed one and 2
    the observed one or its opposite; the near one makes the difference.

    With weights (1, 2, 2) the means are 2 k eps / 5 apart and the bound is
    ``4 eps 3 * 2 / 5``: equal up to k = 6 too.
    """
    d = _near_tie(k)
    got = tuple(
        paired_test(
            d, np.zeros(3), test="randomization", alternative=alt, sample_weight=weights
        ).pvalue
        for alt in ("two-sided", "greater", "less")
    )
    assert got == pvalues


# --------------------------------------------------------------------------
# Bootstrap intervals: one-sided, weighted BCa, tied values
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_one_sided_bootstrap_intervals_equal_scipy(method, alternative):
    rng = np.random.default_rng(12)
    a, b = rng.random(30), rng.random(30)
    res = paired_test(
        a,
        b,
        test="bootstrap",
        interval=method,
        alternative=alternative,
        n_resamples=3000,
        random_state=5,
        confidence=0.9,
    )
    ref = stats.bootstrap(
        (a - b,),
        np.mean,
        method=method,
        n_resamples=3000,
        confidence_level=0.9,
        alternative=alternative,
        rng=np.random.default_rng(5),
    )
    np.testing.assert_allclose(
        res.confidence_interval, ref.confidence_interval, rtol=0, atol=1e-12
    )


def _bca_loop(d, w, boot, below, at_or_below, confidence):
    """BCa bounds from the draws and their counts, the jackknife by loop."""
    n, B = d.size, boot.size
    z0 = stats.norm.ppf((below + at_or_below) / (2 * B))
    keep = ~np.eye(n, dtype=bool)
    jack = np.array([np.average(d[keep[i]], weights=w[keep[i]]) for i in range(n)])
    u = jack.mean() - jack
    accel = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    alpha = (1 - confidence) / 2
    z = stats.norm.ppf([alpha, 1 - alpha])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    return np.percentile(boot, 100 * levels)


@pytest.mark.oracle
def test_weighted_bca_interval_against_a_loop():
    rng = np.random.default_rng(21)
    a, b = rng.random(25), rng.random(25)
    d, w = a - b, rng.random(25) + 0.5
    B = 2000
    res = paired_test(
        a, b, test="bootstrap", n_resamples=B, sample_weight=w, random_state=7
    )
    assert res.interval == "bca"
    index = np.random.default_rng(7).integers(0, 25, size=(B, 25))
    boot = np.array([np.average(d[row], weights=w[row]) for row in index])
    estimate = np.average(d, weights=w)
    below, at = np.sum(boot < estimate), np.sum(boot <= estimate)
    assert below == at  # no draw near the estimate: rounding cannot matter
    expected = _bca_loop(d, w, boot, below, at, 0.95)
    np.testing.assert_allclose(res.confidence_interval, expected, rtol=0, atol=1e-12)


@pytest.mark.oracle
def test_bca_counts_draws_equal_to_the_estimate_in_exact_arithmetic():
    """Differences on a grid of 0.1 over 1000 queries: some draws have
    exactly the mean of the data, which rounding puts either side of it.
    Counted in integers (tenths), they are equal."""
    n, B = 1000, 4000
    tenths = np.random.default_rng(0).integers(-3, 5, n)
    d = tenths / 10
    res = paired_test(d, np.zeros(n), test="bootstrap", n_resamples=B, random_state=3)
    index = np.random.default_rng(3).integers(0, n, size=(B, n))
    sums = tenths[index].sum(axis=1)
    below, at = np.sum(sums < tenths.sum()), np.sum(sums <= tenths.sum())
    boot = d[index].mean(axis=1)
    estimate = d.mean()
    assert at - below > 10  # draws equal to the estimate, some not in floats
    assert np.sum(boot < estimate) != below or np.sum(boot <= estimate) != at
    expected = _bca_loop(d, np.ones(n), boot, below, at, 0.95)
    np.testing.assert_allclose(res.confidence_interval, expected, rtol=0, atol=1e-12)


def test_bca_judges_each_row_by_its_own_magnitude():
    """A row of values near 1000 does not widen the tolerance of a row near
    0.5, whose draws differ from its estimate by about 1e-11."""
    from skirm.stats import _resampling as rs
    from skirm.stats._paired import bootstrap_interval

    rng = np.random.default_rng(4)
    values = np.stack([1000 * rng.random(40), 0.5 + 1e-10 * rng.random(40)])
    boot = rs.bootstrap_means(values, None, n_resamples=2000, rng=rng)
    both = bootstrap_interval(values, None, boot, 0.9, "bca", "two-sided")
    alone = bootstrap_interval(values[1:], None, boot[1:], 0.9, "bca", "two-sided")
    assert (both[0][1], both[1][1]) == (alone[0][0], alone[1][0])
    # Most draws lie between the two rows' tolerances (100 eps 40 max|x|).
    centred = np.abs(boot[1] - values[1].mean())
    assert np.mean(centred > 1e-12) > 0.5 and centred.max() < 1e-10


# --------------------------------------------------------------------------
# The printed result and the defaults
# --------------------------------------------------------------------------


def test_paired_test_result_prints_every_line():
    res = paired_test(
        [0.5, 0.4, 0.9, 0.3, 0.7, 0.6],
        [0.4, 0.4, 0.7, 0.2, 0.5, 0.6],
        test="randomization",
    )
    assert str(res) == (
        "paired randomization test (two-sided), n = 6 queries\n"
        "mean difference +0.1000, 95% CI [+0.0061, +0.1939] (t)\n"
        "statistic 0.1000, p = 0.125\n"
        "effect size d_z = 1.118; wins/ties/losses 4/2/0"
    )


def test_large_n_note_from_1000_queries():
    a, b = np.linspace(0, 1, 1000), np.linspace(0, 1, 1000) ** 2
    lines = str(paired_test(a, b)).split("\n")
    assert len(lines) == 5 and lines[-1] == (
        "note: with 1000 queries even a tiny difference is significant; judge it "
        "by the effect size and the interval"
    )
    assert len(str(paired_test(a[:999], b[:999])).split("\n")) == 4


def test_default_n_resamples_is_10_000():
    a, b = np.linspace(0, 1, 30), np.linspace(0, 1, 30) ** 2
    assert paired_test(a, b, test="randomization").n_resamples == 10_000
    assert paired_test(a, b, test="bootstrap").n_resamples == 10_000


def test_a_zero_weight_drops_the_query():
    # Two positive weights of four: the t test of the two queries they weigh.
    a, b = [0.9, 0.5, 0.3, 0.8], [0.1, 0.7, 0.2, 0.2]
    res = paired_test(a, b, sample_weight=[1.0, 0.0, 1.0, 0.0])
    ref = stats.ttest_rel([0.9, 0.3], [0.1, 0.2])
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)


def test_bootstrap_test_with_a_t_interval():
    a, b = np.linspace(0, 1, 30), np.linspace(0, 1, 30) ** 2
    res = paired_test(
        a, b, test="bootstrap", interval="t", n_resamples=500, random_state=2
    )
    bca = paired_test(a, b, test="bootstrap", n_resamples=500, random_state=2)
    t = paired_test(a, b)
    assert res.pvalue == bca.pvalue and res.statistic == bca.statistic
    assert res.confidence_interval == t.confidence_interval
    assert (res.interval, res.n_resamples, res.random_state) == ("t", 500, 2)


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_bootstrap_shift_test_against_a_loop(alternative):
    rng = np.random.default_rng(8)
    d = rng.normal(0.03, 0.2, 30)
    B = 2000
    res = paired_test(
        d, np.zeros(30), test="bootstrap", alternative=alternative, n_resamples=B,
        random_state=6,
    )  # fmt: skip
    index = np.random.default_rng(6).integers(0, 30, size=(B, 30))
    shifted = d[index].mean(axis=1) - d.mean()
    if alternative == "greater":
        count = np.sum(shifted >= d.mean())
    else:
        count = np.sum(shifted <= d.mean())
    assert res.pvalue == pytest.approx((count + 1) / (B + 1), abs=1e-15)


@pytest.mark.oracle
def test_bootstrap_shift_test_counts_draws_equal_in_exact_arithmetic():
    """Differences on a grid of 0.1 over 1000 queries, of mean 1e-4: a draw
    whose shifted mean is the observed one or its opposite in exact
    arithmetic counts, wherever rounding puts it (further from it than
    scipy's relative tolerance). Counted in integers (tenths)."""
    n, B = 1000, 4000
    tenths = np.random.default_rng(1).integers(-3, 4, n)
    tenths[-1] += 1 - tenths.sum()
    d = tenths / 10
    res = paired_test(d, np.zeros(n), test="bootstrap", n_resamples=B, random_state=2)
    index = np.random.default_rng(2).integers(0, n, size=(B, n))
    shifted = tenths[index].sum(axis=1) - tenths.sum()  # n times the tenths
    count = np.sum(np.abs(shifted) >= abs(tenths.sum()))
    assert res.pvalue == (count + 1) / (B + 1)


@pytest.mark.filterwarnings("ignore:the bootstrap test is too liberal")
@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_regression_bootstrap_leaves_out_zero_weight_queries(interval):
    # paired_test(..., sample_weight=[1, 1, 0, 0]) gave the interval
    # (-0.1, nan): the weight-0 queries were drawn, and a draw of them alone
    # is 0/0. Now the test is the one of the weighted queries alone.
    a, b = np.array([0.1, 0.5, 0.3, 0.6]), np.array([0.2, 0.4, 0.1, 0.3])
    options = {"test": "bootstrap", "interval": interval, "n_resamples": 1000}
    got = paired_test(a, b, sample_weight=[1, 1, 0, 0], random_state=0, **options)
    want = paired_test(a[:2], b[:2], sample_weight=[1, 1], random_state=0, **options)
    assert np.isfinite(got.confidence_interval).all()
    assert got.confidence_interval == want.confidence_interval
    assert got.pvalue == want.pvalue


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign"])
def test_unsigned_integer_values_are_compared_as_numbers(test):
    # uint8 values: a - b must not wrap around below 0.
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 5, (2, 30))
    got = paired_test(a.astype(np.uint8), b.astype(np.uint8), test=test)
    expected = paired_test(a.astype(float), b.astype(float), test=test)
    assert (got.statistic, got.pvalue) == (expected.statistic, expected.pvalue)
    assert got.mean_difference == expected.mean_difference < 0


def test_the_bootstrap_test_warns_on_few_queries():
    # Regression: three same-sign differences gave p = 1e-4 with no warning
    # (t test: 0.074; exact randomization: 0.25). Below 25 queries the
    # bootstrap test rejects a true null far more often than alpha (see
    # BOOTSTRAP_MIN_QUERIES for the simulation).
    from skirm.stats._resampling import BOOTSTRAP_MIN_QUERIES

    assert BOOTSTRAP_MIN_QUERIES == 25
    with pytest.warns(UserWarning, match=r"too liberal on 3 queries.*'randomization'"):
        result = paired_test([0.5, 0.6, 0.7], [0.1, 0.2, 0.3], test="bootstrap")
    assert result.pvalue < 0.001
    rng = np.random.default_rng(0)
    a, b = rng.random(25), rng.random(25)
    with pytest.warns(UserWarning, match=r"on 24 queries"):
        paired_test(a, b, test="bootstrap", sample_weight=[0.0] + [1.0] * 24)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paired_test(a, b, test="bootstrap")  # 25 queries: no warning
        paired_test(a[:3], b[:3], test="t")  # other tests: no warning
