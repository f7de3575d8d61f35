"""Curves over one ranking: interpolated precision at recall levels."""

from __future__ import annotations

import numpy as np

from skirm._engine import check_input, rank
from skirm._errors import InvalidParameterError
from skirm._params import NO_RELEVANT, RELEVANCE_THRESHOLD, OneOf, Param
from skirm.metrics._base import mean_over_queries

#: trec_eval's recall levels: 0.0, 0.1, ..., 1.0.
RECALL_LEVELS = np.arange(11) / 10.0
#: A curve needs one order of the rows: no mean over tied orderings.
CURVE_TIES = Param("ties", OneOf("first", "optimistic", "pessimistic"))


def _segment_suffix_max(values, codes):
    """Maximum of ``values`` (in [0, 1]) over each position and the later
    ones of its segment (``codes`` non-decreasing), in one pass: each segment
    is lifted above all later ones, so a running maximum from the end never
    crosses into an earlier segment."""
    lift = 2.0 * (codes[-1] - codes) if codes.shape[0] else codes
    lifted = values + lift
    return np.maximum.accumulate(lifted[::-1])[::-1] - lift


def interpolated_precision(ranking, levels, threshold=None):
    """Interpolated precision of each query at each recall level, as trec_eval 10.0.

    At level ``r`` the precision is the best precision at or below the rank
    of the ``c``-th relevant row, ``c = round(r * R)`` (half away from zero;
    the first relevant row when ``c`` is 0), and 0 when fewer than ``c``
    relevant rows are ranked. Returns ``(values, empty)`` with ``values`` of
    shape ``(n_groups, len(levels))``.
    """
    R = ranking.n_relevant(threshold)
    rows = ranking.relevant_rows(threshold)
    precision = (rows.above + 1.0) / (rows.position + 1.0)
    best = _segment_suffix_max(precision, rows.codes)
    first = np.zeros(ranking.n_groups, dtype=np.intp)
    np.cumsum(rows.counts[:-1], out=first[1:])
    c = np.maximum(np.floor(np.multiply.outer(R, levels) + 0.5), 1).astype(np.intp)
    found = c <= rows.counts[:, None]
    out = np.zeros(c.shape)
    out[found] = best[(first[:, None] + c - 1)[found]]
    return out, R == 0


def mean_interpolated_precision(
    y_true,
    y_score,
    *,
    groups=None,
    recall_levels=RECALL_LEVELS,
    sample_weight=None,
    ties="first",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """Mean over queries of the interpolated precision at each recall level.

    Returns ``(levels, means, per_query)``; ``per_query`` has one row per
    query (NaN for queries left out by ``no_relevant="skip"``).
    """
    if ties == "average":
        raise InvalidParameterError(
            "ties='average' is not available for interpolated precision: a "
            "maximum over ranks is not linear in the ordering, so tied scores "
            "have no exact averaged curve here; pass ties='first', "
            "'optimistic' or 'pessimistic'"
        )
    ties = CURVE_TIES(ties)
    no_relevant = NO_RELEVANT(no_relevant)
    relevance_threshold = RELEVANCE_THRESHOLD(relevance_threshold)
    levels = np.asarray(recall_levels, dtype=np.float64)
    if levels.ndim != 1 or levels.size == 0 or ((levels < 0) | (levels > 1)).any():
        raise InvalidParameterError(
            "`recall_levels` must be a non-empty 1-D sequence of numbers in "
            f"[0, 1], got {recall_levels!r}"
        )
    ranking = rank(
        check_input(
            y_true, y_score, groups=groups, sample_weight=sample_weight, ties=ties
        )
    )
    values, empty = interpolated_precision(ranking, levels, relevance_threshold)
    means = np.empty(levels.shape[0])
    per_query = np.empty_like(values)
    for j in range(levels.shape[0]):  # one column per recall level
        means[j], per_query[:, j] = mean_over_queries(
            values[:, j], empty, ranking, no_relevant, "interpolated precision"
        )
    return levels, means, per_query
