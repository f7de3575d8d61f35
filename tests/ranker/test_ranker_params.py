"""The declared rules of skirm.ranker's arguments, and the classes of its
errors. The rankers store their arguments and check them in ``fit``, as
scikit-learn's estimators do."""

import re

import numpy as np
import pytest
from _params import assert_defaults_pass
from sklearn.linear_model import Ridge

import skirm
from skirm._query_ids import GROUPS_FROM
from skirm.metrics import get_metric
from skirm.ranker import PairwiseRanker, QueryRanker
from skirm.ranker._libraries import EVAL_METRIC, library_metric_name, skirm_metric
from skirm.ranker._pairwise import MAX_PAIRS_PER_GROUP
from skirm.ranker._query import (
    EARLY_STOPPING_ROUNDS,
    ESTIMATOR,
    LIBRARY,
    MAX_QUERIES,
    VALIDATION_FRACTION,
)

X = np.arange(16.0).reshape(8, 2)
Y = np.array([1, 0, 2, 0, 1, 1, 0, 2])
GROUPS = np.repeat([0, 1, 2, 3], 2)

#: Each ranker, and the rules its ``fit`` checks its arguments by.
RULES = {
    QueryRanker: {
        "library": LIBRARY,
        "groups_from": GROUPS_FROM,
        "validation_fraction": VALIDATION_FRACTION,
        "early_stopping_rounds": EARLY_STOPPING_ROUNDS,
        "eval_metric": EVAL_METRIC,
        "max_queries": MAX_QUERIES,
    },
    PairwiseRanker: {
        "max_pairs_per_group": MAX_PAIRS_PER_GROUP,
        "groups_from": GROUPS_FROM,
    },
}


@pytest.mark.parametrize("cls", list(RULES), ids=lambda c: c.__name__)
def test_every_default_passes_its_rule(cls):
    assert_defaults_pass(cls, RULES[cls])


@pytest.mark.parametrize(
    ("ranker", "message"),
    [
        (
            QueryRanker(Ridge(), library="sklearn"),
            "`library` must be one of 'auto', 'lightgbm', 'xgboost', 'catboost', "
            "'pointwise', got 'sklearn' (str)",
        ),
        (
            QueryRanker(Ridge(), max_queries=0),
            "`max_queries` must be None or a positive integer, got 0 (int)",
        ),
        (
            QueryRanker(Ridge(), early_stopping_rounds=True),
            "`early_stopping_rounds` must be None or a positive integer, got True "
            "(bool)",
        ),
        (
            QueryRanker(Ridge(), validation_fraction=1.5),
            "`validation_fraction` must be None, a fraction in (0, 1) or a number of "
            "queries >= 1, got 1.5 (float)",
        ),
        (
            QueryRanker("ridge"),
            "`estimator` must be an estimator with a fit method, got 'ridge' (str)",
        ),
        (
            PairwiseRanker(max_pairs_per_group=0),
            "`max_pairs_per_group` must be a positive integer or None, got 0 (int)",
        ),
    ],
)
def test_fit_refuses_arguments_with_invalid_parameter_error(ranker, message):
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        ranker.fit(X, Y, groups=GROUPS)


def test_fit_refuses_each_value_the_rules_turn_away():
    for rule in (LIBRARY, MAX_QUERIES, EARLY_STOPPING_ROUNDS, VALIDATION_FRACTION):
        for bad in rule.rejected():
            ranker = QueryRanker(Ridge(), **{rule.name: bad})
            with pytest.raises(skirm.InvalidParameterError, match=rf"^`{rule.name}`"):
                ranker.fit(X, Y, groups=GROUPS)
    for bad in ESTIMATOR.rejected():
        with pytest.raises(skirm.InvalidParameterError, match=r"^`estimator` must"):
            QueryRanker(bad).fit(X, Y, groups=GROUPS)
    for bad in MAX_PAIRS_PER_GROUP.rejected():
        with pytest.raises(
            skirm.InvalidParameterError, match=r"^`max_pairs_per_group`"
        ):
            PairwiseRanker(max_pairs_per_group=bad).fit(X, Y, groups=GROUPS)


def test_the_metric_of_early_stopping_is_the_librarys_ndcg_or_skirms():
    assert library_metric_name("lightgbm", "ndcg@5") == "ndcg@5"
    assert library_metric_name("catboost", "ndcg@5") == "NDCG:top=5;type=Exp"
    assert library_metric_name("xgboost", None) is None
    # Any other metric is skirm's: the library computes nothing.
    assert library_metric_name("lightgbm", "map@10") is None
    assert skirm_metric("map@10") == "map@10"
    assert skirm_metric("ndcg@5") is None
    ndcg = get_metric("ndcg@5")
    assert skirm_metric(ndcg) is ndcg
    assert library_metric_name("xgboost", ndcg) is None
    for bad in EVAL_METRIC.rejected():
        with pytest.raises(
            skirm.InvalidParameterError,
            match=r"^`eval_metric` must be None .* a registered metric name",
        ):
            library_metric_name("lightgbm", bad)
    with pytest.raises(skirm.InvalidParameterError, match="unknown measure 'nope'"):
        library_metric_name("lightgbm", "nope")


def test_arguments_that_contradict_each_other_are_invalid_parameters():
    with pytest.raises(skirm.InvalidParameterError, match="needs a LightGBM"):
        QueryRanker(Ridge(), validation_fraction=0.5).fit(X, Y, groups=GROUPS)
    with pytest.raises(skirm.InvalidParameterError, match="needs a validation set"):
        QueryRanker(Ridge(), early_stopping_rounds=3).fit(X, Y, groups=GROUPS)


def test_labels_that_cannot_be_learned_are_invalid_input():
    with pytest.raises(skirm.InvalidInputError, match=r"^`y` must be 1-D"):
        QueryRanker(Ridge()).fit(X, Y[:3], groups=GROUPS)
    with pytest.raises(skirm.InvalidInputError, match=r"^PairwiseRanker found no pair"):
        PairwiseRanker().fit(X, np.zeros(8), groups=GROUPS)
