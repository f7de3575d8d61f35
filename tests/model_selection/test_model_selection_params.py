"""The declared rules of skirm.model_selection's arguments, and the classes
of its errors. The splitters store their arguments and check them in
``split`` and ``get_n_splits``, as scikit-learn's do."""

import re

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse
from sklearn.linear_model import Ridge

import skirm
from skirm._query_ids import GROUPS_FROM
from skirm.model_selection import (
    QueryGroupKFold,
    QueryGroupShuffleSplit,
    QueryHalvingGridSearchCV,
    QueryHalvingRandomSearchCV,
    RepeatedQueryGroupKFold,
    train_test_split_groups,
)
from skirm.model_selection._halving import RESOURCE
from skirm.model_selection._shuffle import N_SPLITS, TEST_SIZE, TRAIN_SIZE
from skirm.model_selection._split import (
    N_FOLDS,
    N_REPEATS,
    SHUFFLE,
    STRATIFICATION,
)
from skirm.ranker import QueryRanker

#: Each class, and the rules its ``split`` or ``fit`` checks its arguments by.
RULES = {
    QueryGroupKFold: {
        "n_splits": N_FOLDS,
        "shuffle": SHUFFLE,
        "stratify": STRATIFICATION,
        "groups_from": GROUPS_FROM,
    },
    RepeatedQueryGroupKFold: {
        "n_splits": N_FOLDS,
        "n_repeats": N_REPEATS,
        "stratify": STRATIFICATION,
        "groups_from": GROUPS_FROM,
    },
    QueryGroupShuffleSplit: {
        "n_splits": N_SPLITS,
        "test_size": TEST_SIZE,
        "train_size": TRAIN_SIZE,
        "groups_from": GROUPS_FROM,
    },
    QueryHalvingGridSearchCV: {"resource": RESOURCE},
    QueryHalvingRandomSearchCV: {"resource": RESOURCE},
}


@pytest.mark.parametrize("cls", list(RULES), ids=lambda c: c.__name__)
def test_every_default_passes_its_rule(cls):
    assert_defaults_pass(cls, RULES[cls])


def test_the_defaults_of_train_test_split_groups_pass_their_rules():
    assert_defaults_pass(train_test_split_groups)
    assert_rules_refuse(train_test_split_groups)


@pytest.mark.parametrize(
    "cls", [QueryGroupKFold, RepeatedQueryGroupKFold, QueryGroupShuffleSplit]
)
def test_split_refuses_each_value_each_rule_turns_away(cls):
    X, groups = np.zeros((8, 1)), np.repeat(np.arange(4), 2)
    for name, rule in RULES[cls].items():
        for bad in rule.rejected():
            splitter = cls(**{name: bad})
            with pytest.raises(skirm.InvalidParameterError, match=rf"^`{name}` must"):
                list(splitter.split(X, groups=groups))


@pytest.mark.parametrize(
    ("splitter", "message"),
    [
        (QueryGroupKFold(1), "`n_splits` must be an integer >= 2, got 1 (int)"),
        (
            RepeatedQueryGroupKFold(n_repeats=0),
            "`n_repeats` must be an integer >= 1, got 0 (int)",
        ),
        (QueryGroupShuffleSplit(0), "`n_splits` must be an integer >= 1, got 0 (int)"),
    ],
)
def test_get_n_splits_raises_invalid_parameter_error(splitter, message):
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        splitter.get_n_splits()


def test_errors_of_the_data_and_of_the_arguments():
    X, groups = np.zeros((4, 1)), np.array([0, 0, 1, 1])
    with pytest.raises(skirm.InvalidParameterError, match=r"^Cannot have number"):
        list(QueryGroupKFold(3).split(X, groups=groups))
    with pytest.raises(skirm.InvalidParameterError, match="needs `y`"):
        list(QueryGroupKFold(2, stratify="has_relevant").split(X, groups=groups))
    with pytest.raises(skirm.InvalidInputError, match=r"^`y` must be 1-D"):
        list(
            QueryGroupKFold(2, stratify="has_relevant").split(
                X, np.zeros(3), groups=groups
            )
        )
    with pytest.raises(skirm.InvalidInputError, match="same number of rows"):
        train_test_split_groups([1, 2], [1, 2, 3], groups=[1, 2])


def test_a_halving_search_over_rows_is_an_invalid_parameter():
    search = QueryHalvingGridSearchCV(
        QueryRanker(Ridge()), {"alpha": [1.0, 2.0]}, resource="n_samples"
    )
    with pytest.raises(
        skirm.InvalidParameterError, match=r"^`resource` must be 'max_queries'"
    ):
        search.fit(np.zeros((4, 1)), np.zeros(4), groups=[0, 0, 1, 1])
