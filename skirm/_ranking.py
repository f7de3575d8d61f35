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

from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from skirm._validation import (
    check_choice,
    check_groups,
    check_sample_weight,
    check_scores,
    check_y_true,
)

TIES = ("average", "first", "optimistic", "pessimistic")

__all__ = ["TIES", "Judgments", "Ranking", "encode_groups", "rank", "rank_input"]


# --------------------------------------------------------------------------
# Group encoding
# --------------------------------------------------------------------------


def encode_groups(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense integer codes for query labels.

    Returns ``(codes, uniques)`` where ``uniques`` holds the sorted distinct
    labels and ``uniques[codes] == groups``. Avoids a full sort of the rows when
    the labels are integers in a compact range or already contiguous.
    """
    n = groups.shape[0]
    if groups.dtype.kind in "biu":
        g = groups.astype(np.int64, copy=False)
        gmin, gmax = int(g.min()), int(g.max())
        if gmax - gmin <= 4 * n + 1024:
            present = np.bincount(g - gmin, minlength=gmax - gmin + 1) > 0
            lookup = np.cumsum(present) - 1
            uniques = np.flatnonzero(present) + gmin
            return lookup[g - gmin], uniques.astype(groups.dtype, copy=False)
        return _encode_by_sort(groups)
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
        return np.repeat(inverse.reshape(-1), sizes), uniques
    return _encode_by_sort(groups)


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
        self.sizes = np.bincount(codes, minlength=self.n_groups)
        self.starts = np.zeros(self.n_groups + 1, dtype=np.intp)
        np.cumsum(self.sizes, out=self.starts[1:])
        self._top_cache = {}
        self._rel_cache = {}

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
        return np.arange(self.n_rows) - self.starts[self.codes]

    def cutoff(self, k) -> np.ndarray:
        """Per-query effective cutoff: ``min(k, size)``, or the size if k is None."""
        if k is None:
            return self.sizes
        return np.minimum(self.sizes, k)

    def _top(self, k):
        """Indices of the ranked rows with ``position < k`` (cached)."""
        idx = self._top_cache.get(k)
        if idx is None:
            idx = np.flatnonzero(self.position < k)
            self._top_cache[k] = idx
        return idx

    def group_sum(self, values, k=None) -> np.ndarray:
        """Per-query sum of ``values`` over the top ``k`` positions."""
        if k is None or k >= self.max_size:
            return np.bincount(self.codes, weights=values, minlength=self.n_groups)
        idx = self._top(k)
        return np.bincount(
            self.codes[idx], weights=values[idx], minlength=self.n_groups
        )

    # -- tie blocks ----------------------------------------------------------

    @cached_property
    def _blocks(self):
        """Tie blocks (``None`` when every row is its own block)."""
        if self.ties != "average":
            return None
        n = self.n_rows
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(self.scores[1:], self.scores[:-1], out=new[1:])
        new[self.starts[:-1]] = True
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
        return self._before(values, np.arange(self.n_rows) - self.block_offset)

    def before(self, values) -> np.ndarray:
        """Per-row sum of ``values`` over the earlier positions of its query."""
        return self._before(values, np.arange(self.n_rows))

    def _before(self, values, upto):
        csum = np.zeros(self.n_rows + 1, dtype=np.result_type(values, np.int64))
        np.cumsum(values, out=csum[1:])
        return csum[upto] - csum[self.starts[self.codes]]

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

    def n_relevant(self, threshold=None) -> np.ndarray:
        """R: the number of relevant rows of each query."""
        key = ("R", threshold)
        R = self._rel_cache.get(key)
        if R is None:
            if self.judgments is None:
                codes, rel = self.codes, self.relevant(threshold)
            else:
                codes, labels = self.judgments
                rel = labels > 0 if threshold is None else labels >= threshold
            R = np.bincount(codes, weights=rel, minlength=self.n_groups)
            self._rel_cache[key] = R
        return R

    def first_relevant_probability(self, threshold=None) -> np.ndarray:
        """Probability that each ranked row is its query's first relevant row.

        Without ties this is 1 on the first relevant row and 0 elsewhere. In a
        tie block of ``m`` rows holding ``r`` relevant ones, with no relevant row
        ranked above the block, the first relevant row sits at block offset
        ``t`` with probability ``C(m - t - 1, r - 1) / C(m, r)``.
        """
        rel = self.relevant(threshold)
        above = self.before_block(rel)
        if self._blocks is None:
            return (rel & (above == 0)).astype(np.float64)
        r = self.block_sum(rel.astype(np.int64))
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
            disc = _discount(np.arange(self.max_size), log_base)[self.position]
            self._rel_cache[key] = disc
        return disc

    @cached_property
    def _ideal(self):
        """Every label of each query sorted descending: (codes, labels, position)."""
        if self.judgments is None:
            codes, labels, starts = self.codes, self.labels, self.starts
        else:
            codes, labels = self.judgments
            starts = np.zeros(self.n_groups + 1, dtype=np.intp)
            np.cumsum(np.bincount(codes, minlength=self.n_groups), out=starts[1:])
        order = np.lexsort((-labels, codes))
        codes = codes[order]
        return codes, labels[order], np.arange(codes.shape[0]) - starts[codes]

    def ideal_dcg(self, gain, k=None) -> np.ndarray:
        """Per-query DCG@k (log2 discount) of the ideal ordering of its labels.

        ``gain`` maps labels to gains and must be non-decreasing.
        """
        codes, labels, position = self._ideal
        if k is not None:
            top = position < k
            codes, labels, position = codes[top], labels[top], position[top]
        values = gain(labels) * _discount(position)
        return np.bincount(codes, weights=values, minlength=self.n_groups)


def _discount(position, log_base=2.0):
    """``1 / log_b(position + 2)``, the DCG discount of a 0-based position.

    Written as scikit-learn writes it, so that values agree to the last bit.
    """
    return 1.0 / (np.log(position + 2.0) / np.log(log_base))


def _log_comb(n, k):
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
) -> Ranking:
    """Sort checked rows by query, then score descending, then the tie policy.

    ``tiebreak``, when given, is a per-row key whose *ascending* order breaks
    ties in score (used by the TREC path, where ties go by document id); the
    tie policy then acts as ``"first"``.
    """
    neg = -y_score
    if tiebreak is not None:
        o = np.lexsort((tiebreak, neg))
        ties = "first"
    elif ties == "average":
        o = np.argsort(neg)
    elif ties == "first":
        o = np.argsort(neg, kind="stable")
    elif ties == "optimistic":
        o = np.lexsort((-y_true, neg))
    else:  # pessimistic
        o = np.lexsort((y_true, neg))
    n_groups = group_ids.shape[0]
    key = codes[o]
    if n_groups <= np.iinfo(np.uint16).max + 1:
        # A stable sort of 16-bit keys is a radix sort: linear time.
        key = key.astype(np.uint16)
    order = o[np.argsort(key, kind="stable")]
    return Ranking(
        order,
        codes[order],
        y_true[order],
        y_score[order],
        group_ids,
        ties,
        group_weights,
        judgments,
    )


def rank_input(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    ignore_ties=False,
) -> Ranking:
    """Validate the public arguments once and rank the rows.

    Accepts flat 1-D arrays with per-row ``groups``, or 2-D arrays of shape
    (n_queries, n_docs) with ``groups=None`` (one query per row, as in
    :func:`sklearn.metrics.ndcg_score`). ``ignore_ties=True`` reproduces
    scikit-learn's option of that name: ties are broken by the order of
    ``np.argsort(y_score)[:, ::-1]`` for 2-D input, by input order for 1-D.
    """
    check_choice(ties, "ties", TIES)
    tiebreak = None
    y_true = check_y_true(y_true)
    y_score = check_scores(y_score)
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
        groups = check_groups(groups, y_true.shape[0])
        codes, group_ids = encode_groups(groups)
    sample_weight = check_sample_weight(sample_weight, y_true.shape[0])
    if ignore_ties and tiebreak is None:
        ties = "first"
    ranking = rank(y_true, y_score, codes, group_ids, ties, tiebreak=tiebreak)
    if sample_weight is not None:
        ranking.group_weights = _query_weights(ranking, sample_weight)
    return ranking


def _query_weights(ranking: Ranking, sample_weight: np.ndarray) -> np.ndarray:
    """One weight per query from per-row weights that are constant within it."""
    w = sample_weight[ranking.order]
    first = w[ranking.starts[:-1]]
    varies = w != first[ranking.codes]
    if varies.any():
        bad = ranking.group_ids[ranking.codes[np.argmax(varies)]]
        raise ValueError(
            "`sample_weight` must be constant within each query (it is a query "
            f"weight), but it varies within query {bad!r}"
        )
    return first
