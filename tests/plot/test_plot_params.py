"""The declared rules of skirm.plot's arguments, and the classes of its errors."""

import sys

import matplotlib
import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
from skirm.metrics import evaluate
from skirm.plot import (
    MetricAtKDisplay,
    PerQueryDisplay,
    PPIWidthDisplay,
    PrecisionRecallDisplay,
)

matplotlib.use("Agg")

PUBLIC = [
    MetricAtKDisplay.from_evaluation,
    MetricAtKDisplay.from_predictions,
    MetricAtKDisplay.from_run,
    MetricAtKDisplay.from_cv_results,
    PerQueryDisplay.plot,
    PerQueryDisplay.from_evaluations,
    PerQueryDisplay.from_predictions,
    PrecisionRecallDisplay.__init__,
    PrecisionRecallDisplay.from_predictions,
    PrecisionRecallDisplay.from_run,
    PPIWidthDisplay.from_result,
]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__qualname__)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__qualname__)
def test_every_rule_refuses_its_values(function):
    assert_rules_refuse(function)


def test_the_arguments_of_a_display_are_invalid_parameters():
    y, score, groups = [1, 0, 0, 1], [0.3, 0.2, 0.1, 0.4], [1, 1, 2, 2]
    with pytest.raises(
        skirm.InvalidParameterError,
        match=r"^`confidence` must be None or a number strictly between 0 and 1, "
        r"got 1\.5 \(float\)$",
    ):
        MetricAtKDisplay.from_predictions(y, score, groups=groups, confidence=1.5)
    with pytest.raises(
        skirm.InvalidParameterError, match="'r_precision' takes no cutoff"
    ):
        MetricAtKDisplay.from_predictions(y, score, groups=groups, metric="r_precision")
    result = evaluate(y, score, groups=groups, metrics=["map"])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`top_n` must be a non-"):
        PerQueryDisplay.from_evaluations(result, result, metric="map", top_n=-1)


def test_values_that_cannot_be_drawn_are_invalid_input():
    y, score, groups = [1, 0, 0, 1], [0.3, 0.2, 0.1, 0.4], [1, 1, 2, 2]
    result = evaluate(y, score, groups=groups, metrics=["map"])
    with pytest.raises(skirm.InvalidInputError, match="holds no ndcg@k values"):
        MetricAtKDisplay.from_evaluation(result)
    one = evaluate([1, 0], [0.3, 0.2], groups=[1, 1], metrics=["ndcg@1", "ndcg@2"])
    with pytest.raises(skirm.InvalidInputError, match="at least 2 scored queries"):
        MetricAtKDisplay.from_evaluation(one, confidence=0.9)
    other = evaluate([1, 0], [0.3, 0.2], groups=[3, 3], metrics=["map"])
    with pytest.raises(skirm.InvalidInputError, match="on the same queries"):
        PerQueryDisplay.from_evaluations(result, other, metric="map")


def test_drawing_without_matplotlib_is_a_missing_dependency(monkeypatch):
    display = MetricAtKDisplay(k=np.array([1, 2]), values=[0.5, 0.6], metric="ndcg")
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(skirm.MissingDependencyError, match=r"skirm\[plot\]"):
        display.plot()
