"""The fusion methods and normalisations, and the rules of their parameters.

Every fusion in skirm is two steps on each retriever's scores of one query:
a *contribution* per document (a normalised score, or a value of its rank),
then a *combination* of the contributions of the retrievers that returned
the document. The tables here name the methods of each kind; the rules are
declared once and checked by every door (arrays, the estimator, runs, the
command line).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._params import NONE, Interval, OneOf, Param, Satisfies

__all__ = [
    "METHOD",
    "METHODS",
    "NORM",
    "NORMS",
    "PHI",
    "RANK_METHODS",
    "RRF_K",
    "SCORE_METHODS",
    "WEIGHTS",
    "WEIGHT_STEP",
    "WEIGHT_VALUES",
    "check_weights",
]

#: Methods that combine (normalised) scores: CombSUM (a weighted sum with
#: ``weights``), CombMNZ, CombMAX, CombMIN, CombANZ.
SCORE_METHODS = ("combsum", "combmnz", "combmax", "combmin", "combanz")
#: Methods that read only each retriever's order: reciprocal rank fusion,
#: inverse square rank, Borda count, rank-biased centroid.
RANK_METHODS = ("rrf", "isr", "borda", "rbc")
METHODS = (*RANK_METHODS, *SCORE_METHODS)
#: Per-query normalisations of each retriever's scores.
NORMS = ("min-max", "max", "sum", "zscore", "rank", "borda", "none")

METHOD = Param("method", OneOf(*METHODS), option="--method")
NORM = Param("norm", OneOf(*NORMS), option="--norm")
#: Reciprocal rank fusion's constant: ``1 / (k + rank)``, ranks from 1.
RRF_K = Param("k", Interval(float, 0), option="--k")
#: Rank-biased centroid's persistence: ``(1 - phi) * phi ** (rank - 1)``.
PHI = Param("phi", Interval(float, 0, 1, closed="neither"), option="--phi")


def _weights_like(value) -> bool:
    if isinstance(value, (str, bytes)) or value is None:
        return False
    arr = np.asarray(value)
    if arr.ndim != 1 or arr.shape[0] == 0 or arr.dtype.kind not in "biuf":
        return False
    if arr.dtype.kind == "b":
        return False
    return bool(np.isfinite(arr).all() and (arr >= 0).all() and (arr > 0).any())


#: Weights given as numbers, one per retriever.
WEIGHT_VALUES = Satisfies(
    _weights_like,
    "a 1-D array-like of non-negative finite numbers, at least one positive",
    rejected=("heavy", [-1.0, 2.0], [0.0, 0.0], [[1.0]], []),
)
#: The weight of each retriever (None: 1 each).
WEIGHTS = Param("weights", NONE, WEIGHT_VALUES, option="--weights")


def _step_like(value) -> bool:
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        return False
    step = float(value)
    if not (math.isfinite(step) and 0 < step <= 1):
        return False
    return abs(round(1 / step) * step - 1) < 1e-9


#: The spacing of the weights searched: each weight a multiple of it.
WEIGHT_STEP = Param(
    "weight_step",
    Satisfies(
        _step_like,
        "a number in (0, 1] whose inverse is a whole number (0.1, 0.05, 0.25)",
        rejected=(0.0, 0.3, 1.5, "a tenth", True),
    ),
    option="--weight-step",
)


def check_weights(weights, n_retrievers: int) -> np.ndarray:
    """``weights`` checked (:data:`WEIGHTS`) as a float array with one weight
    per retriever (ones for None)."""
    weights = WEIGHTS(weights)
    if weights is None:
        return np.ones(n_retrievers)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape[0] != n_retrievers:
        raise InvalidParameterError(
            f"`weights` must hold one weight per retriever ({n_retrievers}), got "
            f"{weights.shape[0]}"
        )
    return weights
