"""The declared rules of skirm.datasets' arguments, and the classes of its
errors."""

import io
import re
import sys

import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
from skirm.datasets import load_svmlight_ranking, make_ranking
from skirm.datasets._synthetic import GROUP_SIZE


@pytest.mark.parametrize("function", [make_ranking, load_svmlight_ranking])
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


def test_each_bound_of_the_default_group_size_passes_its_rule():
    low, high = make_ranking.__wrapped__.__defaults__[1]
    assert GROUP_SIZE(low, "group_size[0]") == low
    assert GROUP_SIZE(high, "group_size[1]") == high


def test_every_rule_refuses_its_values():
    assert_rules_refuse(make_ranking)
    assert_rules_refuse(load_svmlight_ranking, f="data.txt")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_groups": 0}, "`n_groups` must be an integer >= 1, got 0 (int)"),
        (
            {"n_relevance_levels": 1},
            "`n_relevance_levels` must be an integer >= 2, got 1 (int)",
        ),
        ({"noise": -1.0}, "`noise` must be a non-negative number, got -1.0 (float)"),
        (
            {"no_relevant_fraction": 2},
            "`no_relevant_fraction` must be a number in [0, 1], got 2 (int)",
        ),
        ({"group_size": 0}, "`group_size` must be an integer >= 1, got 0 (int)"),
        (
            {"group_size": (5, 3)},
            "`group_size[1]` must be an integer >= 5, got 3 (int)",
        ),
        (
            {"group_size": "many"},
            "`group_size` must be a positive integer or a (low, high) pair, got "
            "'many' (str)",
        ),
    ],
)
def test_make_ranking_refuses_arguments(kwargs, message):
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        make_ranking(**kwargs)


def test_a_malformed_file_is_invalid_input():
    with pytest.raises(skirm.InvalidInputError, match=r"^<f>: not a valid SVMlight"):
        load_svmlight_ranking(io.BytesIO(b"1 qid:1 x:y\n"))
    with pytest.raises(skirm.InvalidParameterError, match=r"^<f>: the rows carry no"):
        load_svmlight_ranking(io.BytesIO(b"1 1:2\n"))
    with pytest.raises(skirm.InvalidParameterError, match=r"^`f` must be a path or"):
        load_svmlight_ranking(3)


def test_a_frame_without_pandas_is_a_missing_dependency(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(skirm.MissingDependencyError, match=r"skirm\[pandas\]"):
        make_ranking(n_groups=2, as_frame=True)
