"""The ranking engine: validate once, sort once, reduce per query.

Every metric in skirm is computed in three steps: put each query's rows in rank
order, look at the labels in that order, reduce per query. This module does the
first step, once, and offers the per-query reductions the metrics share. It is
vectorised numpy throughout: no Python loop over queries.

Tie policies
------------
``"average"``
    The exact expected value of the metric over all orderings of rows with
    equal scores within a query (McSherry & Najork, 2008). Rows are grouped in
    *tie blocks*; metrics linear in the per-row values use block means, the
    others (hit rate, reciprocal rank, average precision, ERR) closed forms
    over each block.
``"first"``
    Input order among ties (a stable sort).
``"optimistic"`` / ``"pessimistic"``
    Higher labels first / last among ties.

With any policy but ``"average"`` every row is its own tie block.
"""

from __future__ import annotations

import itertools
import threading
from typing import NamedTuple

import numpy as np

from skirm._validation import (
    as_numeric_array,
    as_python,
    check_choice,
    check_groups,
    check_n_jobs,
    check_sample_weight,
    check_scores,
    check_y_true,
)

TIES = ("average", "first", "optimistic", "pessimistic")
UNJUDGED = ("raise", "nonrelevant", "condensed")

__all__ = [
    "TIES",
    "CheckedInput",
    "Judgments",
    "Ranking",
    "check_input",
    "encode_groups",
    "map_query_blocks",
    "rank",
    "rank_checked",
    "rank_input",
    "relabel",
]


# --------------------------------------------------------------------------
# Group encoding
# --------------------------------------------------------------------------


def encode_groups(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense integer codes for query labels.

    Returns ``(codes, uniques)`` where ``uniques`` holds the sorted distinct
    labels and ``uniques[codes] == groups``. Avoids a full sort of the rows when
    the labels are integers in a compact range or already contiguous.
    """
    return encode_grouped(groups)[:2]


def encode_grouped(groups: np.ndarray):
    """``(codes, uniques, starts)``: :func:`encode_groups`, and the first row
    of each query (``starts``, with ``n`` last) when the rows are grouped by
    query in code order, else None for ``starts``.

    Integer labels sorted ascending (the usual layout of a learning-to-rank
    file) take one pass over the rows to find where the label changes, and
    one more to shift them to codes when the smallest is not 0.
    """
    n = groups.shape[0]
    if groups.dtype.kind in "biu" and not (
        groups.dtype.kind == "u"
        and groups.dtype.itemsize == 8
        and groups.max() > np.iinfo(np.int64).max
    ):
        g = groups.astype(np.int64, copy=False)
        grouped = _encode_grouped_ints(g, groups)
        if grouped is not None:
            return grouped
        gmin, gmax = int(g.min()), int(g.max())
        if gmax - gmin <= 4 * n + 1024:
            shifted = g - gmin if gmin else g
            present = np.zeros(gmax - gmin + 1, dtype=bool)
            present[shifted] = True
            if present.all():  # every label in the range is used: no lookup
                uniques = np.arange(gmin, gmax + 1).astype(groups.dtype, copy=False)
                if shifted is groups:  # never hand out the caller's array
                    shifted = shifted.view()
                    shifted.flags.writeable = False
                return shifted, uniques, None
            lookup = np.cumsum(present) - 1
            uniques = np.flatnonzero(present) + gmin
            return lookup[g - gmin], uniques.astype(groups.dtype, copy=False), None
        return (*_encode_by_sort(groups), None)
    # Strings and objects: when rows of a query are contiguous (the usual
    # layout), sort only one label per block.
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(groups[1:], groups[:-1], out=change[1:])
    block_starts = np.flatnonzero(change)
    try:
        uniques, inverse = np.unique(groups[block_starts], return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            "`groups` labels must be mutually comparable (all ints or all "
            f"strings), got a mix: {exc}"
        ) from None
    if uniques.shape[0] == block_starts.shape[0]:
        sizes = np.diff(np.append(block_starts, n))
        return np.repeat(inverse.reshape(-1), sizes), uniques, None
    return (*_encode_by_sort(groups), None)


def _encode_grouped_ints(g, groups):
    """:func:`encode_grouped` of int64 labels ``g`` (of ``groups``) sorted
    ascending, from one pass over the rows; None when they are not sorted."""
    n = g.shape[0]
    if n == 0:
        return None
    change = np.flatnonzero(g[1:] != g[:-1])
    change += 1
    # Between two changes the labels are equal: sorted if they rise at each.
    step = g[change] - g[change - 1]
    if not np.all(step > 0):
        return None
    starts = np.empty(change.shape[0] + 2, dtype=np.intp)
    starts[0], starts[1:-1], starts[-1] = 0, change, n
    gmin = int(g[0])
    if np.all(step == 1):  # every label from the first to the last is used
        if gmin:
            codes = g - gmin
        else:  # the labels are the codes: never hand out the caller's array
            codes = g.view()
            codes.flags.writeable = False
        uniques = np.arange(gmin, gmin + starts.shape[0] - 1)
        return codes, uniques.astype(groups.dtype, copy=False), starts
    uniques = g[starts[:-1]].astype(groups.dtype, copy=False)
    codes = np.repeat(np.arange(uniques.shape[0], dtype=np.intp), np.diff(starts))
    return codes, uniques, starts


def _encode_by_sort(groups):
    try:
        uniques, codes = np.unique(groups, return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            "`groups` labels must be mutually comparable (all ints or all "
            f"strings), got a mix: {exc}"
        ) from None
    return codes.reshape(-1), uniques


# --------------------------------------------------------------------------
# The ranking object
# --------------------------------------------------------------------------


def sum_by(codes, weights, n):
    """Per-code sums of ``weights`` over ``n`` codes, always float64 (numpy's
    weighted ``bincount`` of no codes at all is int64)."""
    return np.bincount(codes, weights=weights, minlength=n).astype(
        np.float64, copy=False
    )


class Judgments(NamedTuple):
    """Every judged label of the ranked queries, retrieved or not.

    The TREC path passes the qrels here so that R and the ideal ordering count
    relevant documents a run did not retrieve.
    """

    codes: np.ndarray  # (n_judged,) query code of each judgement
    labels: np.ndarray  # (n_judged,) its non-negative label


class TieBlocks(NamedTuple):
    """Runs of equal scores within a query, in ranked positions."""

    start: np.ndarray  # (n_blocks,) first ranked position of each block
    size: np.ndarray  # (n_blocks,) rows in each block
    block_of: np.ndarray  # (n,) block index of each ranked row


class cached_property:
    """A property computed once per instance, then kept in its ``__dict__``.

    Like :class:`functools.cached_property` without its lock: before Python
    3.12, that lock is shared by every instance of the class, so two threads
    ranking two blocks of queries would wait for each other's property.
    A :class:`Ranking` belongs to one thread.
    """

    def __init__(self, function):
        self.function = function
        self.__doc__ = function.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


class Rows(NamedTuple):
    """A subset of the ranked rows, in rank order."""

    index: np.ndarray  # positions in the ranked arrays
    codes: np.ndarray  # query code of each
    position: np.ndarray  # 0-based rank within its query
    above: np.ndarray | None = None  # relevant rows above it (relevant_rows)
    counts: np.ndarray | None = None  # rows per query (relevant_rows)
    first: np.ndarray | None = None  # each query's first one, n_groups + 1 offsets


class Ranking:
    """Rows of every query in rank order, with the per-query reductions.

    Positions below are indices into the ranked arrays (``order``, ``codes``,
    ``labels``, ``scores``); ``position`` is the 0-based rank within the query.

    Parameters
    ----------
    order : ndarray of shape (n,)
        Row indices in rank order: by query code, then score descending, then
        the tie policy.
    codes : ndarray of shape (n,)
        Query code of each ranked row (non-decreasing).
    labels, scores : ndarray of shape (n,)
        ``y_true`` and ``y_score`` in rank order.
    group_ids : ndarray of shape (n_groups,)
        The sorted distinct query labels; ``group_ids[code]``.
    ties : str
        The tie policy used to build ``order``.
    group_weights : ndarray of shape (n_groups,) or None
        One weight per query.
    judgments : Judgments or None
        All judged labels per query, when R and the ideal ordering must count
        more than the ranked rows (TREC qrels). By default they come from the
        ranked rows themselves.
    """

    def __init__(
        self,
        order,
        codes,
        labels,
        scores,
        group_ids,
        ties,
        group_weights=None,
        judgments=None,
        *,
        sizes=None,
        starts=None,
    ):
        self.order = order
        self.codes = codes
        self.labels = labels
        self.scores = scores
        self.group_ids = group_ids
        self.n_groups = int(group_ids.shape[0])
        self.ties = ties
        self.group_weights = group_weights
        self.judgments = judgments
        if sizes is None:
            sizes = np.bincount(codes, minlength=self.n_groups)
        if starts is None:
            starts = np.zeros(self.n_groups + 1, dtype=np.intp)
            np.cumsum(sizes, out=starts[1:])
        self.sizes = sizes
        self.starts = starts
        self._top_cache = {}
        self._rel_cache = {}

    #: Per ranked row, whether it was judged (None: every row was).
    judged = None
    #: Per query, the rows whose label was NaN (None: no NaN label was given).
    n_unjudged = None

    # -- layout --------------------------------------------------------------

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    @cached_property
    def max_size(self) -> int:
        return int(self.sizes.max())

    @cached_property
    def position(self) -> np.ndarray:
        """0-based rank of each ranked row within its query."""
        return np.arange(self.n_rows) - self.row_start

    @cached_property
    def row_start(self) -> np.ndarray:
        """Ranked position of the first row of each ranked row's query."""
        return np.repeat(self.starts[:-1], self.sizes)

    def cutoff(self, k) -> np.ndarray:
        """Per-query effective cutoff: ``min(k, size)``, or the size if k is None.

        With an array of cutoffs, one column per cutoff.
        """
        if k is None:
            return self.sizes
        if np.ndim(k):
            return np.minimum(self.sizes[:, None], k)
        return np.minimum(self.sizes, k)

    def _top(self, k):
        """Indices of the ranked rows with ``position < k`` (cached)."""
        return self.top(k).index

    def top(self, k) -> Rows:
        """The ranked rows with ``position < k``: index, query code, position.

        Built from the query sizes in ``O(n_groups * k)``, without a pass over
        all rows; cached per ``k``.
        """
        rows = self._top_cache.get(k)
        if rows is None:
            depth = min(int(k), self.max_size) if self.n_groups else 0
            lines = self.top_lines(depth)
            if lines is not None:
                # The cells of the top lines that are rows: whole-array
                # operations, which release the GIL (``np.repeat`` holds it).
                index, keep = lines
                codes = np.broadcast_to(
                    np.arange(self.n_groups, dtype=np.intp)[:, None], index.shape
                )
                position = np.broadcast_to(np.arange(depth, dtype=np.intp), index.shape)
                if keep is None:
                    rows = Rows(index.ravel(), codes.ravel(), position.ravel())
                else:
                    rows = Rows(index[keep], codes[keep], position[keep])
            else:  # a few long queries: no padding
                cut = np.minimum(self.sizes, depth)
                first = np.zeros(self.n_groups, dtype=np.intp)
                np.cumsum(cut[:-1], out=first[1:])
                codes = np.repeat(np.arange(self.n_groups, dtype=np.intp), cut)
                position = np.arange(codes.shape[0], dtype=np.intp)
                position -= first[codes]
                rows = Rows(position + self.starts[codes], codes, position)
            self._top_cache[k] = rows
        return rows

    def top_lines(self, depth):
        """The top ``depth`` rows as lines of a matrix, one query per line:
        ``(index, keep)``, both ``(n_groups, depth)``; ``index`` holds each
        cell's position in the ranked arrays (clipped to the query's last
        row) and ``keep`` whether the cell is a row (None when every query
        has ``depth`` rows); None when the padding would be large.
        """
        depth = int(depth)
        if self.n_groups == 0 or self.n_groups * depth > 2 * self.n_rows + 4096:
            return None
        line = np.arange(depth, dtype=np.intp)
        keep = None
        if int(self.sizes.min()) < depth:
            keep = line < self.sizes[:, None]
            line = np.minimum(line, (self.sizes - 1)[:, None])
        return self.starts[:-1, None] + line, keep

    def group_sum(self, values, k=None) -> np.ndarray:
        """Per-query sum of ``values`` over the top ``k`` positions.

        ``k`` may be an array of cutoffs: the result then has one column per
        cutoff, from one cumulative sum along each query.
        """
        if k is not None and np.ndim(k):
            top = self.top(int(np.max(k)))
            return prefix_sums(
                top.codes, top.position, values[top.index], k, self.n_groups
            )
        if k is None or k >= self.max_size:
            return sum_by(self.codes, values, self.n_groups)
        top = self.top(k)
        return sum_by(top.codes, values[top.index], self.n_groups)

    # -- tie blocks ----------------------------------------------------------

    @cached_property
    def _blocks(self):
        """Tie blocks (``None`` when every row is its own block)."""
        if self.ties != "average" or self.n_rows == 0:
            return None
        n = self.n_rows
        new = _block_starts(self.scores, self.starts)
        start = np.flatnonzero(new)
        if start.shape[0] == n:
            return None
        size = np.diff(np.append(start, n))
        block_of = np.cumsum(new) - 1
        return TieBlocks(start, size, block_of)

    @property
    def has_ties(self) -> bool:
        return self._blocks is not None

    @property
    def tie_blocks(self) -> TieBlocks | None:
        """The tie blocks, or None when every row is its own block."""
        return self._blocks

    @cached_property
    def block_size(self) -> np.ndarray:
        """Size of the tie block of each ranked row."""
        if self._blocks is None:
            return np.ones(self.n_rows, dtype=np.intp)
        return self._blocks.size[self._blocks.block_of]

    @cached_property
    def block_offset(self) -> np.ndarray:
        """0-based offset of each ranked row within its tie block."""
        if self._blocks is None:
            return np.zeros(self.n_rows, dtype=np.intp)
        return np.arange(self.n_rows) - self._blocks.start[self._blocks.block_of]

    def block_mean(self, values) -> np.ndarray:
        """Replace each row's value by the mean over its tie block.

        For a metric that is a sum of ``value * weight(position)``, this gives
        the expected metric over the orderings of tied rows.
        """
        values = np.asarray(values, dtype=np.float64)
        if self._blocks is None:
            return values
        blocks = self._blocks
        return (np.add.reduceat(values, blocks.start) / blocks.size)[blocks.block_of]

    def block_sum(self, values) -> np.ndarray:
        """Per-row sum of ``values`` over its tie block."""
        if self._blocks is None:
            return values
        return np.add.reduceat(values, self._blocks.start)[self._blocks.block_of]

    def before_block(self, values) -> np.ndarray:
        """Per-row sum of ``values`` over the earlier positions of its query
        that are outside its tie block (all earlier positions without ties)."""
        if self._blocks is None:
            return self.before(values)
        return self._before(values, np.arange(self.n_rows) - self.block_offset)

    def before(self, values) -> np.ndarray:
        """Per-row sum of ``values`` over the earlier positions of its query."""
        return self._before(values, None)

    def _before(self, values, upto):
        dtype = np.result_type(values, np.int64)
        if dtype.kind == "f" and self.n_groups * self.max_size <= 3 * self.n_rows:
            # Floats: sums restart at each query (a cumulative sum along the
            # lines of a padded matrix), so they carry no rounding from the
            # rows of other queries.
            lines = np.zeros((self.n_groups, self.max_size + 1), dtype=dtype)
            lines[self.codes, self.position + 1] = values
            np.cumsum(lines, axis=1, out=lines)
            col = self.position if upto is None else upto - self.row_start
            return lines[self.codes, col]
        csum = np.zeros(self.n_rows + 1, dtype=dtype)
        np.cumsum(values, out=csum[1:])
        ahead = csum[:-1] if upto is None else csum[upto]
        return ahead - np.repeat(csum[self.starts[:-1]], self.sizes)

    # -- relevance -----------------------------------------------------------

    def relevant(self, threshold=None) -> np.ndarray:
        """Boolean relevance of each ranked row (``label > 0`` by default)."""
        rel = self._rel_cache.get(threshold)
        if rel is None:
            if threshold is None:
                rel = self.labels > 0
            else:
                rel = self.labels >= threshold
            self._rel_cache[threshold] = rel
        return rel

    def expected_relevance(self, threshold=None) -> np.ndarray:
        """Relevance of each ranked row averaged over its tie block."""
        key = ("expected", threshold)
        exp_rel = self._rel_cache.get(key)
        if exp_rel is None:
            exp_rel = self.block_mean(self.relevant(threshold))
            self._rel_cache[key] = exp_rel
        return exp_rel

    def relevant_rows(self, threshold=None) -> Rows:
        """The relevant ranked rows: index, query code, position, and ``above``,
        the number of relevant rows ranked above each one in its query (cached).
        """
        key = ("rows", threshold)
        rows = self._rel_cache.get(key)
        if rows is None:
            index = self.relevant(threshold).nonzero()[0]
            codes = self.codes[index]
            first = _sorted_code_starts(codes, self.n_groups)
            counts = first[1:] - first[:-1]
            above = np.arange(index.shape[0], dtype=np.intp)
            above -= first[:-1][codes]
            position = index - self.starts[codes]
            rows = Rows(index, codes, position, above, counts, first)
            self._rel_cache[key] = rows
        return rows

    def n_relevant(self, threshold=None) -> np.ndarray:
        """R: the number of relevant rows of each query."""
        key = ("R", threshold)
        R = self._rel_cache.get(key)
        if R is None:
            if self.judgments is None:
                R = self.relevant_rows(threshold).counts.astype(np.float64)
                self._rel_cache[key] = R
                return R
            else:
                codes, labels = self.judgments
                rel = labels > 0 if threshold is None else labels >= threshold
            R = sum_by(codes, rel, self.n_groups)
            self._rel_cache[key] = R
        return R

    def relevant_above_block(self, threshold=None) -> np.ndarray:
        """Per row, the relevant rows of its query ranked above its tie block
        (above the row itself without ties); cached."""
        key = ("above_block", threshold)
        above = self._rel_cache.get(key)
        if above is None:
            above = self.before_block(self.relevant(threshold))
            self._rel_cache[key] = above
        return above

    def relevant_in_block(self, threshold=None) -> np.ndarray:
        """Per row, the relevant rows of its tie block (int64); cached."""
        key = ("in_block", threshold)
        r = self._rel_cache.get(key)
        if r is None:
            r = self.block_sum(self.relevant(threshold).astype(np.int64))
            self._rel_cache[key] = r
        return r

    def first_relevant_probability(self, threshold=None) -> np.ndarray:
        """Probability that each ranked row is its query's first relevant row.

        Without ties this is 1 on the first relevant row and 0 elsewhere. In a
        tie block of ``m`` rows holding ``r`` relevant ones, with no relevant row
        ranked above the block, the first relevant row sits at block offset
        ``t`` with probability ``C(m - t - 1, r - 1) / C(m, r)``.
        """
        rel = self.relevant(threshold)
        above = self.relevant_above_block(threshold)
        if self._blocks is None:
            return (rel & (above == 0)).astype(np.float64)
        r = self.relevant_in_block(threshold)
        m = self.block_size
        t = self.block_offset
        ok = (above == 0) & (r > 0) & (t <= m - r)
        prob = np.zeros(self.n_rows)
        m, r, t = m[ok], r[ok], t[ok]
        prob[ok] = np.exp(_log_comb(m - t - 1, r - 1) - _log_comb(m, r))
        return prob

    # -- discounts and the ideal ordering ------------------------------------

    def discount(self, log_base=2.0) -> np.ndarray:
        """``1 / log_b(rank + 1)`` for each ranked row (rank is 1-based)."""
        key = ("discount", log_base)
        disc = self._rel_cache.get(key)
        if disc is None:
            disc = self.discount_table(log_base)[self.position]
            self._rel_cache[key] = disc
        return disc

    def discount_table(self, log_base=2.0) -> np.ndarray:
        """``1 / log_b(rank + 1)`` for positions 0 .. max_size - 1 (cached)."""
        key = ("discount_table", log_base)
        table = self._rel_cache.get(key)
        if table is None:
            table = _discount_table(self.max_size, log_base)
            self._rel_cache[key] = table
        return table

    @property
    def n_grades(self):
        """When every ranked label is an integer grade ``0 .. n - 1`` (small,
        counted in :attr:`_at_least`), ``n``; else None. A kernel may then
        look a function of the label up per grade."""
        if self.judgments is not None or self._at_least is None:
            return None
        return self._at_least.shape[1] + 1

    @cached_property
    def _at_least(self):
        """Per query, the rows of label ``l`` or more for each level ``l`` from
        1 to the largest label, ``(n_groups, n_levels - 1)``, when the labels
        are small non-negative integers; else None.
        """
        if self.judgments is None:
            # Rows of label 0 are not counted (the ideal ordering needs the
            # counts of labels 1 and up only): take the relevant rows.
            rows = self.relevant_rows(None)
            codes, labels = rows.codes, self.labels[rows.index]
        else:
            codes, labels = self.judgments
        if labels.shape[0] == 0:
            return None
        top = labels.max()
        size = max(labels.shape[0], self.n_rows)
        if not top <= 255 or self.n_groups * (top + 1.0) > 4 * size + 4096:
            return None
        levels = labels.astype(np.uint8)
        if not (levels == labels).all():
            return None
        n_levels = int(top) + 1
        key = codes * n_levels
        key += levels
        counts = np.bincount(key, minlength=self.n_groups * n_levels)
        counts = counts.reshape(self.n_groups, n_levels)
        return counts[:, :0:-1].cumsum(axis=1)[:, ::-1]

    def _ideal_lines(self, gain, depth):
        """Per query, the ideal ordering's DCG (log2 discount) at each of its
        first positions, from the label counts: ``(n_groups, width)``, column
        ``j`` summing positions ``0 .. j``; None when the counts are not
        available or the matrix would be large.

        The ideal labels are laid out one query per line (position ``p`` of a
        query holds the number of levels with more than ``p`` rows at or
        above them), so that every step is a whole-matrix operation, and the
        sums run along each line in position order, as a per-query sum of
        the same values adds them. ``gain(0)`` must be 0: the cells past the
        relevant rows add nothing.
        """
        # at_least[:, j]: rows of label j + 1 or more, for the levels 1 and up.
        at_least = self._at_least
        if at_least is None:
            return None
        width = int(at_least[:, 0].max()) if at_least.size else 0
        if depth is not None:
            width = min(width, int(depth))
        width = max(width, 1)
        n_levels = at_least.shape[1]
        if self.n_groups * width * max(n_levels, 1) > 8 * self.n_rows + 65536:
            return None
        position = np.arange(width)
        level = np.sum(at_least[:, :, None] > position, axis=1, dtype=np.intp)
        # The gain of each level, looked up: the same numbers as the gain of
        # each cell's label.
        lines = gain(np.arange(n_levels + 1, dtype=np.float64))[level]
        lines *= _discount_table(width)
        lines.cumsum(axis=1, out=lines)
        return lines

    @cached_property
    def _ideal(self):
        """Every label of each query sorted descending: (codes, labels, position)."""
        if self.judgments is None:
            codes, labels, starts = self.codes, self.labels, self.starts
        else:
            codes, labels = self.judgments
            starts = _counted_starts(codes, self.n_groups)
        order = np.lexsort((-labels, codes))
        codes = codes[order]
        return codes, labels[order], np.arange(codes.shape[0]) - starts[codes]

    def ideal_dcg(self, gain, k=None) -> np.ndarray:
        """Per-query DCG@k (log2 discount) of the ideal ordering of its labels.

        ``gain`` maps labels to gains and must be non-decreasing.
        """
        many = k is not None and bool(np.ndim(k))
        deepest = int(np.max(k)) if many else k
        if float(gain(np.zeros(1))[0]) == 0.0:
            # Rows of label 0 add exactly nothing: the relevant ones only.
            lines = self._ideal_lines(gain, deepest)
            if lines is not None:
                last = lines.shape[1]
                column = last - 1 if k is None else np.minimum(k, last) - 1
                return lines.take(column, axis=1)
        codes, labels, position = self._ideal
        if k is not None:
            top = position < deepest
            codes, labels, position = codes[top], labels[top], position[top]
        values = gain(labels) * _discount(position)
        if many:
            return prefix_sums(codes, position, values, k, self.n_groups)
        return sum_by(codes, values, self.n_groups)


def _counted_starts(codes, n_groups):
    """Where each code's rows start once the rows are sorted by code
    (``n_groups + 1`` offsets, ``n`` last), by counting the codes."""
    starts = np.zeros(n_groups + 1, dtype=np.intp)
    np.cumsum(np.bincount(codes, minlength=n_groups), out=starts[1:])
    return starts


def _sorted_code_starts(codes, n_groups):
    """:func:`_counted_starts` of sorted ``codes``.

    By bisection while the offsets are few (a block of queries: no pass over
    the rows, and no ``bincount``, which holds the GIL), else by counting.
    """
    if n_groups <= 1 << 14:
        return codes.searchsorted(np.arange(n_groups + 1))
    return _counted_starts(codes, n_groups)


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
    width = int(ks.max()) + 1
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


def relabel(ranking: Ranking, labels: np.ndarray) -> Ranking:
    """The same ranking (order, tie blocks) with other labels in rank order."""
    other = Ranking(
        ranking.order,
        ranking.codes,
        labels,
        ranking.scores,
        ranking.group_ids,
        ranking.ties,
        ranking.group_weights,
        sizes=ranking.sizes,
        starts=ranking.starts,
    )
    if "_blocks" in ranking.__dict__:
        other.__dict__["_blocks"] = ranking.__dict__["_blocks"]
    other.judged = ranking.judged
    return other


def _discount(position, log_base=2.0):
    """``1 / log_b(position + 2)``, the DCG discount of a 0-based position.

    Written as scikit-learn writes it, so that values agree to the last bit.
    """
    return 1.0 / (np.log(position + 2.0) / np.log(log_base))


_DISCOUNTS: dict = {}


def _discount_table(length, log_base=2.0):
    """:func:`_discount` of positions ``0 .. length - 1``, read-only.

    Kept per base and grown as needed, so that the blocks of queries do not
    each compute it again (the values are element by element the same).
    """
    table = _DISCOUNTS.get(log_base)
    if table is None or table.shape[0] < length:
        table = _discount(np.arange(max(length, 1024)), log_base)
        table.flags.writeable = False
        _DISCOUNTS[log_base] = table
    return table[:length]


def _log_comb(n, k):
    # imported here: scipy.special costs more to import than most evaluations
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


# --------------------------------------------------------------------------
# Building a ranking
# --------------------------------------------------------------------------


def rank(
    y_true,
    y_score,
    codes,
    group_ids,
    ties="average",
    *,
    tiebreak=None,
    group_weights=None,
    judgments=None,
    starts=None,
) -> Ranking:
    """Sort checked rows by query, then score descending, then the tie policy.

    ``tiebreak``, when given, is a per-row key whose *ascending* order breaks
    ties in score (used by the TREC path, where ties go by document id); the
    tie policy then acts as ``"first"``. ``starts``, when given, says that
    the rows are grouped in code order, query ``c`` at rows
    ``starts[c]:starts[c + 1]``.

    The rows are ordered by one grouped sort of the scores in which tied
    scores land in no particular order (see :func:`_grouped_order`); a tie
    policy other than ``"average"`` then reorders the rows of each run of
    equal scores, and only those rows.
    """
    n_groups = int(group_ids.shape[0])
    ranked_codes = None
    if starts is not None or codes.shape[0] < 2 or np.all(codes[1:] >= codes[:-1]):
        # Rows grouped in code order (the usual layout; known to the caller
        # for every block of queries of grouped input): the codes are the
        # ranked codes.
        ranked_codes = codes.astype(np.intp, copy=False)
        if starts is None:
            starts = _sorted_code_starts(ranked_codes, n_groups)
    else:
        starts = _counted_starts(codes, n_groups)
    sizes = starts[1:] - starts[:-1]
    order, distinct, stable = _grouped_order(
        y_score, codes, sizes, starts, ranked_codes
    )
    scores = y_score[order]
    labels = y_true[order]
    if tiebreak is not None:
        ties = "first"
    # With ``stable``, tied rows are already in input order: "first" is done.
    done = distinct or (stable and ties == "first" and tiebreak is None)
    if ties != "average" and not done:
        new = _block_starts(scores, starts)
        if not new.all():
            # Rows inside a tie block of two rows or more.
            tied = ~new
            tied[:-1] |= tied[1:]
            idx = np.flatnonzero(tied)
            block = np.cumsum(new)[idx]
            rows = order[idx]
            if tiebreak is not None:
                perm = np.lexsort((rows, tiebreak[rows], block))
            elif ties == "first":
                # Block ids ascend along ``idx``: one key (block, row) is unique.
                perm = np.argsort(block * order.shape[0] + rows)
            elif ties == "optimistic":
                perm = np.lexsort((rows, -labels[idx], block))
            else:  # pessimistic
                perm = np.lexsort((rows, labels[idx], block))
            sel = idx[perm]
            order[idx] = order[sel]
            labels[idx] = labels[sel]
            scores[idx] = scores[sel]
    if ranked_codes is None:
        ranked_codes = np.repeat(np.arange(n_groups, dtype=np.intp), sizes)
    ranking = Ranking(
        order,
        ranked_codes,
        labels,
        scores,
        group_ids,
        ties,
        group_weights,
        judgments,
        sizes=sizes,
        starts=starts,
    )
    if distinct:
        ranking.__dict__["_blocks"] = None  # no tie blocks: nothing to look for
    return ranking


def _block_starts(scores, starts):
    """True where a ranked row starts a tie block (a new score or a new query)."""
    new = np.empty(scores.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(scores[1:], scores[:-1], out=new[1:])
    new[starts[:-1][starts[:-1] < scores.shape[0]]] = True
    return new


#: The segmented sort pads each query to the largest size; it is used while
#: the padded matrix holds at most this many cells per row.
_MAX_PADDING = 3
_NOT_SIGN = np.uint64((1 << 63) - 1)


def _grouped_order(y_score, codes, sizes, starts, grouped_codes=None):
    """Row order by query code, then score descending; ties in any order.

    ``grouped_codes``, when given, says that ``codes`` is already sorted
    (it is ``codes`` as ``intp``).

    Returns ``(order, distinct, stable)``: ``distinct`` is True when the
    scores of each query are known to be all different (no ties), and
    ``stable`` when tied rows are in input order (as a stable sort leaves
    them).

    When the queries are of similar sizes (the usual case), each row gets a
    64-bit key: the score's bits, mapped so that unsigned order is descending
    score order, with the low bits replaced by the row's position in its
    query. The keys go into a matrix with one query per line, padded with the
    largest key, and each line is sorted on its own: short, cache-resident
    sorts of plain integers instead of an argsort of all rows. Scores whose
    keys collide after the low bits are dropped (they differ by less than
    about ``2**-36`` relative) send the rows to the general path: one argsort
    of all the scores, then a stable sort of the query codes (a radix sort
    on 16-bit keys).
    """
    n = y_score.shape[0]
    n_groups = sizes.shape[0]
    width = int(sizes.max())
    if n_groups * width <= _MAX_PADDING * n + 1024 and width <= 1 << 16:
        if grouped_codes is not None:
            perm = None  # rows are already grouped by code, in code order
            scores = y_score
            sorted_codes = grouped_codes
        else:
            perm = _stable_code_sort(codes, n_groups)
            scores = y_score[perm]
            sorted_codes = codes[perm]
        bits = max(int(width - 1).bit_length(), 1)
        low = np.uint64((1 << bits) - 1)
        # ``+ 0.0`` turns -0.0 into 0.0, so that the two get the same key.
        raw = np.add(scores, 0.0, dtype=np.float64).view(np.uint64)
        # Negative scores keep their bits; the others get ``~bits`` without
        # the sign bit: unsigned order is then descending score order.
        keys = raw >> np.uint64(63)
        keys -= np.uint64(1)
        keys &= _NOT_SIGN
        keys ^= raw
        del raw
        keys &= ~low
        # Cell of each row: its line, then its position in the query.
        # (Indexing by the codes, unlike ``np.repeat``, releases the GIL.)
        cell = np.arange(n, dtype=np.intp)
        cell += (np.arange(n_groups, dtype=np.intp) * width - starts[:-1])[sorted_codes]
        lines = np.empty(n_groups * width, dtype=np.uint64)
        lines.fill(np.iinfo(np.uint64).max)
        lines[cell] = keys
        del keys
        lines = lines.reshape(n_groups, width)
        lines |= np.arange(width, dtype=np.uint64)  # the column in the low bits
        lines.sort(axis=1)
        # The first size[q] cells of line q, in order: the cells written above.
        ranked = lines.reshape(-1)[cell]
        del lines, cell
        # Equal high bits within a query: possibly distinct scores that collide.
        # Pair (i, i + 1) is at ``i + 1`` of ``shifted``, between two cells that
        # the first and last queries' starts (0 and n, or empty queries) may
        # clear: every query start clears the pair across it in one step.
        shifted = np.empty(n + 1, dtype=bool)
        shifted[0] = shifted[n] = False
        np.less_equal(ranked[1:] ^ ranked[:-1], low, out=shifted[1:n])
        shifted[starts[1:-1]] = False  # two queries
        same = shifted[1:n]
        ranked &= low
        order = ranked.view(np.int64).astype(np.intp, copy=False)
        order += starts[:-1][sorted_codes]
        del sorted_codes
        collide = bool(same.any())
        if collide:
            pairs = np.flatnonzero(same)
            if np.any(scores[order[pairs]] != scores[order[pairs + 1]]):
                order = None  # a collision of distinct scores
        if order is not None:
            # Equal scores have equal keys: without any pair of equal high
            # bits, the scores of each query are all different.
            # Equal scores have equal high bits and are ordered by the low
            # bits, their position in the query in input order: stable.
            return (order if perm is None else perm[order]), not collide, True
    o = np.argsort(np.negative(y_score))
    return o[_stable_code_sort(codes[o], n_groups)], False, False


def _stable_code_sort(keys, n_groups):
    """``np.argsort(keys, kind="stable")`` for codes in ``[0, n_groups)``.

    Stable sorts of 16-bit keys are radix sorts; codes up to 2**32 take two
    such passes (least significant half first).
    """
    if n_groups <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if n_groups <= 1 << 32:
        low = np.argsort(keys.astype(np.uint16), kind="stable")
        high = (keys[low] >> 16).astype(np.uint16)
        return low[np.argsort(high, kind="stable")]
    return np.argsort(keys, kind="stable")  # pragma: no cover - > 2**32 queries


class CheckedInput(NamedTuple):
    """Validated rows, ready for :func:`rank`."""

    y_true: np.ndarray
    y_score: np.ndarray
    codes: np.ndarray  # dense query code of each row
    group_ids: np.ndarray  # sorted distinct query labels
    ties: str
    tiebreak: np.ndarray | None
    sample_weight: np.ndarray | None
    missing: np.ndarray | None = None  # rows whose label was NaN (unjudged)
    unjudged: str = "raise"  # what those rows mean
    starts: np.ndarray | None = None  # first row of each query, rows grouped


def rank_input(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
    unjudged="raise",
) -> Ranking:
    """Validate the public arguments once and rank the rows.

    See :func:`check_input` for the accepted rows. Ranked id lists
    (``y_true`` of relevant sets or dicts, or from
    :func:`skirm._lists.from_lists`) are ranked by position.
    """
    from skirm._lists import is_lists_input, rank_lists  # the lists floor is above

    if is_lists_input(y_true):
        return rank_lists(y_true, y_score, groups, sample_weight)
    return rank_checked(
        check_input(
            y_true,
            y_score,
            groups=groups,
            sample_weight=sample_weight,
            ties=ties,
            ignore_ties=ignore_ties,
            unjudged=unjudged,
        )
    )


def rank_checked(checked: CheckedInput) -> Ranking:
    """Rank validated rows; query weights from the per-row ``sample_weight``;
    unjudged rows marked, or dropped for ``unjudged="condensed"``."""
    missing = checked.missing
    if missing is not None and checked.unjudged == "condensed":
        return _condensed(*checked[:7], missing)
    ranking = rank(
        checked.y_true,
        checked.y_score,
        checked.codes,
        checked.group_ids,
        checked.ties,
        tiebreak=checked.tiebreak,
        starts=checked.starts,
    )
    if checked.sample_weight is not None:
        ranking.group_weights = _query_weights(ranking, checked.sample_weight)
    if missing is not None:
        ranking.judged = ~missing[ranking.order]
        ranking.n_unjudged = np.bincount(
            checked.codes[missing], minlength=ranking.n_groups
        )
    return ranking


def check_input(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
    unjudged="raise",
    n_jobs=None,
) -> CheckedInput:
    """Validate the public arguments once.

    Accepts flat 1-D arrays with per-row ``groups``, or 2-D arrays of shape
    (n_queries, n_docs) with ``groups=None`` (one query per row, as in
    :func:`sklearn.metrics.ndcg_score`). ``ignore_ties=True`` reproduces
    scikit-learn's option of that name: ties are broken by the order of
    ``np.argsort(y_score)[:, ::-1]`` for 2-D input, by input order for 1-D.
    With ``unjudged`` other than ``"raise"``, NaN labels mark unjudged rows
    (``missing``), read as 0 or dropped when ranked (``"condensed"``).
    """
    check_choice(ties, "ties", TIES)
    check_choice(unjudged, "unjudged", UNJUDGED)
    tiebreak = None
    encoded = None

    def labels_and_scores():
        return _unjudged_labels(y_true, unjudged), check_scores(y_score)

    if _encode_aside(y_true, y_score, groups, n_jobs):
        # Large flat arrays and a second thread: the query labels are encoded
        # while the labels and scores are checked. Errors keep their order.
        n_rows = y_true.shape[0]

        def encode():
            return encode_grouped(check_groups(groups, n_rows))

        tasks = (labels_and_scores, encode)
        ((y_true, missing), y_score), encoded = _share_out(lambda i: tasks[i](), 2, 2)
    else:
        (y_true, missing), y_score = labels_and_scores()
    if y_true.ndim != y_score.ndim or y_true.shape != y_score.shape:
        raise ValueError(
            "`y_true` and `y_score` must have the same shape, got "
            f"{y_true.shape} and {y_score.shape}"
        )
    if y_true.ndim == 2:
        if groups is not None:
            raise ValueError(
                "`groups` must be None when `y_true` and `y_score` are 2-D (each "
                f"row is a query), got 2-D arrays of shape {y_true.shape} and "
                "groups; pass flat 1-D arrays to use groups"
            )
        n_queries, n_docs = y_true.shape
        codes = np.repeat(np.arange(n_queries), n_docs)
        group_ids = np.arange(n_queries)
        starts = np.arange(n_queries + 1) * n_docs
        if ignore_ties:
            perm = np.argsort(y_score, axis=1)[:, ::-1]
            tiebreak = np.empty_like(perm)
            np.put_along_axis(
                tiebreak, perm, np.broadcast_to(np.arange(n_docs), perm.shape), 1
            )
            tiebreak = tiebreak.ravel()
        y_true = y_true.ravel()
        y_score = y_score.ravel()
        if sample_weight is not None:
            sw = check_sample_weight(np.ravel(sample_weight), n_queries)
            sample_weight = np.repeat(sw, n_docs)
    else:
        if groups is None:
            raise ValueError(
                "`groups` is required for 1-D `y_true` and `y_score`: pass one "
                "query label per row (e.g. groups=query_ids). To score a single "
                "query, pass groups=np.zeros(len(y_true)); for one query per row "
                "of a matrix, pass 2-D arrays"
            )
        if encoded is None:
            encoded = encode_grouped(check_groups(groups, y_true.shape[0]))
        codes, group_ids, starts = encoded
    sample_weight = check_sample_weight(sample_weight, y_true.shape[0])
    if ignore_ties and tiebreak is None:
        ties = "first"
    return CheckedInput(
        y_true,
        y_score,
        codes,
        group_ids,
        ties,
        tiebreak,
        sample_weight,
        missing,
        unjudged,
        starts,
    )


#: Rows from which :func:`check_input` encodes the query labels in a second
#: thread when it has one.
_ASIDE_ROWS = 1 << 19


def _encode_aside(y_true, y_score, groups, n_jobs):
    """Whether to encode ``groups`` in a second thread: numeric 1-D arrays of
    one length, at least ``_ASIDE_ROWS`` rows, and ``n_jobs`` above 1."""
    return (
        n_jobs is not None
        and groups is not None
        and check_n_jobs(n_jobs) > 1
        and all(
            isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "biuf"
            for a in (y_true, y_score)
        )
        and y_true.shape[0] >= _ASIDE_ROWS
        and y_true.shape == y_score.shape
    )


def _unjudged_labels(y_true, unjudged):
    """Checked labels, with NaN (unjudged) read as 0, and the NaN mask or None."""
    if unjudged == "raise":
        return check_y_true(y_true), None
    arr = as_numeric_array(y_true, "y_true")
    if arr.dtype.kind != "f":
        return check_y_true(arr), None
    missing = np.isnan(arr)
    if not missing.any():
        return check_y_true(arr), None
    labels = check_y_true(np.where(missing, 0.0, arr))
    return labels, missing.ravel()


def _condensed(y_true, y_score, codes, group_ids, ties, tiebreak, weights, missing):
    """Rank the judged rows only (Sakai's condensed lists, trec_eval ``-J``);
    queries left without rows stay, empty."""
    keep = ~missing
    n_unjudged = np.bincount(codes[missing], minlength=group_ids.shape[0])
    group_weights = None
    if weights is not None:
        group_weights = np.zeros(group_ids.shape[0])
        group_weights[codes] = weights
        varies = weights != group_weights[codes]
        if varies.any():
            bad = as_python(group_ids[codes[np.argmax(varies)]])
            raise ValueError(
                "`sample_weight` must be constant within each query (it is a "
                f"query weight), but it varies within query {bad!r}"
            )
    ranking = rank(
        y_true[keep],
        y_score[keep],
        codes[keep],
        group_ids,
        ties,
        tiebreak=None if tiebreak is None else tiebreak[keep],
        group_weights=group_weights,
    )
    ranking.n_unjudged = n_unjudged
    return ranking


def _query_weights(ranking: Ranking, sample_weight: np.ndarray) -> np.ndarray:
    """One weight per query from per-row weights that are constant within it."""
    w = sample_weight[ranking.order]
    first = w[ranking.starts[:-1]]
    varies = w != first[ranking.codes]
    if varies.any():
        bad = as_python(ranking.group_ids[ranking.codes[np.argmax(varies)]])
        raise ValueError(
            "`sample_weight` must be constant within each query (it is a query "
            f"weight), but it varies within query {bad!r}"
        )
    return first


# --------------------------------------------------------------------------
# Blocks of whole queries, in threads
# --------------------------------------------------------------------------

#: Rows per block of whole queries in :func:`map_query_blocks` (a larger query
#: is a block of its own). Fixed, so that the blocks, and with them every
#: per-query value, are the same for any number of threads.
BLOCK_ROWS = 1 << 17


def _code_layout(codes, n_groups):
    """``(starts, order)``: the first row of each query's rows in code order,
    and the stable order of the rows by code (None when already in it)."""
    # Every code in [0, n_groups) is used: sorted codes are grouped in code
    # order, and their change points are the query starts.
    grouped = _encode_grouped_ints(codes.astype(np.int64, copy=False), codes)
    if grouped is not None:
        return grouped[2], None
    return _counted_starts(codes, n_groups), _stable_code_sort(codes, n_groups)


def map_query_blocks(function, checked: CheckedInput, n_jobs=None, block_rows=None):
    """``function(ranking)`` on each block of whole queries, in threads.

    The queries, in code order, are cut into consecutive blocks of about
    ``block_rows`` rows; each block is ranked on its own and given to
    ``function``. Returns the results in block order; the block of the
    queries with codes ``[c0, c1)`` has them as its codes ``0 .. c1 - c0``.
    The blocks do not depend on ``n_jobs``: numpy releases the GIL in the
    sorts and array operations, so threads share the work without changing
    a single value.
    """
    n_threads = check_n_jobs(n_jobs)
    block_rows = BLOCK_ROWS if block_rows is None else block_rows
    codes = checked.codes
    n, n_groups = codes.shape[0], checked.group_ids.shape[0]
    if n <= block_rows:
        return [function(rank_checked(checked))]
    starts, order = checked.starts, None  # known when grouped in code order
    if starts is None:
        starts, order = _code_layout(codes, n_groups)
    cuts = np.searchsorted(starts[:-1], np.arange(block_rows, n, block_rows))
    edges = np.unique(np.concatenate(([0], cuts, [n_groups])))

    def block(b):
        c0, c1 = int(edges[b]), int(edges[b + 1])
        rows = slice(starts[c0], starts[c1])
        if order is not None:
            rows = order[rows]
        tiebreak, weight = checked.tiebreak, checked.sample_weight
        part = CheckedInput(
            checked.y_true[rows],
            checked.y_score[rows],
            codes[rows] - c0,
            checked.group_ids[c0:c1],
            checked.ties,
            None if tiebreak is None else tiebreak[rows],
            None if weight is None else weight[rows],
            starts=starts[c0 : c1 + 1] - starts[c0],  # grouped in code order
        )
        return function(rank_checked(part))

    n_blocks = edges.shape[0] - 1
    if n_threads == 1:
        return [block(b) for b in range(n_blocks)]
    return _share_out(block, n_blocks, min(n_threads, n_blocks))


def _share_out(function, n_tasks, n_threads):
    """``[function(i) for i in range(n_tasks)]`` on ``n_threads`` threads, the
    calling thread one of them: each takes the next task when it is free.

    No thread waits on another to hand results over (each wake-up of a
    waiting thread takes the GIL back from the working ones). When tasks
    fail, every task before the first failing one has run, and that task's
    error is raised: the error a loop in one thread would raise.
    """
    results = [None] * n_tasks
    errors = {}
    first_error = [n_tasks]  # the first failing task so far
    lock = threading.Lock()
    tasks = itertools.count()

    def work():
        while True:
            i = next(tasks)  # atomic: each task goes to one thread, in order
            if i >= first_error[0]:  # no task left before the first failure
                return
            try:
                results[i] = function(i)
            except BaseException as exc:  # re-raised below, in task order
                with lock:
                    errors[i] = exc
                    first_error[0] = min(first_error[0], i)
                return

    threads = [threading.Thread(target=work) for _ in range(n_threads - 1)]
    for thread in threads:
        thread.start()
    try:
        work()
    finally:
        for thread in threads:
            thread.join()
    if errors:
        raise errors[first_error[0]]
    return results
