"""The declared rules of the fusion's arguments, at every door: the array
functions, the runs' door and FusionRanker (the command line's options are
checked in tests/test_doors.py)."""

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
from skirm.fusion import fuse_scores, normalize_scores
from skirm.fusion._rules import METHOD, NORM, PHI, RRF_K, WEIGHT_STEP
from skirm.ranker import FusionRanker
from skirm.ranker._fusion import FUSION_WEIGHTS
from skirm.ranker._query import MAX_QUERIES
from skirm.trec import fuse, tune_fusion

X = np.array([[1.0, 2.0], [0.5, np.nan], [0.2, 0.1]])
GROUPS = [0, 0, 0]
RUNS = [{"q": {"a": 1.0, "b": 0.5}}, {"q": {"b": 2.0}}]
QRELS = {"q": {"a": 1}}
PUBLIC = [fuse_scores, normalize_scores, fuse, tune_fusion]


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_rule_refuses_its_values(function):
    assert_rules_refuse(function, X=X, groups=GROUPS, runs=RUNS, qrels=QRELS)


RANKER_RULES = {
    "method": METHOD,
    "norm": NORM,
    "k": RRF_K,
    "phi": PHI,
    "weights": FUSION_WEIGHTS,
    "weight_step": WEIGHT_STEP,
    "max_queries": MAX_QUERIES,
}


def test_the_rankers_defaults_pass_their_rules():
    assert_defaults_pass(FusionRanker, RANKER_RULES)


@pytest.mark.parametrize("name", RANKER_RULES)
def test_fit_refuses_each_value_the_rules_turn_away(name):
    y = np.array([1, 0, 0])
    for bad in RANKER_RULES[name].rejected():
        model = FusionRanker(**{"weights": "search", name: bad})
        with pytest.raises(skirm.InvalidParameterError, match=rf"^`{name}` must be"):
            model.fit(X, y, groups=GROUPS)
