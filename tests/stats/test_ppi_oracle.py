"""The prediction-powered estimates against ppi_py, the reference
implementation of Angelopoulos et al.: PPI and PPI++ means and intervals, the
gold-only and judge-only intervals, and the p-values of differences, on
generated per-query values that vary one dimension at a time."""

import numpy as np
import pytest

from skirm.stats import ppi_compare, ppi_mean

ppi_py = pytest.importorskip("ppi_py")

pytestmark = pytest.mark.oracle

TOL = 1e-10


def _values(rng, n=40, big_n=400, rho=0.8, kind="beta", bias=0.1, scale=1.0):
    """``(gold values of the n gold queries, the judge's on them, the
    judge's on the N others, the truth of the N others)``."""
    m = n + big_n
    if kind == "beta":
        y = rng.beta(2, 3, m)
    elif kind == "discrete":  # P@10: tenths, many ties
        y = rng.binomial(10, 0.4, m) / 10
    elif kind == "zeros":  # most queries score 0
        y = np.where(rng.random(m) < 0.7, 0.0, rng.random(m))
    else:  # "dcg": a wide range
        y = rng.gamma(2.0, 3.0, m)
    y = y * scale
    noise = rng.normal(0, y.std() + 1e-3, m)
    f = rho * y + np.sqrt(max(1 - rho**2, 0)) * noise + bias * scale
    if kind == "discrete":
        f = np.round(f * 10) / 10  # the judge's P@10 too
    return y[:n], f[:n], f[n:], y[n:]


CASES = {
    "base": {},
    "n=2": {"n": 2},
    "n=3": {"n": 3},
    "n=5": {"n": 5},
    "n=1000": {"n": 1000},
    "N=1": {"big_n": 1},
    "N=2": {"big_n": 2},
    "N=10": {"big_n": 10},
    "N=5000": {"big_n": 5000},
    "rho=0": {"rho": 0.0},
    "rho<0": {"rho": -0.6},
    "rho=0.99": {"rho": 0.99},
    "lam clipped at 1": {"rho": 0.3, "scale": 1.0, "bias": 0.0},
    "discrete ties": {"kind": "discrete"},
    "mostly zeros": {"kind": "zeros"},
    "dcg scale": {"kind": "dcg"},
    "large bias": {"bias": 5.0},
    "no bias": {"bias": 0.0},
    "scale 1e-3": {"scale": 1e-3},
}


def _case(name, seed):
    rng = np.random.default_rng([seed, len(name), sum(map(ord, name))])
    gold, judge_gold, judge_rest, _ = _values(rng, **CASES[name])
    if name == "lam clipped at 1":
        judge_gold, judge_rest = 0.2 * judge_gold, 0.2 * judge_rest
    return gold, judge_gold, judge_rest


def _arrays(gold, judge_gold, judge_rest):
    """The per-query arrays ppi_mean reads: the gold queries first."""
    judge = np.concatenate([judge_gold, judge_rest])
    gold_values = np.concatenate([gold, np.full(judge_rest.size, np.nan)])
    return judge, gold_values


def _records(result):
    return {r["estimator"]: r for r in result.to_records()}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("name", list(CASES))
def test_means_and_intervals_equal_ppi_py(name, confidence, seed):
    gold, judge_gold, judge_rest = _case(name, seed)
    result = ppi_mean(*_arrays(gold, judge_gold, judge_rest), interval="z",
                      confidence=confidence)  # fmt: skip
    got = _records(result)
    alpha = 1 - confidence
    # PPI++: the tuned weight
    mean = ppi_py.ppi_mean_pointestimate(gold, judge_gold, judge_rest)
    low, high = ppi_py.ppi_mean_ci(gold, judge_gold, judge_rest, alpha=alpha)
    assert got["ppi++"]["mean"] == pytest.approx(mean[0], abs=TOL)
    assert got["ppi++"]["ci_low"] == pytest.approx(low[0], abs=TOL)
    assert got["ppi++"]["ci_high"] == pytest.approx(high[0], abs=TOL)
    # PPI: weight 1
    mean = ppi_py.ppi_mean_pointestimate(gold, judge_gold, judge_rest, lam=1)
    low, high = ppi_py.ppi_mean_ci(gold, judge_gold, judge_rest, alpha=alpha, lam=1)
    assert got["ppi"]["mean"] == pytest.approx(mean[0], abs=TOL)
    assert got["ppi"]["ci_low"] == pytest.approx(low[0], abs=TOL)
    assert got["ppi"]["ci_high"] == pytest.approx(high[0], abs=TOL)
    # the gold queries alone, and the judge alone on every query
    low, high = ppi_py.classical_mean_ci(gold, alpha=alpha)
    assert (got["gold"]["ci_low"], got["gold"]["ci_high"]) == pytest.approx(
        (low, high), abs=TOL
    )
    every = np.concatenate([judge_gold, judge_rest])
    low, high = ppi_py.classical_mean_ci(every, alpha=alpha)
    assert (got["judge"]["ci_low"], got["judge"]["ci_high"]) == pytest.approx(
        (low, high), abs=TOL
    )


@pytest.mark.parametrize("name", ["base", "n=3", "N=2", "rho<0", "discrete ties"])
def test_the_t_intervals_keep_ppi_py_means(name):
    # interval="t" changes the intervals only: the means are ppi_py's
    gold, judge_gold, judge_rest = _case(name, 0)
    got = _records(ppi_mean(*_arrays(gold, judge_gold, judge_rest)))
    mean = ppi_py.ppi_mean_pointestimate(gold, judge_gold, judge_rest)
    assert got["ppi++"]["mean"] == pytest.approx(mean[0], abs=TOL)
    assert got["ppi"]["mean"] == pytest.approx(
        ppi_py.ppi_mean_pointestimate(gold, judge_gold, judge_rest, lam=1)[0], abs=TOL
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["ppi++", "ppi"])
@pytest.mark.parametrize("name", ["base", "n=5", "rho<0", "discrete ties", "N=10"])
def test_paired_differences_equal_ppi_py_on_the_per_query_differences(
    name, method, seed
):
    rng = np.random.default_rng([seed, 7])
    a = _case(name, seed)
    shift = rng.normal(0.02, 0.05, a[0].size + a[2].size)
    b = (a[0] - shift[: a[0].size], a[1] + 0.03, a[2] + 0.03)
    judge = {"a": _arrays(*a)[0], "b": _arrays(*b)[0]}
    gold = {"a": _arrays(*a)[1], "b": _arrays(*b)[1]}
    comparison = ppi_compare(judge, gold, method=method, interval="z")
    row = comparison.to_records("pairs")[0]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    lam = None if method == "ppi++" else 1
    mean = ppi_py.ppi_mean_pointestimate(*diffs, lam=lam)[0]
    low, high = ppi_py.ppi_mean_ci(*diffs, alpha=0.05, lam=lam)
    assert row["delta"] == pytest.approx(mean, abs=TOL)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low[0], high[0]), abs=TOL)
    # ppi_py's p-value tunes lam without clipping it: given our lam, the same
    p = ppi_py.ppi_mean_pval(*diffs, lam=row["lam"])
    assert row["p_value"] == pytest.approx(float(p[0]), abs=TOL)
    # each system's own estimate too
    for system, values in (("a", a), ("b", b)):
        means = comparison.means[system]["metric"]
        expected = ppi_py.ppi_mean_pointestimate(*values, lam=lam)[0]
        assert means == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_the_stratified_estimate_combines_ppi_py_per_stratum(seed):
    # Fisch et al.'s closed form: each stratum's PPI++ (its own lam), weighted
    # by the stratum's share of the queries; variances by the squared shares
    rng = np.random.default_rng(seed)
    sizes = rng.integers(60, 400, size=3)
    n_gold = rng.integers(5, 40, size=3)
    judge, gold, strata = [], [], []
    expected_mean, expected_var = 0.0, 0.0
    for k, (size, n) in enumerate(zip(sizes, n_gold, strict=True)):
        y, f, f_rest, _ = _values(rng, n=n, big_n=size - n, rho=0.4 + 0.2 * k,
                                  bias=0.05 * k)  # fmt: skip
        judge_k, gold_k = _arrays(y, f, f_rest)
        judge.append(judge_k)
        gold.append(gold_k)
        strata.append(np.full(size, f"s{k}"))
        share = size / sizes.sum()
        mean = ppi_py.ppi_mean_pointestimate(y, f, f_rest)[0]
        low, high = ppi_py.ppi_mean_ci(y, f, f_rest, alpha=0.05)
        se = (high[0] - low[0]) / 2 / 1.959963984540054
        expected_mean += share * mean
        expected_var += share**2 * se**2
    order = rng.permutation(sizes.sum())  # strata interleaved
    judge, gold = np.concatenate(judge)[order], np.concatenate(gold)[order]
    strata = np.concatenate(strata)[order]
    result = ppi_mean(judge, gold, strata=strata, interval="z")
    assert result.mean["metric"] == pytest.approx(expected_mean, abs=TOL)
    assert result.std_error["metric"] == pytest.approx(np.sqrt(expected_var), abs=TOL)
    assert result.lam["metric"].shape == (3,)
