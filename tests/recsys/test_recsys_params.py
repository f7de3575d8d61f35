"""The declared rules of skirm.recsys' arguments, and the classes of its errors."""

import re

import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
from skirm.recsys import (
    average_popularity,
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    rank_biased_overlap,
    tau_ap,
)

PUBLIC = [
    average_popularity,
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    rank_biased_overlap,
    tau_ap,
]


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_rule_refuses_its_values(function):
    assert_rules_refuse(function, n_users=10)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: rank_biased_overlap(["a"], ["b"], p=1),
            "`p` must be a number in (0, 1), got 1 (int)",
        ),
        (
            lambda: rank_biased_overlap(["a"], ["b"], extrapolate="no"),
            "`extrapolate` must be True or False, got 'no' (str)",
        ),
        (
            lambda: tau_ap([1, 2], [2, 1], symmetric=1),
            "`symmetric` must be True or False, got 1 (int)",
        ),
        (
            lambda: novelty([["a"]], item_popularity={"a": 1}, n_users=0),
            "`n_users` must be a positive integer, got 0 (int)",
        ),
        (
            lambda: novelty([["a"]], item_popularity={"a": 1}, n_users=None),
            "`n_users` must be a positive integer, got None (NoneType)",
        ),
        (
            lambda: catalog_coverage([["a"]], catalog=["a"], k=0),
            "`k` must be a positive integer or None, got 0 (int)",
        ),
    ],
)
def test_arguments_are_invalid_parameters(call, message):
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        call()


def test_lists_and_tables_that_cannot_be_scored_are_invalid_input():
    with pytest.raises(skirm.InvalidInputError, match=r"^`a` names an item twice$"):
        rank_biased_overlap(["a", "a"], ["b"])
    with pytest.raises(skirm.InvalidInputError, match="is missing from `catalog`"):
        catalog_coverage([["z"]], catalog=["a"])
    with pytest.raises(skirm.InvalidInputError, match=r"must be in \[1, n_users=2\]"):
        novelty([["a"]], item_popularity={"a": 3}, n_users=2)
    with pytest.raises(skirm.InvalidInputError, match="without ties"):
        tau_ap([1, 1, 2], [1, 2, 3])
