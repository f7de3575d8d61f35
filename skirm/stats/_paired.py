"""Paired tests on per-query values: the vectorised core and ``paired_test``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as _stats

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import BOOLEAN, NONE, Interval, OneOf, Param, checked
from skirm._validation import as_numeric_array
from skirm.stats._moments import (
    _T_CONSEQUENCE,
    _moments,
    _t_pvalues,
    constant_rows,
    rounding_noise,
    t_interval,
    warn_constant,
)
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")
TEST = Param("test", OneOf(*TESTS))
ALTERNATIVES = ("two-sided", "greater", "less")
ALTERNATIVE = Param("alternative", OneOf(*ALTERNATIVES))
#: How an interval is made; None picks one for the test.
INTERVALS = ("t", "percentile", "bca")
INTERVAL = Param("interval", OneOf(*INTERVALS), NONE)
#: Zero differences in the Wilcoxon test.
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
ZERO_METHOD = Param("zero_method", OneOf(*ZERO_METHODS))
#: Whether the randomization distribution is enumerated.
EXACT = Param("exact", OneOf("auto"), BOOLEAN, expected="'auto', True or False")
#: The level of the intervals.
CONFIDENCE = Param("confidence", Interval(float, 0, 1, closed="neither"))
#: Relative tolerance for resampled statistics equal to the observed one in
#: exact arithmetic (as in :func:`scipy.stats.permutation_test`).
TOLERANCE = 100 * np.finfo(np.float64).eps
#: From this many queries on, reports say that the effect size decides.
LARGE_N = 1000


# --------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------


def _t_test(diffs, weights, alternative, scale, stacklevel):
    mean, _, se, df = _moments(diffs, weights, scale)
    # Differences that are 0 up to rounding: no evidence against the null
    # (identical systems), and no defined statistic.
    zero = constant_rows(diffs, scale) & (np.abs(mean) <= rounding_noise(diffs, scale))
    warn_constant(
        diffs, scale, "paired differences are", _T_CONSEQUENCE, stacklevel + 1
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(zero, np.nan, mean / se)
    pvalue = np.clip(_t_pvalues(statistic, df, alternative), 0.0, 1.0)
    pvalue = np.where(zero, 1.0, pvalue)
    return statistic, pvalue


def _count_extreme(null, observed, alternative, slack):
    gamma = (TOLERANCE * np.abs(observed) + slack)[:, None]
    obs = observed[:, None]
    if alternative == "greater":
        hits = null >= obs - gamma
    elif alternative == "less":
        hits = null <= obs + gamma
    else:
        hits = np.abs(null) >= np.abs(obs) - gamma
    return np.count_nonzero(hits, axis=1)


def _resampled_pvalue(null, observed, alternative, exact, slack=0.0):
    count = _count_extreme(null, observed, alternative, slack)
    if exact:
        return count / null.shape[1]
    return (count + 1.0) / (null.shape[1] + 1.0)


def _wilcoxon(diffs, alternative, zero_method):
    nonzero = np.any(diffs != 0, axis=1)
    statistic = np.full(diffs.shape[0], np.nan)
    pvalue = np.ones(diffs.shape[0])
    if nonzero.any():
        res = _stats.wilcoxon(
            diffs[nonzero], zero_method=zero_method, alternative=alternative, axis=1
        )
        statistic[nonzero], pvalue[nonzero] = res.statistic, res.pvalue
    return statistic, pvalue


def _sign(wins, losses, alternative):
    n = wins + losses
    if alternative == "greater":
        pvalue = _stats.binom.sf(wins - 1, n, 0.5)
    elif alternative == "less":
        pvalue = _stats.binom.cdf(wins, n, 0.5)
    else:
        pvalue = 2.0 * _stats.binom.cdf(np.minimum(wins, losses), n, 0.5)
    return wins.astype(np.float64), np.where(n == 0, 1.0, np.clip(pvalue, 0.0, 1.0))


# --------------------------------------------------------------------------
# Intervals of a mean
# --------------------------------------------------------------------------


def bootstrap_interval(values, weights, boot, confidence, method, alternative):
    """Percentile or BCa interval(s) from a bootstrap distribution ``boot``.

    The same quantile rules as :func:`scipy.stats.bootstrap`: linear
    interpolation; BCa with the bias ``z0`` from the share of draws below
    (half of those equal to) the estimate and the acceleration from the
    jackknife (Efron & Tibshirani 1993, 14.3). Unlike scipy, a draw that
    equals the estimate up to rounding counts as equal.
    """
    alpha = (1 - confidence) / 2 if alternative == "two-sided" else 1 - confidence
    ordered = np.sort(boot, axis=1)
    low_p = np.full(boot.shape[0], alpha)
    high_p = np.full(boot.shape[0], 1 - alpha)
    if method == "bca":
        low_p, high_p = _bca_levels(values, weights, boot, alpha)
    low = rs.quantiles(ordered, low_p)
    high = rs.quantiles(ordered, high_p)
    if alternative == "greater":
        high = np.full_like(high, np.inf)
    elif alternative == "less":
        low = np.full_like(low, -np.inf)
    return low, high


def _bca_levels(values, weights, boot, alpha):
    estimate = rs.weighted_means(values, weights)[:, None]
    # Draws equal to the estimate in exact arithmetic (common with metrics'
    # discrete values) count as equal despite rounding in the sums.
    tol = TOLERANCE * values.shape[1] * np.abs(values).max(axis=1, keepdims=True)
    below = np.count_nonzero(boot < estimate - tol, axis=1)
    at_or_below = np.count_nonzero(boot <= estimate + tol, axis=1)
    z0 = _stats.norm.ppf((below + at_or_below) / (2.0 * boot.shape[1]))
    jack = rs.jackknife_means(values, weights)
    n = jack.shape[1]
    u = (n - 1) * (jack.mean(axis=1, keepdims=True) - jack)
    spread = (u**2).sum(axis=1) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = (u**3).sum(axis=1) / n**3 / spread**1.5 / 6
    accel = np.where(spread > 0, accel, 0.0)  # constant values: no skew
    z_alpha = _stats.norm.ppf(alpha)
    levels = []
    for z in (z_alpha, -z_alpha):
        shifted = z0 + z
        levels.append(_stats.norm.cdf(z0 + shifted / (1 - accel * shifted)))
    return levels


# --------------------------------------------------------------------------
# The vectorised core: many rows of differences at once
# --------------------------------------------------------------------------


@dataclass
class Settings:
    """The options of a comparison, checked once."""

    test: str = "t"
    alternative: str = "two-sided"
    n_resamples: int = 10_000
    exact: object = "auto"
    confidence: float = 0.95
    interval: str = "t"
    zero_method: str = "wilcox"


def paired_tests(values, combine, weights, settings, rng, scale=None, *, stacklevel):
    """Test many differences against a zero mean, sharing every random draw.

    ``values`` (n_basis, n_queries) are the basis rows (each system's values
    for each metric); ``combine`` (n_rows, n_basis) makes the differences
    tested, ``diffs = combine @ values`` (a row of +1 and -1 per pair and
    metric). With ``combine=None`` the rows of ``values`` are the
    differences. The resampled means are linear in the rows, so the draws
    are applied to the few basis rows and then combined, rather than to
    every pair. ``scale`` (with ``combine=None``) is the largest magnitude of
    the values each row of differences was taken from, to tell rounding from
    variation (see :func:`constant_rows`). Returns a dict of arrays, one
    entry per difference, and the basis rows' two-sided intervals under
    ``"basis_low"``/``"basis_high"``. ``stacklevel`` counts the frames from
    here to the public function's caller, at whose line a warning points.
    """
    s = settings
    if combine is None:
        diffs = values
    else:
        diffs = combine @ values
        scale = np.abs(combine) @ np.abs(values).max(axis=1)
    mean, sd, _, _ = _moments(diffs, weights, scale)
    wins = np.count_nonzero(diffs > 0, axis=1)
    losses = np.count_nonzero(diffs < 0, axis=1)
    out = {
        "delta": mean,
        "wins": wins,
        "ties": diffs.shape[1] - wins - losses,
        "losses": losses,
        "exact": False,
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        out["effect_size"] = np.where(sd > 0, mean / sd, np.nan)
    if s.test == "t":
        out["statistic"], out["pvalue"] = _t_test(
            diffs, weights, s.alternative, scale, stacklevel + 1
        )
    elif s.test == "randomization":
        out["statistic"] = mean
        out["pvalue"], out["exact"] = _randomization(
            values, combine, diffs, mean, weights, s, rng
        )
    elif s.test == "wilcoxon":
        out["statistic"], out["pvalue"] = _wilcoxon(diffs, s.alternative, s.zero_method)
    elif s.test == "sign":
        out["statistic"], out["pvalue"] = _sign(wins, losses, s.alternative)
    boot_basis = boot = None
    if s.test == "bootstrap" or s.interval != "t":
        boot_basis = rs.bootstrap_means(
            values, weights, n_resamples=s.n_resamples, rng=rng
        )
        boot = boot_basis if combine is None else combine @ boot_basis
    if s.test == "bootstrap":
        n_queries = diffs.shape[1] if weights is None else np.count_nonzero(weights)
        rs.warn_few_queries(n_queries, stacklevel + 1)
        out["statistic"] = mean
        shifted = boot - mean[:, None]
        slack = _slack(values, combine, weights)
        out["pvalue"] = _resampled_pvalue(shifted, mean, s.alternative, False, slack)
    out["ci_low"], out["ci_high"] = _interval(
        diffs, weights, boot, s, s.alternative, scale
    )
    if combine is not None:
        out["basis_low"], out["basis_high"] = _interval(
            values, weights, boot_basis, s, "two-sided"
        )
    return out


def _slack(values, combine, weights):
    """Bound on the rounding error of a resampled mean, per difference row.

    Sums of ``n`` terms are exact to about ``n * eps * max|term|``; the
    comparisons with the observed statistic allow that much on top of
    scipy's relative tolerance, so that resampled statistics equal to the
    observed one in exact arithmetic count as equal however they were summed.
    """
    n = values.shape[1]
    scaled = np.abs(values if weights is None else values * weights)
    total = n if weights is None else weights.sum()
    bound = scaled.max(axis=1)
    if combine is not None:
        bound = np.abs(combine) @ bound
    return 4 * np.finfo(np.float64).eps * n * bound / total


def _randomization(values, combine, diffs, mean, weights, s, rng):
    exact = rs.use_exact(diffs.shape[1], s.n_resamples, s.exact)
    # The basis pays off when there are fewer basis rows than differences;
    # exact enumeration (n <= 24) always works on the differences themselves.
    via_basis = combine is not None and not exact and len(values) < len(diffs)
    null = rs.sign_flip_null(
        values if via_basis else diffs,
        weights,
        n_resamples=s.n_resamples,
        exact=exact,
        rng=rng,
        combine=combine if via_basis else None,
    )
    slack = _slack(values, combine, weights)
    return _resampled_pvalue(null, mean, s.alternative, exact, slack), exact


def _interval(rows, weights, boot, s, alternative, scale=None):
    if s.interval == "t":
        mean, _, se, df = _moments(rows, weights, scale)
        return t_interval(mean, se, df, s.confidence, alternative)
    return bootstrap_interval(
        rows, weights, boot, s.confidence, s.interval, alternative
    )


# --------------------------------------------------------------------------
# Public: one pair
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTestResult:
    """The outcome of :func:`paired_test`.

    Attributes
    ----------
    test : str
        The test: ``"t"``, ``"randomization"``, ``"bootstrap"``,
        ``"wilcoxon"`` or ``"sign"``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (``a`` better than ``b``) or ``"less"``.
    statistic : float
        The test statistic: Student's t; the mean difference (randomization,
        bootstrap); Wilcoxon's statistic as :func:`scipy.stats.wilcoxon`
        reports it; the number of wins (sign).
    pvalue : float
        The p-value.
    mean_difference : float
        The (weighted) mean of ``a - b``.
    confidence_interval : tuple of float
        ``(low, high)``: the interval of the mean difference.
    confidence : float
        The confidence level of the interval.
    interval : str
        How the interval was computed: ``"t"``, ``"percentile"`` or ``"bca"``.
    effect_size : float
        Cohen's ``d_z``: the mean difference divided by the standard
        deviation of the differences (NaN when all differences are equal).
    wins, ties, losses : int
        Queries where ``a > b``, ``a == b`` and ``a < b``.
    n : int
        The number of queries.
    n_resamples : int or None
        Resamples drawn (randomization, bootstrap); for an exact
        randomization test, the number of sign vectors enumerated.
    exact : bool
        Whether the randomization distribution was enumerated exactly.
    random_state : int or None
        The seed of the random draws (None for a generator passed in).
    """

    test: str
    alternative: str
    statistic: float
    pvalue: float
    mean_difference: float
    confidence_interval: tuple
    confidence: float
    interval: str
    effect_size: float
    wins: int
    ties: int
    losses: int
    n: int
    n_resamples: int | None
    exact: bool
    random_state: int | None

    def __str__(self):
        low, high = self.confidence_interval
        lines = [
            f"paired {self.test} test ({self.alternative}), n = {self.n} queries",
            f"mean difference {self.mean_difference:+.4f}, "
            f"{self.confidence:.0%} CI [{low:+.4f}, {high:+.4f}] ({self.interval})",
            f"statistic {self.statistic:.4f}, p = {self.pvalue:.4g}",
            f"effect size d_z = {self.effect_size:.3f}; "
            f"wins/ties/losses {self.wins}/{self.ties}/{self.losses}",
        ]
        if self.n >= LARGE_N:
            lines.append(large_n_note(self.n))
        return "\n".join(lines)


def large_n_note(n):
    return (
        f"note: with {n} queries even a tiny difference is significant; "
        "judge it by the effect size and the interval"
    )


def check_pair(a, b, sample_weight) -> tuple[np.ndarray, np.ndarray, Any]:
    a = as_numeric_array(a, "a")
    b = as_numeric_array(b, "b")
    for name, arr in (("a", a), ("b", b)):
        if arr.ndim != 1:
            raise InvalidInputError(
                f"`{name}` must be 1-D (one value per query), got shape {arr.shape}"
            )
        if not np.isfinite(arr).all():
            raise InvalidInputError(f"`{name}` must hold finite values, got NaN or inf")
    if a.shape != b.shape:
        raise InvalidInputError(
            f"`a` and `b` must be aligned per query (same length), got "
            f"{a.shape[0]} and {b.shape[0]} values"
        )
    if a.shape[0] < 2:
        raise InvalidInputError(f"the tests need at least 2 queries, got {a.shape[0]}")
    return a, b, check_query_weights(sample_weight, a.shape[0])


def check_query_weights(sample_weight, n):
    if sample_weight is None:
        return None
    w = as_numeric_array(sample_weight, "sample_weight")
    if w.shape != (n,):
        raise InvalidInputError(
            f"`sample_weight` must hold one weight per query ({n}), got shape {w.shape}"
        )
    if not np.isfinite(w).all() or (w < 0).any() or np.count_nonzero(w) < 2:
        raise InvalidInputError(
            "`sample_weight` must hold finite, non-negative weights, at least two "
            "of them positive"
        )
    return w


def make_settings(
    test,
    alternative,
    n_resamples,
    exact,
    confidence,
    interval,
    zero_method,
    weights,
):
    """The settings of the tests, from options their rules have checked: the
    default interval of the test, and the tests that take query weights."""
    if interval is None:
        interval = "bca" if test == "bootstrap" else "t"
    if weights is not None and test in ("wilcoxon", "sign"):
        raise InvalidParameterError(
            f"`sample_weight` is not supported by test={test!r}; use 't', "
            "'randomization' or 'bootstrap'"
        )
    return Settings(
        test=test,
        alternative=alternative,
        n_resamples=n_resamples,
        exact=exact,
        confidence=confidence,
        interval=interval,
        zero_method=zero_method,
    )


@checked(
    test=TEST,
    alternative=ALTERNATIVE,
    n_resamples=N_RESAMPLES,
    exact=EXACT,
    confidence=CONFIDENCE,
    interval=INTERVAL,
    zero_method=ZERO_METHOD,
    random_state=RANDOM_STATE,
)
def paired_test(
    a: ArrayLike,
    b: ArrayLike,
    *,
    test: Literal["t", "randomization", "bootstrap", "wilcoxon", "sign"] = "t",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    n_resamples: int = 10_000,
    exact: bool | Literal["auto"] = "auto",
    confidence: float = 0.95,
    interval: Literal["t", "percentile", "bca"] | None = None,
    zero_method: Literal["wilcox", "pratt", "zsplit"] = "wilcox",
    sample_weight: ArrayLike | None = None,
    random_state: Seed = None,
) -> PairedTestResult:
    """Test whether two systems differ, from their aligned per-query values.

    The null hypothesis is that the per-query differences ``a - b`` have
    mean (t, randomization, bootstrap), median (Wilcoxon) or positive share
    (sign) zero. Which test to use is discussed in :ref:`comparing_systems`.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,)
        One metric's values of two systems on the same queries, in the same
        order (``EvaluationResult.per_query[name]`` of two results with the
        same ``group_ids``).
    test : {"t", "randomization", "bootstrap", "wilcoxon", "sign"}, default="t"
        - ``"t"``: Student's paired t test (the p-value of
          :func:`scipy.stats.ttest_rel`).
        - ``"randomization"``: Fisher's randomization test, the signs of the
          differences flipped at random; the statistic is the mean difference.
          Exact (every one of the ``2**n`` sign vectors) when ``exact`` says
          so, else ``n_resamples`` random flips with the p-value
          ``(b + 1) / (B + 1)``, never 0.
        - ``"bootstrap"``: the paired bootstrap test by the shift method: the
          differences are centred on zero and resampled with replacement;
          ``(b + 1) / (B + 1)``.
        - ``"wilcoxon"``: the Wilcoxon signed-rank test
          (:func:`scipy.stats.wilcoxon`, zero differences by ``zero_method``).
        - ``"sign"``: the two-sided binomial test on wins against losses;
          ties (zero differences) are dropped.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: ``a`` is better than ``b``.
    n_resamples : int, default=10_000
        Random sign flips or bootstrap draws.
    exact : "auto" or bool, default="auto"
        Enumerate the randomization distribution: ``"auto"`` does when
        ``n <= 16`` or ``2**n <= n_resamples``.
    confidence : float, default=0.95
        Confidence level of the interval of the mean difference.
    interval : {"t", "percentile", "bca"}, default=None
        How that interval is made: Student t, or from ``n_resamples``
        bootstrap draws (percentile or bias-corrected and accelerated).
        None: ``"bca"`` for the bootstrap test, ``"t"`` otherwise.
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Zero differences in the Wilcoxon test: dropped (``"wilcox"``), ranked
        then dropped (``"pratt"``) or split between the signs (``"zsplit"``).
    sample_weight : array-like of shape (n_queries,), default=None
        Query weights: the statistic becomes the weighted mean difference.
        Supported by ``"t"`` (reliability weights, on ``n_eff - 1`` degrees
        of freedom with ``n_eff = (sum w)**2 / sum w**2``), ``"randomization"``
        and ``"bootstrap"``.
    random_state : int, numpy Generator or None, default=None
        Seed of the random draws. None draws a seed and records it in the
        result, so the result can be reproduced.

    Returns
    -------
    result : PairedTestResult
        ``statistic``, ``pvalue``, ``mean_difference``,
        ``confidence_interval``, ``effect_size`` (Cohen's ``d_z``),
        ``wins``/``ties``/``losses`` and ``n``.

    See Also
    --------
    compare : Many systems and metrics at once, with corrections and reports.
    scipy.stats.ttest_rel, scipy.stats.wilcoxon, scipy.stats.permutation_test

    Notes
    -----
    With thousands of queries, almost any difference is significant: the
    p-value then says little and the effect size and the interval decide.

    Examples
    --------
    >>> from skirm.stats import paired_test
    >>> a = [0.50, 0.40, 0.90, 0.30, 0.70, 0.60]
    >>> b = [0.40, 0.40, 0.70, 0.20, 0.50, 0.60]
    >>> res = paired_test(a, b)
    >>> round(res.pvalue, 4), round(res.mean_difference, 4)
    (0.0409, 0.1)
    >>> res.wins, res.ties, res.losses
    (4, 2, 0)

    Six queries: the randomization test enumerates all 64 sign vectors, so
    it needs no seed; its smallest possible two-sided p-value is 2/64.

    >>> res = paired_test(a, b, test="randomization")
    >>> res.exact, res.n_resamples, res.pvalue
    (True, 64, 0.125)
    """
    a, b, weights = check_pair(a, b, sample_weight)
    s = make_settings(
        test,
        alternative,
        n_resamples,
        exact,
        confidence,
        interval,
        zero_method,
        weights,
    )
    seed, rng = rs.seed_and_rng(random_state)
    scale = np.maximum(np.abs(a), np.abs(b)).max(keepdims=True)
    # paired_tests, here, the wrapper of @checked, the caller
    out = paired_tests((a - b)[None, :], None, weights, s, rng, scale, stacklevel=4)
    n = a.shape[0]
    exact = bool(out["exact"])
    random = (s.test == "randomization" and not exact) or s.test == "bootstrap"
    resampled = random or s.interval != "t"
    n_draws = (1 << n) if exact else (s.n_resamples if resampled else None)
    return PairedTestResult(
        test=s.test,
        alternative=s.alternative,
        statistic=float(out["statistic"][0]),
        pvalue=float(out["pvalue"][0]),
        mean_difference=float(out["delta"][0]),
        confidence_interval=(float(out["ci_low"][0]), float(out["ci_high"][0])),
        confidence=s.confidence,
        interval=s.interval,
        effect_size=float(out["effect_size"][0]),
        wins=int(out["wins"][0]),
        ties=int(out["ties"][0]),
        losses=int(out["losses"][0]),
        n=n,
        n_resamples=n_draws,
        exact=exact,
        random_state=seed if resampled else None,
    )
