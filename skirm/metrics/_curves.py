"""Curves over one ranking: interpolated precision at recall levels, and the
recall reached at a fixed precision."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_input, rank
from skirm._errors import InvalidParameterError
from skirm._params import (
    BOOLEAN,
    NO_RELEVANT,
    NONE,
    RELEVANCE_THRESHOLD,
    Interval,
    OneOf,
    Param,
    checked,
)
from skirm.metrics._spec import mean_over_queries

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties
    from skirm.metrics._label_types import Labels

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


#: The precision a recall must come with (torchmetrics' ``min_precision``).
MIN_PRECISION = Param("min_precision", Interval(float, 0, 1))
MAX_K = Param("max_k", Interval(int, 1, closed="left"), NONE)
ADAPTIVE_K = Param("adaptive_k", BOOLEAN)


@checked(
    min_precision=MIN_PRECISION,
    max_k=MAX_K,
    adaptive_k=ADAPTIVE_K,
    no_relevant=NO_RELEVANT,
    relevance_threshold=RELEVANCE_THRESHOLD,
)
def recall_at_fixed_precision(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    min_precision: float = 0.0,
    max_k: int | None = None,
    adaptive_k: bool = False,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    relevance_threshold: float | None = None,
) -> tuple[float, int]:
    """The largest mean recall@k whose mean precision@k reaches a floor.

    The curves of the mean over queries of precision@k and recall@k, for
    ``k`` from 1 to ``max_k``, give the largest recall whose precision is at
    least ``min_precision``, and its ``k`` (the largest ``k`` of that
    recall): torchmetrics' ``RetrievalRecallAtFixedPrecision``. It is a
    maximum over cutoffs of means over queries, not a mean of per-query
    values, so it is a function of its own rather than a metric of
    :func:`evaluate`. Precision@k divides by ``k`` (by ``min(k, rows)``
    with ``adaptive_k``); with ``ties="average"`` both curves are the
    expected ones over the orderings of tied rows.

    Parameters
    ----------
    y_true, y_score, groups, sample_weight, ties, relevance_threshold
        As in :func:`precision_at_k_score`.
    min_precision : float in [0, 1], default=0.0
        The floor on the mean precision@k.
    max_k : int, default=None
        The deepest cutoff; None is the longest query.
    adaptive_k : bool, default=False
        Divide precision@k by ``min(k, rows of the query)``.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        Both curves' value for a query without relevant rows (torchmetrics'
        ``empty_target_action``: ``"neg"`` is 0, ``"pos"`` 1, ``"skip"``).

    Returns
    -------
    recall : float
        The largest mean recall whose mean precision reaches
        ``min_precision`` (0 when none does).
    k : int
        Its cutoff (``max_k``, or the longest query, when the recall is 0).

    Examples
    --------
    >>> from skirm.metrics import recall_at_fixed_precision
    >>> y_true = [1, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    >>> recall_at_fixed_precision(y_true, y_score, groups=[0] * 6,
    ...                           min_precision=0.6)
    (0.6666..., 3)
    """
    ranking = rank(
        check_input(
            y_true, y_score, groups=groups, sample_weight=sample_weight, ties=ties
        )
    )
    depth = ranking.max_size if max_k is None else max_k
    cutoffs = np.arange(1, depth + 1)
    hits = ranking.group_sum(ranking.expected_relevance(relevance_threshold), cutoffs)
    R = ranking.n_relevant(relevance_threshold)
    shown = np.minimum(ranking.sizes[:, None], cutoffs) if adaptive_k else cutoffs
    empty = R == 0
    curves = []
    for values in (hits / shown, hits / np.maximum(R, 1.0)[:, None]):
        means = np.empty(depth)
        for j in range(depth):  # one mean per cutoff
            means[j] = mean_over_queries(
                values[:, j], empty, ranking, no_relevant, "recall at fixed precision"
            )[0]
        curves.append(means)
    precision, recall = curves
    found = np.flatnonzero(precision >= min_precision)
    if found.shape[0] == 0:
        return 0.0, int(depth)
    best = float(recall[found].max())
    if best == 0.0:
        return 0.0, int(depth)
    k = int(cutoffs[found[recall[found] == best].max()])
    return best, k
