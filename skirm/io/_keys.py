"""Sorted and hashed keys: a search in every range of rows at once, and
whether any key repeats.

Lower than the engine and the readers, so that both use one copy: the
counted ranks of :mod:`skirm._engine._counted` and the dicts' tiebreak
(:mod:`skirm.io._dict_rows`) search scores sorted within each query, the
TREC ranking asks whether a run's docno keys repeat within a query; the
qrels' index looks a run's docno keys up in its sorted keys
(:class:`SortedKeys`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "INT32_LIMIT",
    "SortedKeys",
    "any_equal",
    "any_equal_in_groups",
    "any_equal_in_runs",
    "code_runs",
    "dense_codes",
    "key_table",
    "offset_dtype",
    "packed_key",
    "ranges",
    "runs_in_code_order",
    "search_ascending",
    "search_descending",
    "stable_code_sort",
]

#: Offsets below this fit in int32: a buffer this small (with its padding)
#: has its token offsets and line numbers held in half the memory.
INT32_LIMIT = 1 << 31


def offset_dtype(size):
    """The integer type of offsets into ``size`` bytes (or of ``size`` line
    numbers): int32 while they fit, int64 beyond."""
    return np.int32 if size < INT32_LIMIT else np.int64


def dense_codes(keys):
    """Dense codes of non-negative integer ``keys``: equal keys get equal
    codes, ordered as the keys (``np.unique``'s inverse); by
    :func:`key_table`, with no sort, where the keys are close."""
    present = key_table(keys, int(keys.max(initial=-1)) + 1)
    if present is None:
        return np.unique(keys, return_inverse=True)[1].reshape(-1)
    code = np.cumsum(present, dtype=np.intp)
    code -= 1
    return code[keys]


def key_table(keys, top):
    """Which of ``0 .. top - 1`` the non-negative integer ``keys`` (all below
    ``top``) hold, as a boolean table; None where ``top`` passes
    :data:`TABLE_KEYS` times their count (and 1024), when a sort of the keys
    costs less than a pass over the table."""
    if top > TABLE_KEYS * keys.shape[0] + 1024:
        return None
    present = np.zeros(top, dtype=bool)
    present[keys] = True
    return present


#: :func:`key_table` builds a table of keys at most this many times their
#: count (and 1024).
TABLE_KEYS = 4


def packed_key(major, minor, *, descending=False):
    """One int64 key whose order is that of the pairs ``(major, minor)``:
    by ``major``, then ``minor`` (descending with ``descending``), as
    :func:`numpy.lexsort` of both orders them: ``major * span + offset``.
    None where it would not hold: keys that are not integers, a negative
    ``major``, a key past 62 bits, no pair (the caller sorts by both)."""
    if (
        not minor.shape[0]
        or major.dtype.kind not in "iu"
        or minor.dtype.kind not in "iu"
    ):
        return None
    low, high = int(minor.min()), int(minor.max())
    span = high - low + 1
    if int(major.min()) < 0 or (int(major.max()) + 1) * span >= 1 << 62:
        return None
    # the offset, in [0, span), taken in 64 bits of the keys' sign (a narrow
    # type would wrap, and an unsigned one past 2**63 in int64)
    wide = minor.astype(np.uint64 if minor.dtype.kind == "u" else np.int64)
    if descending:
        offset = wide.dtype.type(high) - wide
    else:
        offset = wide - wide.dtype.type(low)
    return major.astype(np.int64) * span + offset.astype(np.int64)


def search_ascending(values, lo, hi, x):
    """For each i, the first index in ``[lo[i], hi[i])`` where the
    ascending ``values`` are ``>= x[i]`` (``hi[i]`` if none)."""
    return _first_not(values, lo, hi, x, np.less)


def search_descending(values, lo, hi, x, *, strict):
    """For each i, the first index in ``[lo[i], hi[i])`` where the
    descending ``values`` are ``< x[i]`` (``strict``) or ``<= x[i]``
    (``hi[i]`` if none)."""
    return _first_not(values, lo, hi, x, np.greater_equal if strict else np.greater)


def _first_not(values, lo, hi, x, before):
    """For each i, the first index in ``[lo[i], hi[i])`` whose value is not
    ``before(value, x[i])`` (the values that are come first in each range):
    one binary search of every range at once."""
    lo, hi = lo.copy(), hi.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        right = open_ & before(values[np.minimum(mid, values.shape[0] - 1)], x)
        left = open_ & ~right
        lo[right] = mid[right] + 1
        hi[left] = mid[left]


#: Below this many keys, :func:`any_equal` sorts them at once.
_FEW_KEYS = 1 << 14


def any_equal(keys):
    """Whether two of ``keys`` (64-bit hashes, well mixed) are equal.

    Most columns repeat nothing, and a sort of every key costs more than
    counting them: the keys are counted by buckets of their top bits (about
    twice as many buckets as keys), and only those that share a bucket with
    another are kept; then by the next bits, among those kept; only the
    few left are sorted. The answer is exact: a key dropped shares no bits
    so far with any other.
    """
    used = 0  # the top bits counted so far
    while keys.shape[0] > _FEW_KEYS:
        bits = int(keys.shape[0]).bit_length() + 1
        if used + bits > 64:
            break
        used += bits
        bucket = (keys >> np.uint64(64 - used)).astype(np.intp)
        bucket &= (1 << bits) - 1
        counts = np.bincount(bucket, minlength=1 << bits)
        keys = keys[counts[bucket] > 1]
        del bucket, counts
    if keys.shape[0] < 2:
        return False
    keys = np.sort(keys)
    return bool((keys[1:] == keys[:-1]).any())


#: :func:`any_equal_in_groups` sorts each group's keys in a line of a
#: matrix padded to the largest group while it holds at most this many cells
#: per key.
_MAX_PADDING = 3
#: :func:`code_runs` looks no further when the runs of equal codes average
#: fewer rows than this (the codes are not grouped), past a few rows.
_MIN_RUN = 8
_FEW_ROWS = 1024


def code_runs(codes, n_groups):
    """Where each run of equal adjacent ``codes`` (in ``[0, n_groups)``)
    starts, ``n`` last, when each code's rows form one run (rows grouped by
    code, the codes in any order: a run read by query, whose query ids do
    not sort as they came); None otherwise, or when the runs are short."""
    n = codes.shape[0]
    new = codes[1:] != codes[:-1]
    n_runs = int(np.count_nonzero(new)) + 1 if n else 0
    if n_runs > n_groups or n_runs * _MIN_RUN > n + _FEW_ROWS:
        return None
    starts = np.empty(n_runs + 1, dtype=np.intp)
    starts[0], starts[-1] = 0, n
    starts[1:-1] = np.flatnonzero(new) + 1 if n else []
    ordered = np.sort(codes[starts[:-1]]) if n else starts[:0]
    if (ordered[1:] == ordered[:-1]).any():  # a code in two runs
        return None
    return starts


def runs_in_code_order(codes, starts):
    """The stable order of the rows by code, rows grouped in the runs
    ``starts`` (:func:`code_runs`): the runs moved whole."""
    firsts, sizes = starts[:-1], np.diff(starts)
    o = np.argsort(codes[firsts])
    moved = np.cumsum(sizes[o]) - sizes[o]  # where each run lands
    order = np.arange(codes.shape[0], dtype=np.intp)
    order += np.repeat(firsts[o] - moved, sizes[o])
    return order


def stable_code_sort(keys, n_groups):
    """``np.argsort(keys, kind="stable")`` for codes in ``[0, n_groups)``.

    Rows grouped by code in another order of the codes (a run read by
    query, whose ids do not sort as they came) have their runs moved whole.
    Stable sorts of 16-bit keys are radix sorts; codes up to 2**32 take two
    such passes (least significant half first).
    """
    runs = code_runs(keys, n_groups)
    if runs is not None:
        return runs_in_code_order(keys, runs)
    if n_groups <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if n_groups <= 1 << 32:
        low = np.argsort(keys.astype(np.uint16), kind="stable")
        high = (keys[low] >> 16).astype(np.uint16)
        return low[np.argsort(high, kind="stable")]
    return np.argsort(keys, kind="stable")  # pragma: no cover - > 2**32 queries


def any_equal_in_groups(keys, codes, n_groups):
    """Whether two of ``keys`` (64-bit hashes, well mixed) with the same
    code (``codes``: in ``[0, n_groups)``) are equal.

    Rows grouped by code (a run read by query: :func:`code_runs`) and groups
    of similar sizes (the usual run) go as the engine ranks them: each
    group's keys in one line of a matrix, padded with the largest key, and
    each line sorted on its own: short, cache-resident sorts instead of a
    pass over every key. The pads sort last, so a line's first ``size``
    sorted cells are the group's keys: only pairs among them are compared.
    None for other rows (then :func:`any_equal` of the keys mixed with their
    codes answers).
    """
    if keys.shape[0] < 2:
        return False
    starts = code_runs(codes, n_groups)
    return None if starts is None else any_equal_in_runs(keys, starts)


def any_equal_in_runs(keys, starts):
    """:func:`any_equal_in_groups` of keys whose groups are the runs
    ``starts`` (:func:`code_runs`); None where the groups' sizes are too
    far apart for one padded matrix."""
    n = keys.shape[0]
    sizes = np.diff(starts)
    n_lines, width = sizes.shape[0], int(sizes.max())
    if n_lines * width > _MAX_PADDING * n + 1024:
        return None
    if int(sizes.min()) == width:  # one size: the keys are the matrix
        lines = keys.reshape(n_lines, width).copy()
    else:
        cell = np.arange(n, dtype=np.intp)
        first = np.arange(n_lines, dtype=np.intp) * width  # each line's first cell
        cell += np.repeat(first - starts[:-1], sizes)
        lines = np.full(n_lines * width, np.iinfo(np.uint64).max, dtype=np.uint64)
        lines[cell] = keys
        del cell
        lines = lines.reshape(n_lines, width)
    lines.sort(axis=1)
    same = lines[:, 1:] == lines[:, :-1]
    # pair j of a line is (j, j + 1): inside the group when j + 1 < size
    same &= np.arange(width - 1) < (sizes - 1)[:, np.newaxis]
    return bool(same.any())


def ranges(starts, sizes):
    """The indices ``starts[i], ..., starts[i] + sizes[i] - 1`` of every i."""
    ends = np.cumsum(sizes)
    rows = np.arange(int(ends[-1]) if ends.shape[0] else 0, dtype=np.intp)
    rows += np.repeat(starts - (ends - sizes), sizes)
    return rows


class SortedKeys:
    """Distinct ascending 64-bit keys, indexed for lookups.

    The top bits of sorted keys are sorted too, so a table of bucket starts
    indexed by them replaces a binary search by one lookup and a short scan.
    The table is built once, a range of :attr:`CHUNK` buckets at a time (the
    keys of a range are a slice), so that building it needs no per-key or
    per-bucket int64 array; :meth:`find` is then linear in the needles.
    """

    CHUNK = 1 << 18

    def __init__(self, sorted_keys):
        self.keys = sorted_keys
        m = sorted_keys.shape[0]
        # 2m to 4m buckets: most needles (a run's unjudged documents) find
        # theirs empty, and the others scan one key or two
        bits = int(m).bit_length() + 1
        self.shift = np.uint64(64 - bits)
        n_buckets = 1 << bits
        self.starts = starts = np.zeros(n_buckets + 1, dtype=offset_dtype(m))
        firsts = np.arange(0, n_buckets, self.CHUNK, dtype=np.uint64)
        cuts = np.append(np.searchsorted(sorted_keys, firsts << self.shift), m)
        for c, lo in enumerate(firsts.tolist()):
            hi = min(lo + self.CHUNK, n_buckets)
            part = sorted_keys[cuts[c] : cuts[c + 1]] >> self.shift
            counts = np.bincount(part.astype(np.intp) - lo, minlength=hi - lo)
            np.cumsum(counts, out=starts[lo + 1 : hi + 1])
            starts[lo + 1 : hi + 1] += cuts[c]

    def find(self, needles):
        """Index of each needle in the keys, or -1."""
        keys = self.keys
        out = np.full(needles.shape[0], -1, dtype=np.int64)
        if not keys.shape[0] or not needles.shape[0]:
            return out
        b = (needles >> self.shift).astype(np.int64)
        lo, hi = self.starts[b], self.starts[b + 1]
        todo = np.flatnonzero(lo < hi)
        at = lo[todo]
        while todo.shape[0]:
            hit = keys[at] == needles[todo]
            out[todo[hit]] = at[hit]
            at += 1
            more = ~hit & (at < hi[todo])
            todo, at = todo[more], at[more]
        return out
