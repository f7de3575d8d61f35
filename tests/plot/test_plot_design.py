"""PowerCurveDisplay and MetaAnalysisDisplay: what they draw is what
skirm.stats computes."""

import re

import matplotlib
import numpy as np
import pytest

from skirm import InvalidParameterError
from skirm.plot import MetaAnalysisDisplay, PowerCurveDisplay
from skirm.stats import meta_analysis, power

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_power_against_queries_is_power():
    grid = [10, 30, 90]
    display = PowerCurveDisplay.from_n_queries(grid, effect_size=0.3, alpha=0.01)
    expected = [power(0.3, n_queries=n, alpha=0.01).power for n in grid]
    np.testing.assert_allclose(display.power, expected)
    np.testing.assert_allclose(display.line_.get_ydata(), expected)
    assert display.ax_.get_xlabel() == "queries"
    assert display.label == "t test"
    assert not display.ax_.collections  # no band when analytic


def test_simulated_power_against_effect_size_has_a_band_and_overlays():
    display = PowerCurveDisplay.from_effect_sizes(
        [0.1, 0.4], n_queries=30, test="sign", n_simulations=100, random_state=0
    )
    expected = [
        power(d, n_queries=30, test="sign", n_simulations=100, random_state=0)
        for d in (0.1, 0.4)
    ]
    np.testing.assert_allclose(display.power, [r.power for r in expected])
    np.testing.assert_allclose(
        display.standard_error, [r.standard_error for r in expected]
    )
    assert display.label == "sign test (simulated)"
    assert len(display.ax_.collections) == 1
    both = PowerCurveDisplay.from_effect_sizes([0.1, 0.4], n_queries=30, ax=display.ax_)
    assert both.ax_ is display.ax_ and len(display.ax_.get_lines()) >= 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: PowerCurveDisplay.from_n_queries([10], effect_size=0.3),
            "`n_queries` must hold at least 2",
        ),
        (
            lambda: PowerCurveDisplay.from_effect_sizes("ab", n_queries=10),
            "`effect_sizes` must be a sequence of numbers",
        ),
    ],
)
def test_bad_grids(call, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        call()


def test_forest_plot_draws_the_meta_analysis():
    result = meta_analysis([0.02, 0.05, -0.01, 0.04], [1e-4, 4e-4, 2e-4, 3e-4])
    display = MetaAnalysisDisplay.from_meta_analysis(result)
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels == ["0", "1", "2", "3", "dl pooled"]
    x = display.pooled_.get_xy()[:, 0]
    assert x.min() == pytest.approx(result.confidence_interval[0])
    assert x.max() == pytest.approx(result.confidence_interval[1])
    segments = display.errorbar_.lines[2][0].get_segments()
    half = 1.959963984540054 * np.sqrt(result.variances)
    np.testing.assert_allclose([s[0][0] for s in segments], result.effects - half)
    assert "I^2" in display.ax_.get_title()
