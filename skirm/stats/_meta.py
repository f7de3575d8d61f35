"""What holds across collections: :func:`meta_analysis`.

Fixed-effect (inverse-variance) and random-effects (DerSimonian-Laird, REML)
pooling of per-collection effects, with tau^2, I^2, Cochran's Q and the
prediction interval; from arrays of effects and variances, or from two
systems' results on each collection, where the per-collection mean
differences also get a stratified bootstrap interval of their plain mean
(the number a BEIR-style average reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as _stats

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._held import held_name
from skirm._params import OneOf, Param, checked, describe
from skirm._validation import as_numeric_array
from skirm.stats._compare import MISSING_QUERIES, _align, _check_results
from skirm.stats._moments import _moments
from skirm.stats._paired import CONFIDENCE
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

#: How the collections' effects are pooled.
META_METHODS = ("dl", "reml", "fixed")
META_METHOD = Param("method", OneOf(*META_METHODS))
#: REML's Fisher scoring stops when tau^2 moves less than this.
REML_TOL = 1e-12
REML_MAX_ITER = 200


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


def _scaled_weights(t):
    """``(W, e)``: the inverse variances ``1 / t`` times ``2**(2 * e)``, the
    power of four nearest below ``t``'s smallest, so that none overflows (the
    largest is at most 4) and their squares do not either.

    Scaling by a power of two is exact, so every ratio of sums of ``W`` is
    the ratio of the unscaled weights' sums, bit for bit, wherever those
    stay finite; with variances below about 1e-154 they do not (their
    squares overflow), nor with subnormal ones (1e-320: the weights do).
    """
    e = int(np.frexp(t.min())[1]) // 2
    return np.ldexp(1.0, 2 * e) / t, e


def _q_statistic(y, v):
    """``(S, W, e)``: Cochran's Q times the scale ``2**(2 * e)`` of the
    fixed-effect weights ``W`` (see :func:`_scaled_weights`)."""
    w, e = _scaled_weights(v)
    mean = (w * y).sum() / w.sum()
    return float((w * (y - mean) ** 2).sum()), w, e


def tau2_dl(y, v):
    """DerSimonian-Laird's moment estimate, truncated at 0, from the scaled
    weights: ``(Q - df) / c`` with Q and c both times the scale."""
    q, w, e = _q_statistic(y, v)
    c = w.sum() - (w**2).sum() / w.sum()
    return max(0.0, (q - np.ldexp(y.size - 1.0, 2 * e)) / c)


def tau2_reml(y, v):
    """Restricted maximum likelihood by Fisher scoring from the DL estimate,
    truncated at 0 (as R's metafor)."""
    tau2 = tau2_dl(y, v)
    for _ in range(REML_MAX_ITER):
        w, e = _scaled_weights(v + tau2)
        mean = (w * y).sum() / w.sum()
        score = (w**2 * ((y - mean) ** 2 - v)).sum() / (w**2).sum() + np.ldexp(
            1.0, 2 * e
        ) / w.sum()
        new = max(0.0, score)
        if abs(new - tau2) <= REML_TOL * max(1.0, tau2):
            return new
        tau2 = new
    return tau2  # pragma: no cover - Fisher scoring converges in a few steps


@dataclass(frozen=True)
class MetaAnalysisResult:
    """The outcome of :func:`meta_analysis`.

    Attributes
    ----------
    method : str
        ``"dl"``, ``"reml"`` or ``"fixed"``.
    effect : float
        The pooled effect.
    standard_error : float
        Its standard error, ``1 / sqrt(sum of weights)``.
    confidence_interval : tuple of float
        Normal interval of the pooled effect.
    pvalue : float
        Two-sided z test of a pooled effect of 0.
    tau2 : float
        Between-collection variance (0 for ``"fixed"``).
    i2 : float
        Share of the variation between collections not due to chance,
        ``max(0, (Q - df) / Q)``.
    q : float
        Cochran's Q (fixed-effect weights), on ``k - 1`` degrees of freedom.
    q_pvalue : float
        Its chi-squared p-value: a test of heterogeneity.
    prediction_interval : tuple of float
        Where a new collection's effect is expected (Higgins, Thompson and
        Spiegelhalter 2009: ``t`` on ``k - 2`` degrees of freedom, with
        ``tau2``); NaN bounds with fewer than 3 collections.
    confidence : float
        The level of the intervals.
    names : list
        The collections.
    effects, variances, weights : ndarray
        Per collection: the effect, its variance, its share of the weight.
    mean : float
        Plain mean of ``effects`` (the average a leaderboard reports).
    mean_interval : tuple of float or None
        Stratified bootstrap interval of ``mean``, queries drawn within each
        collection (results form only).
    n_resamples : int or None
        Bootstrap draws of ``mean_interval``.
    random_state : int or None
        Their seed.
    """

    method: str
    effect: float
    standard_error: float
    confidence_interval: tuple
    pvalue: float
    tau2: float
    i2: float
    q: float
    q_pvalue: float
    prediction_interval: tuple
    confidence: float
    names: list
    effects: np.ndarray
    variances: np.ndarray
    weights: np.ndarray
    mean: float
    mean_interval: tuple | None
    n_resamples: int | None
    random_state: int | None

    def __str__(self):
        low, high = self.confidence_interval
        lines = [
            f"{self.method} meta-analysis of {len(self.names)} collections: "
            f"{self.effect:+.4f} [{low:+.4f}, {high:+.4f}] "
            f"({self.confidence:.0%}), p = {self.pvalue:.4g}",
            f"tau^2 {self.tau2:.4g}, I^2 {self.i2:.1%}, Q {self.q:.3f} "
            f"(p = {self.q_pvalue:.4g})",
        ]
        if np.isfinite(self.prediction_interval[0]):
            pl, ph = self.prediction_interval
            lines.append(f"prediction interval [{pl:+.4f}, {ph:+.4f}]")
        if self.mean_interval is not None:
            ml, mh = self.mean_interval
            lines.append(
                f"mean over collections {self.mean:+.4f}, stratified bootstrap "
                f"[{ml:+.4f}, {mh:+.4f}]"
            )
        return "\n".join(lines)


def _pool(y, v, method, confidence):
    """The pooled estimates, computed on weights scaled by a power of four
    (:func:`_scaled_weights`): the numbers of the plain formulas, bit for
    bit, where those stay finite, and finite numbers for variances down to
    the smallest subnormal, where they overflow."""
    scaled_q, _, e_q = _q_statistic(y, v)
    k = y.size
    tau2 = (
        0.0 if method == "fixed" else (tau2_dl if method == "dl" else tau2_reml)(y, v)
    )
    w, e = _scaled_weights(v + tau2)
    effect = float((w * y).sum() / w.sum())
    se = float(np.ldexp(1.0 / np.sqrt(w.sum()), e))  # 1 / sqrt(sum(w) / 4**e)
    with np.errstate(over="ignore"):  # Q past the float range: inf
        q = float(np.ldexp(scaled_q, -2 * e_q))
    z = _stats.norm.isf((1 - confidence) / 2)
    if k >= 3:
        half = _stats.t.isf((1 - confidence) / 2, k - 2) * np.sqrt(tau2 + se**2)
        prediction = (effect - half, effect + half)
    else:
        prediction = (float("nan"), float("nan"))
    return {
        "effect": effect,
        "standard_error": se,
        "confidence_interval": (effect - z * se, effect + z * se),
        "pvalue": float(2 * _stats.norm.sf(abs(effect) / se)),
        "tau2": float(tau2),
        "i2": (
            max(0.0, (scaled_q - np.ldexp(k - 1.0, 2 * e_q)) / scaled_q)
            if scaled_q > 0
            else 0.0
        ),
        "q": q,
        "q_pvalue": float(_stats.chi2.sf(q, k - 1)),
        "prediction_interval": tuple(float(b) for b in prediction),
        "weights": w / w.sum(),
    }


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _arrays(effects, variances):
    y = as_numeric_array(effects, "effects")
    v = as_numeric_array(variances, "variances")
    if y.ndim != 1 or y.size < 2:
        raise InvalidInputError(
            "`effects` must be a 1-D array of at least 2 collections' effects, got "
            f"shape {y.shape}"
        )
    if v.shape != y.shape:
        raise InvalidInputError(
            f"`variances` must hold one variance per effect ({y.size}), got shape "
            f"{v.shape}"
        )
    if not np.isfinite(y).all():
        raise InvalidInputError("`effects` must be finite, got NaN or inf")
    if not (np.isfinite(v).all() and (v > 0).all()):
        bad = v[~(np.isfinite(v) & (v > 0))][0]
        raise InvalidInputError(
            f"`variances` must be finite and > 0, got {float(bad)!r}"
        )
    return y, v


def _from_results(results, metric, missing):
    """Per collection: the query differences a - b of ``metric``, and the
    query weights (None for unweighted)."""
    if not hasattr(results, "items") or len(results) < 2:
        raise InvalidParameterError(
            "`effects` must be an array of effects, or a mapping of at least 2 "
            "collections to (result_a, result_b) pairs, got "
            f"{describe(results)}"
        )
    if metric is None:
        raise InvalidParameterError(
            "`metric` must name the metric to pool when `effects` maps collections "
            "to results"
        )
    rows = {}
    for name, pair in results.items():
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise InvalidParameterError(
                f"`effects[{name!r}]` must be a (result_a, result_b) pair, got "
                f"{describe(pair)}"
            )
        systems = _check_results({"a": pair[0], "b": pair[1]})
        for system in systems.values():
            if held_name(metric, system.per_query) is None:
                raise InvalidParameterError(
                    f"`metric` names {metric!r}, which the results of {name!r} do "
                    f"not hold; they have {', '.join(system.per_query)}"
                )
        _, values, weights = _align(systems, [metric], missing)
        rows[name] = (values[0, 0] - values[1, 0], weights)
    return rows


def _stratified_mean_interval(rows, confidence, n_resamples, random_state):
    """Bootstrap of the plain mean of the collections' mean differences:
    queries drawn with replacement within each collection."""
    seed, rng = rs.seed_and_rng(random_state)
    draws = np.zeros(n_resamples)
    for diffs, weights in rows.values():  # a loop over collections
        boot = rs.bootstrap_means(
            diffs[None, :], weights, n_resamples=n_resamples, rng=rng
        )
        draws += boot[0]
    draws = np.sort(draws / len(rows))[None, :]
    alpha = (1 - confidence) / 2
    low, high = (float(rs.quantiles(draws, p)[0]) for p in (alpha, 1 - alpha))
    return (low, high), seed


@checked(
    method=META_METHOD,
    confidence=CONFIDENCE,
    missing=MISSING_QUERIES,
    n_resamples=N_RESAMPLES,
    random_state=RANDOM_STATE,
)
def meta_analysis(
    effects: ArrayLike | Mapping,
    variances: ArrayLike | None = None,
    *,
    method: Literal["dl", "reml", "fixed"] = "dl",
    metric: str | None = None,
    missing: Literal["raise", "zero", "intersect"] = "raise",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    random_state: Seed = None,
) -> MetaAnalysisResult:
    """Pool per-collection effects: fixed or random effects.

    Parameters
    ----------
    effects : array-like of shape (k,), or mapping
        The effect on each collection (a mean difference, a ``d_z``), with
        ``variances``; or ``{collection: (result_a, result_b)}``, two
        systems' :class:`~skirm.metrics.EvaluationResult` objects on each
        collection, whose effect is the mean difference ``a - b`` of
        ``metric`` over the collection's queries and whose variance is its
        squared standard error (query weights, if any, as in
        :func:`paired_test`).
    variances : array-like of shape (k,), default=None
        The effects' variances (squared standard errors), each > 0; None
        with the mapping form.
    method : {"dl", "reml", "fixed"}, default="dl"
        ``"fixed"``: inverse-variance weights. ``"dl"``: random effects with
        DerSimonian and Laird's tau^2. ``"reml"``: random effects with the
        restricted maximum likelihood tau^2 (Fisher scoring, as R's metafor).
        tau^2 is truncated at 0.
    metric : str, default=None
        The metric pooled (mapping form).
    missing : {"raise", "zero", "intersect"}, default="raise"
        Queries of a collection missing from one system, as in
        :func:`compare` (mapping form).
    confidence : float, default=0.95
        The level of the intervals.
    n_resamples : int, default=10_000
        Bootstrap draws of the stratified interval (mapping form).
    random_state : int, numpy Generator or None, default=None
        Seed of the draws.

    Returns
    -------
    result : MetaAnalysisResult
        ``effect``, ``confidence_interval``, ``tau2``, ``i2``,
        ``prediction_interval``, ``weights``, ...

    Notes
    -----
    The pooled effect, its standard error and normal interval, tau^2 (DL)
    and I^2 equal those of statsmodels'
    ``statsmodels.stats.meta_analysis.combine_effects`` (``method_re="dl"``
    for ``"dl"``, its fixed-effect results for ``"fixed"``) where its DL
    estimate is not negative (statsmodels does not truncate it at 0).
    The weights are summed scaled by a power of four, which changes no bit
    of these numbers where the plain sums stay finite, and keeps them finite
    for variances down to the smallest subnormal, where statsmodels' squared
    weights overflow (below about 1e-154); Q alone may then be ``inf``.

    Examples
    --------
    >>> from skirm.stats import meta_analysis
    >>> res = meta_analysis([0.02, 0.05, -0.01, 0.04],
    ...                     [0.0001, 0.0004, 0.0002, 0.0003])
    >>> print(res)
    dl meta-analysis of 4 collections: +0.0224 [-0.0014, +0.0462] (95%), p = 0.06562
    tau^2 0.0003629, I^2 62.9%, Q 8.080 (p = 0.04439)
    prediction interval [-0.0749, +0.1196]
    """
    mean_interval = seed = None
    draws = None
    if hasattr(effects, "items"):
        if variances is not None:
            raise InvalidParameterError(
                "`variances` must be None when `effects` maps collections to "
                f"results, got {describe(variances)}"
            )
        rows = _from_results(effects, metric, missing)
        names = list(rows)
        y = np.empty(len(rows))
        v = np.empty(len(rows))
        for i, (diffs, weights) in enumerate(rows.values()):
            mean, _, se, _ = _moments(diffs[None, :], weights)
            y[i], v[i] = mean[0], se[0] ** 2
            if not v[i] > 0:
                raise InvalidInputError(
                    f"the differences of {metric!r} on collection {names[i]!r} are "
                    "all equal: its effect has no variance to weight it by"
                )
        y, v = _arrays(y, v)
        mean_interval, seed = _stratified_mean_interval(
            rows, confidence, n_resamples, random_state
        )
        draws = n_resamples
    else:
        if metric is not None:
            raise InvalidParameterError(
                "`metric` applies when `effects` maps collections to results, got "
                f"metric={metric!r} with arrays"
            )
        y, v = _arrays(effects, variances)
        names = list(range(y.size))
    pooled = _pool(y, v, method, confidence)
    return MetaAnalysisResult(
        method=method,
        confidence=confidence,
        names=names,
        effects=y,
        variances=v,
        mean=float(y.mean()),
        mean_interval=mean_interval,
        n_resamples=draws,
        random_state=seed,
        **pooled,
    )
