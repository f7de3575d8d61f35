"""The search of fusion weights: a bounded grid on the simplex, scored once.

The weights searched are every vector of non-negative multiples of ``step``
summing to 1 (66 vectors for three retrievers at ``step=0.1``), built on
integers, so that no vector is lost to rounding. Each is scored once; the
best is chosen per *fold* (a set of training queries) from the same
scores, so a cross-validation costs one fusion and one evaluation per
vector, whatever the number of folds. Among equal best scores the vector
nearest to equal weights wins (then the first in the grid's order): with
nothing to tell retrievers apart, fusion stays unweighted.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from skirm._errors import InvalidParameterError

__all__ = ["MAX_CANDIDATES", "best_weights", "weight_grid"]

#: The most weight vectors a search scores.
MAX_CANDIDATES = 100_000


def weight_grid(n_retrievers: int, step: float) -> np.ndarray:
    """Every vector of ``n_retrievers`` non-negative multiples of ``step``
    summing to 1, one per row (the first retriever's weight descending)."""
    parts = round(1 / step)
    n = comb(parts + n_retrievers - 1, n_retrievers - 1)
    if n > MAX_CANDIDATES:
        raise InvalidParameterError(
            f"`weight_step`={step!r} gives {n} weight vectors for {n_retrievers} "
            f"retrievers, more than {MAX_CANDIDATES}; choose a larger step"
        )
    # stars and bars: the places of the n_retrievers - 1 bars among
    # parts + n_retrievers - 1 slots
    bars = np.array(
        list(combinations(range(parts + n_retrievers - 1), n_retrievers - 1)),
        dtype=np.int64,
    ).reshape(n, n_retrievers - 1)
    edges = np.column_stack(
        [np.full(n, -1), bars, np.full(n, parts + n_retrievers - 1)]
    )
    counts = np.diff(edges, axis=1) - 1
    return counts[::-1] / parts


def best_weights(grid: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The index of the best row of ``grid`` for each column of ``scores``
    (one row per weight vector, one column per fold): the highest score,
    then the nearest to equal weights, then the first. NaN scores never
    win."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = scores[:, None]
    m = grid.shape[1]
    spread = ((grid - 1.0 / m) ** 2).sum(axis=1)
    filled = np.where(np.isnan(scores), -np.inf, scores)
    top = filled.max(axis=0)
    winners = filled == top  # ties at the top
    # among the winners, the nearest to equal weights, then the first
    penalty = np.where(winners, spread[:, None], np.inf)
    return np.argmin(penalty, axis=0)
