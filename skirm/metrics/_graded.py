"""What the graded metrics share: gains of labels, and per-cutoff columns.

The graded metrics read the labels themselves, not only whether a row is
relevant, in two families: cumulative gain, DCG and NDCG (:mod:`._dcg`) and
expected reciprocal rank (:mod:`._err`).
"""

from __future__ import annotations

import numpy as np


def gain_of(labels, gain):
    return labels if gain == "linear" else np.exp2(labels) - 1.0


def no_gain(ranking):
    """Queries whose labels are all zero: their ideal score is 0."""
    return ranking.n_relevant(None) == 0


def columns(lines, ks):
    """The columns ``k - 1`` of prefix sums ``lines`` for the cutoffs ``ks``
    (a copy; ``lines`` itself when they are all of its columns, in order)."""
    ks = np.asarray(ks)
    if (
        ks.ndim
        and ks.shape[0] == lines.shape[1]
        and np.all(ks == np.arange(1, ks.shape[0] + 1))
    ):
        return lines
    return lines.take(ks - 1, axis=1)
