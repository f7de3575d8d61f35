"""Fusion on arrays: :func:`fuse_scores` and :func:`normalize_scores`.

The rows to fuse are a matrix with one column per retriever (NaN where the
retriever did not return the row) and the query of each row (``groups``),
as everywhere in skirm. The work is :class:`~skirm.fusion._combine.Fusion`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_groups, encode_groups
from skirm._errors import InvalidInputError
from skirm._params import as_python, checked, describe
from skirm.fusion._combine import Fusion
from skirm.fusion._rules import METHOD, NORM, PHI, RRF_K, WEIGHTS, check_weights

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import FloatArray, FusionMethod, FusionNorm

__all__ = ["check_matrix", "fuse_scores", "fusion_of", "normalize_scores"]


def check_matrix(X, name="X") -> np.ndarray:
    """Scores as a float64 matrix ``(n_rows, n_retrievers)``: NaN marks a
    row a retriever did not return; infinities are refused. ``X`` itself is
    not modified."""
    try:
        arr = np.asarray(X)
    except ValueError:
        arr = None
    if arr is None or arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        raise InvalidInputError(
            f"`{name}` must be a 2-D array of scores (one column per retriever, "
            f"NaN where it did not return the row), got {describe(X)}"
        )
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise InvalidInputError(
            f"`{name}` must be 2-D with one column per retriever, got shape {arr.shape}"
        )
    arr = arr.astype(np.float64, copy=False)
    infinite = np.isinf(arr)
    if infinite.any():
        row, column = np.argwhere(infinite)[0]
        raise InvalidInputError(
            f"`{name}` must hold finite scores (NaN where a retriever did not "
            f"return the row), got {as_python(arr[row, column])} at row {row}, "
            f"column {column}"
        )
    return arr


def fusion_of(X, groups, method, norm, k=60.0, phi=0.8, name="X"):
    """``(Fusion, query ids)`` of checked arguments."""
    X = check_matrix(X, name)
    groups = check_groups(groups, X.shape[0])
    if X.shape[0]:
        codes, ids = encode_groups(groups)
    else:  # no rows, no queries
        codes, ids = np.zeros(0, dtype=np.intp), groups[:0]

    def where(column, code):
        return f"query {as_python(ids[code])!r} of column {column}"

    fusion = Fusion(
        X, codes, ids.shape[0], method=method, norm=norm, k=k, phi=phi, where=where
    )
    return fusion, ids


@checked(method=METHOD, norm=NORM, k=RRF_K, phi=PHI, weights=WEIGHTS)
def fuse_scores(
    X: ArrayLike,
    *,
    groups: ArrayLike,
    method: FusionMethod = "rrf",
    norm: FusionNorm = "min-max",
    k: float = 60.0,
    phi: float = 0.8,
    weights: ArrayLike | None = None,
) -> FloatArray:
    """Fuse the scores of several retrievers into one score per row.

    Each row is a document of a query; each column of ``X`` a retriever's
    score of it, NaN where that retriever did not return it. Each retriever's
    scores are normalised (or ranked) per query, then combined per row over
    the retrievers that returned it (see the user guide for the formulas).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_retrievers)
        Scores; NaN where a retriever did not return the row.
    groups : array-like of shape (n_samples,)
        The query of each row.
    method : str, default="rrf"
        ``"rrf"`` (reciprocal rank fusion, ``sum(w / (k + rank))``),
        ``"isr"`` (inverse square rank), ``"borda"`` (Borda count),
        ``"rbc"`` (rank-biased centroid), which read each retriever's order;
        or ``"combsum"`` (a weighted sum with ``weights``), ``"combmnz"``,
        ``"combmax"``, ``"combmin"``, ``"combanz"``, which read the
        normalised scores.
    norm : str, default="min-max"
        The per-query normalisation of the score methods: ``"min-max"``,
        ``"max"``, ``"sum"``, ``"zscore"``, ``"rank"``, ``"borda"`` or
        ``"none"``. The rank methods do not read it.
    k : float, default=60.0
        Reciprocal rank fusion's constant (ranks start at 1).
    phi : float, default=0.8
        Rank-biased centroid's persistence, in (0, 1).
    weights : array-like of shape (n_retrievers,), default=None
        Each retriever's weight (non-negative, at least one positive): its
        contribution is multiplied by it; a weight of 0 leaves the retriever
        out. None weighs each 1.

    Returns
    -------
    fused : ndarray of shape (n_samples,)
        The fused score of each row, in the order of ``X``; ``-inf`` for a
        row no retriever (of positive weight) returned.

    See Also
    --------
    normalize_scores : The normalisations alone.
    skirm.ranker.FusionRanker : The same fusion as an estimator, with weights
        learnt on a metric.
    skirm.trec.fuse : The same fusion of TREC runs.

    Notes
    -----
    Ranks are 1-based; documents a retriever scores equally share the mean of
    the values their ranks would get (the expected value over every order
    of the tie), so the fused scores do not depend on the order of the rows.

    Examples
    --------
    Two retrievers, one query of three documents; the second retriever did
    not return the last one:

    >>> import numpy as np
    >>> from skirm.fusion import fuse_scores
    >>> X = np.array([[3.0, 0.9], [2.0, 0.8], [1.0, np.nan]])
    >>> fuse_scores(X, groups=[0, 0, 0], k=0).tolist()
    [2.0, 1.0, 0.3333333333333333]

    A tie shares its ranks: the first retriever gives the two top documents
    ``(1/1 + 1/2) / 2`` each.

    >>> X = np.array([[5.0, 1.0], [5.0, 2.0], [1.0, 3.0]])
    >>> fuse_scores(X, groups=[0, 0, 0], k=0).tolist()
    [1.0833333333333333, 1.25, 1.3333333333333333]

    Scores normalised per query, then summed with weights:

    >>> fuse_scores(X, groups=[0, 0, 0], method="combsum", weights=[2, 1]).tolist()
    [2.0, 2.5, 1.0]
    """
    fusion, _ = fusion_of(X, groups, method, norm, k, phi)
    return fusion.fuse(check_weights(weights, fusion.n_retrievers))


@checked(norm=NORM)
def normalize_scores(
    X: ArrayLike,
    *,
    groups: ArrayLike,
    norm: FusionNorm = "min-max",
) -> FloatArray:
    """Normalise each retriever's scores per query.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_retrievers)
        Scores; NaN where a retriever did not return the row.
    groups : array-like of shape (n_samples,)
        The query of each row.
    norm : str, default="min-max"
        ``"min-max"``: ``(s - min) / (max - min)``, 1 when all are equal;
        ``"max"``: ``s / max`` (the largest must be positive);
        ``"sum"``: ``(s - min) / sum(s - min)``, ``1 / n`` when all are equal;
        ``"zscore"``: ``(s - mean) / std``, 0 when all are equal;
        ``"rank"``: ``1 - (rank - 1) / n``;
        ``"borda"``: ``1 - (rank - 1) / N``, and ``0.5 - (n - 1) / (2 N)``
        for a candidate (a row another retriever returned) this one did not
        return; ``"none"``: the scores. ``n`` is the number of rows the
        retriever returned for the query, ``N`` the query's candidates.

    Returns
    -------
    normalized : ndarray of shape (n_samples, n_retrievers)
        NaN where the retriever did not return the row (except for
        ``"borda"``, which gives every candidate a value).

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.fusion import normalize_scores
    >>> X = np.array([[4.0, 10.0], [2.0, np.nan], [0.0, 30.0]])
    >>> normalize_scores(X, groups=[0, 0, 0])
    array([[1. , 0. ],
           [0.5, nan],
           [0. , 1. ]])
    >>> normalize_scores(X, groups=[0, 0, 0], norm="borda")
    array([[1.        , 0.66666667],
           [0.66666667, 0.33333333],
           [0.33333333, 1.        ]])
    """
    fusion, _ = fusion_of(X, groups, "combsum", norm)
    support = tuple(range(fusion.n_retrievers))
    return np.column_stack([fusion.contribution(j, support) for j in support])
