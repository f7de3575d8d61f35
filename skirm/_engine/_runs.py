"""Query labels, checked, and the runs of equal labels: the engine's first stage.

Every grouping in skirm starts here: per-row query labels (numpy, pandas,
polars or pyarrow columns) are checked (1-D, one per row, no missing value)
and compared with their neighbours, in one vectorised comparison, to find
where each run of equal labels starts. Fixed-width strings are compared as
machine words; object columns are checked for missing labels on the first
row of each run only.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._frames import first_missing, is_column, values
from skirm._params import as_python, describe


def check_groups(groups, n_samples: int, name: str = "groups") -> np.ndarray:
    """Per-row query labels: 1-D, one per row, no missing values.

    Returns a 1-D numpy array (integer, string or object dtype); pandas
    Series and Categoricals, polars Series and pyarrow arrays are converted
    to their values.
    """
    return check_groups_runs(groups, n_samples, name)[0]


def check_groups_runs(groups, n_samples: int, name: str = "groups"):
    """``(labels, runs)``: :func:`check_groups`, and for an object array
    checked by comparing neighbours, the first row of each run of equal
    labels (:func:`label_runs`), else None."""
    if groups is None:
        raise InvalidParameterError(f"`{name}` is required")
    if is_column(groups):  # polars Series, pyarrow Array or ChunkedArray
        at = first_missing(groups)
        if at is not None:
            raise InvalidInputError(
                f"`{name}` must not contain missing values, got null at index {at}"
            )
        groups = values(groups)
    levels = getattr(groups, "nlevels", 1)
    if levels != 1:  # a pandas MultiIndex: one label per row is asked for
        raise InvalidInputError(
            f"`{name}` must be 1-D (one query label per row), got a pandas "
            f"MultiIndex of {levels} levels; pass the level that holds the "
            "query ids (index.get_level_values(...))"
        )
    cat = _categorical_values(groups)
    if cat is not None:
        arr = cat
    else:
        arr = np.asarray(groups)
        if arr.dtype.kind == "f" and arr.ndim == 1 and isinstance(groups, list | tuple):
            arr = _exact_integers(groups, arr)
    if arr.ndim != 1:
        raise InvalidInputError(
            f"`{name}` must be 1-D (one query label per row), got shape {arr.shape}"
        )
    if arr.shape[0] != n_samples:
        raise InvalidInputError(
            f"`{name}` must have one label per row: expected length {n_samples}, "
            f"got {arr.shape[0]}"
        )
    if arr.dtype.kind not in "biufUSMmO":
        raise InvalidInputError(
            f"`{name}` must hold hashable query labels (ints or strings), "
            f"got {describe(arr)}"
        )
    at, runs = _first_missing(groups, arr)
    if at is not None:
        value = arr[at]
        if isinstance(value, np.datetime64 | np.timedelta64):
            text = "NaT"  # as a Python value, None
        else:
            value = as_python(value)
            text = "NaN" if isinstance(value, float) else repr(value)
        raise InvalidInputError(
            f"`{name}` must not contain missing values, got {text} at index {at}"
        )
    return arr, runs


def _exact_integers(groups, arr):
    """A list's labels as Python objects when numpy's float reading of it
    changed an integer label (an int64 beside a uint64, a large int beside a
    float): floats would merge different ids into one query."""
    objects = np.empty(len(groups), dtype=object)
    objects[:] = groups
    for label in objects:
        if (
            isinstance(label, int | np.integer)
            and not isinstance(label, bool)
            and abs(int(label)) > 2**53
        ):
            return objects
    return arr


def label_runs(arr):
    """The first row of each run of equal neighbouring labels (row 0 first),
    from one vectorised comparison of every label with the next."""
    n = arr.shape[0]
    return np.concatenate((np.zeros(min(n, 1), dtype=np.intp), changed_rows(arr, 1, n)))


#: Fixed-width strings are compared with their neighbours as unsigned
#: integer words, at most this many words at a time (their comparisons, one
#: byte each, stay in cache).
RUN_WORDS = 1 << 20
#: Once a part changes label at more than one row in this many, the rest is
#: compared as strings.
DENSE_RUNS = 8


def changed_rows(arr, lo: int, hi: int) -> np.ndarray:
    """The rows ``i`` in ``[lo, hi)`` (``lo >= 1``) whose label differs from
    row ``i - 1``'s, ascending.

    Fixed-width strings (numpy ``U`` and ``S``) are compared as unsigned
    integer words: two strings of one dtype are equal exactly when their
    bytes are, and numpy's string comparison reads them a character at a
    time, about three times slower on 22-character ids. The words of each
    row differ at some word when the rows differ, so the differing words,
    few when the rows are grouped by query, name the changed rows.
    """
    if hi <= lo:
        return np.empty(0, dtype=np.intp)
    words = _string_words(arr)
    if words is None:
        return _unequal_to_previous(arr, lo, hi)
    width = words.shape[0] // arr.shape[0]
    if width == 1:
        return _unequal_to_previous(words, lo, hi)
    step = max(1, RUN_WORDS // width)
    differ = np.empty(min(step, hi - lo) * width, dtype=bool)
    parts: list[np.ndarray] = []
    for start in range(lo, hi, step):
        stop = min(start + step, hi)
        if parts and parts[-1].shape[0] > (stop - start) // DENSE_RUNS:
            # Labels that change at most rows (not grouped by query) differ
            # in their first characters, where numpy's comparison stops.
            parts.append(_unequal_to_previous(arr, start, hi))
            break
        part = differ[: (stop - start) * width]
        np.not_equal(
            words[start * width : stop * width],
            words[(start - 1) * width : (stop - 1) * width],
            out=part,
        )
        rows = np.flatnonzero(part)
        rows //= width  # each differing word's row, ascending, repeated
        first = np.empty(rows.shape[0], dtype=bool)
        first[:1] = True
        np.not_equal(rows[1:], rows[:-1], out=first[1:])
        rows = rows[first]
        rows += start
        parts.append(rows)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _unequal_to_previous(arr, lo, hi):
    """The rows ``i`` in ``[lo, hi)`` where ``arr[i] != arr[i - 1]``, by one
    vectorised comparison."""
    rows = np.flatnonzero(np.not_equal(arr[lo:hi], arr[lo - 1 : hi - 1]))
    rows += lo
    return rows


def _string_words(arr):
    """A C-contiguous 1-D array of fixed-width strings as one flat array of
    unsigned integer words (the widest that divides the item size), else
    None."""
    size = arr.dtype.itemsize
    if (
        arr.dtype.kind not in "US"
        or arr.ndim != 1
        or size == 0
        or not arr.flags.c_contiguous
    ):
        return None
    word = next(w for w in (8, 4, 2, 1) if size % w == 0)
    return arr.view(f"u{word}")


_MISSING_TYPES = ("NAType", "NaTType")


def _first_missing(original, arr):
    """``(row, runs)``: the first missing label (None, NaN, NaT, pandas NA),
    or None; and the :func:`label_runs` of an object array when they were
    computed to find it, else None."""
    isna = getattr(original, "isna", None)
    if callable(isna) and not _python_objects(original):
        # pandas Series, Index and extension arrays
        return _first(np.asarray(isna(), dtype=bool)), None
    kind = arr.dtype.kind
    if kind == "f":
        return _first(np.isnan(arr)), None
    if kind in "Mm":
        return _first(np.isnat(arr)), None
    if kind != "O":
        return None, None
    # Vectorised: None equals None, and NaN and NaT differ from themselves
    # and from anything else, so a missing label is missing at the start of
    # its run of equal neighbours: only the first row of each run is tested.
    # A label whose comparison has no truth value (pandas' NA) or is not a
    # scalar takes the exact test below, one label at a time; so do ints
    # beside a NaT object when warnings are errors (numpy 2.5 deprecates
    # the comparison of an int with a timedelta64 of no unit).
    try:
        runs = label_runs(arr)
        heads = arr[runs]
        missing = np.equal(heads, None) | np.not_equal(heads, heads)
    except (TypeError, ValueError, DeprecationWarning):
        pass
    else:
        at = _first(missing)
        return (None if at is None else int(runs[at])), runs
    missing = np.fromiter(
        (
            g is None
            or (isinstance(g, float) and g != g)
            or type(g).__name__ in _MISSING_TYPES
            or (isinstance(g, np.datetime64 | np.timedelta64) and np.isnat(g))
            for g in arr
        ),
        dtype=bool,
        count=arr.shape[0],
    )
    return _first(missing), None


def _python_objects(column):
    """True for a pandas column of Python objects (``object`` dtype, or
    strings stored as Python objects): checked as a numpy object array, on
    the first row of each run of equal labels, faster than ``isna``."""
    dtype = getattr(column, "dtype", None)
    if dtype is None:
        return False
    if dtype == np.dtype(object):
        return True
    return getattr(dtype, "name", None) in ("str", "string") and (
        getattr(dtype, "storage", None) == "python"
    )


def _first(mask):
    """The index of the first True of ``mask``, or None."""
    if not mask.any():
        return None
    return int(np.argmax(mask))


def _categorical_values(groups):
    """Values of a pandas Categorical (or categorical Series), else None."""
    values = getattr(groups, "array", groups)
    codes = getattr(values, "codes", None)
    categories = getattr(values, "categories", None)
    if codes is None or categories is None:
        return None
    codes = np.asarray(codes)
    if (codes < 0).any():
        raise InvalidInputError(
            "`groups` must not contain missing values, got a missing category at "
            f"index {int(np.argmax(codes < 0))}"
        )
    return np.asarray(categories)[codes]
