"""Tukey's HSD for k systems on the same queries, with the pairing kept.

Two forms: the parametric test on the two-way ANOVA without replication
(systems x queries; Sakai 2018, ch. 4), and the randomised test of Carterette
(2012), which permutes the systems' values within each query.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as _stats
from scipy.integrate import IntegrationWarning

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import OneOf, Param, checked
from skirm._validation import as_numeric_array
from skirm.stats._moments import rounding_noise
from skirm.stats._paired import CONFIDENCE, TOLERANCE, check_query_weights
from skirm.stats._resampling import N_RESAMPLES

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

#: The two forms of the test: on the ANOVA, or by permutations.
METHODS = ("paired", "randomized")
TUKEY_METHOD = Param("method", OneOf(*METHODS))


def anova_error(stacked):
    """Residual mean square and its degrees of freedom, per metric.

    ``stacked`` has shape (n_queries, n_systems, n_metrics). The residual of
    the two-way model without interaction is ``x - query mean - system mean
    + grand mean``; its sum of squares has ``(n - 1)(k - 1)`` degrees of
    freedom.
    """
    n, k, _ = stacked.shape
    resid = (
        stacked
        - stacked.mean(axis=1, keepdims=True)
        - stacked.mean(axis=0, keepdims=True)
        + stacked.mean(axis=(0, 1), keepdims=True)
    )
    df = (n - 1) * (k - 1)
    # Systems that differ by a constant per query leave residuals of
    # rounding size only: their error is 0, not that rounding.
    noise = rounding_noise(stacked.reshape(-1, stacked.shape[2]).T)
    exact = np.abs(resid).max(axis=(0, 1)) <= noise
    return np.where(exact, 0.0, (resid**2).sum(axis=(0, 1)) / df), df


def range_sf(q, k, df):
    """Survival function of the studentized range, without scipy's noise.

    scipy integrates numerically and, for a tiny ``q`` with many degrees of
    freedom (a p-value within about 1e-6 of 1), warns that the integral
    converges slowly; the value is still right to the precision that
    matters there, so that warning is silenced.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        return _stats.studentized_range.sf(q, k, df)


def tukey_pairs(
    stacked, weights, pairs, *, method, confidence, n_resamples, rng, stacklevel
):
    """Tukey HSD statistics, p-values and simultaneous intervals for ``pairs``.

    Returns a dict of arrays of shape (n_pairs, n_metrics): ``delta`` (mean
    of the first system minus the second), ``statistic`` (the studentized
    range ``q``, or the absolute mean difference when randomised),
    ``pvalue``, ``ci_low`` and ``ci_high``. ``stacklevel`` counts the frames
    from here to the public function's caller, at whose line a warning points.
    """
    n, k, _ = stacked.shape
    first, second = (
        np.array(side, dtype=np.int64) for side in zip(*pairs, strict=True)
    )
    means = np.moveaxis(stacked, 0, -1)  # (k, J, n)
    means = np.stack([rs.weighted_means(m, weights) for m in means])  # (k, J)
    delta = means[first] - means[second]
    if method == "paired":
        ms_error, df = anova_error(stacked)
        se = np.sqrt(ms_error / n)
        noise = rounding_noise(stacked.reshape(-1, stacked.shape[2]).T)
        same = np.abs(delta) <= noise  # equal means up to rounding
        if np.any((se == 0) & ~same):
            warnings.warn(
                "the systems' values differ by a constant per query up to "
                "rounding: the ANOVA error is taken as 0, so the studentized "
                "range is infinite, its p-value 0 and the interval of width 0; "
                "method='randomized' reads such values without a variance",
                RuntimeWarning,
                stacklevel=stacklevel,
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(same, 0.0, np.abs(delta) / se)
        pvalue = range_sf(q, k, df)
        pvalue = np.where(same, 1.0, np.clip(pvalue, 0.0, 1.0))
        half = _stats.studentized_range.ppf(confidence, k, df) * se
        return {
            "delta": delta,
            "statistic": q,
            "pvalue": pvalue,
            "ci_low": delta - half,
            "ci_high": delta + half,
        }
    drawn = rs.permuted_system_means(stacked, weights, n_resamples=n_resamples, rng=rng)
    ranges = drawn.max(axis=1) - drawn.min(axis=1)  # (B, J)
    observed = np.abs(delta)
    gamma = TOLERANCE * observed
    hits = ranges[None, :, :] >= (observed - gamma)[:, None, :]
    pvalue = (np.count_nonzero(hits, axis=1) + 1.0) / (n_resamples + 1.0)
    half = np.quantile(ranges, confidence, axis=0)
    return {
        "delta": delta,
        "statistic": observed,
        "pvalue": pvalue,
        "ci_low": delta - half,
        "ci_high": delta + half,
    }


@dataclass(frozen=True)
class TukeyHSDResult:
    """The outcome of :func:`tukey_hsd`: k x k matrices, row minus column.

    Attributes
    ----------
    method : str
        ``"paired"`` or ``"randomized"``.
    mean_difference : ndarray of shape (k, k)
        Mean of the row system minus mean of the column system.
    statistic : ndarray of shape (k, k)
        The studentized range ``q`` (paired) or the absolute mean difference
        (randomized).
    pvalue : ndarray of shape (k, k)
        Familywise p-values; 1 on the diagonal.
    ci_low, ci_high : ndarray of shape (k, k)
        Simultaneous confidence intervals of the differences.
    confidence : float
        Their confidence level.
    ms_error : float or None
        The residual mean square of the two-way ANOVA (paired only).
    df : int or None
        Its degrees of freedom ``(n - 1)(k - 1)`` (paired only).
    n : int
        The number of queries.
    n_resamples : int or None
        Permutations drawn (randomized only).
    random_state : int or None
        Their seed (randomized only).
    """

    method: str
    mean_difference: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    confidence: float
    ms_error: float | None
    df: int | None
    n: int
    n_resamples: int | None
    random_state: int | None


@checked(method=TUKEY_METHOD, confidence=CONFIDENCE, n_resamples=N_RESAMPLES)
def tukey_hsd(
    values: ArrayLike,
    *,
    method: Literal["paired", "randomized"] = "paired",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    sample_weight: ArrayLike | None = None,
    random_state: Seed = None,
) -> TukeyHSDResult:
    """Tukey's honestly significant difference test for paired systems.

    Every pair of ``k`` systems evaluated on the same queries is tested at
    once; the p-values control the familywise error rate, so they need no
    further correction. Unlike :func:`scipy.stats.tukey_hsd`, which assumes
    independent samples, both methods keep the pairing by query.

    Parameters
    ----------
    values : array-like of shape (k, n_queries)
        One metric's per-query values, one row per system, aligned by query.
    method : {"paired", "randomized"}, default="paired"
        - ``"paired"``: the studentized range of the system means over the
          standard error from the two-way ANOVA without replication (systems
          x queries), ``sqrt(MS_error / n)`` on ``(n - 1)(k - 1)`` degrees of
          freedom (Sakai 2018, ch. 4).
        - ``"randomized"``: Carterette's (2012) randomised Tukey HSD: the
          systems' values are permuted within each query ``n_resamples``
          times; a pair's p-value is the share of permutations whose range
          of means (max minus min) reaches the pair's absolute difference,
          ``(b + 1) / (B + 1)``.
    confidence : float, default=0.95
        Level of the simultaneous intervals.
    n_resamples : int, default=10_000
        Permutations (randomized).
    sample_weight : array-like of shape (n_queries,), default=None
        Query weights (randomized only: weighted means).
    random_state : int, numpy Generator or None, default=None
        Seed of the permutations; None draws one and records it.

    Returns
    -------
    result : TukeyHSDResult

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.stats import tukey_hsd
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(40)
    >>> noise = rng.normal(0, 0.05, (3, 40))
    >>> values = np.stack([base, base + 0.02, base + 0.10]) + noise
    >>> res = tukey_hsd(values)
    >>> res.df
    78
    >>> (res.pvalue < 0.05).astype(int)
    array([[0, 0, 1],
           [0, 0, 1],
           [1, 1, 0]])
    """
    x = as_numeric_array(values, "values")
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InvalidInputError(
            "`values` must have shape (k systems >= 2, n queries >= 2), got shape "
            f"{x.shape}"
        )
    if not np.isfinite(x).all():
        raise InvalidInputError("`values` must hold finite values, got NaN or inf")
    weights = check_query_weights(sample_weight, x.shape[1])
    if weights is not None and method == "paired":
        raise InvalidParameterError(
            "`sample_weight` is supported by method='randomized' only"
        )
    k, n = x.shape
    seed, rng = (
        rs.seed_and_rng(random_state) if method == "randomized" else (None, None)
    )
    pairs = [(i, j) for i in range(k) for j in range(k)]
    out = tukey_pairs(
        x.T[:, :, None],
        weights,
        pairs,
        method=method,
        confidence=confidence,
        n_resamples=n_resamples,
        rng=rng,
        stacklevel=4,  # tukey_pairs, here, the wrapper of @checked, the caller
    )
    square = {key: value.reshape(k, k) for key, value in out.items()}
    np.fill_diagonal(square["pvalue"], 1.0)
    paired = method == "paired"
    ms_error, df = anova_error(x.T[:, :, None]) if paired else (None, None)
    return TukeyHSDResult(
        method=method,
        mean_difference=square["delta"],
        statistic=square["statistic"],
        pvalue=square["pvalue"],
        ci_low=square["ci_low"],
        ci_high=square["ci_high"],
        confidence=confidence,
        ms_error=float(ms_error[0]) if ms_error is not None else None,
        df=df,
        n=n,
        n_resamples=None if paired else n_resamples,
        random_state=seed,
    )
