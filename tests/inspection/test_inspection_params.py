"""The declared rules of skirm.inspection's arguments, and the classes of its
errors."""

import re

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse
from scipy import sparse
from sklearn.linear_model import LinearRegression

import skirm
from skirm.inspection import permutation_importance

X = np.arange(12.0).reshape(6, 2)
Y = np.array([1, 0, 2, 0, 1, 1])
GROUPS = np.repeat([0, 1, 2], 2)


def test_every_default_passes_its_rule():
    assert_defaults_pass(permutation_importance)


def test_every_rule_refuses_its_values():
    assert_rules_refuse(permutation_importance)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_repeats": 0}, "`n_repeats` must be a positive integer, got 0 (int)"),
        (
            {"permute": "rows"},
            "`permute` must be one of 'query', 'all', got 'rows' (str)",
        ),
        (
            {"scoring": 3},
            "`scoring` must be None, a metric name, a list of metric names or a "
            "skirm RankingScorer (make_ranking_scorer), got 3 (int)",
        ),
    ],
)
def test_arguments_are_invalid_parameters(kwargs, message):
    model = LinearRegression().fit(X, Y)
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        permutation_importance(model, X, Y, groups=GROUPS, **kwargs)


def test_a_sparse_matrix_is_invalid_input():
    model = LinearRegression().fit(X, Y)
    with pytest.raises(skirm.InvalidInputError, match=r"^`X` must be a dense array"):
        permutation_importance(model, sparse.csr_matrix(X), Y, groups=GROUPS)
