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

from skirm.io._keys import ranges, search_descending

__all__ = ["count_scores", "ranges", "scored_rows", "search_descending", "starts_of"]

#: Scores compared at a time when counting ranks (a few MB of temporaries).
CELLS = 1 << 16


def count_scores(scores, starts, q, s):
    """For each ``(q, s)`` (a query and a score it holds): the rows of
    query ``q`` (rows ``starts[q]:starts[q + 1]``) scored above ``s``, and
    those scored ``s`` (:func:`scored_rows` gives the latter rows)."""
    above = np.empty(q.shape[0], dtype=np.intp)
    equal = np.empty(q.shape[0], dtype=np.intp)
    for a, b, values, each, rows in _compared(scores, starts, q, s):
        if rows is None:  # each pair's query is a line
            above[a:b] = _line_counts(values > each)
            equal[a:b] = _line_counts(values == each)
        else:
            at = starts_of(starts[q[a:b] + 1] - starts[q[a:b]])[:-1]
            above[a:b] = np.add.reduceat(values > each, at, dtype=np.intp)
            equal[a:b] = np.add.reduceat(values == each, at, dtype=np.intp)
    return above, equal


def _line_counts(cells):
    """The true cells of each line of a boolean matrix, counted as bytes
    into the narrowest sum that holds a line's count (faster than numpy's
    sum of booleans into intp): lines shorter than 256 cells by ``einsum``
    in bytes (measured: 7.7 us for 655 lines of 100, against 16 us for
    ``np.add.reduce`` into uint16)."""
    width = cells.shape[1]
    cells = cells.view(np.uint8)
    if width < 1 << 8:
        return np.einsum("ij->i", cells)
    count_type = np.uint16 if width < 1 << 16 else np.intp
    return np.add.reduce(cells, axis=1, dtype=count_type)


def scored_rows(scores, starts, q, s):
    """The rows of query ``q`` scored ``s``, for each ``(q, s)`` in turn,
    in row order (as many as :func:`count_scores` counts)."""
    found = [np.empty(0, dtype=np.intp)]
    for a, b, values, each, rows in _compared(scores, starts, q, s):
        if rows is None:
            # the equal cells, line by line: one flat pass over the cells
            width = values.shape[1]
            cell = np.flatnonzero(values == each)
            found.append(starts[q[a:b]][cell // width] + cell % width)
        else:
            found.append(rows[values == each])
    return np.concatenate(found)


def _compared(scores, starts, q, s):
    """``(a, b, values, each, rows)`` for consecutive pairs ``a:b``, a few
    MB of compared scores at a time: their queries' scores as lines of a
    matrix (``rows`` None) and their scores as a column, where the queries
    fit lines (:func:`_lines`); else their queries' rows one after another
    (``rows``, their scores ``values``) and each pair's score repeated."""
    sizes = starts[q + 1] - starts[q]
    lines, width = _lines(scores, starts)
    ends = np.cumsum(sizes)
    a = 0
    while a < q.shape[0]:
        if width:
            b = a + max(CELLS // width, 1)
            yield a, b, lines[q[a:b]], s[a:b, None], None
        else:
            b = max(int(np.searchsorted(ends, ends[a] - sizes[a] + CELLS)), a + 1)
            rows = ranges(starts[q[a:b]], sizes[a:b])
            yield a, b, scores[rows], np.repeat(s[a:b], sizes[a:b]), rows
        a = b


#: Queries of several sizes are laid along the lines of a matrix as wide as
#: the longest (padded with NaN, which compares neither above nor equal to
#: any score) when it holds at most this many times the rows. Measured on
#: 10 pairs per query: 10,000 queries of 100 rows, a tenth of them shorter,
#: 40 -> 30 ms; 1,000 queries of 500 to 1,000 rows, 27 -> 20 ms; queries of
#: 50 to 150 rows (1.5 times), the same time either way; of 1 to 100 rows
#: (twice), 25 -> 28 ms.
PADDED = 1.4


def _lines(scores, starts):
    """``(lines, width)``: the queries' scores (query ``c`` at rows
    ``starts[c]:starts[c + 1]``) as the lines of a matrix ``width`` wide, the
    longest query's size; ``(None, 0)`` where that matrix would hold more
    than :data:`PADDED` times the rows (or scores that are not floats)."""
    n_queries, n = starts.shape[0] - 1, int(starts[-1])
    sizes = starts[1:] - starts[:-1]
    width = int(sizes.max()) if n_queries else 0
    if not width:
        return None, 0
    if width * n_queries == n:  # every query of one size: no padding
        return scores.reshape(n_queries, width), width
    if width * n_queries > PADDED * n or scores.dtype.kind != "f":
        return None, 0
    lines = np.full((n_queries, width), np.nan, dtype=scores.dtype)
    # query c's rows at the first cells of line c
    line_starts = np.arange(n_queries, dtype=np.intp) * width
    lines.reshape(-1)[ranges(line_starts, sizes)] = scores
    return lines, width


def starts_of(sizes):
    """Where each of the consecutive parts of ``sizes`` starts, and the end."""
    starts = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    return starts
