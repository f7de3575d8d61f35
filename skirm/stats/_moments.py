"""Moments of per-query values, shared by the t test, the t interval and
the effect size; and the rule that tells rounding from variation."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as _stats

import skirm.stats._resampling as rs

#: Values whose spread is within this many units of roundoff of the largest
#: magnitude they came from are constant: the arithmetic that produced them
#: (a metric's sums, a subtraction) leaves a spread that small, the queries
#: do not. A t statistic divided by such a spread is noise.
ROUNDING = 64 * np.finfo(np.float64).eps


def _moments(diffs, weights, scale=None):
    """Mean, standard deviation, standard error and degrees of freedom per row.

    Without weights: the sample mean, the standard deviation with ``n - 1``
    and ``sd / sqrt(n)`` on ``n - 1`` degrees of freedom (Student's paired
    t). With weights ``w`` (reliability weights): the weighted mean ``m``,
    ``var = sum w (d - m)**2 / (W - sum w**2 / W)``, the effective size
    ``n_eff = W**2 / sum w**2`` and ``se = sqrt(var / n_eff)`` on
    ``n_eff - 1`` degrees of freedom; equal weights give the unweighted values.

    A row constant up to rounding (see :func:`rounding_noise`) has a standard
    deviation of exactly 0.
    """
    n = diffs.shape[1]
    mean = rs.weighted_means(diffs, weights)
    centred = diffs - mean[:, None]
    if weights is None:
        var = (centred**2).sum(axis=1) / (n - 1)
        n_eff = float(n)
    else:
        total = weights.sum()
        var = (centred**2) @ weights / (total - (weights**2).sum() / total)
        n_eff = total**2 / (weights**2).sum()
    sd = np.where(constant_rows(diffs, scale), 0.0, np.sqrt(var))
    return mean, sd, sd / np.sqrt(n_eff), n_eff - 1.0


def rounding_noise(rows, scale=None):
    """Per row, the largest spread that rounding alone can leave in it.

    ``scale`` is the largest magnitude of the values the rows were computed
    from (for differences ``a - b``, of ``a`` and ``b``); by default the
    rows' own largest magnitude.
    """
    if scale is None:
        scale = np.abs(rows).max(axis=1)
    return ROUNDING * scale


def constant_rows(rows, scale=None):
    """Rows whose values are all equal up to rounding."""
    return np.ptp(rows, axis=1) <= rounding_noise(rows, scale)


def warn_constant(rows, scale, what, consequence, stacklevel):
    """Warn when some row of non-zero values is constant up to rounding.

    Their standard deviation is then taken as 0 rather than the rounding
    error it would be; ``consequence`` says what that does to the output.
    ``stacklevel`` counts the frames from here to the public function's
    caller, at whose line the warning points.
    """
    noise = rounding_noise(rows, scale)
    flat = constant_rows(rows, scale) & (np.abs(rows).max(axis=1) > noise)
    if rows.shape[1] > 1 and flat.any():
        warnings.warn(
            f"{what} constant up to rounding in {np.count_nonzero(flat)} of "
            f"{len(flat)} rows (their spread is within {ROUNDING:.1e} of their "
            f"magnitude): their variance is taken as 0, so {consequence}",
            RuntimeWarning,
            stacklevel=stacklevel,
        )


_T_CONSEQUENCE = (
    "the t statistic is infinite, its p-value 0 and the t interval of width 0; "
    "test='randomization' or test='sign' read such differences without a variance"
)


def _t_pvalues(statistic, df, alternative):
    if alternative == "greater":
        return _stats.t.sf(statistic, df)
    if alternative == "less":
        return _stats.t.cdf(statistic, df)
    return 2.0 * _stats.t.sf(np.abs(statistic), df)


def t_interval(mean, se, df, confidence, alternative="two-sided"):
    """Student t interval(s) of the mean; one-sided bounds are infinite."""
    if alternative == "two-sided":
        half = _stats.t.ppf(0.5 + confidence / 2, df) * se
        return mean - half, mean + half
    half = _stats.t.ppf(confidence, df) * se
    if alternative == "greater":
        return mean - half, np.full_like(mean, np.inf)
    return np.full_like(mean, -np.inf), mean + half
