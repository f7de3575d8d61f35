"""Polars and Arrow frames in and out, without a dataframe layer.

pandas objects are read through ``to_numpy`` (query ids that pandas
stores in pyarrow are encoded by pyarrow: :func:`string_column_codes`);
this module adds polars (``DataFrame``, ``LazyFrame``, ``Series``) and
pyarrow (``Table``, ``RecordBatch``, ``Array``, ``ChunkedArray``) for the
entry points that take a frame or a column, and the polars output of the
``to_frame`` methods.

An object is recognised by the module of its type, so neither library is
imported unless the object passed is one of theirs (it is then already
loaded) or a polars frame is asked for; the ImportError then names the extra.

Why not narwhals: skirm depends on numpy, scipy and scikit-learn only at run
time, and this is a few column reads (names; a column as numpy, missing values
refused; a list column flattened) and a polars frame built, plus what a
generic layer does not do: ids read from Arrow's buffers, missing values found
by the library's own null count before any conversion.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from skirm._errors import InvalidInputError, MissingDependencyError
from skirm._params import OneOf, Param

__all__ = [
    "BACKEND",
    "ArrowBytes",
    "column_names",
    "first_missing",
    "flatten_list_column",
    "frame_column",
    "frame_names",
    "is_column",
    "is_frame",
    "is_list_column",
    "library",
    "polars_frame",
    "polars_records",
    "read_columns",
    "string_column_codes",
    "values",
]

#: The frame libraries ``to_frame(backend=...)`` can return.
BACKEND = Param("backend", OneOf("pandas", "polars"))

_FRAMES = {
    "polars": ("DataFrame", "LazyFrame"),
    "pyarrow": ("Table", "RecordBatch"),
}
_COLUMNS = {
    "polars": ("Series",),
    "pyarrow": ("ChunkedArray",),  # and every ``*Array`` of pyarrow.lib
}


def library(obj) -> str | None:
    """``"pandas"``, ``"polars"`` or ``"pyarrow"``: the library ``obj``'s type
    comes from (by the module name, without importing anything), else None."""
    root = type(obj).__module__.partition(".")[0]
    return root if root in ("pandas", "polars", "pyarrow") else None


def string_column_codes(column):
    """``(codes, uniques, starts)`` of a column of strings, by the library
    that holds it, else None.

    ``uniques`` are the sorted distinct strings, as ``np.unique`` gives them
    for the column's values (an object array for pandas, a ``str`` array for
    pyarrow and polars), ``uniques[codes]`` the column, and ``starts`` the
    first row of each query (``n`` last) when the rows of each query are
    together in label order, else None. Arrow strings (a pyarrow string
    array, a polars ``String`` Series, a pandas ``str`` column stored by
    pyarrow) are compared with their neighbours and only the first string of
    each run is sorted, in Arrow's compute kernels: no Python object per row.
    None for anything else (other types and dtypes, a missing value), which
    the general path checks and names (for pandas strings stored as Python
    objects that path is faster than pandas' own ``factorize``).
    """
    arrow = _arrow_string_column(column)
    return None if arrow is None else _arrow_codes(*arrow)


class ArrowBytes(NamedTuple):
    """A column of strings held by Arrow, as :func:`read_columns` gives it:
    ``data``, its UTF-8 bytes (uint8), ``offsets``, the ``n + 1`` offsets that
    cut them into the strings, read from Arrow's buffers without a Python
    object per row; ``strings()`` the column as a ``str`` array (for ids
    with a NUL byte), ``run_starts()``: :func:`arrow_run_starts`."""

    data: np.ndarray
    offsets: np.ndarray
    strings: Callable[[], np.ndarray]
    run_starts: Callable[[], np.ndarray | None]


def arrow_run_starts(array):
    """Where each run of equal adjacent strings of a pyarrow string array
    without nulls starts, as ``Tokens.run_starts`` gives them, by Arrow's
    comparison kernel (1M query ids: about 3 ms, against 12 by the tokens'
    words); None for fewer than two rows, or where ``pyarrow.compute`` is
    not loaded yet: pandas loads it, but its import (20-35 ms) would cost a
    polars or pyarrow user more than it spares below millions of rows."""
    if "pyarrow.compute" not in sys.modules or len(array) < 2:
        return None
    return np.flatnonzero(_adjacent_changes(array)[0])


def frame_names(obj) -> list[str] | None:
    """The column names (as str) of a frame: a polars DataFrame or
    LazyFrame, a pyarrow Table or RecordBatch, a pandas DataFrame or any
    object with ``columns`` and ``__getitem__``; None for anything else."""
    if is_frame(obj):
        return column_names(obj)
    if hasattr(obj, "columns") and hasattr(obj, "__getitem__"):
        return [str(c) for c in obj.columns]
    return None


def read_columns(frame, names, kinds):
    """``(arrays, missing)``: the columns ``names`` of a frame (one that
    :func:`frame_names` names; None for a column not asked for: None back),
    each read as its ``kinds`` says, and None, or ``(i, row)`` where column
    ``i`` holds a missing value (null; None or NaN): ``arrays`` then holds
    the columns before it.

    ``"values"`` gives a numpy array of the column's dtype; ``"ids"`` a
    numpy array of ids (Arrow's strings as ``str``); ``"bytes"`` the ids
    held by Arrow as :class:`ArrowBytes` (a dictionary or categorical
    column of strings decoded first), any others as ``"ids"``. Each column
    is opened once.
    """
    if is_frame(frame):

        def column_of(name):
            return frame_column(frame, name)

    else:
        labels = list(frame.columns)
        strings = [str(c) for c in labels]

        def column_of(name):
            return frame[labels[strings.index(name)]]

    arrays = []
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        if name is None:
            arrays.append(None)
            continue
        column = column_of(name)
        at = first_missing(column)
        if at is not None:
            return arrays, (i, at)
        arrays.append(_column_array(column, kind))
    return arrays, None


def _column_array(column, kind):
    """One column of :func:`read_columns`, read as ``kind`` says."""
    lib = library(column)
    if kind == "bytes" and (lib == "pandas" or is_column(column)):
        array = _arrow_strings_of(column)
        if array is not None:
            # pandas' strings are read from the array opened here; polars'
            # and pyarrow's, by their library
            strings = partial(values, array if lib == "pandas" else column)
            return ArrowBytes(
                *_utf8_cut(array), strings, partial(arrow_run_starts, array)
            )
    elif kind == "ids" and lib == "pandas":
        opened = _arrow_string_column(column)
        if opened is not None:
            return values(opened[0])
    if is_column(column):
        return values(column)
    to_numpy = getattr(column, "to_numpy", None)
    return np.asarray(to_numpy() if callable(to_numpy) else column)


def _arrow_strings_of(column):
    """The pyarrow array of a column of strings held by Arrow without
    nulls (a dictionary or categorical one decoded), else None."""
    lib = library(column)
    if lib == "pyarrow" and "dictionary<values=" in str(column.type):
        column = column.cast(column.type.value_type)
    elif lib == "polars":
        import polars as pl

        if column.dtype.base_type() in (pl.Categorical, pl.Enum):
            column = column.cast(pl.String)
    arrow = _arrow_string_column(column)
    return None if arrow is None else arrow[0]


def _utf8_cut(array):
    """``(data, offsets)`` of a pyarrow string array (a ``string_view`` one
    cast to ``large_string``), from its buffers."""
    import pyarrow as pa

    if str(array.type) not in ("string", "large_string"):  # views: no offsets
        array = array.cast(pa.large_string())
    width = 8 if pa.types.is_large_string(array.type) else 4  # of an offset
    offsets = np.frombuffer(
        array.buffers()[1], f"<i{width}", len(array) + 1, array.offset * width
    )
    data = array.buffers()[2]
    data = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8)
    return data, offsets


def _arrow_string_column(column):
    """``(array, as_objects, gather)``: a column of strings held by Arrow as
    one pyarrow array without nulls; whether its distinct strings are
    returned as Python objects (pandas) or a ``str`` array; and, for a
    polars column read without a copy (Arrow's ``string_view``, which
    pyarrow compares but cannot take rows of), a function giving the rows
    at given positions as a pyarrow array, else None. None for any other
    column."""
    lib = library(column)
    gather = None
    if lib == "pandas":
        dtype = getattr(column, "dtype", None)
        # "pyarrow": StringDtype("pyarrow"), pandas 3's str, and ArrowDtype;
        # "pyarrow_numpy": pandas 2's str stored by pyarrow.
        arrow_backed = getattr(dtype, "storage", None) in ("pyarrow", "pyarrow_numpy")
        if not arrow_backed or getattr(column, "ndim", None) != 1:
            return None
        import pyarrow as pa

        array, as_objects = pa.array(column.array), True
    elif lib == "polars":
        import polars as pl

        if getattr(column, "dtype", None) != pl.String:
            return None
        array, as_objects = _polars_arrow(column), False
        if str(array.type) == "string_view":

            def gather(rows):
                return column.gather(rows).to_arrow()

    elif lib == "pyarrow" and is_column(column):
        array, as_objects = column, False
    else:
        return None
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        return None
    kind = str(array.type)
    if kind == "string_view" and gather is None:
        array = array.cast(pa.large_string())  # taken and sorted as such
    elif kind not in ("string", "large_string", "string_view"):
        return None
    return array, as_objects, gather


def _polars_arrow(column):
    """A polars column as a pyarrow array, without a copy where polars can
    export its own layout (``string_view``), else as polars exports it."""
    import polars as pl

    level = getattr(pl, "CompatLevel", None)
    if level is not None:
        try:
            return column.to_arrow(compat_level=level.newest())
        except TypeError:  # pragma: no cover - a polars without the option
            pass
    return column.to_arrow()  # pragma: no cover - polars before CompatLevel


def _arrow_codes(array, as_objects, gather=None):
    """:func:`string_column_codes` of a pyarrow string array without nulls;
    ``gather(rows)`` takes rows of an array pyarrow cannot take from."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(array)
    change, array, gather = _adjacent_changes(array, gather)
    runs = np.flatnonzero(change)
    heads = array.take(pa.array(runs)) if gather is None else gather(runs)
    ordered, inverse = _sorted_ranks(heads)
    m = len(ordered)
    if (
        m > 1
        and not pc.all(pc.not_equal(ordered.slice(1), ordered.slice(0, m - 1))).as_py()
    ):
        # A query's rows are not together: a hash table over every row.
        if gather is not None:
            array = array.cast(pa.large_string())
        encoded = pc.dictionary_encode(array)
        distinct, rank = _sorted_ranks(encoded.dictionary)
        codes = rank[encoded.indices.to_numpy(zero_copy_only=False)]
        return codes, _arrow_uniques(distinct, as_objects), None
    starts = np.append(runs, n)
    codes = np.repeat(inverse, np.diff(starts))
    if not np.all(inverse[1:] > inverse[:-1]):  # the runs out of label order
        starts = None
    return codes, _arrow_uniques(ordered, as_objects), starts


def _adjacent_changes(array, gather=None):
    """``(change, array, gather)``: whether each row of a pyarrow string
    array without nulls differs from the one before (the first: True); views
    a pyarrow cannot compare are cast to ``large_string`` (and returned)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(array)
    change = np.zeros(n, dtype=bool)
    change[:1] = True
    if n > 1:
        try:
            differ = pc.not_equal(array.slice(1), array.slice(0, n - 1))
        except pa.ArrowNotImplementedError:  # a pyarrow without view kernels
            array, gather = array.cast(pa.large_string()), None
            differ = pc.not_equal(array.slice(1), array.slice(0, n - 1))
        change[1:] = differ.to_numpy(zero_copy_only=False)
    return change, array, gather


def _sorted_ranks(strings):
    """``(sorted, rank)``: the pyarrow strings ``strings`` sorted, and the
    rank of each in that order. Arrow orders strings by their UTF-8 bytes:
    by code point, as numpy and Python order ``str``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    order = pc.array_sort_indices(strings).to_numpy(zero_copy_only=False)
    rank = np.empty(order.shape[0], dtype=np.intp)
    rank[order] = np.arange(order.shape[0])
    return strings.take(pa.array(order)), rank


def _arrow_uniques(strings, as_objects):
    if as_objects:
        return strings.to_numpy(zero_copy_only=False).astype(object, copy=False)
    return _arrow_strings(strings)


def is_frame(obj) -> bool:
    """True for a polars DataFrame or LazyFrame, a pyarrow Table or
    RecordBatch (pandas frames are read by their own path)."""
    return type(obj).__name__ in _FRAMES.get(library(obj) or "", ())


def is_column(obj) -> bool:
    """True for a polars Series or a pyarrow Array or ChunkedArray."""
    lib = library(obj)
    name = type(obj).__name__
    if lib == "pyarrow":
        return name in _COLUMNS["pyarrow"] or (
            name.endswith("Array") and hasattr(obj, "null_count")
        )
    return lib == "polars" and name in _COLUMNS["polars"]


def column_names(frame) -> list[str]:
    """The column names of a polars or pyarrow frame."""
    if library(frame) == "pyarrow":
        return list(frame.column_names)
    if type(frame).__name__ == "LazyFrame":
        return list(frame.collect_schema().names())
    return list(frame.columns)


def frame_column(frame, name):
    """The column ``name`` of a polars or pyarrow frame (a LazyFrame is
    collected, that column only)."""
    if library(frame) == "pyarrow":
        return frame.column(name)
    if type(frame).__name__ == "LazyFrame":
        return frame.select(name).collect().to_series()
    return frame.get_column(name)


def first_missing(column) -> int | None:
    """The row of the first missing value (null; None or NaN in pandas and
    numpy object columns; NaN in a float column) of a column, else None."""
    lib = library(column)
    if lib == "polars":
        if not column.null_count():
            return None
        return int(column.is_null().arg_max())
    if lib == "pyarrow":
        if not column.null_count:
            return None
        import pyarrow.compute as pc

        return int(pc.index(pc.is_null(column), True).as_py())
    isna = getattr(column, "isna", None)
    if callable(isna):  # pandas Series
        mask = np.asarray(isna(), dtype=bool)
    else:
        arr = np.asarray(column)
        if arr.dtype.kind == "f":
            mask = np.isnan(arr)
        elif arr.dtype.kind == "O":
            try:
                mask = np.equal(arr, np.array(None)) | np.not_equal(arr, arr)
            except (TypeError, ValueError):  # labels without a truth value
                mask = np.fromiter(
                    (v is None or type(v).__name__ == "NAType" for v in arr.tolist()),
                    dtype=bool,
                    count=arr.shape[0],
                )
        else:
            return None
    return int(np.argmax(mask)) if mask.any() else None


def values(column) -> np.ndarray:
    """A polars or pyarrow column without missing values as a numpy array.

    Strings (categorical and dictionary columns included) become a fixed-width
    ``str`` array, numbers and booleans their numpy dtype.
    """
    if library(column) == "pyarrow":
        return _arrow_values(column)
    import polars as pl

    base = column.dtype.base_type()
    if base in (pl.Categorical, pl.Enum):
        column = column.cast(pl.String)
    elif base is not pl.String:
        return column.to_numpy()
    out = column.to_numpy()
    return out.astype(str) if out.dtype.kind == "O" else out


def _arrow_values(column):
    import pyarrow as pa

    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _arrow_strings(column)
    if "string" in str(kind):  # string_view and later string types
        return _arrow_strings(column.cast(pa.large_string()))
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column.to_numpy(zero_copy_only=False)


def _arrow_strings(column):
    """An Arrow string column as a numpy str array.

    ASCII strings are padded with NUL to the longest, so that their bytes
    lie one fixed-width slot after another in the Arrow buffer, read as
    numpy bytes and widened to str: no Python object per row. Other text
    goes through Python strings.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(column)
    if n and pc.all(pc.string_is_ascii(column)).as_py():
        width = int(pc.max(pc.binary_length(column)).as_py())
        if width == 0:
            return np.zeros(n, dtype="U1")
        padded = pc.ascii_rpad(column, width=width, padding="\0")
        if isinstance(padded, pa.ChunkedArray):
            padded = padded.combine_chunks()
        data, offsets = _utf8_cut(padded)
        raw = data[int(offsets[0]) : int(offsets[-1])]
        return raw.view(f"S{width}").astype(f"U{width}")
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    out = column.to_numpy(zero_copy_only=False)
    return out.astype(str) if n else np.zeros(0, dtype=str)


def is_list_column(obj) -> bool:
    """True for a polars Series or pyarrow array of lists."""
    if not is_column(obj):
        return False
    if library(obj) == "pyarrow":
        import pyarrow as pa

        kind = obj.type
        return bool(
            pa.types.is_list(kind)
            or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)
        )
    import polars as pl

    return obj.dtype.base_type() in (pl.List, pl.Array)


def flatten_list_column(column, name):
    """``(items, sizes)``: the items of a list column, concatenated, and
    each list's length; a missing list or item is a ValueError."""
    at = first_missing(column)
    if at is not None:
        raise InvalidInputError(
            f"`{name}` must hold one list per query, got a missing list (null) "
            f"at index {at}"
        )
    if library(column) == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        sizes = pc.list_value_length(column).to_numpy(zero_copy_only=False)
        items = pc.list_flatten(column)
    else:
        import polars as pl

        if column.dtype.base_type() is pl.Array:
            column = column.cast(pl.List(column.dtype.inner))
        sizes = column.list.len().to_numpy()
        items = column.explode()
        total = int(sizes.sum())
        if len(items) != total:  # polars < 2 gives a null for each empty list
            slots = np.maximum(sizes, 1)
            keep = np.ones(int(slots.sum()), dtype=bool)
            keep[(np.cumsum(slots) - slots)[sizes == 0]] = False
            items = items.filter(pl.Series(keep))
    at = first_missing(items)
    if at is not None:
        ends = np.cumsum(sizes)
        query = int(np.searchsorted(ends, at, side="right"))
        raise InvalidInputError(
            f"`{name}` must not contain missing ids, got a null in list {query}"
        )
    return values(items), sizes.astype(np.intp, copy=False)


def _polars(owner):
    try:
        import polars as pl
    except ImportError as exc:
        raise MissingDependencyError(
            f"{owner}(backend='polars') requires polars; install it with "
            "`pip install skirm[polars]`"
        ) from exc
    return pl


def polars_frame(columns, owner):
    """A polars DataFrame of numpy (or list) columns, in order; a scalar is
    a constant column.

    NaN in a float column becomes null, as ``polars.from_pandas`` makes it:
    a missing value polars' aggregations skip, as pandas' skip NaN.
    """
    pl = _polars(owner)
    n = max((len(c) for c in columns.values() if np.ndim(c)), default=0)
    series = []
    for name, column in columns.items():
        if not np.ndim(column):  # a scalar: a constant column, as in pandas
            series.append(pl.repeat(column, n, eager=True).alias(name))
            continue
        arr = np.asarray(column)
        if arr.dtype.kind == "U":  # polars reads Python strings faster
            series.append(pl.Series(name, arr.tolist(), dtype=pl.String))
            continue
        try:
            series.append(pl.Series(name, arr, nan_to_null=arr.dtype.kind == "f"))
        except TypeError:  # an object column of mixed Python types
            series.append(pl.Series(name, arr.tolist(), strict=False))
    return pl.DataFrame(series)


def polars_records(records, owner, integers=(), string_lists=()):
    """A polars DataFrame of a list of dicts with the same keys: floats with
    NaN as null, the columns ``integers`` as Int64 with None as null, the
    columns ``string_lists`` (sequences of str) as lists of strings."""
    pl = _polars(owner)
    if not records:
        return pl.DataFrame()
    columns = {}
    for name in records[0]:
        items = [row[name] for row in records]
        if name in integers:
            columns[name] = pl.Series(name, items, dtype=pl.Int64)
        elif name in string_lists:
            items = [list(v) for v in items]
            columns[name] = pl.Series(name, items, dtype=pl.List(pl.String))
        elif all(isinstance(v, float) for v in items):
            columns[name] = pl.Series(
                name, np.asarray(items, dtype=np.float64), nan_to_null=True
            )
        else:
            columns[name] = pl.Series(name, items)
    return pl.DataFrame(list(columns.values()))
