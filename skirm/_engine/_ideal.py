"""The ideal ordering of each query's labels, and its DCG at every position.

NDCG divides by the DCG of a query's labels sorted descending. Three ways
give the same sums, in the same order:

* small integer grades: the rows of each grade or more, counted per query
  (:func:`level_counts`), laid along one line per query
  (:func:`counted_lines`);
* other labels (fractional grades, grades past 255): each query's relevant
  labels laid along a line padded with 0 and the lines sorted
  (:func:`sorted_lines`);
* either, when the padded lines would be large: every label sorted by query
  and label (:func:`sorted_labels`), summed per query by the caller.

The lines hold labels above 0 only, so they need ``gain(0) == 0``: the cells
past a query's relevant labels then add nothing. They are stored position by
position, ``(width, n_groups)``: a query's line is a column, and the sums
along it (:func:`running_sums`) add one whole row of queries at a time.
"""

from __future__ import annotations

import numpy as np

from skirm._engine._reduce import discount_table_of

#: :func:`sorted_lines` pads the lines while they hold at most this many
#: cells per ranked row.
_MAX_SORTED_PADDING = 3

#: :func:`running_sums` adds row by row from this many queries on (fewer:
#: one ``np.cumsum``, whose per-cell cost is then below a call's).
_ROWS_FROM = 64


def running_sums(lines):
    """``lines`` (positions, queries), each row replaced in place by its sum
    with every row above it; returns ``lines``.

    ``np.cumsum(lines, axis=0)`` adds the same numbers in the same order, one
    cell at a time; a row at a time, each addition runs over every query at
    once, several times faster.
    """
    if lines.shape[1] < _ROWS_FROM or lines.shape[0] < 2:
        return np.cumsum(lines, axis=0, out=lines)
    rows = list(lines)  # the views made once
    above = rows[0]
    for row in rows[1:]:
        np.add(above, row, out=row)
        above = row
    return lines


def _is_identity(table):
    """Whether ``table[i]`` is ``float(i)``, bit for bit (``+0.0`` first)."""
    same = np.arange(table.shape[0], dtype=np.float64)
    return bool((table.view(np.uint64) == same.view(np.uint64)).all())


def level_counts(codes, labels, n_groups, n_rows):
    """Per query, the rows of label ``l`` or more for each level ``l`` from 1
    to the largest label, ``(n_groups, n_levels - 1)``, when ``labels`` (with
    their query ``codes``) are small non-negative integers; else None.
    ``n_rows`` bounds the size of the counts."""
    if labels.shape[0] == 0:
        return None
    top = labels.max()
    size = max(labels.shape[0], n_rows)
    if not top <= 255 or n_groups * (top + 1.0) > 4 * size + 4096:
        return None
    levels = labels.astype(np.uint8)
    if not (levels == labels).all():
        return None
    n_levels = int(top) + 1
    key = codes * n_levels
    key += levels
    counts = np.bincount(key, minlength=n_groups * n_levels)
    counts = counts.reshape(n_groups, n_levels)
    return counts[:, :0:-1].cumsum(axis=1)[:, ::-1]


def counted_lines(at_least, n_rows, gain, depth):
    """Per query, the ideal ordering's DCG (log2 discount) at each of its
    first positions, from the counts of :func:`level_counts`:
    ``(width, n_groups)``, row ``j`` summing positions ``0 .. j``; None
    when the matrix would be large.

    Position ``p`` of a query's line holds the number of levels with more
    than ``p`` rows at or above them, so that every step is a whole-matrix
    operation, and the sums run along each line in position order, as a
    per-query sum of the same values adds them.
    """
    n_groups, n_levels = at_least.shape
    width = int(at_least[:, 0].max()) if at_least.size else 0
    if depth is not None:
        width = min(width, int(depth))
    width = max(width, 1)
    if n_groups * width * max(n_levels, 1) > 8 * n_rows + 65536:
        return None
    # The counts, and the positions they are compared with, in the smallest
    # integers that hold the width (a count past it compares as the width),
    # one contiguous line per level: the comparisons run many cells at once.
    small = np.min_scalar_type(width)
    counts = np.minimum(at_least, width).T.astype(small, order="C")
    position = np.arange(width, dtype=small)[:, None]
    # One pass per level (at most 255 levels, counted in uint8): faster than
    # one comparison of every level at every cell and a sum.
    level = np.zeros((width, n_groups), dtype=np.uint8)
    for count in counts:
        level += count > position
    # The gain of each level, looked up: the same numbers as the gain of each
    # cell's label. A gain that is the level itself (linear) needs no look-up:
    # the product converts each level to its float exactly.
    table = gain(np.arange(n_levels + 1, dtype=np.float64))
    discount = discount_table_of(width)[:, None]
    if _is_identity(table):
        lines = np.multiply(level, discount)
    else:
        lines = table[level]
        lines *= discount
    return running_sums(lines)


def sorted_lines(rows, labels, n_groups, n_rows, gain, depth):
    """:func:`counted_lines` for any labels, from the relevant rows ``rows``
    (a ``Rows`` with ``codes``, ``above`` and ``counts``) and their
    ``labels``: each query's labels laid along its line of a matrix padded
    with 0, and the lines sorted (short sorts instead of one sort of every
    row by query and label). None when the padding would be large.
    """
    width = int(rows.counts.max()) if n_groups else 0
    if not width or n_groups * width > _MAX_SORTED_PADDING * n_rows:
        return None
    lines = np.zeros((n_groups, width))
    lines[rows.codes, rows.above] = labels
    lines.sort(axis=1)
    if depth is not None:
        width = min(width, int(depth))
    # Descending along each line; past a query's relevant labels, 0s. One
    # row per position.
    lines = np.ascontiguousarray(lines[:, : -width - 1 : -1].T)
    lines = gain(lines.reshape(-1)).reshape(width, n_groups)
    lines *= discount_table_of(width)[:, None]
    return running_sums(lines)


def sorted_labels(codes, labels, starts):
    """Every label of each query sorted descending: ``(codes, labels,
    position)``, for labels with query ``codes`` whose queries start at
    ``starts`` once grouped."""
    order = np.lexsort((-labels, codes))
    codes = codes[order]
    return codes, labels[order], np.arange(codes.shape[0]) - starts[codes]
