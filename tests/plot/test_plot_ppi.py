"""PPIWidthDisplay: what it draws is what the result plans."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import skirm
from skirm.plot import PPIWidthDisplay
from skirm.stats import ppi_mean


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    truth = rng.beta(2, 3, 400)
    judge = truth + 0.1 + rng.normal(0, 0.1, 400)
    gold = np.where(rng.random(400) < 0.1, truth, np.nan)
    return ppi_mean(judge, gold, metrics="ndcg@10")


def test_the_curves_are_the_planned_half_widths(result):
    display = PPIWidthDisplay.from_result(result, n_gold=[10, 30, 90], target=0.03)
    widths = result.half_widths([10, 30, 90])
    judged, alone = display.lines_
    np.testing.assert_array_equal(judged.get_xdata(), [10, 30, 90])
    np.testing.assert_array_equal(judged.get_ydata(), widths["ppi++"])
    np.testing.assert_array_equal(alone.get_ydata(), widths["gold"])
    # the result's own half-widths, as points
    rows = {r["estimator"]: r for r in result.to_records()}
    points = [line for line in display.ax_.lines if line.get_marker() == "o"]
    assert [p.get_ydata()[0] for p in points] == [
        rows["ppi++"]["half_width"],
        rows["gold"]["half_width"],
    ]
    assert points[0].get_xdata()[0] == result.n_gold["ndcg@10"]
    assert display.ax_.get_ylabel() == "half-width of the interval of ndcg@10"
    assert any(line.get_ydata()[0] == 0.03 for line in display.ax_.lines)


def test_the_default_grid_and_a_shared_axes(result):
    display = PPIWidthDisplay.from_result(result)
    n = display.n_gold
    assert n[0] == 5 and n[-1] == min(result.n_queries - 1, 10 * 40)
    assert (np.diff(n) > 0).all()
    again = PPIWidthDisplay.from_result(result, ax=display.ax_)
    assert again.ax_ is display.ax_ and len(display.ax_.lines) == 8


def test_what_the_display_refuses(result):
    with pytest.raises(
        skirm.InvalidParameterError, match=r"^`result` must be a PPIResult"
    ):
        PPIWidthDisplay.from_result({"a": 1})
    with pytest.raises(skirm.InvalidParameterError, match=r"^`n_gold` must hold"):
        PPIWidthDisplay.from_result(result, n_gold=[1, 5])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`target` must be"):
        PPIWidthDisplay.from_result(result, target=-1.0)
