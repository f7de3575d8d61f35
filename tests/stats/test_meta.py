"""meta_analysis against statsmodels' combine_effects (DL and fixed), REML
against a direct maximisation of the restricted likelihood, and the
stratified bootstrap against a loop over collections."""

import re
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from skirm import InvalidInputError, InvalidParameterError
from skirm.metrics import EvaluationResult
from skirm.stats import meta_analysis

#: (k collections, spread of the true effects): homogeneous to heterogeneous
SETTINGS = [(2, 0.05), (3, 0.0), (5, 0.02), (13, 0.03), (18, 0.1), (40, 0.01)]


def _effects(seed, k, spread):
    rng = np.random.default_rng(seed)
    v = rng.uniform(1e-4, 2e-3, k)
    y = 0.02 + rng.normal(0, spread, k) + rng.normal(0, np.sqrt(v))
    return y, v


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("k", "spread"), SETTINGS)
def test_dl_and_fixed_equal_statsmodels(k, spread, seed):
    from statsmodels.stats.meta_analysis import combine_effects

    y, v = _effects(seed, k, spread)
    with warnings.catch_warnings():
        # statsmodels' negative DL estimate makes a square root of < 0
        warnings.simplefilter("ignore", RuntimeWarning)
        sm = combine_effects(y, v, method_re="dl")
        fe_ci, re_ci = sm.conf_int(use_t=False)[:2]
    fixed = meta_analysis(y, v, method="fixed")
    assert fixed.effect == pytest.approx(sm.mean_effect_fe, rel=1e-12)
    assert fixed.standard_error == pytest.approx(sm.sd_eff_w_fe, rel=1e-12)
    np.testing.assert_allclose(fixed.confidence_interval, fe_ci, rtol=1e-12)
    np.testing.assert_allclose(fixed.weights, sm.weights_rel_fe, rtol=1e-12)
    assert fixed.q == pytest.approx(sm.q, rel=1e-12)
    dl = meta_analysis(y, v, method="dl")
    assert dl.i2 == pytest.approx(max(0.0, sm.i2), abs=1e-12)
    if sm.tau2 < 0:  # statsmodels keeps a negative DL estimate; skirm takes 0
        assert dl.tau2 == 0.0 and dl.effect == fixed.effect
        return
    assert dl.tau2 == pytest.approx(sm.tau2, rel=1e-12)
    assert dl.effect == pytest.approx(sm.mean_effect_re, rel=1e-12)
    assert dl.standard_error == pytest.approx(sm.sd_eff_w_re, rel=1e-12)
    np.testing.assert_allclose(dl.confidence_interval, re_ci, rtol=1e-12)
    np.testing.assert_allclose(dl.weights, sm.weights_rel_re, rtol=1e-12)


def _restricted_loglik(tau2, y, v):
    w = 1 / (v + tau2)
    mu = (w * y).sum() / w.sum()
    return -0.5 * (np.log(v + tau2).sum() + np.log(w.sum()) + (w * (y - mu) ** 2).sum())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("k", "spread"), SETTINGS)
def test_reml_maximises_the_restricted_likelihood(k, spread, seed):
    y, v = _effects(seed, k, spread)
    res = meta_analysis(y, v, method="reml")
    found = optimize.minimize_scalar(
        lambda t: -_restricted_loglik(t, y, v),
        bounds=(0, 1.0),
        method="bounded",
        options={"xatol": 1e-14},
    )
    best = found.x if -found.fun > _restricted_loglik(0.0, y, v) else 0.0
    assert res.tau2 == pytest.approx(best, abs=1e-8)
    w = 1 / (v + res.tau2)
    assert res.effect == pytest.approx((w * y).sum() / w.sum(), rel=1e-12)


def test_prediction_interval_and_heterogeneity():
    y, v = _effects(1, 13, 0.03)
    res = meta_analysis(y, v)
    half = stats.t.isf(0.025, 11) * np.sqrt(res.tau2 + res.standard_error**2)
    np.testing.assert_allclose(
        res.prediction_interval, (res.effect - half, res.effect + half), rtol=1e-12
    )
    assert res.q_pvalue == pytest.approx(stats.chi2.sf(res.q, 12))
    two = meta_analysis(y[:2], v[:2])
    assert np.isnan(two.prediction_interval).all()
    assert "prediction interval" not in str(two)


def _collections(seed, sizes=(30, 50, 20)):
    rng = np.random.default_rng(seed)
    out = {}
    for c, n in enumerate(sizes):
        ids = np.arange(n)
        a = rng.random(n)
        b = np.clip(a - 0.03 + rng.normal(0, 0.1, n), 0, 1)
        out[f"c{c}"] = (
            EvaluationResult(ids, {"ndcg": a}, {"ndcg": a.mean()}),
            EvaluationResult(ids[::-1], {"ndcg": b[::-1]}, {"ndcg": b.mean()}),
        )
    return out


def test_the_results_form_pools_mean_differences():
    collections = _collections(0)
    res = meta_analysis(collections, metric="ndcg", n_resamples=500, random_state=3)
    y, v = [], []
    for a, b in collections.values():
        d = a.per_query["ndcg"] - b.per_query["ndcg"][::-1]
        y.append(d.mean())
        v.append(d.var(ddof=1) / d.size)
    np.testing.assert_allclose(res.effects, y, rtol=1e-12)
    np.testing.assert_allclose(res.variances, v, rtol=1e-12)
    assert res.names == ["c0", "c1", "c2"]
    assert res.mean == pytest.approx(np.mean(y))
    # the stratified bootstrap: queries drawn within each collection
    rng = np.random.default_rng(3)
    total = np.zeros(500)
    for a, b in collections.values():
        d = a.per_query["ndcg"] - b.per_query["ndcg"][::-1]
        total += d[rng.integers(0, d.size, size=(500, d.size))].mean(axis=1)
    expected = np.quantile(total / 3, [0.025, 0.975])
    np.testing.assert_allclose(res.mean_interval, expected, rtol=1e-12)
    assert res.random_state == 3 and res.n_resamples == 500
    assert "stratified bootstrap" in str(res)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: meta_analysis([0.1, 0.2], [0.01, 0.0]),
            InvalidInputError,
            "`variances` must be finite and > 0, got 0.0",
        ),
        (
            lambda: meta_analysis([0.1, 0.2], [0.01, -1.0]),
            InvalidInputError,
            "`variances` must be finite and > 0, got -1.0",
        ),
        (
            lambda: meta_analysis([0.1, 0.2], [0.01]),
            InvalidInputError,
            "`variances` must hold one variance per effect (2)",
        ),
        (
            lambda: meta_analysis([0.1], [0.01]),
            InvalidInputError,
            "`effects` must be a 1-D array of at least 2",
        ),
        (
            lambda: meta_analysis([0.1, np.nan], [0.01, 0.01]),
            InvalidInputError,
            "`effects` must be finite",
        ),
        (
            lambda: meta_analysis([0.1, 0.2], [0.01, 0.01], metric="ndcg"),
            InvalidParameterError,
            "`metric` applies when `effects` maps collections to results",
        ),
        (
            lambda: meta_analysis(_collections(0), [1, 2], metric="ndcg"),
            InvalidParameterError,
            "`variances` must be None",
        ),
        (
            lambda: meta_analysis(_collections(0)),
            InvalidParameterError,
            "`metric` must name the metric",
        ),
        (
            lambda: meta_analysis(_collections(0), metric="map"),
            InvalidParameterError,
            "`metric` names 'map', which the results of 'c0' do not hold",
        ),
        (
            lambda: meta_analysis({"x": 1, "y": 2}, metric="ndcg"),
            InvalidParameterError,
            "`effects['x']` must be a (result_a, result_b) pair",
        ),
        (
            lambda: meta_analysis([0.1, 0.2], [0.01, 0.01], method="pm"),
            InvalidParameterError,
            "`method` must be one of",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_a_collection_without_variance_is_named():
    ids = np.arange(4)
    a = EvaluationResult(ids, {"ndcg": np.ones(4)}, {"ndcg": 1.0})
    b = EvaluationResult(ids, {"ndcg": np.zeros(4)}, {"ndcg": 0.0})
    collections = {**_collections(0), "flat": (a, b)}
    with pytest.raises(InvalidInputError, match="on collection 'flat' are all equal"):
        meta_analysis(collections, metric="ndcg", random_state=0)


# -- tiny variances (issue 51, item 10) ----------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("scale", [1e-40, 1e-100, 1e-140, 1e-148])
@pytest.mark.parametrize("seed", range(3))
def test_tiny_variances_equal_statsmodels_where_it_answers(scale, seed):
    """statsmodels squares the inverse variances, and answers down to about
    1e-154 (the squared weights); there skirm gives its numbers."""
    from statsmodels.stats.meta_analysis import combine_effects

    y, v = _effects(seed, 6, 0.03)
    v = v * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sm = combine_effects(y, v, method_re="dl")
    assert np.isfinite(sm.tau2) and sm.tau2 > 0
    dl = meta_analysis(y, v, method="dl")
    assert dl.tau2 == pytest.approx(sm.tau2, rel=1e-12)
    assert dl.i2 == pytest.approx(sm.i2, abs=1e-12)
    assert dl.q == pytest.approx(sm.q, rel=1e-12)
    assert dl.effect == pytest.approx(sm.mean_effect_re, rel=1e-12)
    assert dl.standard_error == pytest.approx(sm.sd_eff_w_re, rel=1e-12)
    fixed = meta_analysis(y, v, method="fixed")
    assert fixed.standard_error == pytest.approx(sm.sd_eff_w_fe, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-160, 1e-200, 1e-300, 1e-320, 5e-324])
def test_variances_below_1e_154_regression(scale):
    """Below about 1e-154 the squared weights overflowed: tau^2 came out 0
    beside I^2 of 100%, and 1e-320 ended in a bare ZeroDivisionError. As the
    variances shrink the numbers tend to a limit, which they now keep."""
    y = np.array([0.02, 0.05, -0.01, 0.04])
    v = np.array([1.0, 4.0, 2.0, 3.0])
    limit = meta_analysis(y, v * 1e-150)
    for method in ("dl", "reml", "fixed"):
        res = meta_analysis(y, v * scale, method=method)
        assert np.isfinite(res.effect) and res.standard_error > 0
        assert res.i2 == 1.0 and res.q_pvalue == 0.0
    dl = meta_analysis(y, v * scale)
    assert dl.tau2 == pytest.approx(limit.tau2, rel=1e-9)
    assert dl.tau2 > 0.0
    assert dl.effect == pytest.approx(limit.effect, rel=1e-9)
    assert dl.standard_error == pytest.approx(limit.standard_error, rel=1e-9)
    reml = meta_analysis(y, v * scale, method="reml")
    assert reml.tau2 == pytest.approx(np.var(y, ddof=1), rel=1e-6)


@pytest.mark.parametrize("method", ["dl", "fixed"])
@pytest.mark.parametrize("power", [1, 60, 250, 490])
@pytest.mark.parametrize("seed", range(4))
def test_scaling_by_a_power_of_four_is_exact(seed, power, method):
    """Effects times 2**-p and variances times 4**-p: the pooled effect, its
    interval and tau^2 scale exactly, I^2, Q and the p-values do not move,
    bit for bit (down to variances near 1e-300)."""
    y, v = _effects(seed, 7, 0.05)
    base = meta_analysis(y, v, method=method)
    small = meta_analysis(np.ldexp(y, -power), np.ldexp(v, -2 * power), method=method)
    assert small.effect == np.ldexp(base.effect, -power)
    assert small.standard_error == np.ldexp(base.standard_error, -power)
    assert small.tau2 == np.ldexp(base.tau2, -2 * power)
    assert (small.i2, small.q, small.pvalue, small.q_pvalue) == (
        base.i2,
        base.q,
        base.pvalue,
        base.q_pvalue,
    )
    np.testing.assert_array_equal(small.weights, base.weights)
