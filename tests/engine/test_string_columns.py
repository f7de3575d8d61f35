"""Query ids held as a column of strings by pandas, polars or pyarrow.

Arrow strings (pyarrow arrays, polars ``String`` Series, pandas ``str``
columns stored by pyarrow) are encoded by Arrow's compute kernels: each
label compared with the one before it, the first of each run sorted, and a
hash table over every row when a query's rows are not together. pandas
strings stored as Python objects are checked as a numpy object array. The
oracle is numpy: the same labels as a ``str`` array, encoded by
``np.unique`` (:func:`skirm._engine.encode_grouped`) and evaluated.
"""

from __future__ import annotations

import numpy as np
import pytest

from skirm._engine import encode_grouped
from skirm._frames import string_column_codes
from skirm.metrics import evaluate

pa = pytest.importorskip("pyarrow")


def _labels(rng, n, layout, alphabet="abc"):
    """``n`` string labels in runs, in label order, out of it, or with a
    query's rows apart; empty and non-ASCII labels included."""
    pool = sorted(
        {
            "".join(rng.choice(list(alphabet), size=rng.integers(0, 6)))
            for _ in range(60)
        }
    )
    pool = np.array([*pool, "é", "é", "\u4e2d", "z" * 40], dtype=object)
    pool = np.array(sorted(set(pool.tolist())), dtype=object)
    if layout == "random":
        return pool[rng.integers(0, pool.shape[0], size=n)]
    heads = pool.copy()
    if layout == "unordered":
        rng.shuffle(heads)
    sizes = rng.integers(1, 6, size=heads.shape[0])
    out = np.repeat(heads, sizes)
    return out[:n]


def _oracle(labels):
    return encode_grouped(np.array(labels.tolist(), dtype=str))


LAYOUTS = ["ordered", "unordered", "random"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [1, 2, 7, 150])
@pytest.mark.parametrize("kind", ["string", "large_string", "string_view"])
def test_arrow_codes_match_numpy(layout, n, kind):
    rng = np.random.default_rng(n + 7 * LAYOUTS.index(layout))
    labels = _labels(rng, n, layout)
    array = pa.array(labels.tolist(), type=getattr(pa, kind)())
    codes, uniques, starts = string_column_codes(array)
    want_codes, want_uniques, want_starts = _oracle(labels)
    np.testing.assert_array_equal(codes, want_codes)
    assert uniques.dtype == want_uniques.dtype
    np.testing.assert_array_equal(uniques, want_uniques)
    if want_starts is None:
        assert starts is None
    else:
        np.testing.assert_array_equal(starts, want_starts)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_chunked_and_sliced_arrow_columns(layout):
    """Chunk edges inside and between runs, and arrays that start at an
    offset into their buffers."""
    rng = np.random.default_rng(3 + LAYOUTS.index(layout))
    labels = _labels(rng, 200, layout)
    items = labels.tolist()
    chunked = pa.chunked_array([items[:1], items[1:57], items[57:58], items[58:]])
    for column, expected in (
        (chunked, labels),
        (pa.array(items).slice(13, 150), labels[13:163]),
        (chunked.slice(40, 100), labels[40:140]),
    ):
        codes, uniques, _ = string_column_codes(column)
        want_codes, want_uniques, _ = _oracle(expected)
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(uniques, want_uniques)


def _columns(labels):
    """The same labels in every column type this path reads."""
    out = {"pyarrow": pa.array(labels.tolist())}
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        out["pandas arrow"] = pd.Series(
            labels.tolist(), dtype=pd.StringDtype("pyarrow")
        )
        out["pandas python"] = pd.Series(
            labels.tolist(), dtype=pd.StringDtype("python")
        )
        out["pandas object"] = pd.Series(labels.tolist(), dtype=object)
        out["pandas index"] = pd.Index(labels.tolist(), dtype=pd.StringDtype("pyarrow"))
        out["pandas ArrowDtype"] = pd.Series(
            labels.tolist(), dtype=pd.ArrowDtype(pa.large_string())
        )
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        out["polars"] = pl.Series(labels.tolist(), dtype=pl.String)
        out["polars categorical"] = pl.Series(labels.tolist(), dtype=pl.Categorical)
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_column_type_gives_numpys_values(layout):
    rng = np.random.default_rng(11 + LAYOUTS.index(layout))
    labels = _labels(rng, 300, layout)
    y_true = rng.integers(0, 3, size=labels.shape[0]).astype(float)
    y_score = rng.random(labels.shape[0])
    metrics = ["ndcg@5", "map", "mrr"]
    expected = evaluate(
        y_true, y_score, groups=np.array(labels.tolist(), dtype=str), metrics=metrics
    )
    for name, column in _columns(labels).items():
        for n_jobs in (1, 2):
            got = evaluate(
                y_true, y_score, groups=column, metrics=metrics, n_jobs=n_jobs
            )
            assert got.group_ids.tolist() == expected.group_ids.tolist(), name
            for metric in metrics:
                np.testing.assert_array_equal(
                    got.per_query[metric], expected.per_query[metric], err_msg=name
                )


def test_pandas_columns_keep_object_group_ids_and_arrow_ones_str():
    pd = pytest.importorskip("pandas")
    labels = np.array(["b", "b", "a"], dtype=object)
    codes, uniques, starts = string_column_codes(
        pd.Series(labels.tolist(), dtype=pd.StringDtype("pyarrow"))
    )
    assert uniques.dtype == object and uniques.tolist() == ["a", "b"]
    assert codes.tolist() == [1, 1, 0] and starts is None
    codes, uniques, starts = string_column_codes(pa.array(["a", "b", "b"]))
    assert uniques.dtype == np.dtype("U1") and starts.tolist() == [0, 1, 3]


def test_columns_the_arrow_path_leaves_to_the_general_one():
    assert string_column_codes(pa.array([1, 2])) is None
    assert string_column_codes(pa.array(["a", None])) is None
    assert string_column_codes(pa.array(["a", "b"]).dictionary_encode()) is None
    assert string_column_codes(np.array(["a", "b"])) is None
    assert string_column_codes(["a", "b"]) is None


@pytest.mark.parametrize("at", [0, 4, 9])
def test_a_missing_string_is_named_with_its_row(at):
    labels = ["q1"] * 5 + ["q2"] * 5
    labels[at] = None
    columns = {"pyarrow": pa.array(labels)}
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        columns["pandas arrow"] = pd.Series(labels, dtype=pd.StringDtype("pyarrow"))
        columns["pandas python"] = pd.Series(labels, dtype=pd.StringDtype("python"))
        columns["pandas object"] = pd.Series(labels, dtype=object)
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        columns["polars"] = pl.Series(labels, dtype=pl.String)
    y = np.ones(10)
    for name, column in columns.items():
        with pytest.raises(
            ValueError, match=f"`groups` must not contain missing.*index {at}"
        ):
            evaluate(y, y, groups=column, metrics=["map"])
        assert name


def test_a_pandas_multiindex_as_groups_is_named():
    pd = pytest.importorskip("pandas")
    index = pd.MultiIndex.from_arrays([[1, 1, 2, 2], ["a", "a", "b", "b"]])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    with pytest.raises(
        ValueError, match=r"`groups` must be 1-D .* MultiIndex of 2 levels"
    ):
        evaluate(y, y, groups=index, metrics=["map"])
    one_level = evaluate(y, y, groups=index.get_level_values(0), metrics=["map"])
    assert one_level.group_ids.tolist() == [1, 2]


def test_pandas_group_ids_stay_objects_when_a_query_s_rows_are_apart():
    """The hash-table path (a query's rows apart) gives pandas columns their
    distinct strings as Python objects too, as np.unique of the values."""
    pd = pytest.importorskip("pandas")
    labels = ["b", "a", "b", "c", "a"]
    codes, uniques, starts = string_column_codes(
        pd.Series(labels, dtype=pd.StringDtype("pyarrow"))
    )
    assert uniques.dtype == object and uniques.tolist() == ["a", "b", "c"]
    assert codes.tolist() == [1, 0, 1, 2, 0] and starts is None
    _, uniques, _ = string_column_codes(pa.array(labels))
    assert uniques.dtype == np.dtype("U1")


def test_which_columns_take_the_arrow_path():
    """Arrow strings are encoded by Arrow (a triple); pandas strings stored
    as Python objects and categorical columns are left to the general path
    (None), which gives the same values."""
    labels = ["b", "b", "a"]
    taken, left = [pa.array(labels), pa.chunked_array([labels])], []
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        taken += [
            pd.Series(labels, dtype=pd.StringDtype("pyarrow")),
            pd.Series(labels, dtype=pd.ArrowDtype(pa.string())),
            pd.Index(labels, dtype=pd.StringDtype("pyarrow")),
        ]
        left += [
            pd.Series(labels, dtype=object),
            pd.Series(labels, dtype=pd.StringDtype("python")),
            pd.Series(labels, dtype="category"),
        ]
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        taken.append(pl.Series(labels, dtype=pl.String))
        left.append(pl.Series(labels, dtype=pl.Categorical))
    for column in taken:
        codes, uniques, _ = string_column_codes(column)
        assert codes.tolist() == [1, 1, 0], type(column)
        # pandas gives Python objects, as np.unique of its values; the others
        # a str array, as np.unique of their numpy values.
        pandas = type(column).__module__.startswith("pandas")
        assert uniques.dtype == (object if pandas else np.dtype("U1")), type(column)
    for column in left:
        assert string_column_codes(column) is None, column.dtype


@pytest.mark.parametrize("storage", ["object", "python"])
def test_pandas_python_strings_are_checked_without_isna(monkeypatch, storage):
    """pandas strings stored as Python objects are checked as a numpy object
    array, on the first row of each run (not by ``isna`` over every row):
    the same values and the same message for a missing one."""
    pd = pytest.importorskip("pandas")
    labels = ["q2", "q2", "q1", "q1", "q1", "q3"]
    dtype = object if storage == "object" else pd.StringDtype("python")
    column = pd.Series(labels, dtype=dtype)

    def refuse(self):
        raise AssertionError("isna called")

    monkeypatch.setattr(pd.Series, "isna", refuse)
    y = np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    got = evaluate(y, y[::-1], groups=column, metrics=["map"])
    expected = evaluate(y, y[::-1], groups=np.array(labels), metrics=["map"])
    assert got.group_ids.tolist() == ["q1", "q2", "q3"]
    np.testing.assert_array_equal(got.per_query["map"], expected.per_query["map"])
    labels[3] = None
    with pytest.raises(ValueError, match=r"missing values, got .* at index 3"):
        evaluate(y, y, groups=pd.Series(labels, dtype=dtype), metrics=["map"])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_polars_columns_in_chunks_and_without_view_kernels(monkeypatch, layout):
    """A polars column of several chunks, read as Arrow string views without
    a copy; and the same where pyarrow has no comparison of string views
    (the column is then cast to large strings first)."""
    pl = pytest.importorskip("polars")
    import pyarrow.compute as pc

    rng = np.random.default_rng(21 + LAYOUTS.index(layout))
    labels = _labels(rng, 200, layout)
    items = labels.tolist()
    column = pl.concat(
        [
            pl.Series(items[:77], dtype=pl.String),
            pl.Series(items[77:], dtype=pl.String),
        ],
        rechunk=False,
    )
    want_codes, want_uniques, want_starts = _oracle(labels)
    real = pc.not_equal
    views = []

    def no_views(a, b, *args, **kwargs):
        if str(a.type) == "string_view":
            views.append(1)
            raise pa.ArrowNotImplementedError("no kernel for string_view")
        return real(a, b, *args, **kwargs)

    for patched in (False, True):
        if patched:
            monkeypatch.setattr(pc, "not_equal", no_views)
        codes, uniques, starts = string_column_codes(column)
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(uniques, want_uniques)
        assert (starts is None) == (want_starts is None)
    # The fallback ran, once, where polars exports string views (polars
    # 1.0 exports large strings, which need no fallback).
    from skirm._frames import _polars_arrow

    exports_views = str(_polars_arrow(column).type) == "string_view"
    assert views == ([1] if exports_views else [])
