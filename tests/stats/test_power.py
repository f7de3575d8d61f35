"""power, sample_size and minimum_detectable_effect: the analytic t test and
Sakai's ANOVA design against statsmodels, the simulated tests against the
analytic power (within their Monte Carlo standard error), an exact binomial
power and a loop of scipy's Wilcoxon test."""

import itertools
import math
import re

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse
from scipy import stats

from skirm import InvalidInputError, InvalidParameterError
from skirm.stats import minimum_detectable_effect, power, sample_size

ALTERNATIVES = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}
GRID = list(
    itertools.product(ALTERNATIVES, [-0.6, -0.1, 0.05, 0.3, 1.2], [2, 7, 50, 800])
)


@pytest.mark.parametrize("function", [power, sample_size, minimum_detectable_effect])
def test_rules(function):
    assert_defaults_pass(function)
    assert_rules_refuse(function, n_queries=10)


@pytest.mark.oracle
def test_t_power_equals_statsmodels():
    from statsmodels.stats.power import TTestPower

    checked = 0
    for alternative, d, n in GRID:
        ours = power(d, n_queries=n, alternative=alternative)
        theirs = TTestPower().power(d, n, 0.05, alternative=ALTERNATIVES[alternative])
        assert ours.method == "analytic" and ours.standard_error == 0.0
        assert math.isfinite(ours.power)
        if math.isnan(theirs):  # scipy's far tail; skirm reads it as 0 or 1
            assert ours.power in (pytest.approx(0.0, abs=1e-12), 1.0)
            continue
        assert ours.power == pytest.approx(theirs, rel=1e-10, abs=1e-14)
        checked += 1
    assert checked >= len(GRID) - 3


@pytest.mark.oracle
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("target", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("d", [0.15, 0.4, 1.0])
def test_t_sample_size_and_mde_equal_statsmodels(alternative, target, d):
    from statsmodels.stats.power import TTestPower

    d = -d if alternative == "less" else d
    sm = ALTERNATIVES[alternative]
    root = TTestPower().solve_power(d, power=target, alpha=0.05, alternative=sm)
    res = sample_size(d, power=target, alternative=alternative)
    assert res.n_queries == max(2, math.ceil(root))
    assert res.power >= target
    if res.n_queries > 2:
        below = power(d, n_queries=res.n_queries - 1, alternative=alternative)
        assert below.power < target
    mde = minimum_detectable_effect(
        res.n_queries, power=target, alternative=alternative
    )
    expected = TTestPower().solve_power(
        None, nobs=res.n_queries, power=target, alpha=0.05, alternative=sm
    )
    # statsmodels' root solver stops at a power within about 1e-6 of the
    # target; skirm's root is exact to 1e-12
    assert mde.effect_size == pytest.approx(expected, rel=1e-4)
    reached = TTestPower().power(expected, res.n_queries, 0.05, alternative=sm)
    assert reached == pytest.approx(target, abs=1e-5)
    assert mde.power == pytest.approx(target, abs=1e-9)


@pytest.mark.oracle
@pytest.mark.parametrize("m", [2, 3, 5, 10])
@pytest.mark.parametrize("d", [0.3, 1.0])
def test_anova_design_equals_statsmodels(m, d):
    from statsmodels.stats.power import FTestAnovaPower

    # Sakai's least favourable configuration: Cohen's f**2 = d**2 / (2 m)
    f = d / math.sqrt(2 * m)
    for n in (3, 20, 100):
        ours = power(d, n_queries=n, test="anova", n_systems=m).power
        theirs = FTestAnovaPower().power(f, n * m, 0.05, k_groups=m)
        assert ours == pytest.approx(theirs, rel=1e-10)
    res = sample_size(d, test="anova", n_systems=m)
    root = FTestAnovaPower().solve_power(
        f, nobs=None, alpha=0.05, power=0.8, k_groups=m
    )
    assert res.n_queries == math.ceil(root / m)


@pytest.mark.parametrize("pilot", [False, True], ids=["normal", "pilot"])
@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
@pytest.mark.parametrize(("d", "n"), [(0.3, 40), (0.6, 20)])
def test_simulated_power_is_the_analytic_one_within_its_error(test, d, n, pilot):
    """On normal differences the mean-based tests have the t test's power
    (up to a shortfall of the resampling tests well under 0.01 here)."""
    analytic = power(d, n_queries=n).power
    differences = np.random.default_rng(2).standard_normal(5000) if pilot else None
    sim = power(
        d,
        n_queries=n,
        test=test,
        differences=differences,
        n_simulations=400,
        n_resamples=400,
        random_state=1,
    )
    assert sim.method == "simulation" and sim.n_simulations == 400
    assert sim.standard_error == pytest.approx(
        math.sqrt(sim.power * (1 - sim.power) / 400)
    )
    assert abs(sim.power - analytic) <= 4 * sim.standard_error + 0.01


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_simulated_sign_test_is_the_exact_binomial_power(alternative):
    d, n, alpha = 0.4, 30, 0.05
    sim = power(
        d,
        n_queries=n,
        test="sign",
        alternative=alternative,
        n_simulations=2000,
        random_state=3,
    )
    # normal differences: each query a win with probability Phi(d)
    k = np.arange(n + 1)
    if alternative == "greater":
        pvalues = stats.binom.sf(k - 1, n, 0.5)
    else:
        pvalues = np.minimum(1, 2 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
    exact = stats.binom.pmf(k, n, stats.norm.cdf(d))[pvalues <= alpha].sum()
    assert abs(sim.power - exact) <= 4 * sim.standard_error


def test_simulated_wilcoxon_equals_a_loop_of_scipy():
    sim = power(0.3, n_queries=15, test="wilcoxon", n_simulations=60, random_state=4)
    draws = np.random.default_rng(4).standard_normal((60, 15)) + 0.3
    rejected = [stats.wilcoxon(row).pvalue <= 0.05 for row in draws]
    assert sim.power == np.mean(rejected)


def test_a_pilot_gives_the_effect_size_and_the_simulation_is_seeded():
    pilot = np.random.default_rng(5).normal(0.02, 0.1, 60)
    res = power(n_queries=60, differences=pilot)
    assert res.effect_size == pytest.approx(pilot.mean() / pilot.std(ddof=1))
    one = power(
        0.3,
        n_queries=30,
        test="randomization",
        differences=pilot,
        n_simulations=100,
        n_resamples=200,
        random_state=9,
    )
    two = power(
        0.3,
        n_queries=30,
        test="randomization",
        differences=pilot,
        n_simulations=100,
        n_resamples=200,
        random_state=9,
    )
    assert one == two and one.random_state == 9
    found = sample_size(0.5, test="sign", n_simulations=200, random_state=1)
    assert found.power >= 0.8
    assert (
        power(
            0.5,
            n_queries=found.n_queries - 1,
            test="sign",
            n_simulations=200,
            random_state=1,
        ).power
        < 0.8
    )
    mde = minimum_detectable_effect(
        40, test="wilcoxon", alternative="less", n_simulations=200, random_state=1
    )
    assert mde.effect_size < 0 and mde.power >= 0.8
    assert "Monte Carlo s.e." in str(mde)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: sample_size(0.0),
            InvalidParameterError,
            "`effect_size` must not be 0",
        ),
        (
            lambda: sample_size(-0.3, alternative="greater"),
            InvalidParameterError,
            "`effect_size` -0.3 points against alternative='greater'",
        ),
        (
            lambda: sample_size(0.3, power=0.01),
            InvalidParameterError,
            "must exceed `alpha`",
        ),
        (
            lambda: sample_size(0.3, power=1.0),
            InvalidParameterError,
            "`power` must be a number in (0, 1)",
        ),
        (
            lambda: power(n_queries=10),
            InvalidParameterError,
            "`effect_size` or `differences`",
        ),
        (
            lambda: power(0.3, n_queries=10, differences=[0.1, 0.1, 0.1]),
            InvalidInputError,
            "`differences` must vary",
        ),
        (
            lambda: power(0.3, n_queries=10, differences=[0.1]),
            InvalidInputError,
            "`differences` must be a 1-D array of at least 2",
        ),
        (
            lambda: power(n_queries=10, differences=[0.1, np.nan, 0.3]),
            InvalidInputError,
            "`differences` must hold finite values, got 1 NaN or inf",
        ),
        (
            lambda: power(0.3, n_queries=10, n_systems=4),
            InvalidParameterError,
            "`n_systems` > 2 needs test='anova'",
        ),
        (
            lambda: power(0.3, n_queries=10, test="anova", differences=[0.1, 0.2]),
            InvalidParameterError,
            "`differences` applies to the paired tests",
        ),
        (
            lambda: sample_size(1e-6),
            InvalidParameterError,
            "needs more than 1,000,000 queries",
        ),
        (
            lambda: minimum_detectable_effect(10, power=0.04),
            InvalidParameterError,
            "`power` must exceed `alpha`",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()
