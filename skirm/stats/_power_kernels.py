"""The power of each paired test at an effect size and a number of queries:
analytic for the t test (noncentral t) and Sakai's one-way ANOVA design
(noncentral F); simulated for the others, through the vectorised core of
:func:`~skirm.stats.paired_test`."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _stats

from skirm._errors import InvalidInputError
from skirm._validation import as_numeric_array
from skirm.stats._moments import constant_rows
from skirm.stats._paired import Settings, paired_tests

# --------------------------------------------------------------------------
# Analytic power
# --------------------------------------------------------------------------


def t_power(d, n, alpha, alternative):
    """Power of the paired t test of ``n`` differences of effect size ``d``
    (statsmodels' ``ttest_power``); broadcasts over ``d`` and ``n``."""
    df = np.asarray(n, dtype=float) - 1.0
    nc = np.asarray(d, dtype=float) * np.sqrt(np.asarray(n, dtype=float))
    tail = alpha / 2 if alternative == "two-sided" else alpha
    out = np.zeros(np.broadcast(df, nc).shape)
    if alternative in ("two-sided", "greater"):
        out = out + _nct_tail(_stats.t.isf(tail, df), df, nc)
    if alternative in ("two-sided", "less"):
        out = out + _nct_tail(-_stats.t.ppf(tail, df), df, -nc)
    return out


def _nct_tail(x, df, nc):
    """``P(T > x)`` for the noncentral t. scipy returns NaN for some
    probabilities below about 1e-20 far in a tail; the tail is then read as
    ``1 - P(T <= x)``, or as 0 or 1 by the side of ``nc`` that ``x`` is on."""
    x, df, nc = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, df, nc)))
    out = np.asarray(_stats.nct.sf(x, df, nc), dtype=float)
    bad = np.isnan(out)
    if bad.any():
        out = out.copy()
        out[bad] = 1.0 - _stats.nct.cdf(x[bad], df[bad], nc[bad])
        still = np.isnan(out)
        out[still] = (x[still] < nc[still]).astype(float)
    return out


def anova_power(d, n, alpha, m):
    """Power of the one-way ANOVA F test of ``m`` systems on ``n`` queries
    each, when two systems differ by ``d`` standard deviations and the others
    sit midway (Sakai's least favourable configuration): noncentrality
    ``n * d**2 / 2``."""
    n = np.asarray(n, dtype=float)
    df_num, df_den = m - 1.0, m * (n - 1.0)
    crit = _stats.f.isf(alpha, df_num, df_den)
    return _stats.ncf.sf(crit, df_num, df_den, n * np.asarray(d, float) ** 2 / 2.0)


# --------------------------------------------------------------------------
# Simulated power
# --------------------------------------------------------------------------


def pilot_differences(differences):
    d = as_numeric_array(differences, "differences")
    if d.ndim != 1 or d.size < 2:
        raise InvalidInputError(
            "`differences` must be a 1-D array of at least 2 per-query "
            f"differences, got shape {d.shape}"
        )
    if not np.isfinite(d).all():
        raise InvalidInputError(
            "`differences` must hold finite values, got "
            f"{np.count_nonzero(~np.isfinite(d))} NaN or inf (leave out the "
            "queries a metric skipped)"
        )
    sd = d.std(ddof=1)
    if constant_rows(d[None, :])[0]:
        raise InvalidInputError(
            "`differences` must vary (their standard deviation is 0): no effect "
            "size or power can be read from them"
        )
    return d, sd


@dataclass
class Simulation:
    """Draws fixed once (common random numbers), shifted by each effect."""

    test: str
    alternative: str
    alpha: float
    n_simulations: int
    n_resamples: int
    seed: int | None
    pilot: np.ndarray | None
    cache: dict = field(default_factory=dict)

    def draws(self, n):
        """The centred draws for ``n`` queries and the generator's state
        after them; the draws of the last ``n`` are kept, so that a search
        over effect sizes draws once."""
        if n not in self.cache:
            rng = np.random.default_rng(self.seed)
            if self.pilot is None:
                base = rng.standard_normal((self.n_simulations, n))
            else:
                centred = (self.pilot - self.pilot.mean()) / self.pilot.std(ddof=1)
                base = centred[rng.integers(0, centred.size, (self.n_simulations, n))]
            self.cache.clear()
            self.cache[n] = (base, rng.bit_generator.state)
        base, state = self.cache[n]
        rng = np.random.default_rng()
        rng.bit_generator.state = state
        return base, rng

    def power(self, d, n):
        """``(power, standard error)`` at effect size ``d``: the pilot's
        differences resampled, centred and scaled to sd 1, shifted by ``d``."""
        base, rng = self.draws(n)
        settings = Settings(
            test=self.test,
            alternative=self.alternative,
            n_resamples=self.n_resamples,
            exact=False,
            interval="t",
        )
        with warnings.catch_warnings():
            # a drawn experiment of equal differences has no variance; the
            # tests' own warning about it says nothing about power
            warnings.filterwarnings("ignore", "paired differences are", RuntimeWarning)
            # the bootstrap test's warning on few queries: its excess of
            # rejections is what the simulation measures, not a misuse
            warnings.filterwarnings(
                "ignore", "the bootstrap test is too liberal", UserWarning
            )
            out = paired_tests(base + d, None, None, settings, rng, stacklevel=2)
        p = float(np.mean(out["pvalue"] <= self.alpha))
        return p, math.sqrt(p * (1 - p) / self.n_simulations)
