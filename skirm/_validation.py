"""Argument checks shared by every public entry point.

Public functions call these once, at the boundary, and then work on the checked
arrays with unchecked internals. Every message names the argument, what was
expected and what was received.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import N_JOBS, as_python, describe

__all__ = [
    "as_numeric_array",
    "check_n_jobs",
    "check_sample_weight",
    "check_scores",
    "check_y_true",
    "distinct",
    "first_repeat",
    "repeated_pairs",
    "type_name",
]


def repeated_pairs(*keys):
    """``(first, second)``: every row (``second``) that repeats an earlier
    row on all ``keys`` (1-D arrays of one length), and the row before it
    with the same keys (``first < second``): three equal rows give two
    pairs, the first with the second and the second with the third.

    The keys are sorted first without an index (most columns repeat
    nothing), and only then are the rows ordered, by a stable sort."""
    n = keys[0].shape[0]
    empty = np.zeros(0, dtype=np.intp)
    if n < 2:
        return empty, empty
    if len(keys) == 1:
        (key,) = keys
        sorted_keys = np.sort(key)
        if not (sorted_keys[1:] == sorted_keys[:-1]).any():
            return empty, empty
        del sorted_keys
        order = np.argsort(key, kind="stable")  # equal keys by row
        same = key[order[1:]] == key[order[:-1]]
    else:
        order = np.lexsort(keys[::-1])  # stable: equal keys by row
        same = np.ones(n - 1, dtype=bool)
        for key in keys:
            ranked = key[order]
            same &= ranked[1:] == ranked[:-1]
    at = np.flatnonzero(same)
    return order[at], order[at + 1]


def distinct(values):
    """The sorted distinct ``values`` (a 1-D numeric array), as
    ``np.unique(values)`` gives them, by one sort: numpy 2.3 and later hash
    them instead, five to ten times slower for millions of values with many
    distinct ones."""
    values = np.sort(values)
    new = np.ones(values.shape[0], dtype=bool)
    np.not_equal(values[1:], values[:-1], out=new[1:])
    return values[new]


def first_repeat(*keys):
    """The earliest row that repeats an earlier one on all ``keys``, as
    ``(first, second)``: ``second`` the smallest such row, ``first`` the
    first row with its keys; None when no row repeats. The one duplicate
    finder: every "given twice" message names the pair it returns."""
    first, second = repeated_pairs(*keys)
    if not second.shape[0]:
        return None
    k = int(np.argmin(second))
    return int(first[k]), int(second[k])


def type_name(obj) -> str:
    """The type of ``obj`` as a message names it: a builtin's bare name
    (``dict``), any other type with its module
    (``ranx.data_structures.qrels.Qrels``; skirm's under its public package,
    ``skirm.io.Qrels``), so that classes of several libraries that share a
    name are told apart."""
    cls = type(obj)
    module = cls.__module__
    if module == "builtins":
        return cls.__qualname__
    if module.partition(".")[0] == "skirm":  # the public package's name
        module = ".".join(p for p in module.split(".") if not p.startswith("_"))
    return f"{module}.{cls.__qualname__}"


def as_numeric_array(values, name: str, *, keep_integers: bool = False) -> np.ndarray:
    """Convert ``values`` to a float64 array without modifying it (integer and
    boolean arrays kept as they are with ``keep_integers``)."""
    if values is None:
        raise InvalidInputError(f"`{name}` must be an array-like of numbers, got None")
    try:
        arr = np.asarray(values)
    except ValueError:
        lengths = sorted({len(row) for row in values if hasattr(row, "__len__")})
        raise InvalidInputError(
            f"`{name}` must be a 1-D array or a 2-D array of equal-length rows "
            f"(one row per query), got rows of lengths {lengths}; for queries "
            "of different sizes pass flat arrays with groups=<query of each row>"
        ) from None
    if keep_integers and arr.dtype.kind in "biu":
        return arr
    if arr.dtype.kind in "biuf":
        return arr.astype(np.float64, copy=False)
    if arr.dtype.kind == "O":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            pass
    raise InvalidInputError(
        f"`{name}` must be an array-like of real numbers, got {describe(arr)}"
    )


_INF_BITS = np.array(np.inf).view(np.uint64)[()]


def check_y_true(
    y_true, name: str = "y_true", *, keep_integers: bool = False
) -> np.ndarray:
    """Relevance labels: finite, non-negative, real numbers (1-D or 2-D).

    Returned as float64, or, with ``keep_integers``, integer and boolean
    arrays as they are (for a caller that converts them later, piece by
    piece, instead of holding a float64 copy of every label).
    """
    arr = as_numeric_array(y_true, name, keep_integers=keep_integers)
    if arr.ndim not in (1, 2):
        raise InvalidInputError(f"`{name}` must be 1-D or 2-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"`{name}` must not be empty, got shape {arr.shape}")
    if arr.dtype == np.float64 and arr.flags.c_contiguous:
        # One pass: as unsigned integers, the finite floats without the sign
        # bit are exactly those below the bits of +inf (-0.0 takes the
        # checks below, which accept it).
        if np.max(arr.view(np.uint64)) < _INF_BITS:
            return arr
    else:
        low, high = arr.min(), arr.max()  # two fast reductions; NaN propagates
        if low >= 0 and high < np.inf:
            return arr
    if not np.isfinite(arr).all():
        bad = as_python(arr[~np.isfinite(arr)].flat[0])
        hint = ""
        if bad != bad:
            hint = (
                "; NaN marks an unjudged row: pass unjudged='nonrelevant' or "
                "'condensed' (to the metric function, skirm.metrics.evaluate or "
                "make_ranking_scorer) to score such rows"
            )
        raise InvalidInputError(
            f"`{name}` must hold finite relevance labels, got {bad!r} "
            f"at {int(np.argmax(~np.isfinite(arr.ravel())))} (flat index){hint}"
        )
    if (arr < 0).any():
        raise InvalidInputError(
            f"`{name}` must hold non-negative relevance labels, got "
            f"{as_python(arr.min())!r} (treat unjudged rows as 0, or drop them)"
        )
    return arr


def check_scores(y_score, name: str = "y_score") -> np.ndarray:
    """Scores: real numbers, no NaN; +/-inf are allowed."""
    arr = as_numeric_array(y_score, name)
    if arr.ndim not in (1, 2):
        raise InvalidInputError(f"`{name}` must be 1-D or 2-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"`{name}` must not be empty, got shape {arr.shape}")
    if arr.dtype.kind != "f" or not np.isnan(arr.min()):  # NaN propagates
        return arr
    nan = np.isnan(arr)
    if nan.any():
        raise InvalidInputError(
            f"`{name}` must not contain NaN, got NaN at flat index "
            f"{int(np.argmax(nan.ravel()))}"
        )
    return arr


def check_n_jobs(n_jobs, name: str = "n_jobs") -> int:
    """The number of threads: -1 all CPUs, -2 all but one, ...; None is 1,
    or the ``n_jobs`` of an active ``joblib.parallel_config`` with a local
    backend (as scikit-learn reads None)."""
    if n_jobs is None:
        n_jobs = _configured_n_jobs()
        if n_jobs is None:
            return 1
    n_jobs = N_JOBS(n_jobs, name)
    if n_jobs > 0:
        return int(n_jobs)
    try:
        n_cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity
        n_cpus = os.cpu_count() or 1
    return max(n_cpus + 1 + int(n_jobs), 1)


#: joblib's backends that run in this machine's processes and threads.
_LOCAL_BACKENDS = ("LokyBackend", "ThreadingBackend", "MultiprocessingBackend")


def _configured_n_jobs():
    """The ``n_jobs`` of the active ``joblib.parallel_config`` (or
    ``parallel_backend``) when its backend is local, else None. joblib is
    read only if already imported: a configuration needs it imported. Inside
    joblib's own workers the active ``n_jobs`` is None, so no nested threads
    are started."""
    joblib = sys.modules.get("joblib")
    if joblib is None:
        return None
    try:
        backend, n_jobs = joblib.parallel.get_active_backend()
    except (AttributeError, TypeError, ValueError):  # pragma: no cover - joblib API
        return None
    if type(backend).__name__ not in _LOCAL_BACKENDS:
        return None
    return n_jobs


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray | None:
    """Per-row weights: 1-D, finite, non-negative, one per row."""
    if sample_weight is None:
        return None
    arr = as_numeric_array(sample_weight, "sample_weight")
    if arr.ndim != 1 or arr.shape[0] != n_samples:
        raise InvalidInputError(
            f"`sample_weight` must be 1-D with one weight per row (length "
            f"{n_samples}), got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidInputError(
            "`sample_weight` must hold finite, non-negative numbers"
        )
    return arr
