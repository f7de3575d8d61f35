"""Contributions of each retriever, and their combination for any weights.

A :class:`Fusion` holds the rows to fuse (a score per row and retriever,
NaN where the retriever did not return the row) and each row's query code.
It sorts each retriever's column once (:class:`~skirm.fusion._ranks.Column`)
and computes each retriever's *contribution* to a row once: its normalised
score for the score methods, a value of its rank for the rank methods. Then
:meth:`Fusion.fuse` combines them for any weights, which is all a search
over weights repeats.

The combinations, over the retrievers of positive weight that returned the
row (``w`` its weight, ``c`` its contribution, ``n`` their number):

=========  ==================================================
rrf        ``sum(w / (k + rank))``
isr        ``n * sum(w / rank ** 2)``
borda      ``sum(w * (N - rank + 1))``; a candidate a retriever
           did not return gets ``(N - n_r + 1) / 2`` from it
rbc        ``sum(w * (1 - phi) * phi ** (rank - 1))``
combsum    ``sum(w * c)``
combmnz    ``n * sum(w * c)``
combanz    ``sum(w * c) / n``
combmax    ``max(w * c)``
combmin    ``min(w * c)``
=========  ==================================================

A retriever of weight 0 is left out, as if it had returned nothing; a row
no retriever (of positive weight) returned gets ``-inf``: it ranks below
every row that was returned.
"""

from __future__ import annotations

import numpy as np

from skirm.fusion._normalize import borda_missing, rank_values, score_values
from skirm.fusion._ranks import Column
from skirm.fusion._rules import RANK_METHODS

__all__ = ["Fusion"]

#: The rank value each rank method reads.
_RANK_KIND = {"rrf": "rrf", "isr": "isr", "borda": "borda-points", "rbc": "rbc"}
#: Methods that multiply the sum by the number of retrievers of a row.
_TIMES_COUNT = ("combmnz", "isr")


class Fusion:
    """The rows to fuse, sorted once per retriever.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_retrievers)
        Scores, NaN where a retriever did not return the row.
    codes : ndarray of shape (n_rows,)
        Dense query codes ``0 .. n_queries - 1``.
    n_queries : int
    method, norm : str
        Checked names (:data:`~skirm.fusion._rules.METHODS`,
        :data:`~skirm.fusion._rules.NORMS`); ``norm`` is not read by the rank
        methods, which read each retriever's order only.
    k, phi : float
        Reciprocal rank fusion's constant, rank-biased centroid's
        persistence.
    where : callable, default=None
        ``where(column, query_code)`` names a retriever's query in errors.
    """

    def __init__(
        self, X, codes, n_queries, *, method, norm, k=60.0, phi=0.8, where=None
    ):
        self.X, self.codes, self.n_queries = X, codes, n_queries
        self.method, self.k, self.phi = method, k, phi
        self.norm = "rank-method" if method in RANK_METHODS else norm
        self.present = ~np.isnan(X)
        self._where = where
        self._columns = {}
        self._values = {}
        self._candidates = {}

    @property
    def n_retrievers(self) -> int:
        return self.X.shape[1]

    def _column(self, j):
        if j not in self._columns:
            self._columns[j] = Column(self.X[:, j], self.codes, self.n_queries)
        return self._columns[j]

    def _uses_candidates(self):
        """Whether a retriever's contributions depend on the others' (the
        candidates of Borda's count)."""
        return self.method == "borda" or self.norm == "borda"

    def candidates(self, support):
        """``(rows, N)``: whether any retriever of ``support`` returned each
        row, and the number of such rows of each query."""
        if support not in self._candidates:
            rows = self.present[:, list(support)].any(axis=1)
            count = np.bincount(self.codes[rows], minlength=self.n_queries)
            self._candidates[support] = rows, count
        return self._candidates[support]

    def _sorted_values(self, j, candidates):
        column = self._column(j)
        if self.method in RANK_METHODS:
            kind = _RANK_KIND[self.method]
            return rank_values(
                column, kind, k=self.k, phi=self.phi, candidates=candidates
            )
        if self.norm in ("rank", "borda"):
            return rank_values(column, self.norm, candidates=candidates)
        where = None
        if self._where is not None:
            where = lambda code: self._where(j, code)  # noqa: E731
        return score_values(column, self.norm, where)

    def contribution(self, j, support):
        """Retriever ``j``'s contribution to every row (NaN where it adds
        nothing), among the retrievers ``support``."""
        key = (j, support) if self._uses_candidates() else j
        if key in self._values:
            return self._values[key]
        candidates = rows = None
        if self._uses_candidates():
            rows, candidates = self.candidates(support)
        column = self._column(j)
        out = np.full(self.X.shape[0], np.nan)
        out[column.rows] = self._sorted_values(j, candidates)
        if rows is not None:  # Borda: every candidate gets a value
            missing = np.flatnonzero(rows & ~self.present[:, j])
            returned = np.zeros(self.n_queries, dtype=np.int64)
            returned[column.queries] = column.sizes
            q = self.codes[missing]
            out[missing] = borda_missing(
                returned[q], candidates[q], points=self.method == "borda"
            )
        self._values[key] = out
        return out

    def fuse(self, weights) -> np.ndarray:
        """The fused score of every row for ``weights`` (one per retriever,
        non-negative, at least one positive)."""
        weights = np.asarray(weights, dtype=np.float64)
        support = tuple(int(j) for j in np.flatnonzero(weights > 0))
        parts = [(self.contribution(j, support), weights[j]) for j in support]
        n = self.X.shape[0]
        count = np.zeros(n, dtype=np.int64)
        if self.method in ("combmax", "combmin"):
            fill = -np.inf if self.method == "combmax" else np.inf
            pick = np.maximum if self.method == "combmax" else np.minimum
            fused = np.full(n, fill)
            for values, w in parts:
                returned = ~np.isnan(values)
                count += returned
                fused = np.where(returned, pick(fused, values * w), fused)
        else:
            fused = np.zeros(n)
            for values, w in parts:
                returned = ~np.isnan(values)
                count += returned
                fused += np.where(returned, values * w, 0.0)
            if self.method in _TIMES_COUNT:
                fused *= count
            elif self.method == "combanz":
                fused /= np.maximum(count, 1)
        fused[count == 0] = -np.inf
        return fused
