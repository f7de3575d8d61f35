"""The label budget: how many gold queries an interval or a detectable
difference needs with a judge and without one, :func:`ppi_sample_size`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from scipy import stats as _stats

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import NONE, Interval, Param, checked, describe
from skirm._validation import as_numeric_array
from skirm.stats._paired import CONFIDENCE
from skirm.stats._ppi_inputs import align
from skirm.stats._ppi_kernels import (
    Rest,
    estimate,
    interval_bounds,
    pvalue,
    quantile,
    summarize,
)
from skirm.stats._ppi_mean import PPI_INTERVAL
from skirm.stats._resampling import RANDOM_STATE

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed
    from skirm.stats._ppi_mean import PPIResult

HALF_WIDTH = Param("half_width", Interval(float, 0, closed="neither"), NONE)
DIFFERENCE = Param("difference", Interval(float, 0, closed="neither"), NONE)
BUDGET_POWER = Param("power", Interval(float, 0, 1, closed="neither"))
ASSURANCE = Param("assurance", Interval(float, 0, 1, closed="neither"), NONE)
JUDGED_QUERIES = Param("n_queries", Interval(int, 3, closed="left"), NONE)
CORRELATION = Param("correlation", Interval(float, -1, 1, closed="neither"), NONE)
STD = Param("std", Interval(float, 0, closed="neither"), NONE)
N_SIMULATIONS = Param("n_simulations", Interval(int, 100, closed="left"))
#: The largest number of gold queries searched.
MAX_GOLD = 10_000_000


@dataclass(frozen=True)
class GoldBudget:
    """The outcome of :func:`ppi_sample_size`.

    Attributes
    ----------
    n_gold : int
        Gold queries needed with the judge (PPI++ at its optimal weight).
    n_gold_without_judge : int
        Gold queries needed without it (their mean alone).
    saving : int
        ``n_gold_without_judge - n_gold``.
    half_width : float
        The interval's half-width aimed at (for a ``difference``, the
        half-width whose interval excludes 0 at ``power``).
    planned_half_width : float
        The mean half-width of the simulated studies with ``n_gold`` gold
        queries.
    difference : float or None
        The difference to detect, if that was the target.
    power : float or None
        Its power.
    assurance : float or None
        The share of studies whose interval reaches ``half_width``; None
        plans on the expected variance (about half of them do).
    confidence : float
        The level of the interval (the test's ``alpha`` is ``1 -
        confidence``).
    correlation, std : float
        The judge-gold correlation and the gold values' standard deviation
        planned with.
    n_queries : int
        The queries the judge labels (the gold ones among them).
    n_simulations : int
        Simulated studies per number of gold queries tried.
    random_state : int
        The seed of the studies.
    """

    n_gold: int
    n_gold_without_judge: int
    saving: int
    half_width: float
    planned_half_width: float
    difference: float | None
    power: float | None
    assurance: float | None
    confidence: float
    correlation: float
    std: float
    n_queries: int
    n_simulations: int
    random_state: int

    def __str__(self):
        share = self.saving / self.n_gold_without_judge
        target = (
            f"a difference of {self.difference:g} at power {self.power:g} "
            f"(alpha {1 - self.confidence:g})"
            if self.difference is not None
            else f"a {self.confidence:.0%} interval of half-width {self.half_width:g}"
        )
        if self.assurance is not None:
            target += f" in {self.assurance:.0%} of studies"
        judged = f"{self.n_queries} queries judged"
        return (
            f"{self.n_gold} gold queries with the judge, {self.n_gold_without_judge} "
            f"without: {self.saving} fewer ({share:.0%})\nfor {target}; judge-gold "
            f"correlation {self.correlation:.3f}, gold std {self.std:.4g}, {judged}"
        )


# --------------------------------------------------------------------------
# The pilot
# --------------------------------------------------------------------------


def _pilot_arrays(gold, judge):
    g = as_numeric_array(gold, "gold")
    f = as_numeric_array(judge, "judge")
    if g.ndim != 1 or g.shape != f.shape or g.size < 3:
        raise InvalidInputError(
            "`gold` and `judge` must be paired per-query values of the pilot's "
            f"gold queries (1-D, same length, at least 3), got shapes {g.shape} "
            f"and {f.shape}"
        )
    if not (np.isfinite(g).all() and np.isfinite(f).all()):
        raise InvalidInputError(
            "`gold` and `judge` must hold finite values (the pilot's gold queries "
            "only), got NaN or inf"
        )
    return g, f


class _Pilot:
    """What the studies are drawn from: the pilot's gold queries (pairs of
    gold and judge values) and the judge's values of its other queries, or a
    normal pair of the given standard deviation and correlation."""

    def __init__(self, pilot, gold, judge, metric, correlation, std):
        given = [pilot is not None, gold is not None or judge is not None]
        given.append(correlation is not None or std is not None)
        if sum(given) != 1:
            raise InvalidParameterError(
                "give one pilot: `pilot` (a PPIResult), `gold` and `judge` "
                "(paired per-query values), or `correlation` and `std`"
            )
        self.pairs = self.rest = None
        self.n_queries = None
        if given[2]:
            if correlation is None or std is None:
                raise InvalidParameterError(
                    "`correlation` and `std` are given together, got one of them"
                )
            self.std, self.correlation = std, correlation
            return
        if given[0]:
            if not hasattr(pilot, "gold_result"):
                raise InvalidParameterError(
                    f"`pilot` must be a PPIResult, got {describe(pilot)}"
                )
            metric = pilot._metric(metric)
            aligned = align(pilot.judge_result, pilot.gold_result, [metric])
            g_all, f_all = aligned.gold[0, 0], aligned.judge[0, 0]
            keep = np.isfinite(g_all)
            gold, judge = g_all[keep], f_all[keep]
            self.rest = f_all[~keep]
            self.n_queries = pilot.n_queries
        elif metric is not None:
            raise InvalidParameterError(
                f"`metric` applies to a `pilot` result, got metric={metric!r} "
                "with arrays"
            )
        g, f = _pilot_arrays(gold, judge)
        self.pairs = np.column_stack([g, f])
        self.std = float(g.std(ddof=1))
        if not self.std > 0:
            raise InvalidInputError(
                "the pilot's gold values are constant: no variance to plan with"
            )
        flat = f.std(ddof=1) == 0
        self.correlation = 0.0 if flat else float(np.corrcoef(g, f)[0, 1])

    def gold_columns(self, rng, studies, count, shift):
        """``count`` more gold queries of each study: ``(gold, judge)``, the
        gold values moved by ``shift``."""
        if self.pairs is None:
            z = rng.standard_normal((2, studies, count))
            rho = self.correlation
            judge = rho * z[0] + np.sqrt(1.0 - rho**2) * z[1]
            return self.std * z[0] + shift, judge
        pick = self.pairs[rng.integers(0, self.pairs.shape[0], (studies, count))]
        return pick[..., 0] + shift, pick[..., 1]

    def others(self, rng, studies, n_other):
        """The :class:`Rest` of the judge on ``n_other`` other queries of
        each study; for a normal pair, their mean and variance drawn from
        their exact distributions (normal, scaled chi-square)."""
        if n_other == 0:
            return summarize(np.empty((studies, 0)))
        if self.pairs is None:
            mean = rng.standard_normal(studies) / np.sqrt(n_other)
            var = rng.chisquare(max(n_other - 1, 1), studies) / n_other
            return Rest(n_other, mean, var, np.full(studies, 4.0))
        pool = self.pairs[:, 1]
        if self.rest is not None:
            pool = np.concatenate([pool, self.rest])
        return summarize(pool[rng.integers(0, pool.size, (studies, n_other))])


# --------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------


class _Studies:
    """The intervals of ``n_simulations`` simulated studies with ``n`` gold
    queries, estimated as :func:`ppi_mean` estimates. Common random numbers:
    the gold queries of a study with ``n`` of them are the first ``n`` of
    one sequence, and the other queries are drawn with the same seed for
    every ``n``."""

    def __init__(self, pilot, n_queries, plan, seed):
        self.pilot, self.n_queries, self.plan = pilot, n_queries, plan
        self.gold_rng = np.random.default_rng([seed, 0])
        self.seed = seed
        self.gold = self.judge = np.empty((plan["n_simulations"], 0))
        self.cache = {}

    def _gold(self, n):
        have = self.gold.shape[1]
        if n > have:
            more = max(n - have, have)  # double, so that few draws are made
            g, f = self.pilot.gold_columns(
                self.gold_rng, self.gold.shape[0], more, self.plan["shift"]
            )
            self.gold = np.concatenate([self.gold, g], axis=1)
            self.judge = np.concatenate([self.judge, f], axis=1)
        return self.gold[:, :n], self.judge[:, :n]

    def rows(self, n, estimator):
        key = (n, estimator)
        if key not in self.cache:
            gold, judge = self._gold(n)
            n_other = 0 if estimator == "gold" else self.n_queries - n
            rng = np.random.default_rng([self.seed, 1])
            rest = self.pilot.others(rng, gold.shape[0], n_other)
            mean, se, _, df = estimate(gold, judge, rest, estimator,
                                       self.plan["interval"])  # fmt: skip
            low, high = interval_bounds(mean, se, df, self.plan["confidence"])
            self.cache[key] = {
                "ci_low": low, "ci_high": high, "mean": mean, "std_error": se,
                "df": df,
            }  # fmt: skip
        return self.cache[key]

    def reaches(self, n, estimator):
        rows = self.rows(n, estimator)
        plan = self.plan
        if plan["difference"] is not None:
            p = pvalue(rows["mean"], rows["std_error"], rows["df"])
            return np.mean(p <= 1.0 - plan["confidence"]) >= plan["power"]
        half = (rows["ci_high"] - rows["ci_low"]) / 2.0
        if plan["assurance"] is None:
            return half.mean() <= plan["half_width"]
        return np.mean(half <= plan["half_width"]) >= plan["assurance"]


def _smallest_n(reaches, start, upper):
    """The smallest integer ``n`` in [2, upper] with ``reaches(n)``, searched
    from ``start`` by halving or doubling, then bisecting (None when even
    ``upper`` does not reach)."""
    high = int(min(max(start, 2), upper))
    if reaches(high):
        low = high // 2
        while low >= 2 and reaches(low):
            high, low = low, low // 2
        low = max(low, 1)  # 1: 2 reaches
    else:
        low = high
        while not reaches(high):
            if high >= upper:
                return None
            low, high = high, min(2 * high, upper)
    while high - low > 1:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid
    return high


@checked(
    half_width=HALF_WIDTH,
    difference=DIFFERENCE,
    power=BUDGET_POWER,
    confidence=CONFIDENCE,
    interval=PPI_INTERVAL,
    assurance=ASSURANCE,
    n_queries=JUDGED_QUERIES,
    correlation=CORRELATION,
    std=STD,
    n_simulations=N_SIMULATIONS,
    random_state=RANDOM_STATE,
)
def ppi_sample_size(
    pilot: PPIResult | None = None,
    *,
    gold: ArrayLike | None = None,
    judge: ArrayLike | None = None,
    metric: str | None = None,
    half_width: float | None = None,
    difference: float | None = None,
    power: float = 0.8,
    confidence: float = 0.95,
    interval: Literal["t", "z"] = "t",
    assurance: float | None = None,
    n_queries: int | None = None,
    correlation: float | None = None,
    std: float | None = None,
    n_simulations: int = 1000,
    random_state: Seed = 0,
) -> GoldBudget:
    """How many gold queries an interval or a difference needs, with the
    judge and without it.

    With ``n`` gold queries among ``n_queries`` the judge labels, PPI++ at
    its optimal weight has the variance ``std**2 / n * (1 - rho**2 N / (n +
    N))`` (``N = n_queries - n``; Angelopoulos, Duchi and Zrnic 2024), the
    gold queries alone ``std**2 / n``: the judge saves about a share
    ``rho**2`` of the gold queries. The numbers are found by simulating
    studies from the pilot and estimating each as :func:`ppi_mean` does
    (with its interval's small-sample terms and the noise of the tuned
    weight), starting from that formula.

    Parameters
    ----------
    pilot : PPIResult, default=None
        A pilot study, resampled: its gold queries' pairs of values and the
        judge's values of its other queries (of ``metric``), and its number
        of queries judged.
    gold, judge : array-like of shape (n_pilot,), default=None
        Instead of ``pilot``: the pilot's gold queries' values under the
        human labels and under the judge's, paired, resampled (for a
        difference, the per-query differences of two systems under each).
    metric : str, default=None
        The metric of ``pilot`` planned for (None: its first).
    half_width : float, default=None
        The target: the half-width of the interval of the mean.
    difference : float, default=None
        Or: a difference to detect with ``power`` by the two-sided test at
        level ``1 - confidence`` (the gold values are moved so that their
        mean is ``difference``).
    power : float, default=0.8
        The power for ``difference``.
    confidence : float, default=0.95
        The level of the interval.
    interval : {"t", "z"}, default="t"
        The interval planned for, as in :func:`ppi_mean`.
    assurance : float, default=None
        With ``half_width``: the share of studies whose interval must reach
        it. None: the expected half-width must (about half the studies
        reach it).
    n_queries : int, default=None
        The queries the judge labels, the gold ones among them; None takes
        the pilot result's.
    correlation, std : float, default=None
        Instead of a pilot: the judge-gold correlation of the per-query
        values and the standard deviation of the gold values; the studies
        are then drawn from a normal pair.
    n_simulations : int, default=1000
        Simulated studies per number of gold queries tried.
    random_state : int, numpy Generator or None, default=0
        Seed of the studies (the same draws for every number tried).

    Returns
    -------
    budget : GoldBudget
        ``n_gold``, ``n_gold_without_judge``, ``saving``.

    Raises
    ------
    skirm.InvalidParameterError
        Unless exactly one of ``half_width`` and ``difference``, and one
        pilot, is given; if ``assurance`` is given with ``difference``; if
        ``n_queries`` is neither given nor the pilot's.
    skirm.InvalidInputError
        If the target needs more gold queries than ``n_queries`` allow.

    Examples
    --------
    A judge whose per-query values correlate 0.8 with the humans', on 2,000
    queries; a 95% interval of half-width 0.02 on a metric whose per-query
    standard deviation is 0.25:

    >>> from skirm.stats import ppi_sample_size
    >>> budget = ppi_sample_size(half_width=0.02, correlation=0.8, std=0.25,
    ...                          n_queries=2000)
    >>> print(budget)  # doctest: +NORMALIZE_WHITESPACE
    277 gold queries with the judge, 602 without: 325 fewer (54%)
    for a 95% interval of half-width 0.02; judge-gold correlation 0.800,
    gold std 0.25, 2000 queries judged

    Reached by 95% of studies rather than on average:

    >>> budget = ppi_sample_size(half_width=0.02, correlation=0.8, std=0.25,
    ...                          n_queries=2000, assurance=0.95)
    >>> budget.n_gold, budget.n_gold_without_judge
    (316, 656)
    """
    if (half_width is None) == (difference is None):
        raise InvalidParameterError(
            "give one target: `half_width` or `difference`, got "
            f"{'both' if half_width is not None else 'neither'}"
        )
    if difference is not None and assurance is not None:
        raise InvalidParameterError(
            "`assurance` applies to a `half_width`, got it with `difference`"
        )
    source = _Pilot(pilot, gold, judge, metric, correlation, std)
    n_queries = source.n_queries if n_queries is None else n_queries
    if n_queries is None:
        raise InvalidParameterError(
            "`n_queries` must be given: the queries the judge labels"
        )
    seed, rng = rs.seed_and_rng(random_state)
    if seed is None:  # a Generator: draw the studies' seed from it
        seed = int(rng.integers(0, 2**63 - 1))
    shift = 0.0
    if difference is not None and source.pairs is not None:
        shift = difference - float(source.pairs[:, 0].mean())
    elif difference is not None:
        shift = difference
    plan = {
        "half_width": half_width, "difference": difference, "power": power,
        "confidence": confidence, "interval": interval, "assurance": assurance,
        "n_simulations": n_simulations, "shift": shift,
    }  # fmt: skip
    studies = _Studies(source, n_queries, plan, seed)
    sd, rho = source.std, source.correlation
    # the formula's expected sizes start the searches
    z = float(_stats.norm.isf((1.0 - confidence) / 2.0))
    if difference is not None:
        target = z * difference / (z + float(_stats.norm.ppf(power)))
    else:
        target = cast("float", half_width)  # given: checked above
    alone_guess = (z * sd / target) ** 2
    guess = alone_guess * (1 - rho**2) / (1 - alone_guess * rho**2 / n_queries)
    if not 0 < guess < n_queries:
        guess = n_queries - 1
    with_judge = _smallest_n(
        lambda n: studies.reaches(n, "ppi++"), guess, n_queries - 1
    )
    if with_judge is None:
        raise InvalidInputError(
            f"the target needs more gold queries than the {n_queries} queries "
            "judged allow: judge more queries, or aim at a wider interval"
        )
    without = _smallest_n(lambda n: studies.reaches(n, "gold"), alone_guess, MAX_GOLD)
    planned = studies.rows(with_judge, "ppi++")
    if difference is not None:
        q = float(quantile(with_judge, confidence, interval))
        target = q * difference / (q + float(_stats.norm.ppf(power)))
    return GoldBudget(
        n_gold=with_judge,
        n_gold_without_judge=without,
        saving=without - with_judge,
        half_width=float(target),
        planned_half_width=float(np.mean(planned["ci_high"] - planned["ci_low"]) / 2),
        difference=difference,
        power=power if difference is not None else None,
        assurance=assurance,
        confidence=confidence,
        correlation=rho,
        std=sd,
        n_queries=n_queries,
        n_simulations=n_simulations,
        random_state=seed,
    )
