"""Confidence intervals of per-system means (``EvaluationResult.ci``)."""

from __future__ import annotations

import numpy as np

from skirm._validation import check_choice
from skirm.stats import _resampling as rs
from skirm.stats._paired import (
    _moments,
    bootstrap_interval,
    check_confidence,
    t_interval,
)

CI_METHODS = ("t", "bootstrap", "percentile", "bca")


def mean_intervals(values, weights, *, method, confidence, n_resamples, rng):
    """Two-sided intervals of each row's (weighted) mean, rows of equal length.

    ``method="bootstrap"`` is BCa, :func:`scipy.stats.bootstrap`'s default.
    """
    if method == "t":
        mean, _, se, df = _moments(values, weights)
        return t_interval(mean, se, df, confidence)
    kind = "bca" if method == "bootstrap" else method
    boot = rs.bootstrap_means(values, weights, n_resamples=n_resamples, rng=rng)
    return bootstrap_interval(values, weights, boot, confidence, kind, "two-sided")


def result_intervals(result, *, method, confidence, n_resamples, random_state):
    """Per-metric ``(mean, low, high, std, n)`` of an EvaluationResult.

    Queries holding NaN for a metric (``no_relevant="skip"``) are left out of
    that metric's interval; every metric uses the same seed.
    """
    method = check_choice(method, "method", CI_METHODS)
    confidence = check_confidence(confidence)
    n_resamples = rs.check_n_resamples(n_resamples)
    seed, _ = rs.check_random_state(random_state)
    rows = {}
    for name, values in result.per_query.items():
        keep = ~np.isnan(values)
        if np.count_nonzero(keep) < 2:
            raise ValueError(
                f"metric {name!r} has {np.count_nonzero(keep)} query values; an "
                "interval needs at least 2"
            )
        weights = None if result.weights is None else result.weights[keep]
        x = values[keep][None, :]
        rng = rs.check_random_state(seed)[1] if seed is not None else random_state
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
