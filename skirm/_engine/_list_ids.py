"""Ids of ranked lists: read into arrays, checked, padding taken off.

:func:`~skirm._engine._lists.from_lists` reads the ids of every list (and
of the ground truth) through here: integer ids of Python lists straight
into int64, a padded 2-D id array without its padding, and any ids as one
array of a kind numpy compares (ints or strings, never a mix).
"""

from __future__ import annotations

import itertools

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import as_python, describe


def int_ids(rows, total):
    """Integer ids of Python lists read straight into int64, or None."""
    first = next((row for row in rows if len(row)), None)
    if not isinstance(first, list) or type(first[0]) is not int:
        return None
    # np.fromiter casts floats and numeric strings to int64 (2.5 to 2, "2" to
    # 2): every id must be an int.
    if set(map(type, itertools.chain.from_iterable(rows))) != {int}:
        return None
    try:
        return np.fromiter(
            itertools.chain.from_iterable(rows), dtype=np.int64, count=total
        )
    except (TypeError, ValueError, OverflowError):
        return None  # not all ints: the general path says what is wrong


def flatten_padded(y_pred, padding):
    if y_pred.shape[0] == 0:
        raise InvalidInputError("`y_pred` must hold at least one ranked list, got none")
    if y_pred.shape[1] == 0:  # lists of no id (from_lists says so)
        return np.empty(0, dtype=np.int64), np.zeros(y_pred.shape[0], dtype=np.intp)
    if padding is None:
        pad = np.zeros(y_pred.shape, dtype=bool)
    elif isinstance(padding, float) and np.isnan(padding):
        pad = np.isnan(y_pred) if y_pred.dtype.kind == "f" else y_pred != y_pred
    else:
        pad = y_pred == padding
    sizes = np.where(pad.any(axis=1), np.argmax(pad, axis=1), y_pred.shape[1])
    after = np.arange(y_pred.shape[1]) >= sizes[:, None]
    if not np.array_equal(pad, after):
        row = int(np.argmax((pad != after).any(axis=1)))
        raise InvalidInputError(
            f"`y_pred` row {row} has an id after the padding {padding!r}: padding "
            "must only fill the end of a shorter list"
        )
    return id_array(y_pred[~pad], "y_pred"), sizes.astype(np.intp)


def id_array(ids, name):
    arr = np.asarray(ids) if len(ids) else np.empty(0, dtype=np.int64)
    if arr.ndim != 1:
        raise InvalidInputError(
            f"`{name}` ids must be numbers or strings (hashable scalars), got "
            f"nested sequences"
        )
    if arr.dtype.kind not in "biuUSO":
        if arr.dtype.kind == "f":
            arr = _float_ids(arr, name)
        else:
            raise InvalidInputError(
                f"`{name}` ids must be ints or strings, got {describe(arr)}"
            )
    elif arr.dtype.kind in "US" and not isinstance(ids, np.ndarray):
        # numpy turns ints among strings into strings: 1 would match "1".
        if not all(isinstance(i, (str, bytes)) for i in ids):
            raise InvalidInputError(
                "item ids must be mutually comparable (all ints or all strings) "
                f"across `y_pred` and `y_true`; `{name}` mixes them"
            )
    return arr


def _float_ids(arr, name):
    # Whole numbers that int64 holds: beyond 2**63 the cast wraps round.
    whole = (np.abs(arr) < 2.0**63) & (arr == np.round(arr))
    if not whole.all():
        raise InvalidInputError(
            f"`{name}` ids must be ints or strings, got the float "
            f"{as_python(arr[np.argmax(~whole)])!r}; for a padded 2-D array pass "
            "`padding`"
        )
    return arr.astype(np.int64)
