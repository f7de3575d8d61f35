"""Ranks counted or searched, for a few rows of each query, without a sort.

When only a few rows of each query need a rank (the judged documents a run
retrieved, among all its rows), a rank is the number of rows of the query
scored above: :func:`count_scores` compares each such score with every
score of its query, a few MB of comparisons at a time, which costs less
than a sort of every row while the rows compared stay few per row (the
caller decides by their count). Where the rows are sorted already,
:func:`search_descending` finds each score's place by a binary search in
every query's rows at once.
"""

from __future__ import annotations

import numpy as np

from skirm.io._keys import search_descending

__all__ = ["count_scores", "ranges", "search_descending", "starts_of"]

#: Scores compared at a time when counting ranks (a few MB of temporaries).
CELLS = 1 << 16


def count_scores(scores, starts, q, s):
    """For each ``(q, s)`` (a query and a score it holds): the rows of
    query ``q`` (rows ``starts[q]:starts[q + 1]``) scored above ``s``, those
    scored ``s``, and the latter rows (each pair's in turn, in row order)."""
    lo, sizes = starts[q], starts[q + 1] - starts[q]
    n_queries = starts.shape[0] - 1
    width = int(starts[-1]) // max(n_queries, 1)
    if starts[-1] != width * n_queries or (starts[1:] - starts[:-1] != width).any():
        width = 0  # queries of several sizes
    count_type = np.uint16 if width < 1 << 16 else np.intp
    above = np.empty(q.shape[0], dtype=np.intp)
    equal = np.empty(q.shape[0], dtype=np.intp)
    eq_rows = [np.empty(0, dtype=np.intp)]
    ends = np.cumsum(sizes)
    a = 0
    while a < q.shape[0]:  # a few MB of compared scores at a time
        if width:
            b = a + max(CELLS // width, 1)
        else:
            b = max(int(np.searchsorted(ends, ends[a] - sizes[a] + CELLS)), a + 1)
        each = s[a:b]
        if width:  # queries all of one size: each pair's query is a line
            values = scores.reshape(n_queries, width)[q[a:b]]
            each = each[:, None]
            # counted as bytes into the narrowest sum that holds a line's
            # count (faster than numpy's sum of booleans into intp)
            higher = (values > each).view(np.uint8)
            above[a:b] = np.add.reduce(higher, axis=1, dtype=count_type)
            # the equal cells, line by line: one flat pass over the cells,
            # counted per line from their lines
            cell = np.flatnonzero(values == each)
            line = cell // width
            equal[a:b] = np.bincount(line, minlength=each.shape[0])
            eq_rows.append(lo[a:b][line] + cell % width)
        else:
            rows = ranges(lo[a:b], sizes[a:b])
            each = np.repeat(each, sizes[a:b])
            values = scores[rows]
            at = starts_of(sizes[a:b])[:-1]
            above[a:b] = np.add.reduceat(values > each, at, dtype=np.intp)
            same = values == each
            equal[a:b] = np.add.reduceat(same, at, dtype=np.intp)
            eq_rows.append(rows[same])
        a = b
    return above, equal, np.concatenate(eq_rows)


def starts_of(sizes):
    """Where each of the consecutive parts of ``sizes`` starts, and the end."""
    starts = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    return starts


def ranges(starts, sizes):
    """The indices ``starts[i], ..., starts[i] + sizes[i] - 1`` of every i."""
    ends = np.cumsum(sizes)
    rows = np.arange(int(ends[-1]) if ends.shape[0] else 0, dtype=np.intp)
    rows += np.repeat(starts - (ends - sizes), sizes)
    return rows
