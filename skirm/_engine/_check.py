"""Input checks: labels, scores, query ids and weights, validated once.

Public arguments enter the engine here (flat rows with per-row query labels,
or 2-D arrays with one query per row) and leave as a :class:`CheckedInput`:
the arrays the sort needs, query labels encoded as dense codes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._engine._encode import encode_grouped, merge_padded
from skirm._engine._runs import check_groups_runs
from skirm._engine._threads import share_out
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._frames import string_column_codes
from skirm._params import TIES, UNJUDGED
from skirm._validation import (
    as_numeric_array,
    check_n_jobs,
    check_sample_weight,
    check_scores,
    check_y_true,
)


class CheckedInput(NamedTuple):
    """Validated rows, ready for :func:`rank`."""

    y_true: np.ndarray
    y_score: np.ndarray
    codes: np.ndarray  # dense query code of each row
    group_ids: np.ndarray  # sorted distinct query labels
    ties: str
    tiebreak: np.ndarray | None
    sample_weight: np.ndarray | None
    missing: np.ndarray | None = None  # rows whose label was NaN (unjudged)
    unjudged: str = "raise"  # what those rows mean
    starts: np.ndarray | None = None  # first row of each query, rows grouped
    propensity: np.ndarray | None = None  # each row's observation propensity


def encode_labels(groups, n_rows, n_threads=1):
    """:func:`encode_grouped` of the checked query labels of ``n_rows`` rows,
    on ``n_threads`` threads; a pandas, polars or pyarrow column of strings
    is encoded by its own library (:func:`string_column_codes`)."""
    fast = string_column_codes(groups)
    if fast is not None and fast[0].shape[0] == n_rows:
        return merge_padded(*fast)
    return encode_grouped(*check_groups_runs(groups, n_rows), n_threads=n_threads)


def check_rows(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
    unjudged="raise",
    n_jobs=None,
    propensity=None,
) -> CheckedInput:
    """Validate the public arguments of rows once.

    Accepts flat 1-D arrays with per-row ``groups``, or 2-D arrays of shape
    (n_queries, n_docs) with ``groups=None`` (one query per row, as in
    :func:`sklearn.metrics.ndcg_score`). ``ignore_ties=True`` reproduces
    scikit-learn's option of that name: ties are broken by the order of
    ``np.argsort(y_score)[:, ::-1]`` for 2-D input, by input order for 1-D.
    With ``unjudged`` other than ``"raise"``, NaN labels mark unjudged rows
    (``missing``), read as 0 or dropped when ranked (``"condensed"``).
    ``propensity``, when given, is each row's probability of being observed
    (the propensity-scored metrics read it), of the shape of ``y_true``.
    """
    ties, unjudged = TIES(ties), UNJUDGED(unjudged)
    tiebreak = None
    encoded = None

    def labels_and_scores():
        return _unjudged_labels(y_true, unjudged), check_scores(y_score)

    if _encode_aside(y_true, y_score, groups, n_jobs):
        # Large flat arrays and a second thread: the query labels are encoded
        # while the labels and scores are checked. Errors keep their order.
        n_rows, n_threads = y_true.shape[0], check_n_jobs(n_jobs)

        def encode():
            return encode_labels(groups, n_rows, n_threads)

        tasks = (labels_and_scores, encode)
        ((y_true, missing), y_score), encoded = share_out(lambda i: tasks[i](), 2, 2)
    else:
        (y_true, missing), y_score = labels_and_scores()
    if y_true.ndim != y_score.ndim or y_true.shape != y_score.shape:
        raise InvalidInputError(
            "`y_true` and `y_score` must have the same shape, got "
            f"{y_true.shape} and {y_score.shape}"
        )
    if y_true.ndim == 2:
        if groups is not None:
            raise InvalidParameterError(
                "`groups` must be None when `y_true` and `y_score` are 2-D (each "
                f"row is a query), got 2-D arrays of shape {y_true.shape} and "
                "groups; pass flat 1-D arrays to use groups"
            )
        n_queries, n_docs = y_true.shape
        codes = np.repeat(np.arange(n_queries), n_docs)
        group_ids = np.arange(n_queries)
        starts = np.arange(n_queries + 1) * n_docs
        if ignore_ties:
            perm = np.argsort(y_score, axis=1)[:, ::-1]
            tiebreak = np.empty_like(perm)
            np.put_along_axis(
                tiebreak, perm, np.broadcast_to(np.arange(n_docs), perm.shape), 1
            )
            tiebreak = tiebreak.ravel()
        propensity = _propensities(propensity, y_true.shape)
        y_true = y_true.ravel()
        y_score = y_score.ravel()
        if sample_weight is not None:
            sw = check_sample_weight(np.ravel(sample_weight), n_queries)
            sample_weight = None if sw is None else np.repeat(sw, n_docs)
    else:
        if groups is None:
            raise InvalidParameterError(
                "`groups` is required for 1-D `y_true` and `y_score`: pass one "
                "query label per row (e.g. groups=query_ids). To score a single "
                "query, pass groups=np.zeros(len(y_true)); for one query per row "
                "of a matrix, pass 2-D arrays"
            )
        if encoded is None:
            encoded = encode_labels(groups, y_true.shape[0])
        codes, group_ids, starts = encoded
        propensity = _propensities(propensity, y_true.shape)
    sample_weight = check_sample_weight(sample_weight, y_true.shape[0])
    if ignore_ties and tiebreak is None:
        ties = "first"
    return CheckedInput(
        y_true,
        y_score,
        codes,
        group_ids,
        ties,
        tiebreak,
        sample_weight,
        missing,
        unjudged,
        starts,
        propensity,
    )


def _propensities(propensity, shape):
    """Checked propensities: one per row (the shape of ``y_true``), each a
    probability in (0, 1]; flat, or None."""
    if propensity is None:
        return None
    arr = as_numeric_array(propensity, "propensity")
    if arr.shape != shape:
        raise InvalidInputError(
            "`propensity` must hold one propensity per row, of the shape of "
            f"`y_true` {shape}, got shape {arr.shape}"
        )
    bad = ~((arr > 0) & (arr <= 1))  # NaN included
    if bad.any():
        value = arr.ravel()[int(np.argmax(bad.ravel()))]
        raise InvalidInputError(
            "`propensity` must hold probabilities in (0, 1] (each row's "
            f"chance of being observed), got {float(value)!r}"
        )
    return arr.ravel()


#: Rows from which :func:`check_rows` encodes the query labels in a second
#: thread when it has one.
_ASIDE_ROWS = 1 << 19


def _encode_aside(y_true, y_score, groups, n_jobs):
    """Whether to encode ``groups`` in a second thread: numeric 1-D arrays of
    one length, at least ``_ASIDE_ROWS`` rows, and ``n_jobs`` above 1."""
    return (
        n_jobs is not None
        and groups is not None
        and check_n_jobs(n_jobs) > 1
        and all(
            isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "biuf"
            for a in (y_true, y_score)
        )
        and y_true.shape[0] >= _ASIDE_ROWS
        and y_true.shape == y_score.shape
    )


def _unjudged_labels(y_true, unjudged):
    """Checked labels, with NaN (unjudged) read as 0, and the NaN mask or None."""
    # Integer labels stay integers (none is NaN, whatever the policy): each
    # block of rows is converted when it is ranked, instead of a float64 copy
    # of every label.
    arr = as_numeric_array(y_true, "y_true", keep_integers=True)
    if unjudged == "raise" or arr.dtype.kind != "f":
        return check_y_true(arr, keep_integers=True), None
    missing = np.isnan(arr)
    if not missing.any():
        return check_y_true(arr), None
    labels = check_y_true(np.where(missing, 0.0, arr))
    return labels, missing.ravel()
