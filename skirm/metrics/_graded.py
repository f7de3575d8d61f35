"""What the graded metrics share: the gains of the labels.

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
