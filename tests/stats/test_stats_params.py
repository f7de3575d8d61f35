"""The declared rules of skirm.stats' arguments, and the classes of its errors."""

import re
import sys

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
import skirm.stats._resampling as rs
from skirm.metrics import EvaluationResult
from skirm.stats import (
    Comparison,
    PPIComparison,
    PPIResult,
    adjust_pvalues,
    compare,
    confidence_intervals,
    cross_val_evaluate,
    describe,
    label_agreement,
    meta_analysis,
    paired_test,
    ppi_compare,
    ppi_evaluate,
    ppi_mean,
    ppi_sample_size,
    select_gold_queries,
    system_agreement,
    tukey_hsd,
)
from skirm.stats._compare import COMPARE_TEST, MISSING_QUERIES
from skirm.stats._paired import TEST
from skirm.stats._tukey import TUKEY_METHOD
from skirm.trec import MissingQueriesError

PUBLIC = [
    adjust_pvalues,
    label_agreement,
    meta_analysis,
    compare,
    confidence_intervals,
    cross_val_evaluate,
    describe,
    paired_test,
    system_agreement,
    tukey_hsd,
    Comparison.to_frame,
    Comparison.to_records,
    ppi_mean,
    ppi_compare,
    ppi_evaluate,
    ppi_sample_size,
    select_gold_queries,
    PPIResult.to_frame,
    PPIComparison.to_frame,
    PPIComparison.to_records,
]


def _result(ids, values):
    values = np.asarray(values, dtype=np.float64)
    return EvaluationResult(np.asarray(ids), {"m": values}, {"m": values.mean()})


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__qualname__)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


def test_the_random_state_of_tukey_hsd_is_checked_for_its_permutations_only():
    assert_defaults_pass(tukey_hsd, {"random_state": rs.RANDOM_STATE})
    x = np.random.default_rng(0).random((2, 5))
    assert tukey_hsd(x, random_state="ignored").df == 4
    with pytest.raises(skirm.InvalidParameterError, match=r"^`random_state` must be"):
        tukey_hsd(x, method="randomized", random_state="x")


#: Required arguments the rules of a function need valid to be reached.
VALID = {select_gold_queries: {"n": 1}}


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__qualname__)
def test_every_rule_refuses_its_values(function):
    assert_rules_refuse(function, **VALID.get(function, {}))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 1.5}, "`alpha` must be a number in (0, 1), got 1.5 (float)"),
        (
            {"n_resamples": 0},
            "`n_resamples` must be a positive integer, got 0 (int)",
        ),
        (
            {"exact": "yes"},
            "`exact` must be 'auto', True or False, got 'yes' (str)",
        ),
        (
            {"correction": "hommel"},
            "`correction` must be one of 'auto', 'holm', 'bonferroni', 'fdr_bh' "
            "or None, got 'hommel' (str)",
        ),
    ],
)
def test_compare_refuses_options_with_invalid_parameter_error(kwargs, message):
    results = {"a": _result([1, 2, 3], [0.1, 0.2, 0.3])}
    results["b"] = _result([1, 2, 3], [0.3, 0.2, 0.4])
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        compare(results, **kwargs)


def test_the_command_line_options_of_compare_name_their_option():
    assert rs.N_RESAMPLES.error(0).command_line == (
        "--n-resamples must be a positive integer, got 0"
    )
    assert rs.RANDOM_STATE.option == "--seed"
    assert COMPARE_TEST.option == "--test" and MISSING_QUERIES.option == "--missing"
    assert TEST.option is None and TUKEY_METHOD.option is None


def test_queries_missing_from_a_system_are_missing_queries():
    results = {"a": _result([1, 2, 3], [0.1, 0.2, 0.3])}
    results["b"] = _result([1, 2], [0.3, 0.2])
    with pytest.raises(
        MissingQueriesError, match=r"^1 of 3 queries lack a value"
    ) as info:
        compare(results)
    assert info.value.exit_status == 4
    assert isinstance(info.value, skirm.InvalidInputError)


def test_data_that_cannot_be_tested_is_invalid_input():
    with pytest.raises(skirm.InvalidInputError, match=r"^`a` must hold finite values"):
        paired_test([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(skirm.InvalidInputError, match=r"^`pvalues` must hold numbers"):
        adjust_pvalues([0.1, 1.5])
    with pytest.raises(skirm.InvalidInputError, match=r"^`values` must have shape"):
        tukey_hsd([[0.1, 0.2]])


def test_option_combinations_are_invalid_parameters():
    with pytest.raises(
        skirm.InvalidParameterError, match=r"^`sample_weight` is not supported"
    ):
        paired_test([0.1, 0.2], [0.3, 0.1], test="sign", sample_weight=[1, 2])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`exact=True` enumerates"):
        paired_test(np.arange(25.0), np.zeros(25), test="randomization", exact=True)


def test_describe_without_pandas_is_a_missing_dependency(monkeypatch):
    result = _result([1, 2, 3], [0.1, 0.2, 0.3])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(skirm.MissingDependencyError, match=r"skirm\[pandas\]"):
        describe(result)
