"""Confidence intervals of one system's means: :func:`confidence_intervals`,
:func:`describe`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, MissingDependencyError
from skirm._params import OneOf, Param, checked
from skirm.stats._moments import _moments, t_interval, warn_constant
from skirm.stats._paired import CONFIDENCE, bootstrap_interval
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from typing import Literal

    from pandas import DataFrame

    from skirm._typing import Seed
    from skirm.metrics import EvaluationResult

#: How the interval of a mean is made.
CI_METHODS = ("t", "bootstrap", "percentile", "bca")
CI_METHOD = Param("method", OneOf(*CI_METHODS))


def mean_intervals(values, weights, *, method, confidence, n_resamples, rng):
    """Two-sided intervals of each row's (weighted) mean, rows of equal length.

    ``method="bootstrap"`` is BCa, :func:`scipy.stats.bootstrap`'s default.
    """
    if method == "t":
        # Called by confidence_intervals and describe (through the wrapper of
        # @checked) through result_intervals.
        warn_constant(values, None, "query values are", "the t interval has width 0", 6)
        mean, _, se, df = _moments(values, weights)
        return t_interval(mean, se, df, confidence)
    kind = "bca" if method == "bootstrap" else method
    boot = rs.bootstrap_means(values, weights, n_resamples=n_resamples, rng=rng)
    return bootstrap_interval(values, weights, boot, confidence, kind, "two-sided")


def weights_of(result, metric):
    """The query weights of ``metric``'s mean in ``result``: its
    ``weights_of`` (the ``sample_weight`` times the metric's own, for
    ``gauc``'s impressions and the like), else its ``weights``."""
    own = getattr(result, "weights_of", None)
    return result.weights if own is None else own(metric)


def result_intervals(result, *, method, confidence, n_resamples, random_state):
    """Per-metric ``(mean, low, high, std, n)`` of an EvaluationResult.

    Queries holding NaN for a metric (``no_relevant="skip"``) are left out of
    that metric's interval; every metric uses the same seed.
    """
    seed, _ = rs.seed_and_rng(random_state)
    rows = {}
    for name, values in result.per_query.items():
        keep = ~np.isnan(values)
        if np.count_nonzero(keep) < 2:
            raise InvalidInputError(
                f"metric {name!r} has {np.count_nonzero(keep)} query values; an "
                "interval needs at least 2"
            )
        own = weights_of(result, name)
        weights = None if own is None else own[keep]
        x = values[keep][None, :]
        rng = rs.seed_and_rng(seed)[1] if seed is not None else random_state
        low, high = mean_intervals(
            x,
            weights,
            method=method,
            confidence=confidence,
            n_resamples=n_resamples,
            rng=rng,
        )
        mean, sd, _, _ = _moments(x, weights)
        rows[name] = (
            float(mean[0]),
            float(low[0]),
            float(high[0]),
            float(sd[0]),
            int(x.shape[1]),
        )
    return rows


@checked(
    method=CI_METHOD,
    confidence=CONFIDENCE,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
)
def confidence_intervals(
    result: EvaluationResult,
    method: Literal["t", "bootstrap", "percentile", "bca"] = "t",
    confidence: float = 0.95,
    *,
    n_resamples: int = 10_000,
    random_state: Seed = None,
) -> dict[str, tuple[float, float]]:
    """Confidence interval of each metric's mean over queries.

    Parameters
    ----------
    result : EvaluationResult
        Per-query values, from :func:`skirm.metrics.evaluate` or
        :func:`skirm.trec.evaluate_run`.
    method : {"t", "bootstrap", "percentile", "bca"}, default="t"
        Student t, or from ``n_resamples`` bootstrap draws of the queries
        (``"bootstrap"`` is BCa, as in :func:`scipy.stats.bootstrap`).
        Query weights, if any, weight the means.
    confidence : float, default=0.95
        The confidence level.
    n_resamples : int, default=10_000
        Bootstrap draws.
    random_state : int, numpy Generator or None, default=None
        Seed of the draws.

    Returns
    -------
    intervals : dict of str to tuple of float
        ``(low, high)`` per metric. Queries holding NaN
        (``no_relevant="skip"``) are left out.

    Notes
    -----
    Earlier releases offered this as ``EvaluationResult.ci()``; statistics
    live in :mod:`skirm.stats`, a layer above the metrics.

    Examples
    --------
    >>> from skirm.metrics import evaluate
    >>> from skirm.stats import confidence_intervals
    >>> result = evaluate([1, 0, 0, 1, 1, 0, 0, 0, 1], [3, 2, 3, 2, 3, 2, 3, 2, 1],
    ...                   groups=[1, 1, 2, 2, 3, 3, 4, 4, 4], metrics=["mrr"])
    >>> result.per_query["mrr"]
    array([1.        , 0.5       , 1.        , 0.33333333])
    >>> low, high = confidence_intervals(result)["mrr"]
    >>> round(low, 4), round(high, 4)
    (0.1616, 1.2551)

    With four queries the t interval even leaves [0, 1].
    """
    rows = result_intervals(
        result,
        method=method,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
    )
    return {name: (row[1], row[2]) for name, row in rows.items()}


@checked(
    method=CI_METHOD,
    confidence=CONFIDENCE,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
)
def describe(
    result: EvaluationResult,
    method: Literal["t", "bootstrap", "percentile", "bca"] = "t",
    confidence: float = 0.95,
    *,
    n_resamples: int = 10_000,
    random_state: Seed = None,
) -> DataFrame:
    """Mean, confidence interval, standard deviation and count per metric.

    Takes the arguments of :func:`confidence_intervals`. Requires pandas
    (``pip install skirm[pandas]``).

    Returns
    -------
    frame : pandas.DataFrame
        Indexed by metric, with columns ``mean, ci_low, ci_high, std, n``
        (``std`` over queries, with ``n - 1``).

    Notes
    -----
    Earlier releases offered this as ``EvaluationResult.describe()``.

    Examples
    --------
    >>> from skirm.metrics import evaluate
    >>> from skirm.stats import describe
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 0, 1]
    >>> y_score = [3, 2, 3, 2, 3, 2, 3, 2, 1]
    >>> groups = [1, 1, 2, 2, 3, 3, 4, 4, 4]
    >>> result = evaluate(y_true, y_score, groups=groups, metrics=["mrr", "p@1"])
    >>> describe(result).round(3)
             mean  ci_low  ci_high    std  n
    metric
    mrr     0.708   0.162    1.255  0.344  4
    p@1     0.500  -0.419    1.419  0.577  4
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "skirm.stats.describe requires pandas; install it with "
            "`pip install skirm[pandas]`"
        ) from exc
    rows = result_intervals(
        result,
        method=method,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
    )
    frame = pd.DataFrame.from_dict(
        rows, orient="index", columns=["mean", "ci_low", "ci_high", "std", "n"]
    )
    frame.index.name = "metric"
    return frame
