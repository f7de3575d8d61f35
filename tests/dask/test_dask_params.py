"""The declared rules of skirm.dask's arguments, and the classes of its errors."""

import sys

import numpy as np
import pytest
from _params import assert_defaults_pass, assert_rules_refuse

import skirm

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

import skirm.dask  # noqa: E402

FUNCTIONS = [skirm.dask.evaluate, skirm.dask.per_query_frame]


def _rows():
    frame = pd.DataFrame(
        {"qid": [1, 1, 2, 2], "label": [1, 0, 0, 1], "score": [0.2, 0.9, 0.8, 0.1]}
    )
    return dd.from_pandas(frame, npartitions=2)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_default_passes_its_rule(function):
    assert_defaults_pass(function)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_rule_refuses_its_values(function):
    assert_rules_refuse(function)


def test_shuffle_and_verbose_are_invalid_parameters():
    rows = _rows()
    with pytest.raises(
        skirm.InvalidParameterError,
        match=r"^`shuffle` must be True, False or 'auto', got 'yes' \(str\)$",
    ):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], shuffle="yes"
        )
    with pytest.raises(skirm.InvalidParameterError, match=r"^`verbose` must be a non-"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], verbose=-1
        )
    with pytest.raises(skirm.InvalidParameterError, match=r"^`groups` is required"):
        skirm.dask.evaluate(rows["label"], rows["score"], groups=None)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`ties='first'` keeps"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], ties="first", shuffle=True
        )


def test_columns_that_are_not_dask_collections_are_invalid_input():
    rows = _rows()
    with pytest.raises(skirm.InvalidInputError, match=r"^`y_true` must be a Dask"):
        skirm.dask.evaluate(np.ones(4), rows["score"], groups=rows["qid"])


def test_missing_dask_is_a_missing_dependency(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(
        skirm.MissingDependencyError, match=r"pip install skirm\[dask\]"
    ):
        skirm.dask.evaluate(None, None, groups=None)
