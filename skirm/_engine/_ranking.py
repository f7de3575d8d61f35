"""The ranking object: every query's rows in rank order, and what metrics read.

A :class:`Ranking` holds the ranked rows (order, query codes, labels, scores,
starts, sizes) and derives once, on demand, what the kernels share: positions,
tie blocks, relevance, relevant rows above each row, discounts, the ideal order.
"""

from __future__ import annotations

import numpy as np

from skirm._engine._encode import counted_starts, sorted_code_starts
from skirm._engine._ideal import (
    counted_lines,
    level_counts,
    sorted_labels,
    sorted_lines,
)
from skirm._engine._ranking_parts import Rows, TieBlocks
from skirm._engine._reduce import (
    discount_of,
    discount_table_of,
    log_comb,
    prefix_sums,
    segment_cumsum,
    sum_by,
    uniform_cumsum,
)
from skirm._lazy import cached_property


class Ranking:
    """Rows of every query in rank order, with the per-query reductions.

    Positions below are indices into the ranked arrays (``order``, ``codes``,
    ``labels``, ``scores``); ``position`` is the 0-based rank within the query.

    Parameters
    ----------
    order : ndarray of shape (n,)
        Row indices in rank order: by query code, then score descending, then
        the tie policy.
    codes : ndarray of shape (n,) or None
        Query code of each ranked row (non-decreasing); None with ``sizes``:
        made from them when first read (most metrics read only the codes of
        a few rows, found from ``starts``).
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
    sort : callable or None
        With ``order`` and ``scores`` None: ``sort()`` gives them when first
        read (the rows were placed by their positions; most metrics read neither).
    placed : (rows, labels) or None
        With ``labels`` None: the ranked rows of a positive label (an
        ascending index) and their labels, every other row's label 0. The
        relevant rows at a threshold above 0 are found among them, and the
        label of every row is made when first read.
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
        sort=None,
        placed=None,
    ):
        if sort is None:  # else sorted on first use (see ``order``)
            self.order, self.scores = order, scores
        else:
            self._sort = sort
        if codes is not None or sizes is None:  # else made when first read
            self.codes = codes
        if labels is not None or placed is None:  # else made when first read
            self.labels = labels
        self._placed = placed
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

    @cached_property
    def order(self) -> np.ndarray:
        """Row indices in rank order, of a ranking built with ``sort``."""
        order, self.scores = self._sort()
        return order

    @cached_property
    def scores(self) -> np.ndarray:
        """The scores in rank order, of a ranking built with ``sort``."""
        self.order  # noqa: B018 (sorts, keeping the scores too)
        return self.__dict__["scores"]

    def sorted_later(self, rows=slice(None)):
        """``(order, scores, sort)`` of the ranked ``rows`` (mask or index) for
        another :class:`Ranking`: ``sort`` None when this one is sorted, else
        ``sort()`` gives them (sorting this one when the other is asked)."""
        if "order" in self.__dict__:
            return self.order[rows], self.scores[rows], None
        return None, None, lambda: (self.order[rows], self.scores[rows])

    #: Per ranked row, whether it was judged (None: every row was).
    judged: np.ndarray | None = None
    #: Per query, the rows whose label was NaN (None: no NaN label was given).
    n_unjudged: np.ndarray | None = None
    propensity: np.ndarray | None = None  #: per ranked row, P(observed), or None

    # -- layout --------------------------------------------------------------

    @property
    def n_rows(self) -> int:
        return int(self.starts[-1])

    @cached_property
    def codes(self) -> np.ndarray:
        """The query code of each ranked row, of a ranking built with
        ``sizes`` and no codes: made when first read."""
        return np.repeat(np.arange(self.n_groups, dtype=np.intp), self.sizes)

    @cached_property
    def labels(self) -> np.ndarray:
        """The label of each ranked row, of a ranking built with ``placed``
        and no labels: made when first read."""
        rows, values = self._placed
        labels = np.zeros(self.n_rows)
        labels[rows] = values
        return labels

    def labels_of(self, rows) -> np.ndarray:
        """The labels of the ranked ``rows`` (an index), without making the
        label of every row of a ranking built with ``placed``."""
        if "labels" in self.__dict__ or self._placed is None:
            return self.labels[rows]
        placed, values = self._placed
        if not placed.shape[0]:  # no row of a positive label
            return np.zeros(rows.shape[0])
        at = np.minimum(np.searchsorted(placed, rows), placed.shape[0] - 1)
        return np.where(placed[at] == rows, values[at], 0.0)

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

    def top_table(self, depth):
        """The top ``depth`` rows as a table, one row per position and one
        column per query: ``(index, pad)``, both ``(depth, n_groups)``;
        ``index`` holds each cell's position in the ranked arrays, ``pad``
        whether the cell is past its query's last row (None when no cell
        is). A padding cell's index is that of a later row, or past the
        last one: read with ``take(index, mode="clip")``, and overwrite.
        None when the padding would be large (as :meth:`top_lines`).
        """
        depth = int(depth)
        if self.n_groups == 0 or self.n_groups * depth > 2 * self.n_rows + 4096:
            return None
        position = np.arange(depth, dtype=np.intp)[:, None]
        index = self.starts[:-1] + position
        pad = None
        if int(self.sizes.min()) < depth:
            # Compared in the smallest integers that hold the depth (faster
            # than intp).
            small = np.min_scalar_type(depth)
            pad = position.astype(small) >= np.minimum(self.sizes, depth).astype(small)
        return index, pad

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
        new = block_starts(self.scores, self.starts)
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
            # lines of a padded matrix, or of segment_cumsum's matrices when
            # the queries' lengths differ widely), so they carry no rounding
            # from the rows of other queries.
            if upto is None and self.n_groups * self.max_size == self.n_rows:
                # every query of one size: its rows are a line, in order
                return uniform_cumsum(
                    np.asarray(values), self.n_groups, exclusive=True, dtype=dtype
                )
            lines = np.zeros((self.n_groups, self.max_size + 1), dtype=dtype)
            lines[self.codes, self.position + 1] = values
            np.cumsum(lines, axis=1, out=lines)
            col = self.position if upto is None else upto - self.row_start
            return lines[self.codes, col]
        if dtype.kind == "f":  # queries of very different lengths
            if upto is None:
                return segment_cumsum(values, self.starts, exclusive=True)
            through = segment_cumsum(values, self.starts)[np.maximum(upto - 1, 0)]
            through[upto == self.row_start] = 0.0  # nothing before the query
            return through
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
            if (
                "labels" in self.__dict__
                or self._placed is None
                or (threshold is not None and threshold <= 0)  # label 0 too
            ):
                index = self.relevant(threshold).nonzero()[0]
            else:  # the placed rows of a relevant label (in order)
                placed, values = self._placed
                rel = values > 0 if threshold is None else values >= threshold
                index = placed[rel]
            if "codes" in self.__dict__:
                codes = self.codes[index]
            else:  # the query of each of a few rows, not of every row
                codes = np.searchsorted(self.starts, index, side="right") - 1
            first = sorted_code_starts(codes, self.n_groups)
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
                counts = self.relevant_rows(threshold).counts
                assert counts is not None  # relevant_rows always counts
                R = counts.astype(np.float64)
                self._rel_cache[key] = R
                return R
            else:
                codes, labels = self.judgments.codes, self.judgments.labels
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
        prob[ok] = np.exp(log_comb(m - t - 1, r - 1) - log_comb(m, r))
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
            table = discount_table_of(self.max_size, log_base)
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
        """Per query, the rows of each grade or more (see
        :func:`~skirm._engine._ideal.level_counts`), or None."""
        if self.judgments is None:
            # Rows of label 0 are not counted (the ideal ordering needs the
            # counts of labels 1 and up only): take the relevant rows.
            rows = self.relevant_rows(None)
            codes, labels = rows.codes, self.labels[rows.index]
        else:
            codes, labels = self.judgments.codes, self.judgments.labels
        return level_counts(codes, labels, self.n_groups, self.n_rows)

    def ideal_lines(self, gain, depth=None):
        """Per query, the ideal ordering's DCG (log2 discount) at each of its
        first positions, at most ``depth``: ``(width, n_groups)``, one query
        per column, row ``j`` its DCG at ``j + 1`` (the last row's value at
        every deeper cutoff). From the label counts or sorted lines of the
        relevant labels, so for a ``gain`` of 0 at label 0 only; None when
        neither applies.
        """
        if float(gain(np.zeros(1))[0]) != 0.0:
            return None
        # Rows of label 0 add exactly nothing: the relevant ones only.
        if self._at_least is not None:
            return counted_lines(self._at_least, self.n_rows, gain, depth)
        if self.judgments is not None:
            return None
        rows = self.relevant_rows(None)
        labels = self.labels[rows.index]
        return sorted_lines(rows, labels, self.n_groups, self.n_rows, gain, depth)

    @cached_property
    def _ideal(self):
        """Every label of each query sorted descending: (codes, labels, position)."""
        if self.judgments is None:
            return sorted_labels(self.codes, self.labels, self.starts)
        codes, labels = self.judgments.codes, self.judgments.labels
        return sorted_labels(codes, labels, counted_starts(codes, self.n_groups))

    def ideal_dcg(self, gain, k=None) -> np.ndarray:
        """Per-query DCG@k (log2 discount) of the ideal ordering of its labels.

        ``gain`` maps labels to gains and must be non-decreasing.
        """
        many = k is not None and bool(np.ndim(k))
        deepest = int(np.max(k)) if many else k
        lines = self.ideal_lines(gain, deepest)
        if lines is not None:
            # Row j of the lines: every query's ideal DCG at j + 1.
            last = lines.shape[0]
            if not many:
                return lines[last - 1 if k is None else min(k, last) - 1]
            row = np.minimum(k, last) - 1
            if row.shape[0] == last and (row == np.arange(last)).all():
                return lines.T  # every row, in order: no copy
            return lines.take(row, axis=0).T
        codes, labels, position = self._ideal
        if k is not None:
            top = position < deepest
            codes, labels, position = codes[top], labels[top], position[top]
        values = gain(labels) * discount_of(position)
        if many:
            return prefix_sums(codes, position, values, k, self.n_groups)
        return sum_by(codes, values, self.n_groups)


def block_starts(scores, starts):
    """True where a ranked row starts a tie block (a new score or a new query)."""
    new = np.empty(scores.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(scores[1:], scores[:-1], out=new[1:])
    new[starts[:-1][starts[:-1] < scores.shape[0]]] = True
    return new
