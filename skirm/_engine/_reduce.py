"""Per-query reductions: sums by query, padded-line sums, discount tables.

The reductions the ranking object and the metric kernels share. Sums over a
query run along one line of a padded matrix when several cutoffs are asked,
so that each column adds the same values in the same order as a single
cutoff's sum (no rounding carried from other queries).
"""

from __future__ import annotations

import math

import numpy as np


def safe_divide(num, den):
    """``num / den``, 0 where ``den`` is not positive (broadcast)."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def at_cutoffs(sums, k, axis=0):
    """Per query, running sums at the cutoff ``k``: ``(n_queries,)``, or at
    each cutoff of an array ``k``, ``(n_queries, n_cutoffs)``.

    ``sums`` holds the sums of every position along ``axis`` (the queries
    along the other). With ``axis=0`` the cutoffs' values come as a
    transposed view (each cutoff's line contiguous); when the cutoffs are
    every position in order, ``sums`` itself (or its transpose) comes back:
    no copy.
    """
    ks = np.asarray(k)
    every = bool(
        ks.ndim
        and ks.shape[0] == sums.shape[axis]
        and (ks == np.arange(1, ks.shape[0] + 1)).all()
    )
    if axis == 1:
        return sums if every else sums.take(ks - 1, axis=1)
    if not ks.ndim:
        return sums[int(k) - 1].copy()  # not a view that keeps every row
    return sums.T if every else sums.take(ks - 1, axis=0).T


def sum_by(codes, weights, n):
    """Per-code sums of ``weights`` over ``n`` codes, always float64 (numpy's
    weighted ``bincount`` of no codes at all is int64)."""
    return np.bincount(codes, weights=weights, minlength=n).astype(
        np.float64, copy=False
    )


def prefix_sums(codes, position, values, ks, n_groups) -> np.ndarray:
    """Per-query sums of ``values`` over positions ``< k``, for each ``k`` of ``ks``.

    ``codes`` and ``position`` place each value (sorted by query, then
    position, every position below ``max(ks)``; positions may skip, as for
    the relevant rows only). Returns ``(n_groups, len(ks))``. Each query's
    sums run along a line of a padded matrix from its first position, in the
    order a per-cutoff ``bincount`` adds them, so each column equals the
    single-cutoff sum, with no rounding carried from other queries. The
    matrix is built for blocks of queries, so it stays within a few times
    the size of ``values``.
    """
    ks = np.asarray(ks, dtype=np.intp)
    # Columns past the last position present repeat the whole sum: the lines
    # stop there (short queries at cutoffs up to 1,000 stay narrow).
    last = int(position.max()) + 1 if position.shape[0] else 0
    if int(ks.max()) > last:
        ks = np.minimum(ks, last)
    width = int(ks.max()) + 1
    if 8 * values.shape[0] < n_groups * width:  # a few values per line
        return _sparse_prefix_sums(codes, position, values, ks, n_groups)
    block = max(1, (4 * values.shape[0] + 65536) // width)
    if block >= n_groups:  # one padded matrix: no copy of its columns
        return prefix_lines(codes, position, values, n_groups, width)[:, ks]
    out = np.empty((n_groups, ks.shape[0]))
    bounds = np.searchsorted(codes, np.arange(0, n_groups + block, block))
    for first in range(0, n_groups, block):  # one block of queries at a time
        last = min(first + block, n_groups)
        lo, hi = bounds[first // block], bounds[first // block + 1]
        lines = prefix_lines(
            codes[lo:hi] - first, position[lo:hi], values[lo:hi], last - first, width
        )
        out[first:last] = lines[:, ks]
    return out


def _sparse_prefix_sums(codes, position, values, ks, n_groups):
    """:func:`prefix_sums` without the padded matrix: each query's running
    sums of its values alone, read at the last position below each ``k``.
    A line of the matrix adds its zeros too, which change no sum but a
    leading ``-0.0``: ``+ 0.0`` turns it to ``0.0`` as the line's first
    addition does; the sums are the line's, bit for bit."""
    starts = np.searchsorted(codes, np.arange(n_groups + 1))
    sums = segment_cumsum(values + 0.0, starts)
    # The last value of query g below k: one search of every (g, k) key.
    width = int(position.max()) + 2 if position.shape[0] else 1
    keys = codes * width + position
    wanted = np.arange(n_groups)[:, None] * width + np.minimum(ks, width - 1)
    last = np.searchsorted(keys, wanted) - 1
    inside = last >= starts[:-1, None]  # a value of query g below k
    out = np.zeros(wanted.shape)
    out[inside] = sums[last[inside]]
    return out


def segment_cumsum(values, starts, exclusive=False):
    """Cumulative sums of ``values`` within the segments
    ``values[starts[i]:starts[i + 1]]`` (``starts`` ascending, ``len(values)``
    last), each added in order from its first value, as a loop over one
    segment adds them: nothing is carried from other segments, so a
    segment's sums do not depend on the values before it. ``exclusive``:
    the sum of the values before each one in its segment (0 first).

    Integers are one running sum (:func:`exact_sums`); many short segments
    are added column by column (:data:`COLUMNS`); others are laid along the
    lines of padded matrices, one per power-of-two width (so at most twice
    the values), and summed along each line.
    """
    n = values.shape[0]
    out = np.empty(n, dtype=np.result_type(values, np.int64))
    sizes = np.diff(starts)
    shift = 1 if exclusive else 0
    if n and n == sizes.shape[0] * int(sizes.max()):
        # every segment of one size (a run of 1,000 documents per query):
        # the segments are the lines of one matrix, without padding
        return uniform_cumsum(values, sizes.shape[0], exclusive, out.dtype)
    if exact_sums(values, out.dtype):
        # every partial sum exact whatever the order of the additions (the
        # counts of P@k and recall@k): one running sum of every value, less
        # the sum before each segment
        running = np.zeros(n + 1, dtype=out.dtype)
        np.cumsum(values, dtype=out.dtype, out=running[1:])
        before = np.repeat(running[starts[:-1]], sizes)
        return np.subtract(running[:-1] if exclusive else running[1:], before)
    if int(sizes.max()) * COLUMNS <= n:  # many short segments
        return _column_cumsum(values.astype(out.dtype, copy=False), starts, exclusive)
    # the smallest power of two that holds a segment (and an exclusive
    # sum's leading 0): 2 ** bits
    bits = np.frexp(np.maximum(sizes + (shift - 1), 0).astype(np.float64))[1]
    seg = np.repeat(np.arange(sizes.shape[0]), sizes)
    position = np.arange(n) - np.repeat(starts[:-1], sizes)
    row_bits = bits[seg].astype(np.uint8)
    order = np.argsort(row_bits, kind="stable")  # rows by width, in order
    edges = np.zeros(row_bits.shape[0] and int(row_bits.max()) + 2, dtype=np.intp)
    np.cumsum(np.bincount(row_bits), out=edges[1:])
    for b in np.flatnonzero(np.diff(edges)):
        rows = order[edges[b] : edges[b + 1]]
        at = position[rows]
        line = np.cumsum(at == 0) - 1  # the segment's line in the matrix
        width = 1 << int(b)
        flat = line * width + at + shift
        lines = np.zeros(int(line[-1] + 1) * width, dtype=out.dtype)
        lines[flat] = values[rows]
        lines.reshape(-1, width).cumsum(axis=1, out=lines.reshape(-1, width))
        out[rows] = lines[flat - shift]
    return out


#: :func:`segment_cumsum` adds the segments column by column when the
#: longest holds at most the values over this. (Measured on float values:
#: 10,000 segments of 0 to 10 values, 1.7-1.9 -> 0.4-0.7 ms; of 50 to 150,
#: 37 -> 8 ms; 100,000 of 1 to 5, 13-14 -> 5 ms; a segment of 1,000 beside
#: 10,000 of 1 to 4, 0.7 ms in the matrices, 2-2.5 ms in columns: a column
#: costs about 2 us, a value about 7 ns in columns and 35 in the matrices.)
COLUMNS = 128


def _column_cumsum(values, starts, exclusive):
    """:func:`segment_cumsum` of ``values`` (in the sums' type), one column
    at a time: the ``j``-th sum of every segment longer than ``j`` is its
    ``j - 1``-th plus its ``j``-th value (the value before it, exclusive),
    the additions of a loop over each segment, in its order."""
    sizes = np.diff(starts)
    out = np.empty(values.shape[0], dtype=values.dtype)
    # segments from the longest: those longer than j come first
    order = np.argsort(-sizes, kind="stable")
    first = starts[:-1][order]
    longest = int(sizes[order[0]]) if order.shape[0] else 0
    longer = np.searchsorted(-sizes[order], -np.arange(longest), side="left")
    at = first[: longer[0]] if longest else first[:0]
    if exclusive:
        out[at] = 0
    else:
        out[at] = values[at]
    shift = 1 if exclusive else 0
    for j in range(1, longest):
        at = first[: longer[j]] + j
        out[at] = out[at - 1] + values[at - shift]
    return out


def exact_sums(values, dtype) -> bool:
    """Whether every sum of ``values`` in ``dtype`` (the sums'
    :func:`segment_cumsum` type) is exact, so that any order of the
    additions gives a segment's sums bit for bit: integers (in int64, whose
    wrapping is modular whatever the order), or floats that are integers of
    absolute sum below ``2**53`` and none ``-0.0`` (whose sign a sum of
    ``-0.0`` alone keeps). A few values are looked at first, so that
    fractions cost a glance, not a pass."""
    if dtype.kind in "iu":
        return True
    if dtype.kind != "f" or values.dtype.kind not in "uf":
        return False
    if values.dtype.kind == "u":  # uint64, summed in float64
        return bool(values.sum(dtype=np.float64) < 2.0**53)
    head = values[:16]
    if not np.array_equal(np.trunc(head), head):
        return False
    magnitude = np.abs(values)
    if not magnitude.sum(dtype=np.float64) < 2.0**53:  # NaN and inf: False
        return False
    if not np.array_equal(np.trunc(values), values):
        return False
    return not np.signbit(values[magnitude == 0]).any()


def uniform_cumsum(values, n_segments, exclusive=False, dtype=np.float64):
    """:func:`segment_cumsum` of ``values`` cut into ``n_segments`` of one
    size: the sums along the lines of ``values`` viewed as a matrix (the
    same additions in the same order, hence the same bits)."""
    size = values.shape[0] // n_segments
    if not exclusive:
        out = np.empty((n_segments, size), dtype=dtype)
        np.cumsum(values.reshape(n_segments, size), axis=1, out=out)
        return out.reshape(-1)
    lines = np.zeros((n_segments, size + 1), dtype=dtype)
    lines[:, 1:] = values.reshape(n_segments, size)
    np.cumsum(lines, axis=1, out=lines)
    return lines[:, :-1].reshape(-1)


def prefix_lines(codes, position, values, n_groups, width):
    """A ``(n_groups, width)`` matrix whose line ``g`` holds, at column ``j``,
    the sum of query ``g``'s values at positions below ``j``."""
    lines = np.zeros((n_groups, width))
    flat = codes * width
    flat += position
    flat += 1
    lines.ravel()[flat] = values
    np.cumsum(lines, axis=1, out=lines)
    return lines


def discount_of(position, log_base=2.0):
    """``1 / log_b(position + 2)``, the DCG discount of a 0-based position.

    Written as scikit-learn writes it, so that values agree to the last bit
    (an array of float64 is computed in place: the same operations).
    """
    d = position + 2.0
    if not (isinstance(d, np.ndarray) and d.dtype == np.float64):
        return 1.0 / (np.log(d) / np.log(log_base))
    return _discount_in_place(d, log_base)


def _discount_in_place(d, log_base):
    """:func:`discount_of` of the float64 array ``d = position + 2``, in it."""
    np.log(d, out=d)
    d /= np.log(log_base)
    return np.divide(1.0, d, out=d)


_DISCOUNTS: dict = {}


def discount_table_of(length, log_base=2.0):
    """:func:`discount_of` of positions ``0 .. length - 1``, read-only.

    Kept per base and grown as needed, so that the blocks of queries do not
    each compute it again (the values are element by element the same).
    """
    table = _DISCOUNTS.get(log_base)
    if table is None or table.shape[0] < length:
        # position + 2.0 for the positions 0 .. n - 1, exact: no integer
        # positions next to their floats
        table = _discount_in_place(np.arange(2.0, max(length, 1024) + 2.0), log_base)
        table.flags.writeable = False
        _DISCOUNTS[log_base] = table
    return table[:length]


_LOG_FACTORIALS = [np.zeros(0)]


#: Below this, ``log(k!)`` is the logarithm of the exact integer ``k!``.
_EXACT_FACTORIALS = 1024


def _log_factorial_table(size):
    exact = min(size, _EXACT_FACTORIALS)
    out = np.empty(size)
    factorial = 1
    for k in range(exact):  # once per process: the integers stay exact
        factorial *= max(k, 1)
        out[k] = math.log(factorial)
    if size > exact:
        out[exact:] = np.fromiter(
            map(math.lgamma, range(exact + 1, size + 1)),
            dtype=np.float64,
            count=size - exact,
        )
    return out


def log_factorials(size):
    """``log(k!)`` for ``k = 0 .. size - 1``, read-only.

    Below 1,024 each value is the logarithm of the exact integer ``k!``
    (within one unit in the last place, and exact for ``log(2!)``, so that
    two tied rows give 1/2 exactly); above, the C library's
    ``lgamma(k + 1)`` (within three units). The table is computed once per
    process and kept, grown as needed (at least doubled), so that an
    evaluation with ties neither imports scipy.special (a quarter of a
    second) nor computes a value twice.
    """
    table = _LOG_FACTORIALS[0]
    if table.shape[0] < size:
        size = max(size, 2 * table.shape[0], 1024)
        table = _log_factorial_table(size)
        table.flags.writeable = False
        _LOG_FACTORIALS[0] = table
    return table[:size]


def log_comb(n, k):
    """``log C(n, k)`` of integer arrays with ``0 <= k <= n``."""
    n, k = np.asarray(n), np.asarray(k)
    table = log_factorials(int(n.max()) + 1 if n.size else 1)
    return table[n] - table[k] - table[n - k]
