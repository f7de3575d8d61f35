"""One retriever's scores, sorted once: by query, then score descending.

Every contribution a fusion reads of a retriever (its per-query minimum,
maximum, mean, the rank of each document) comes from one sort of that
retriever's column of scores: the rows it returned (its scores are not
NaN), ordered by query code, then by score, highest first, by the engine's
grouped sort (:func:`skirm._engine.rank_order`). A query's rows are then a
segment of the sorted column, and equal scores a *tie block* inside it. No
Python loop runs over queries: segments and blocks are found by comparing
neighbours, and reduced with ``np.add.reduceat``.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import rank_order

__all__ = ["Column"]


class Column:
    """The rows one retriever returned, sorted by query, then score
    descending.

    Parameters
    ----------
    scores : ndarray of shape (n_rows,)
        The retriever's score of each row, NaN where it did not return it.
    codes : ndarray of shape (n_rows,)
        The query code of each row, ``0 .. n_queries - 1``.
    n_queries : int

    Attributes
    ----------
    rows : ndarray
        The rows returned, in sorted order (indices into ``scores``).
    scores : ndarray
        Their scores, in the same order.
    segment : ndarray
        The query segment of each sorted row (0, 1, ... in code order).
    starts, sizes : ndarray
        Where each segment starts in the sorted rows, and its size: the
        number of documents the retriever returned for that query.
    queries : ndarray
        The query code of each segment.
    position : ndarray
        The 0-based position of each sorted row within its query.
    """

    def __init__(self, scores: np.ndarray, codes: np.ndarray, n_queries: int) -> None:
        rows = np.flatnonzero(~np.isnan(scores))
        if rows.shape[0]:
            ordered = rank_order(scores[rows], codes[rows], n_queries)
            self.rows, self.scores = rows[ordered.order], ordered.scores
            c = ordered.codes
        else:  # the retriever returned nothing
            self.rows, self.scores, c = rows, scores[rows], codes[rows]
        n = self.rows.shape[0]
        new_query = np.ones(n, dtype=bool)
        new_query[1:] = c[1:] != c[:-1]
        self.starts = np.flatnonzero(new_query)
        self.sizes = np.diff(np.append(self.starts, n))
        # (in place: each array of the rows is allocated once)
        self.segment = np.cumsum(new_query)
        self.segment -= 1
        self.queries = c[self.starts]
        self.position = np.arange(n)
        self.position -= self.starts[self.segment]
        new_block = new_query
        new_block[1:] |= self.scores[1:] != self.scores[:-1]
        self._new_block = new_block
        self.tied = not bool(new_block.all())
        self._blocks = None

    def _tie_blocks(self):
        """``(starts, block, sizes)``: where each tie block starts, each
        sorted row's block, each block's size; found when first asked for
        (only where some scores tie)."""
        if self._blocks is None:
            new_block = self._new_block
            starts = np.flatnonzero(new_block)
            block = np.cumsum(new_block)
            block -= 1
            sizes = np.diff(np.append(starts, new_block.shape[0]))
            self._blocks = starts, block, sizes
        return self._blocks

    def per_row(self, values: np.ndarray) -> np.ndarray:
        """A value per segment, given to each of its sorted rows."""
        return values[self.segment]

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """The sum of ``values`` (one per sorted row) over each segment."""
        if values.shape[0] == 0:
            return values[:0]
        return np.add.reduceat(values, self.starts)

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """``values`` (a function of each sorted row's position) averaged
        over each tie block: the expected value over every order of the tied
        documents. Rows without a tie keep their value unchanged."""
        if not self.tied:
            return values
        starts, block, sizes = self._tie_blocks()
        sums = np.add.reduceat(values, starts)
        return (sums / sizes)[block]

    def mean_position(self) -> np.ndarray:
        """Each sorted row's 0-based position, averaged over its tie block."""
        return self.tie_mean(self.position.astype(np.float64))
