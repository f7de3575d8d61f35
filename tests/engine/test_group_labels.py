"""Query labels as people hold them: strings and Python objects.

Object labels are checked for missing values on the first row of each run
of equal neighbouring labels only, and that comparison is reused to encode
them; string labels whose runs are already in label order hand their query
starts to the engine. Oracles: a per-row Python test of every label, and
the same rows evaluated with integer labels of the same order.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from skirm._engine import encode_grouped
from skirm._engine._blocks import BLOCK_ROWS
from skirm.metrics import evaluate


def _is_missing(label):
    if label is None:
        return True
    if isinstance(label, float) and math.isnan(label):
        return True
    if isinstance(label, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(label))
    return False


MISSING = [None, float("nan"), np.float64("nan"), np.datetime64("NaT", "s")]


@pytest.mark.parametrize("seed", range(40))
def test_the_first_missing_object_label_is_named_at_its_row(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    # Runs of equal labels, as grouped rows have them.
    labels = np.repeat(
        rng.choice(["q1", "q2", "q10", "a"], size=n), rng.integers(1, 4, size=n)
    ).astype(object)
    for at in rng.choice(labels.shape[0], size=int(rng.integers(1, 4))):
        value = MISSING[int(rng.integers(len(MISSING)))]
        # a run of missing labels, sometimes the same object repeated
        width = int(rng.integers(1, 3))
        labels[at : at + width] = value
    first = next(i for i, g in enumerate(labels.tolist()) if _is_missing(g))
    y = np.zeros(labels.shape[0])
    with pytest.raises(ValueError, match=rf"at index {first}$"):
        evaluate(y, y, groups=labels, metrics=["mrr"])


@pytest.mark.parametrize("at", [0, 1, 5, 9])
def test_a_missing_label_at_either_end_of_a_run(at):
    labels = np.array(["a"] * 5 + ["b"] * 5, dtype=object)
    labels[at] = None
    with pytest.raises(ValueError, match=rf"got None at index {at}$"):
        evaluate(np.zeros(10), np.zeros(10), groups=labels, metrics=["mrr"])


def test_labels_without_a_truth_value_take_the_exact_test():
    pd = pytest.importorskip("pandas")
    labels = np.array(["a", "a", pd.NA, "b"], dtype=object)
    with pytest.raises(ValueError, match=r"got <NA> at index 2$"):
        evaluate(np.zeros(4), np.zeros(4), groups=labels, metrics=["mrr"])


@pytest.mark.parametrize(
    "missing, shown",
    [
        (None, "None"),
        (float("nan"), "NaN"),
        (np.datetime64("NaT", "s"), "NaT"),
        (np.timedelta64("NaT", "s"), "NaT"),
    ],
)
def test_the_exact_test_finds_every_kind_of_missing_label(missing, shown):
    # pandas' NA after the missing label sends the labels to the exact test,
    # one label at a time; numbers before them are not missing.
    pd = pytest.importorskip("pandas")
    labels = np.array([1.5, 1.5, missing, pd.NA, 2.5], dtype=object)
    with pytest.raises(ValueError, match=rf" got {shown} at index 2$"):
        evaluate(np.zeros(5), np.zeros(5), groups=labels, metrics=["mrr"])


@pytest.mark.parametrize("dtype", ["U", object])
def test_string_runs_in_label_order_give_their_starts(dtype):
    codes, uniques, starts = encode_grouped(
        np.array(["a", "a", "b", "c", "c", "c"], dtype=dtype)
    )
    assert codes.tolist() == [0, 0, 1, 2, 2, 2]
    assert uniques.tolist() == ["a", "b", "c"]
    assert starts.tolist() == [0, 2, 3, 6]
    # Runs out of label order, or a label in two runs: no starts.
    assert encode_grouped(np.array(["b", "b", "a"], dtype=dtype))[2] is None
    assert encode_grouped(np.array(["a", "b", "a"], dtype=dtype))[2] is None


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("layout", ["sorted", "runs out of order"])
def test_string_and_object_labels_equal_integer_labels_bit_for_bit(n_jobs, layout):
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 60, size=6_000)  # more rows than one block
    ints = np.repeat(np.arange(sizes.shape[0]), sizes)
    assert ints.shape[0] > BLOCK_ROWS
    if layout == "runs out of order":
        order = rng.permutation(sizes.shape[0])
        ints = np.repeat(order, sizes[order])
    y_true = rng.integers(0, 4, size=ints.shape[0])
    y_score = rng.integers(0, 5, size=ints.shape[0]).astype(float)  # ties
    metrics = ["ndcg@10", "map", "mrr", "err@5", "P@3", "rprec"]
    expected = evaluate(y_true, y_score, groups=ints, metrics=metrics, n_jobs=n_jobs)
    strings = np.char.add("q", np.char.zfill(ints.astype(str), 5))  # same order
    for labels in (strings, strings.astype(object)):
        result = evaluate(
            y_true, y_score, groups=labels, metrics=metrics, n_jobs=n_jobs
        )
        np.testing.assert_array_equal(result.group_ids, np.unique(strings))
        for name in metrics:
            np.testing.assert_array_equal(
                result.per_query[name], expected.per_query[name]
            )


def _pandas_columns(pd, labels):
    """``labels`` (str) as the pandas columns people pass: object and
    string dtypes, a Series and an Index."""
    out = [pd.Series(np.asarray(labels, dtype=object), dtype=object)]
    out.append(pd.Series(labels, dtype="string"))
    out.append(pd.Index(np.asarray(labels, dtype=object), dtype=object))
    try:
        out.append(pd.Series(labels, dtype="str"))  # pandas 3's default
    except TypeError:  # pragma: no cover - pandas 2.2 has no "str" dtype
        pass
    return out


@pytest.mark.parametrize("seed", range(12))
def test_pandas_string_columns_equal_the_general_path(seed):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    alphabet = ["q1", "q10", "q2", "", "é", "Q", "a b", "日本", "z" * 30]
    n_queries = int(rng.integers(1, len(alphabet) + 1))
    names = rng.choice(alphabet, size=n_queries, replace=False)
    labels = rng.choice(names, size=int(rng.integers(1, 300)))
    if seed % 2:  # each query's rows together, in an order of their own
        labels = np.sort(labels)[::-1]
    y_true = rng.integers(0, 3, size=labels.shape[0])
    y_score = rng.integers(0, 4, size=labels.shape[0]).astype(float)
    metrics = ["ndcg@3", "map", "mrr", "P@2"]
    expected = evaluate(
        y_true, y_score, groups=np.asarray(labels, dtype=object), metrics=metrics
    )
    for column in _pandas_columns(pd, labels.tolist()):
        result = evaluate(y_true, y_score, groups=column, metrics=metrics)
        assert result.group_ids.dtype == expected.group_ids.dtype
        np.testing.assert_array_equal(result.group_ids, expected.group_ids)
        for name in metrics:
            np.testing.assert_array_equal(
                result.per_query[name], expected.per_query[name]
            )


def test_pandas_columns_that_are_not_all_strings_take_the_general_path():
    pd = pytest.importorskip("pandas")
    y = np.zeros(4)
    mixed = pd.Series([1, "a", 1, "a"], dtype=object)
    with pytest.raises(TypeError, match="must be mutually comparable"):
        evaluate(y, y, groups=mixed, metrics=["mrr"])
    for missing, text in ((None, "None"), (np.nan, "NaN")):
        column = pd.Series(["a", "a", missing, "b"], dtype=object)
        with pytest.raises(ValueError, match=rf"got {text} at index 2$"):
            evaluate(y, y, groups=column, metrics=["mrr"])
    column = pd.Series(["a", "a", None, "b"], dtype="string")
    with pytest.raises(ValueError, match=r"missing values, got .* at index 2$"):
        evaluate(y, y, groups=column, metrics=["mrr"])
    # A column of another length is named as for any other input.
    with pytest.raises(ValueError, match="expected length 4, got 3"):
        evaluate(y, y, groups=pd.Series(["a", "b", "c"]), metrics=["mrr"])
    # Integer columns keep the integer path and its labels.
    result = evaluate(y, y, groups=pd.Series([3, 3, 1, 2]), metrics=["mrr"])
    assert result.group_ids.tolist() == [1, 2, 3]


class _Coded:
    """An array-like of query labels that also carries integer ``codes`` (of
    some other meaning) but no ``categories``: not a pandas Categorical."""

    codes = np.array([1, 1, 0, 0])

    def __array__(self, dtype=None, copy=None):
        return np.array(["a", "a", "b", "b"])


def test_array_likes_with_codes_but_no_categories_are_read_as_their_values():
    y_true, y_score = [1.0, 0.0, 2.0, 0.0], [0.4, 0.3, 0.2, 0.1]
    got = evaluate(y_true, y_score, groups=_Coded(), metrics=["ndcg", "mrr"])
    expected = evaluate(
        y_true, y_score, groups=["a", "a", "b", "b"], metrics=["ndcg", "mrr"]
    )
    for name in ("ndcg", "mrr"):
        np.testing.assert_array_equal(got.per_query[name], expected.per_query[name])


@pytest.mark.parametrize(
    "ids",
    [
        [5, 2**63 + 1, 2**63 + 2],  # int64 and uint64 together: numpy makes floats
        (-1, 2**63 + 1, 2**63 + 2),
        [2**53, 2**53 + 1, 7],  # past float64's integers
        [1.5, 2**60, 2**60 + 1],  # a float beside large ints
    ],
)
def test_a_list_of_large_integer_ids_keeps_its_queries_apart(ids):
    # Regression: numpy reads a list holding int64 and uint64 values (or an
    # int past 2**53 beside a float) as float64, which merged different ids
    # into one query silently.
    got = evaluate([1, 0, 1], [3, 2, 1], groups=ids, metrics=["ndcg"])
    assert len(got.group_ids) == 3
    assert sorted(got.group_ids.tolist()) == sorted(ids)
    # Each id holds one row; rows 0 and 2 are relevant, row 1 not.
    by_id = dict(
        zip(got.group_ids.tolist(), got.per_query["ndcg"].tolist(), strict=True)
    )
    assert [by_id[i] for i in ids] == [1.0, 0.0, 1.0]


# Ids that differ only by trailing NUL characters (issue 51): numpy's rule for
# strings (a str array and a list drop them) holds for every container.


def _nul_containers():
    labels = ["a", "a", "a\x00", "a\x00", "b", "b\x00\x00"]
    out = {
        "list": labels,
        "str array": np.array(labels),
        "object array": np.array(labels, dtype=object),
    }
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    out["pandas object"] = pd.Series(labels, dtype=object)
    out["pandas arrow"] = pd.Series(labels, dtype="string[pyarrow]")
    out["arrow"] = pa.array(labels)
    out["arrow chunked"] = pa.chunked_array([labels[:3], labels[3:]])
    return out


@pytest.mark.parametrize("container", list(_nul_containers()))
def test_regression_ids_differing_by_trailing_nuls_are_one_query(container):
    # An object array, a pandas column and an Arrow column kept 'a' and
    # 'a\x00' apart (two queries, the Arrow ones printed as 'a' twice),
    # where a list and a str array make them one.
    groups = _nul_containers()[container]
    y_true = [1, 0, 0, 1, 1, 0]
    y_score = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    result = evaluate(y_true, y_score, groups=groups, metrics=["ndcg", "mrr"])
    assert [str(g) for g in result.group_ids] == ["a", "b"]
    want = evaluate(
        y_true, y_score, groups=["a"] * 4 + ["b"] * 2, metrics=["ndcg", "mrr"]
    )
    for name in ("ndcg", "mrr"):
        np.testing.assert_array_equal(result.per_query[name], want.per_query[name])
