"""Prediction-powered means: PPI, PPI++ and the stratified estimator, many
rows at once, and the half-widths they plan.

The notation of Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
"Prediction-powered inference" (Science, 2023) and Angelopoulos, Duchi and
Zrnic, "PPI++: Efficient prediction-powered inference" (2024): ``n`` gold
queries, with a metric's value under the human labels ``Y`` and under the
judge's labels ``f``; ``N`` other queries with ``f`` only. The estimate of
the mean of ``Y`` with weight ``lam`` on the judge is

    theta = lam * mean_N(f) + mean_n(Y - lam * f)

with variance ``var_N(lam * f) / N + var_n(Y - lam * f) / n`` (population
variances), and a normal interval. ``lam = 1`` is PPI, ``lam = 0`` the mean
of the gold queries alone, and PPI++ tunes it to
``cov_n(Y, f) / ((1 + n / N) var_{n+N}(f))`` clipped to [0, 1]: the formulas
of ``ppi_py``'s ``ppi_mean_ci`` and ``_calc_lam_glm``, which the tests match.
The stratified estimator (Fisch et al., "Stratified prediction-powered
inference for hybrid language model evaluation", NeurIPS 2024) weights each
stratum's estimate, its own ``lam`` tuned, by the stratum's share of the
queries.

Every function works on rows: ``gold`` and ``judge_gold`` of shape
(rows, n), ``judge_rest`` of shape (rows, N); a row is a system's values for
a metric, or the per-query differences of two systems, or one simulated
experiment.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import special as _special, stats as _stats

from skirm._errors import InvalidParameterError
from skirm._params import describe
from skirm.stats._moments import ROUNDING, constant_rows

#: The estimators reported side by side: PPI++ (tuned weight), PPI (weight
#: 1), the gold queries alone, the judge alone (its own mean, not the truth's).
ESTIMATORS = ("ppi++", "ppi", "gold", "judge")
#: The estimators a result can put first.
METHODS = ("ppi++", "ppi")


class Rest(NamedTuple):
    """The judge's values on the other queries, as every estimate reads
    them: their number (``size``), and per row their mean, population variance and
    largest magnitude (one pass over the largest array, once)."""

    size: int
    mean: np.ndarray
    var: np.ndarray
    absmax: np.ndarray


def summarize(judge_rest):
    """The :class:`Rest` of an array of shape (rows, N)."""
    rows, count = judge_rest.shape
    if count == 0:
        zeros = np.zeros(rows)
        return Rest(0, zeros, zeros, zeros)
    mean = judge_rest.mean(axis=1)
    var = judge_rest.var(axis=1)
    return Rest(count, mean, var, np.abs(judge_rest).max(axis=1))


def _pooled(judge_gold, rest):
    """``(mean, population variance, largest magnitude)`` of the judge's
    values on every query, per row, from the gold part and :class:`Rest`."""
    n, big_n = judge_gold.shape[1], rest.size
    mean_gold, var_gold = judge_gold.mean(axis=1), judge_gold.var(axis=1)
    total = n + big_n
    mean = (n * mean_gold + big_n * rest.mean) / total
    gap = mean_gold - rest.mean
    var = (n * var_gold + big_n * rest.var + n * big_n / total * gap**2) / total
    absmax = np.maximum(np.abs(judge_gold).max(axis=1), rest.absmax)
    return mean, var, absmax


def tuned_lambda(gold, judge_gold, rest):
    """PPI++'s weight per row: ``cov_n(Y, f) / ((1 + n/N) var_{n+N}(f))``
    clipped to [0, 1] (``ppi_py``'s ``_calc_lam_glm`` for a mean, with
    ``clip=True``); 0 for a judge constant up to rounding, whose values
    carry nothing."""
    n, big_n = gold.shape[1], rest.size
    if big_n == 0:  # every query gold (a stratum): nothing for the judge to add
        return np.zeros(gold.shape[0])
    gold_c = gold - gold.mean(axis=1, keepdims=True)
    judge_c = judge_gold - judge_gold.mean(axis=1, keepdims=True)
    cov = np.einsum("ij,ij->i", gold_c, judge_c) / n
    _, var, absmax = _pooled(judge_gold, rest)
    var = var * (n + big_n) / (n + big_n - 1.0)
    flat = np.sqrt(var) <= ROUNDING * absmax
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1.0 + n / big_n) * var)
    return np.where(flat, 0.0, np.clip(lam, 0.0, 1.0))


def weighted_estimate(gold, judge_gold, rest, lam, ddof=(0, 0)):
    """``(mean, standard error)`` per row with weights ``lam`` (rows,); the
    variances of the rectifier ``Y - lam f`` and of the imputed ``lam f``
    with ``ddof`` (population variances for ``ppi_py``'s intervals).

    With no other query (``N = 0``) the judge has nothing to add: the mean
    and standard error of the gold queries, whatever ``lam``.
    """
    n, big_n = gold.shape[1], rest.size
    if big_n == 0:
        return gold.mean(axis=1), gold.std(axis=1, ddof=ddof[0]) / np.sqrt(n)
    rectifier = gold - lam[:, None] * judge_gold
    mean = lam * rest.mean + rectifier.mean(axis=1)
    imputed_var = 0.0
    if big_n > ddof[1]:
        imputed_var = lam**2 * rest.var * big_n / (big_n - ddof[1]) / big_n
    variance = imputed_var + rectifier.var(axis=1, ddof=ddof[0]) / n
    return mean, np.sqrt(variance)


def jackknife_variance(gold, judge_gold, rest):
    """The jackknife variance over the gold queries of the PPI++ estimate,
    its weight tuned anew without each gold query in turn, per row.

    Leaving a query out changes the sums the weight and the estimate are
    made of by that query's terms, so the ``n`` estimates come from the
    sums less each query's (no loop over queries). The values are centred
    first, which changes neither the weight nor the estimates' spread.
    """
    n, big_n = gold.shape[1], rest.size
    y = gold - gold.mean(axis=1, keepdims=True)
    centre, _, _ = _pooled(judge_gold, rest)
    f = judge_gold - centre[:, None]
    m = n - 1.0
    sy = y.sum(axis=1, keepdims=True) - y
    sf = f.sum(axis=1, keepdims=True) - f
    syf = np.einsum("ij,ij->i", y, f)[:, None] - y * f
    sff = np.einsum("ij,ij->i", f, f)[:, None] - f * f
    offset = rest.mean - centre
    rest_sum = (big_n * offset)[:, None]
    rest_ss = (big_n * (rest.var + offset**2))[:, None]
    pooled = m + big_n
    pooled_sum = sf + rest_sum
    pooled_ss = sff + rest_ss
    var = (pooled_ss - pooled_sum**2 / pooled) / (pooled - 1.0)
    cov = syf / m - (sy / m) * (sf / m)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1.0 + m / big_n) * var)
    lam = np.where(var > ROUNDING * pooled_ss / pooled, lam, 0.0)  # constant: 0
    lam = np.clip(lam, 0.0, 1.0)
    estimates = lam * (rest_sum / big_n - sf / m) + sy / m
    spread = estimates - estimates.mean(axis=1, keepdims=True)
    return (m / n) * np.einsum("ij,ij->i", spread, spread)


def estimate(gold, judge_gold, rest, estimator, interval="z"):
    """``(mean, standard error, lam, degrees of freedom)`` per row for one of
    :data:`ESTIMATORS` (``"judge"``: the classical mean of the judge's values
    on every query); ``rest`` is the judge's values on the other queries, an
    array or its :class:`Rest`.

    ``interval="z"`` is ``ppi_py``'s: population variances, a normal
    interval (infinite degrees of freedom). ``"t"`` is made for a few dozen
    gold queries: the variance of the gold queries' part by the jackknife,
    PPI++'s weight tuned anew without each gold query (for a fixed weight
    the jackknife variance is the sample variance, ``ddof=1``), the other
    queries' part with ``ddof=1``, and Student's t on ``n - 1`` degrees of
    freedom.
    """
    if not isinstance(rest, Rest):
        rest = summarize(rest)
    rows, n = gold.shape
    if estimator == "judge":
        mean, var, _ = _pooled(judge_gold, rest)
        total = n + rest.size
        if interval == "z":
            return (
                mean,
                np.sqrt(var / total),
                np.full(rows, np.nan),
                np.full(rows, np.inf),
            )
        se = np.sqrt(var / (total - 1.0))
        return mean, se, np.full(rows, np.nan), np.full(rows, total - 1.0)
    tuned = estimator == "ppi++"
    if tuned:
        lam = tuned_lambda(gold, judge_gold, rest)
    else:
        lam = np.full(rows, 1.0 if estimator == "ppi" else 0.0)
    if interval == "z":
        mean, se = weighted_estimate(gold, judge_gold, rest, lam)
        return mean, se, lam, np.full(rows, np.inf)
    mean, se = weighted_estimate(gold, judge_gold, rest, lam, (1, 1))
    if tuned and rest.size > 0:
        rest_var = 0.0
        if rest.size > 1:
            rest_var = lam**2 * rest.var / (rest.size - 1.0)
        se = np.sqrt(jackknife_variance(gold, judge_gold, rest) + rest_var)
    return mean, se, lam, np.full(rows, n - 1.0)


def stratified_estimate(
    gold, judge_gold, judge_rest, strata_gold, strata_rest, est, interval="z"
):
    """The stratified estimator: each stratum's :func:`estimate` (its own
    PPI++ weight), weighted by its share of the queries; the standard error
    adds the strata's variances, weighted by the squared shares, and the
    degrees of freedom are Welch and Satterthwaite's. Returns ``(mean,
    standard error, lam of shape (rows, strata), degrees of freedom)``; a
    loop over the strata, not over queries."""
    if est == "judge":
        return estimate(gold, judge_gold, judge_rest, est, interval)
    codes = np.unique(np.concatenate([strata_gold, strata_rest]))
    total = strata_gold.size + strata_rest.size
    mean = np.zeros(gold.shape[0])
    variance = np.zeros(gold.shape[0])
    spread = np.zeros(gold.shape[0])
    lams = []
    for code in codes:
        in_gold, in_rest = strata_gold == code, strata_rest == code
        share = (np.count_nonzero(in_gold) + np.count_nonzero(in_rest)) / total
        m, se, lam, df = estimate(
            gold[:, in_gold],
            judge_gold[:, in_gold],
            judge_rest[:, in_rest],
            est,
            interval,
        )
        part = share**2 * se**2
        mean += share * m
        variance += part
        spread += part**2 / df
        lams.append(lam)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(spread > 0, variance**2 / spread, np.inf)
    if interval == "z":
        df = np.full_like(df, np.inf)
    return mean, np.sqrt(variance), np.column_stack(lams), df


def _by_df(df, normal, student):
    """``normal()`` where ``df`` is infinite, ``student(df)`` elsewhere."""
    out = np.empty(np.shape(df))
    infinite = np.isinf(df)
    if infinite.any():
        out[infinite] = normal(infinite)
    if not infinite.all():
        out[~infinite] = student(df[~infinite], ~infinite)
    return out


def interval_bounds(mean, se, df, confidence):
    """The two-sided interval: normal where ``df`` is infinite (statsmodels'
    ``_zconfint_generic``, which ``ppi_py`` calls), else Student's t."""
    tail = (1.0 - confidence) / 2.0
    q = _by_df(
        df,
        lambda _: _stats.norm.isf(tail),
        lambda d, _: _special.stdtrit(d, 1.0 - tail),
    )
    return mean - q * se, mean + q * se


def pvalue(mean, se, df):
    """Two-sided p-value of a zero mean: the z test (``ppi_py``'s
    ``rectified_p_value`` for ``null=0``) or Student's t; a difference known
    exactly (standard error 0) has p-value 1 when it is 0, else 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = -np.abs(mean) / se
    p = 2.0 * _by_df(
        df,
        lambda where: _stats.norm.cdf(stat[where]),
        lambda d, where: _special.stdtr(d, stat[where]),
    )
    return np.where(se == 0, np.where(mean == 0, 1.0, 0.0), p)


# --------------------------------------------------------------------------
# Planning: the variance PPI++ will have with n gold queries
# --------------------------------------------------------------------------


def variance_parts(std, correlation, n, n_queries):
    """``(residual variance, imputed variance / N)`` of the PPI++ estimate
    with ``n`` gold queries out of ``n_queries`` (None: as many other
    queries as wanted), at the weight that is optimal for the gold values'
    standard deviation ``std`` and the judge-gold ``correlation``.

    With ``a = lam * sd(f) = rho * std / (1 + n / N)``, the residual
    ``Y - lam f`` has variance ``std**2 - 2 a rho std + a**2`` and the
    judge's mean over the ``N`` other queries ``a**2 / N``: together
    ``std**2 / n * (1 - rho**2 N / (n + N))`` (Angelopoulos, Duchi and
    Zrnic 2024, the variance at the optimal weight). Broadcasts over ``n``.
    """
    n = np.asarray(n, dtype=np.float64)
    if n_queries is None:
        ratio, imputed = np.zeros_like(n), np.zeros_like(n)
    else:
        others = n_queries - n
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(others > 0, n / others, np.inf)
    scaled = correlation * std / (1.0 + ratio)
    residual = std**2 - 2.0 * scaled * correlation * std + scaled**2
    if n_queries is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            imputed = np.where(others > 0, scaled**2 / others, 0.0)
    return residual, imputed


def check_n_gold(n_gold, n_queries):
    """Numbers of gold queries, each in [2, n_queries - 1]."""
    try:
        n = np.array([int(v) for v in n_gold])
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"`n_gold` must be a sequence of integers, got {describe(n_gold)}"
        ) from None
    if n.size == 0 or (n < 2).any() or (n >= n_queries).any():
        raise InvalidParameterError(
            f"`n_gold` must hold integers in [2, {n_queries - 1}] (fewer than the "
            f"{n_queries} queries judged), got {n.tolist()}"
        )
    return n


def quantile(n, confidence, interval):
    """The interval's multiplier with ``n`` gold queries (see
    :func:`estimate`): normal for ``"z"``, Student's t on ``n - 1`` degrees
    of freedom for ``"t"``."""
    tail = (1.0 - confidence) / 2.0
    if interval == "z":
        return _stats.norm.isf(tail)
    return _stats.t.isf(tail, np.asarray(n, dtype=np.float64) - 1.0)


def planned_half_width(std, correlation, n, n_queries, confidence, interval):
    """The expected half-width of the PPI++ interval with ``n`` gold queries
    (``correlation=0``: of the gold queries alone, no weight tuned)."""
    residual, imputed = variance_parts(std, correlation, n, n_queries)
    q = quantile(n, confidence, interval)
    return q * np.sqrt(residual / np.asarray(n, dtype=np.float64) + imputed)


def estimate_all(gold, judge_gold, judge_rest, strata, confidence, interval="z"):
    """Every estimator of :data:`ESTIMATORS` on the rows: ``{estimator:
    {"mean", "std_error", "ci_low", "ci_high", "lam", "df"}}``; ``strata`` is
    None or the stratum codes of the gold and the other queries."""
    out = {}
    summary = summarize(judge_rest) if strata is None else None
    for est in ESTIMATORS:
        if strata is None:
            mean, se, lam, df = estimate(gold, judge_gold, summary, est, interval)
        else:
            mean, se, lam, df = stratified_estimate(
                gold, judge_gold, judge_rest, *strata, est, interval
            )
        low, high = interval_bounds(mean, se, df, confidence)
        out[est] = {
            "mean": mean,
            "std_error": se,
            "ci_low": low,
            "ci_high": high,
            "lam": lam,
            "df": df,
        }
    return out


def correlation(gold, judge_gold):
    """Pearson's correlation per row of the gold and the judge's values on
    the gold queries (NaN where either is constant)."""
    gold_c = gold - gold.mean(axis=1, keepdims=True)
    judge_c = judge_gold - judge_gold.mean(axis=1, keepdims=True)
    den = np.sqrt((gold_c**2).sum(axis=1) * (judge_c**2).sum(axis=1))
    flat = constant_rows(gold) | constant_rows(judge_gold)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.einsum("ij,ij->i", gold_c, judge_c) / den
    return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))
