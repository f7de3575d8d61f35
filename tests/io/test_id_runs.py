"""Ids given as Python objects (tuples, named tuples, object columns): str
ids that repeat in runs (a query's rows together) are made numpy strings
once per run, or tokens of their bytes where the reader takes tokens; the
array (or the tokens' strings) is ``np.array(ids, dtype=str)``'s, on
generated columns that vary one dimension at a time, and ids of other types
keep their checks and messages."""

from __future__ import annotations

import numpy as np
import pytest
from _token_shapes import DIMENSIONS, id_column

import skirm.io._convert as convert
from skirm import InvalidInputError
from skirm.io._tokens import Tokens


def _ids(values):
    return convert._ids(values, "run", "query ids")


#: The shapes of ids that tokens hold (ASCII, no NUL).
ASCII = {"short", "word_boundaries", "long", "prefixes"}


@pytest.mark.parametrize("tokens", [False, True])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize("run", [1, 2, 5, 40])
def test_ids_in_runs_are_numpys_strings(dimension, seed, run, tokens, monkeypatch):
    """Without ``tokens``, numpy's strings; with them (where the reader
    takes tokens), tokens of the ids' bytes whose strings are numpy's, or
    numpy's strings for ids tokens do not hold."""
    monkeypatch.setattr(convert, "RUN_IDS", 8)
    monkeypatch.setattr(convert, "_RUN_SAMPLE", 16)
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, run])
    items = id_column(rng, dimension, run)
    want = np.array(items, dtype=str)
    for given in (items, np.array(items, dtype=object)):
        got = convert._ids(given, "run", "query ids", tokens)
        if tokens and dimension in ASCII:
            assert isinstance(got, Tokens)
            np.testing.assert_array_equal(got.strings(), want)
            np.testing.assert_array_equal(got.length, [len(s) for s in items])
            assert not got.buf[int(got.end.max()) :].any()  # the zero padding
            continue
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_column_in_runs_takes_the_runs(monkeypatch):
    items = [f"q{i // 50}" for i in range(10_000)]
    assert convert._in_runs(items)
    assert not convert._in_runs([f"d{i}" for i in range(10_000)])
    assert not convert._in_runs(items[:100])  # too few to look at
    made = []
    original = np.array

    def spy(obj, *args, **kwargs):
        if isinstance(obj, list):
            made.append(len(obj))
        return original(obj, *args, **kwargs)

    monkeypatch.setattr(convert.np, "array", spy)
    got = _ids(items)
    assert made == [200]  # one string per run
    assert got.tolist() == items


@pytest.mark.parametrize(
    ("items", "want"),
    [
        (["ab\0", "ab", "ab"] * 2000, None),  # numpy drops trailing NULs
        (["q1"] * 3000 + [np.str_("q1")] * 3000, None),  # a str subclass
        (["7"] * 3000 + [7] * 3000, None),  # an int among str ids
    ],
)
def test_ids_of_other_kinds_are_numpys(items, want):
    np.testing.assert_array_equal(_ids(items), np.array(items, dtype=str))


def test_a_float_among_ids_in_runs_is_named():
    items = ["q1"] * 3000 + [1.5] + ["q2"] * 3000
    with pytest.raises(
        InvalidInputError, match="query ids must be strings or integers, got float"
    ):
        _ids(items)
