"""Power, sample size and minimum detectable effect of a comparison:
:func:`power`, :func:`sample_size`, :func:`minimum_detectable_effect`.

The paired t test's power is analytic (the noncentral t distribution, as
statsmodels' ``TTestPower``); m systems compared by a one-way ANOVA follow
Sakai's topic-set-size design (the noncentral F distribution). The other
paired tests are simulated: ``n_simulations`` experiments of ``n_queries``
differences each, drawn from a pilot run's per-query differences or from a
normal distribution, tested at once by the vectorised core of
:func:`~skirm.stats.paired_test`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scipy import optimize

import skirm.stats._resampling as rs
from skirm._errors import InvalidParameterError
from skirm._params import NONE, Interval, OneOf, Param, checked
from skirm.stats._paired import ALTERNATIVE, TESTS
from skirm.stats._power_kernels import (
    Simulation,
    anova_power,
    pilot_differences,
    t_power,
)
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import Seed

#: The tests whose power is computed: the paired tests and Sakai's one-way
#: ANOVA of m systems.
POWER_TEST = Param("test", OneOf(*TESTS, "anova"))
ALPHA = Param("alpha", Interval(float, 0, 1, closed="neither"))
POWER = Param("power", Interval(float, 0, 1, closed="neither"), option="--power")
EFFECT_SIZE = Param("effect_size", Interval(float, None, None), NONE)
N_QUERIES = Param("n_queries", Interval(int, 2, closed="left"))
N_SIMULATIONS = Param("n_simulations", Interval(int, 10, closed="left"))
N_SYSTEMS = Param("n_systems", Interval(int, 2, closed="left"))
#: The largest sample size searched.
MAX_QUERIES = 1_000_000


# --------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerResult:
    """The outcome of :func:`power`, :func:`sample_size` and
    :func:`minimum_detectable_effect`.

    Attributes
    ----------
    power : float
        The probability of a significant result at ``effect_size`` with
        ``n_queries`` queries (for :func:`sample_size`, the power reached).
    standard_error : float
        The Monte Carlo standard error of ``power`` (0 when analytic).
    n_queries : int
        Queries (per system).
    effect_size : float
        Cohen's ``d_z`` (mean difference over the standard deviation of the
        differences); for ``test="anova"``, the range of the system means over
        the common standard deviation.
    alpha : float
        Significance level.
    test : str
        The test.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    method : str
        ``"analytic"`` or ``"simulation"``.
    n_simulations : int or None
        Simulated experiments (None when analytic).
    n_systems : int
        Systems compared.
    random_state : int or None
        The seed of the simulation (None when analytic or a Generator).
    """

    power: float
    standard_error: float
    n_queries: int
    effect_size: float
    alpha: float
    test: str
    alternative: str
    method: str
    n_simulations: int | None
    n_systems: int
    random_state: int | None

    def __str__(self):
        what = (
            f"one-way ANOVA of {self.n_systems} systems"
            if self.test == "anova"
            else f"paired {self.test} test ({self.alternative})"
        )
        se = (
            f" (Monte Carlo s.e. {self.standard_error:.4f}, "
            f"{self.n_simulations} simulations)"
            if self.method == "simulation"
            else ""
        )
        return (
            f"{what} at alpha {self.alpha:g}\npower {self.power:.4f}{se} with "
            f"{self.n_queries} queries, effect size {self.effect_size:.4f}"
        )


# --------------------------------------------------------------------------
# One engine for the three questions
# --------------------------------------------------------------------------


class _Design:
    """The power function of one test, analytic or simulated."""

    def __init__(self, test, alternative, alpha, n_systems, differences, sim):
        if test == "anova":
            if differences is not None:
                raise InvalidParameterError(
                    "`differences` applies to the paired tests, not test='anova'"
                )
            if alternative != "two-sided":
                raise InvalidParameterError(
                    f"test='anova' is two-sided; got alternative={alternative!r}"
                )
        elif n_systems != 2:
            raise InvalidParameterError(
                f"`n_systems` > 2 needs test='anova', got n_systems={n_systems} "
                f"with test={test!r}"
            )
        self.test, self.alternative, self.alpha = test, alternative, alpha
        self.n_systems = n_systems
        self.pilot = None if differences is None else pilot_differences(differences)
        self.sim = sim

    @property
    def analytic(self):
        return self.test in ("t", "anova")

    def effect(self, effect_size):
        """The effect size given, or the pilot's ``d_z``."""
        if effect_size is not None:
            return effect_size
        if self.pilot is None:
            raise InvalidParameterError(
                "`effect_size` or `differences` must be given, got neither"
            )
        d, sd = self.pilot
        return float(d.mean() / sd)

    def power(self, d, n):
        if self.test == "t":
            return float(t_power(d, n, self.alpha, self.alternative)), 0.0
        if self.test == "anova":
            return float(anova_power(d, n, self.alpha, self.n_systems)), 0.0
        return self.sim.power(d, n)

    def result(self, d, n, p, se):
        return PowerResult(
            power=p,
            standard_error=se,
            n_queries=int(n),
            effect_size=float(d),
            alpha=self.alpha,
            test=self.test,
            alternative=self.alternative,
            method="analytic" if self.analytic else "simulation",
            n_simulations=None if self.analytic else self.sim.n_simulations,
            n_systems=self.n_systems,
            random_state=None if self.analytic else self.sim.seed,
        )


def _design(
    test, alternative, alpha, n_systems, differences, n_simulations, n_resamples, rs_
):
    seed = None
    if test not in ("t", "anova"):
        seed, rng = rs.seed_and_rng(rs_)
        if seed is None:  # a Generator: draw the simulation's seed from it
            seed = int(rng.integers(0, 2**63 - 1))
    sim = Simulation(test, alternative, alpha, n_simulations, n_resamples, seed, None)
    design = _Design(test, alternative, alpha, n_systems, differences, sim)
    if design.pilot is not None:
        sim.pilot = design.pilot[0]
    return design


_COMMON = {
    "alpha": ALPHA,
    "test": POWER_TEST,
    "alternative": ALTERNATIVE,
    "n_systems": N_SYSTEMS,
    "n_simulations": N_SIMULATIONS,
    "n_resamples": N_RESAMPLES,
    "random_state": RANDOM_STATE,
}


@checked(effect_size=EFFECT_SIZE, n_queries=N_QUERIES, **_COMMON)
def power(
    effect_size: float | None = None,
    *,
    n_queries: int,
    alpha: float = 0.05,
    test: Literal["t", "randomization", "bootstrap", "wilcoxon", "sign", "anova"] = "t",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    differences: ArrayLike | None = None,
    n_systems: int = 2,
    n_simulations: int = 1000,
    n_resamples: int = 1000,
    random_state: Seed = None,
) -> PowerResult:
    """The power of a comparison on ``n_queries`` queries.

    Parameters
    ----------
    effect_size : float, default=None
        Cohen's ``d_z``: the mean per-query difference over the standard
        deviation of the differences (``paired_test``'s ``effect_size``).
        For ``test="anova"``: the range of the systems' means over the
        common standard deviation (Sakai's ``minD / sigma``). None: the
        ``d_z`` of ``differences``.
    n_queries : int
        Queries (per system), at least 2.
    alpha : float, default=0.05
        Significance level.
    test : {"t", "randomization", "bootstrap", "wilcoxon", "sign", "anova"}, \
default="t"
        ``"t"``: the paired t test, analytic (noncentral t; equal to
        statsmodels' ``TTestPower``). ``"anova"``: ``n_systems`` systems
        compared by a one-way ANOVA, analytic (noncentral F, Sakai's
        topic-set-size design). The others: simulated (see Notes).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative of the paired test.
    differences : array-like of shape (n_pilot,), default=None
        Per-query differences of a pilot run: the simulated tests resample
        them (centred, scaled to standard deviation 1, shifted by
        ``effect_size``); without them the simulation draws normal
        differences.
    n_systems : int, default=2
        Systems compared (more than 2 with ``test="anova"`` only).
    n_simulations : int, default=1000
        Simulated experiments.
    n_resamples : int, default=1000
        Sign flips or bootstrap draws of each simulated randomization or
        bootstrap test.
    random_state : int, numpy Generator or None, default=None
        Seed of the simulation.

    Returns
    -------
    result : PowerResult
        ``power`` with its Monte Carlo ``standard_error``.

    Notes
    -----
    A simulated power is the share of ``n_simulations`` experiments whose
    p-value is at most ``alpha``; its standard error is
    ``sqrt(p (1 - p) / n_simulations)``. The draws are the same for every
    effect size and every call with the same seed (common random numbers),
    so :func:`sample_size` and :func:`minimum_detectable_effect` search a
    smooth function. The randomization and bootstrap draws of one call are
    shared by its simulated experiments, as :func:`~skirm.stats.compare`
    shares them between pairs.

    Examples
    --------
    >>> from skirm.stats import power
    >>> print(power(0.4, n_queries=50))
    paired t test (two-sided) at alpha 0.05
    power 0.7918 with 50 queries, effect size 0.4000
    >>> res = power(0.4, n_queries=50, test="wilcoxon", random_state=0)
    >>> round(res.power, 3), round(res.standard_error, 4)
    (0.76, 0.0135)
    """
    design = _design(
        test,
        alternative,
        alpha,
        n_systems,
        differences,
        n_simulations,
        n_resamples,
        random_state,
    )
    d = design.effect(effect_size)
    p, se = design.power(d, n_queries)
    return design.result(d, n_queries, p, se)


def _t_mde(n, target, alpha, alternative):
    """The t test's minimum detectable effect (positive), by root finding."""
    side = "two-sided" if alternative == "two-sided" else "greater"
    high = 1.0
    while t_power(high, n, alpha, side) < target:
        high *= 2
    return optimize.brentq(
        lambda d: t_power(d, n, alpha, side) - target, 0.0, high, xtol=1e-12
    )


def _check_target(design, d, target):
    if d == 0:
        raise InvalidParameterError(
            "`effect_size` must not be 0 for a sample size: no number of queries "
            "detects no effect"
        )
    wrong = (design.alternative == "greater" and d < 0) or (
        design.alternative == "less" and d > 0
    )
    if wrong:
        raise InvalidParameterError(
            f"`effect_size` {d:g} points against alternative="
            f"{design.alternative!r}: its power only falls with more queries"
        )
    if target <= design.alpha:
        raise InvalidParameterError(
            f"`power` must exceed `alpha` ({design.alpha:g}), got {target:g}"
        )


@checked(effect_size=EFFECT_SIZE, power=POWER, **_COMMON)
def sample_size(
    effect_size: float | None = None,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    test: Literal["t", "randomization", "bootstrap", "wilcoxon", "sign", "anova"] = "t",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    differences: ArrayLike | None = None,
    n_systems: int = 2,
    n_simulations: int = 1000,
    n_resamples: int = 1000,
    random_state: Seed = None,
) -> PowerResult:
    """The fewest queries that reach ``power`` at ``effect_size``.

    Takes the arguments of :func:`power` (``power`` is the target). The
    search doubles the number of queries until the power is reached, then
    bisects; the sample size is the smallest integer with a power at least
    ``power`` (statsmodels' ``solve_power`` gives the real root, whose
    ceiling this equals for the t test).

    Parameters
    ----------
    power : float in (0, 1), default=0.8
        The power to reach; the other parameters are :func:`power`'s.

    Returns
    -------
    result : PowerResult
        ``n_queries`` and the ``power`` reached with them.

    Raises
    ------
    skirm.InvalidParameterError
        If ``effect_size`` is 0 or points against ``alternative``, if
        ``power`` is not above ``alpha``, or if more than 1,000,000 queries
        would be needed.

    Examples
    --------
    >>> from skirm.stats import sample_size
    >>> print(sample_size(0.3, power=0.8))
    paired t test (two-sided) at alpha 0.05
    power 0.8038 with 90 queries, effect size 0.3000

    Sakai's design for five systems, a range of one standard deviation:

    >>> sample_size(1.0, test="anova", n_systems=5).n_queries
    25
    """
    design = _design(
        test,
        alternative,
        alpha,
        n_systems,
        differences,
        n_simulations,
        n_resamples,
        random_state,
    )
    d = design.effect(effect_size)
    _check_target(design, d, power)
    low, high = 1, 2
    while design.power(d, high)[0] < power:
        low, high = high, high * 2
        if high > MAX_QUERIES:
            raise InvalidParameterError(
                f"`effect_size` {d:g} needs more than {MAX_QUERIES:,} queries for "
                f"power {power:g}"
            )
    while high - low > 1:
        mid = (low + high) // 2
        if design.power(d, mid)[0] >= power:
            high = mid
        else:
            low = mid
    p, se = design.power(d, high)
    return design.result(d, high, p, se)


@checked(n_queries=N_QUERIES, power=POWER, **_COMMON)
def minimum_detectable_effect(
    n_queries: int,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    test: Literal["t", "randomization", "bootstrap", "wilcoxon", "sign", "anova"] = "t",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    differences: ArrayLike | None = None,
    n_systems: int = 2,
    n_simulations: int = 1000,
    n_resamples: int = 1000,
    random_state: Seed = None,
) -> PowerResult:
    """The smallest effect size detected with ``power`` on ``n_queries``.

    Takes the arguments of :func:`power`. The effect size is positive
    (negative for ``alternative="less"``), in the units of :func:`power`'s
    ``effect_size``; multiply by the standard deviation of the per-query
    differences for the metric's units. For the t test it equals
    statsmodels' ``solve_power(effect_size=None)``; a simulated one is
    found by bisection to 0.1% on the simulation's common random numbers.

    Parameters
    ----------
    power : float in (0, 1), default=0.8
        The power to reach; the other parameters are :func:`power`'s.

    Returns
    -------
    result : PowerResult
        ``effect_size`` and the ``power`` at it.

    Examples
    --------
    >>> from skirm.stats import minimum_detectable_effect
    >>> round(minimum_detectable_effect(50).effect_size, 4)
    0.4042
    """
    design = _design(
        test,
        alternative,
        alpha,
        n_systems,
        differences,
        n_simulations,
        n_resamples,
        random_state,
    )
    if power <= alpha:
        raise InvalidParameterError(
            f"`power` must exceed `alpha` ({alpha:g}), got {power:g}"
        )
    sign = -1.0 if alternative == "less" else 1.0

    def gap(d):
        return design.power(sign * d, n_queries)[0] - power

    # start from the t test's minimum detectable effect (1 for ANOVA)
    high = (
        1.0
        if design.test == "anova"
        else 1.5 * float(_t_mde(n_queries, power, alpha, alternative))
    )
    while gap(high) < 0:
        high *= 2
        if high > 1e3:  # pragma: no cover - power 1 is reached long before
            raise InvalidParameterError("no effect size reaches `power`")
    if design.analytic:
        d = optimize.brentq(gap, 0.0, high, xtol=1e-12, rtol=1e-12)
    else:
        low = 0.0
        while high - low > 1e-3 * high:
            mid = (low + high) / 2
            low, high = (low, mid) if gap(mid) >= 0 else (mid, high)
        d = high
    p, se = design.power(sign * d, n_queries)
    return design.result(sign * d, n_queries, p, se)
