"""What the binary metrics share: a row is relevant or it is not.

The binary metrics are short kernels over :class:`skirm._engine.Ranking`,
each with its registry record and its public function, in two families:
counts of relevant rows in the top k (:mod:`._counts`) and the positions of
the relevant rows (:mod:`._positions`). ``hits`` (relevant rows in the top
k) and the first-relevant-row probabilities live in the ranking engine; with
``ties="average"`` they are already expectations over tied orderings, so the
kernels hold no tie logic of their own except where a metric is not linear in
them (average precision). This module holds the helpers both families use.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import prefix_sums, sum_by

BINARY = {"relevance_threshold": None}


def many(k) -> bool:
    """Whether ``k`` is an array of cutoffs (one result column per cutoff)."""
    return k is not None and bool(np.ndim(k))


def per_query(values, k):
    """A per-query array, as a column when ``k`` is an array of cutoffs."""
    return values[:, None] if many(k) else values


def relevant_sum(ranking, threshold, k, values):
    """Without ties: per-query sums of ``values`` (one per relevant row) over
    the relevant rows in the top ``k``; one column per cutoff for an array."""
    rows = ranking.relevant_rows(threshold)
    codes, position = rows.codes, rows.position
    if k is not None:
        inside = position < (int(np.max(k)) if many(k) else k)
        codes, position, values = codes[inside], position[inside], values[inside]
    if many(k):
        return prefix_sums(codes, position, values, k, ranking.n_groups)
    return sum_by(codes, values, ranking.n_groups)
