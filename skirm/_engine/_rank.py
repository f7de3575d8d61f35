"""Sorting checked rows into a :class:`~skirm._engine.Ranking`.

Rows go by query code, then score descending, then the tie policy:

``"average"``
    Tied rows stay in no particular order; the :class:`Ranking` groups them
    in *tie blocks*, over which the metrics take the exact expected value
    of every ordering of tied rows (McSherry & Najork, 2008): metrics
    linear in the per-row values use block means, the others (hit rate,
    reciprocal rank, average precision, ERR) closed forms over each block.
``"first"``
    Input order among ties (a stable sort).
``"optimistic"`` / ``"pessimistic"``
    Higher labels first / last among ties.

With any policy but ``"average"`` every row is its own tie block.
:func:`relabel` gives a ranking's order with other labels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._engine._check import CheckedInput
from skirm._engine._encode import counted_starts, sorted_code_starts
from skirm._engine._ranking import Ranking, block_starts
from skirm._errors import InvalidInputError
from skirm._params import as_python
from skirm.io._keys import stable_code_sort


class Ordered(NamedTuple):
    """Ranked rows without their labels (see :func:`rank_order`)."""

    order: np.ndarray  # row indices in rank order
    scores: np.ndarray  # the scores in rank order
    codes: np.ndarray  # query code of each ranked row (intp)
    sizes: np.ndarray  # rows per query
    starts: np.ndarray  # where each query starts, n_groups + 1 offsets
    ties: str  # the tie policy applied ("first" with a tiebreak)
    distinct: bool  # the scores of each query are known to be all different


def rank_rows(
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

    ``tiebreak``, when given, breaks ties in score (see :func:`rank_order`);
    the tie policy then acts as ``"first"``. ``starts``, when given, says
    that the rows are grouped in code order, query ``c`` at rows
    ``starts[c]:starts[c + 1]``.
    """
    ordered = rank_order(
        y_score,
        codes,
        int(group_ids.shape[0]),
        ties,
        y_true=y_true,
        tiebreak=tiebreak,
        starts=starts,
    )
    labels = _labels_at(y_true, ordered.order)
    return ranking_of(ordered, labels, group_ids, group_weights, judgments)


def _labels_at(y_true, rows):
    """``y_true[rows]`` as float64 (integer labels are checked as they are,
    see :func:`~skirm._engine.check_input`, and converted here, a block of
    rows at a time)."""
    labels = y_true[rows]
    return labels if labels.dtype == np.float64 else labels.astype(np.float64)


def ranking_of(ordered, labels, group_ids, group_weights=None, judgments=None):
    """The :class:`Ranking` of :func:`rank_order`'s rows and their labels
    (``y_true`` in rank order, float64)."""
    ranking = Ranking(
        ordered.order,
        ordered.codes,
        labels,
        ordered.scores,
        group_ids,
        ordered.ties,
        group_weights,
        judgments,
        sizes=ordered.sizes,
        starts=ordered.starts,
    )
    if ordered.distinct:
        ranking.__dict__["_blocks"] = None  # no tie blocks: nothing to look for
    return ranking


def rank_order(
    y_score, codes, n_groups, ties="average", *, y_true=None, tiebreak=None, starts=None
) -> Ordered:
    """The rank order of checked rows: by query, then score descending, then
    the tie policy (``y_true`` is read for ``"optimistic"`` and
    ``"pessimistic"`` only).

    ``tiebreak``, when given, breaks ties in score by its *ascending* order
    (used by the TREC path, where ties go by document id), then by row; the
    tie policy then acts as ``"first"``. It is a per-row key, or a function
    of the rows of whole tie blocks (an index array) that returns their keys,
    which need only order the rows of each block among themselves.

    The rows are ordered by one grouped sort of the scores in which tied
    scores land in no particular order (see :func:`_grouped_order`); a tie
    policy other than ``"average"`` then reorders the rows of each run of
    equal scores, and only those rows (see :func:`_order_ties`).
    """
    ranked_codes = None
    if starts is not None or codes.shape[0] < 2 or np.all(codes[1:] >= codes[:-1]):
        # Rows grouped in code order (the usual layout; known to the caller
        # for every block of queries of grouped input): the codes are the
        # ranked codes.
        ranked_codes = codes.astype(np.intp, copy=False)
        if starts is None:
            starts = sorted_code_starts(ranked_codes, n_groups)
    else:
        starts = counted_starts(codes, n_groups)
    sizes = starts[1:] - starts[:-1]
    order, distinct, stable = _grouped_order(
        y_score, codes, sizes, starts, ranked_codes
    )
    scores = y_score[order]
    if tiebreak is not None:
        ties = "first"
    # With ``stable``, tied rows are already in input order: "first" is done.
    done = distinct or (stable and ties == "first" and tiebreak is None)
    if ties != "average" and not done:
        new = block_starts(scores, starts)
        if not new.all():
            _order_ties(order, scores, new, ties, y_true, tiebreak)
    if ranked_codes is None:
        ranked_codes = np.repeat(np.arange(n_groups, dtype=np.intp), sizes)
    return Ordered(order, scores, ranked_codes, sizes, starts, ties, distinct)


#: Tie blocks are reordered a range of about this many ranked rows at a time
#: (whole blocks), so that the temporaries stay a few MB whatever the rows.
TIE_ROWS = 1 << 18


def _order_ties(order, scores, new, ties, y_true, tiebreak):
    """Reorder, in place, the rows of each tie block (``new``: where a block
    starts) of ``order`` and ``scores`` by the tie policy."""
    n = order.shape[0]
    # Rows inside a tie block of two rows or more.
    tied = ~new
    tied[:-1] |= tied[1:]
    lo = 0
    while lo < n:
        hi = lo + TIE_ROWS
        if hi < n:  # on to the next block start
            rest = new[hi:]
            k = int(np.argmax(rest))
            hi = hi + k if rest[k] else n
        at = np.flatnonzero(tied[lo:hi])
        if at.shape[0]:
            idx = at + lo
            del at
            # The tie block of each tied row, numbered among the tied rows
            # (each block's first row is a block start): ascending, as
            # the blocks are, and one number per block.
            block = np.cumsum(new[idx])
            rows = order[idx]
            if tiebreak is not None:
                key = tiebreak(rows) if callable(tiebreak) else tiebreak[rows]
                perm = _by_block_key_row(block, key, rows, n)
            elif ties == "first":
                # Block ids ascend along ``idx``: one key (block, row) is
                # unique, and already in order but within blocks, which a
                # stable sort (a merge of runs) finds.
                perm = np.argsort(block * n + rows, kind="stable")
            else:
                labels = _labels_at(y_true, rows)
                if ties == "optimistic":
                    np.negative(labels, out=labels)
                perm = np.lexsort((rows, labels, block))
            sel = idx[perm]
            order[idx] = order[sel]
            scores[idx] = scores[sel]
        lo = hi


def _by_block_key_row(block, key, rows, n):
    """The order of the tied rows by ``(block, key, row)``: one sort of one
    int64 key that packs the three when ``key`` is integer and the product
    of the ranges fits, a :func:`numpy.lexsort` of the three otherwise (the
    same order: the rows are distinct)."""
    if key.shape[0] and key.dtype.kind in "iu":
        low, high = int(key.min()), int(key.max())
        span = high - low + 1
        if high < 1 << 63 and int(block[-1] + 1) * span * n < 1 << 63:
            packed = block * (span * n)
            packed += (key.astype(np.int64) - low) * n
            packed += rows
            return np.argsort(packed, kind="stable")
    return np.lexsort((rows, key, block))


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
            perm = stable_code_sort(codes, n_groups)
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
        # Queries all of one size: the keys are the matrix, with no padding
        # (line q holds rows q * width onwards, in order).
        full = int(sizes.min()) == width
        if full:
            cell = None
            lines = keys.reshape(n_groups, width)
        else:
            # Cell of each row: its line, then its position in the query.
            # (Indexing by the codes, unlike ``np.repeat``, releases the GIL.)
            cell = np.arange(n, dtype=np.intp)
            cell += (np.arange(n_groups, dtype=np.intp) * width - starts[:-1])[
                sorted_codes
            ]
            lines = np.empty(n_groups * width, dtype=np.uint64)
            lines.fill(np.iinfo(np.uint64).max)
            lines[cell] = keys
            lines = lines.reshape(n_groups, width)
        del keys
        lines |= np.arange(width, dtype=np.uint64)  # the column in the low bits
        lines.sort(axis=1)
        # The first size[q] cells of line q, in order: the cells written above.
        ranked = lines.reshape(-1) if full else lines.reshape(-1)[cell]
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
        if full:  # line q starts at row q * width
            lines = order.reshape(n_groups, width)
            lines += starts[:-1, np.newaxis]
        else:
            order += starts[:-1][sorted_codes]
        del sorted_codes
        collide = bool(same.any())
        if collide:
            pairs = np.flatnonzero(same)
            if np.any(scores[order[pairs]] != scores[order[pairs + 1]]):
                # a collision of distinct scores: its rows reordered
                order = _order_collisions(order, scores, pairs)
        if order is not None:
            # Equal scores have equal keys: without any pair of equal high
            # bits, the scores of each query are all different.
            # Equal scores have equal high bits and are ordered by the low
            # bits, their position in the query in input order: stable.
            return (order if perm is None else perm[order]), not collide, True
    o = np.argsort(np.negative(y_score))
    if n_groups == 1:  # one query: the codes are all 0, a stable sort keeps o
        return o, False, False
    return o[stable_code_sort(codes[o], n_groups)], False, False


def _order_collisions(order, scores, pairs):
    """``order`` (by query, then the scores' keys) with the rows of each run
    of colliding keys (``pairs``: the ranked positions ``i`` whose key equals
    that of ``i + 1`` in its high bits) sorted by score descending, equal
    scores kept in their order (input order): only those rows are sorted,
    not the column. None when a score among them is NaN (the caller then
    sorts every row)."""
    inside = np.zeros(order.shape[0] + 1, dtype=bool)
    inside[pairs] = True
    inside[pairs + 1] = True
    rows = np.flatnonzero(inside[:-1])
    # a run starts at a colliding row that is not the second of a pair
    follows = np.zeros(order.shape[0] + 1, dtype=bool)
    follows[pairs + 1] = True
    run = np.cumsum(~follows[rows])
    picked = order[rows]
    values = scores[picked]
    if np.isnan(values).any():
        return None
    order[rows] = picked[np.lexsort((np.negative(values), run))]
    return order


def rank(checked: CheckedInput | Ranking) -> Ranking:
    """The :class:`Ranking` of :func:`~skirm._engine.check_input`'s result:
    checked rows sorted (query weights from the per-row ``sample_weight``;
    unjudged rows marked, or dropped for ``unjudged="condensed"``); ranked
    lists, already a :class:`Ranking`, as they are."""
    if isinstance(checked, Ranking):
        return checked
    missing = checked.missing
    if missing is not None and checked.unjudged == "condensed":
        ranking = _condensed(*checked[:7], missing)
        if checked.propensity is not None:
            kept = checked.propensity[~missing]
            ranking.propensity = kept[ranking.order]
        return ranking
    ranking = rank_rows(
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
    if checked.propensity is not None:
        ranking.propensity = checked.propensity[ranking.order]
    if missing is not None:
        ranking.judged = ~missing[ranking.order]
        ranking.n_unjudged = np.bincount(
            checked.codes[missing], minlength=ranking.n_groups
        )
    return ranking


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
            raise InvalidInputError(
                "`sample_weight` must be constant within each query (it is a "
                f"query weight), but it varies within query {bad!r}"
            )
    ranking = rank_rows(
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
        raise InvalidInputError(
            "`sample_weight` must be constant within each query (it is a query "
            f"weight), but it varies within query {bad!r}"
        )
    return first


def relabel(ranking: Ranking, labels: np.ndarray) -> Ranking:
    """The same ranking (order, tie blocks) with other labels in rank order."""
    order, scores, sort = ranking.sorted_later()
    other = Ranking(
        order,
        ranking.__dict__.get("codes"),  # made when first read, if not yet
        labels,
        scores,
        ranking.group_ids,
        ranking.ties,
        ranking.group_weights,
        sizes=ranking.sizes,
        starts=ranking.starts,
        sort=sort,
    )
    if "_blocks" in ranking.__dict__:
        other.__dict__["_blocks"] = ranking.__dict__["_blocks"]
    other.judged = ranking.judged
    return other
