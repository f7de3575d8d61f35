"""The declared rules of skirm.io's arguments, and the classes of its errors."""

import io
import re
import sys
from collections import namedtuple

import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm
from skirm.io import (
    Qrels,
    Run,
    TrecFormatError,
    as_qrels,
    as_run,
    read_prefs,
    write_run,
)
from skirm.io._records import RUN_ID

Row = namedtuple("Row", ["query_id", "doc_id", "relevance"])


@pytest.mark.parametrize(
    "function", [write_run, Qrels.to_frame, Run.to_frame], ids=lambda f: f.__qualname__
)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


def test_the_default_run_id_of_a_run_passes_its_rule():
    assert_defaults_pass(Run, {"run_id": RUN_ID})


def test_every_rule_refuses_its_values():
    assert_rules_refuse(write_run, file=io.StringIO())
    assert_rules_refuse(Qrels.to_frame)


def test_a_run_id_that_is_not_a_string_is_an_invalid_parameter():
    message = "`run_id` must be a string, got 3 (int)"
    with pytest.raises(skirm.InvalidParameterError, match=rf"^{re.escape(message)}$"):
        Run(["q"], ["d"], [1.0], run_id=3)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`run`: `run_id` must"):
        as_run({"q": {"d": 1.0}}, run_id=3)


def test_objects_of_no_shape_and_unknown_columns_are_invalid_parameters():
    with pytest.raises(
        skirm.InvalidParameterError, match=r"^`qrels` must be a skirm\.io\.Qrels"
    ):
        as_qrels(42)
    with pytest.raises(skirm.InvalidParameterError, match="has no field 'qid'"):
        as_qrels([Row("q", "d", 1)], query_id="qid")
    with pytest.raises(skirm.InvalidParameterError, match="which has no columns"):
        as_qrels({"q": {"d": 1}}, query_id="qid")


def test_records_that_cannot_be_evaluated_are_invalid_input():
    with pytest.raises(skirm.InvalidInputError, match=r"^`labels` must hold integer"):
        Qrels(["q"], ["d"], ["x"])
    with pytest.raises(
        skirm.InvalidInputError,
        match=r"^`scores` must not contain NaN, got NaN for query 'q', document 'd'",
    ):
        Run(["q"], ["d"], [float("nan")])
    with pytest.raises(
        skirm.InvalidInputError, match=r"^`qrels`: relevance values must be integers"
    ):
        as_qrels([("q", "d", 1.5)])
    with pytest.raises(skirm.InvalidInputError, match="tuples of 3 values"):
        as_qrels([("q", "d")])


def test_a_malformed_preference_file_is_a_trec_format_error():
    text = "1 u1 s1 d1 3\n1 u1 s1 d1 0\n"
    with pytest.raises(TrecFormatError, match=r"^<file>: duplicate docno 'd1'"):
        read_prefs(io.StringIO(text))


def test_a_frame_without_pandas_is_a_missing_dependency(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(skirm.MissingDependencyError, match=r"skirm\[pandas\]"):
        Qrels(["q"], ["d"], [1]).to_frame()
