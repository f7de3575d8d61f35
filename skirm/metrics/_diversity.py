"""Novelty and diversity measures with subtopic judgments, as ndeval computes
them (the TREC Web track's diversity task; Clarke et al. 2008, 2009;
Agrawal et al. 2009).

A query has subtopics (intents); a document is judged for each, relevant or
not. Judgments are held sparse, as the (row, subtopic) pairs that are
relevant, so that a query with many subtopics costs only its relevant pairs.

One model serves every measure. Reading the ranking from the top, a row that
is relevant to subtopic ``j`` gains ``(1 - alpha) ** c_j``, where ``c_j``
counts the rows above it relevant to ``j``: the novelty gain ``g_i`` of the
row at rank ``i`` is the sum over its subtopics. With ``S`` the subtopics
of the query that some document is relevant to (ndeval ignores the others):

* alpha-DCG@k ``= sum_{i<=k} g_i / log2(i + 1)`` and ERR-IA@k ``= sum_{i<=k}
  g_i / i``, each over the same sum for an "ideal ideal" list whose every row
  covers all ``S`` subtopics (``S (1 - alpha) ** (i - 1)``); ndeval skips
  that division at ``k = 1``, and so does skirm;
* alpha-nDCG@k and nERR-IA@k divide by the same numbers for the ideal
  ranking, built greedily from the judgments (the row of largest novelty gain
  next; ties to the larger docno, or on arrays the row given later);
* NRBP ``= (1 - (1 - alpha) beta) / S * sum_i beta ** (i - 1) g_i`` over the
  whole ranking, nNRBP over the ideal's;
* MAP-IA, P-IA@k and strec@k (subtopic recall) average over the ``S``
  subtopics an ordinary average precision (over the documents relevant to the
  subtopic), precision at ``k`` (over ``k``) and "covered in the top k".

Rows are ranked once by the engine; every sum is a ``bincount`` over the
relevant pairs. The greedy ideal runs one vectorised step per ideal rank,
all queries at once, and stops a query once its remaining rows can no longer
change NRBP in double precision.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import dense_codes, packed_key
from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm._measures._options import ALPHA, BETA
from skirm._params import K

#: ndeval's cutoffs.
NDEVAL_KS = (5, 10, 20)


def check_alpha_beta(alpha, beta):
    return ALPHA(alpha), BETA(beta)


def check_ks(k):
    """One cutoff or a tuple of cutoffs, each a positive int."""
    if np.ndim(k):
        ks = tuple(K(c) for c in k)
        if not ks or None in ks:
            raise InvalidParameterError(f"`k` must hold positive integers, got {k!r}")
        return ks
    value = K(k)
    if value is None:
        raise InvalidParameterError(
            "`k` must be a positive integer for a cutoff measure, got None"
        )
    return (value,)


class Pairs:
    """The relevant (row, subtopic) pairs of ranked rows.

    ``codes`` and ``position`` describe the rows (query code, 0-based rank;
    None for the ideal's candidates, which have no rank yet); ``row`` and
    ``sub`` the pairs, sorted by row then subtopic; ``sub`` is a dense id of
    the (query, subtopic) cell.
    """

    def __init__(self, codes, position, row, sub, n_cells):
        self.codes = codes
        self.position = position
        self.row = row
        self.sub = sub
        self.n_cells = n_cells


def cells(query_codes, subtopics):
    """Dense ids of the (query, subtopic) cells of pairs."""
    key = query_codes.astype(np.int64) * (int(subtopics.max(initial=0)) + 1) + subtopics
    return dense_codes(key)


def pair_order(major, minor):
    """The order of distinct pairs ``(major, minor)`` as :func:`numpy.lexsort`
    of both gives it, from one sort of one packed int64 key
    (:func:`~skirm.io._keys.packed_key`) where it fits."""
    key = packed_key(major, minor)
    return np.lexsort((minor, major)) if key is None else np.argsort(key)


def novelty(pairs: Pairs, alpha):
    """Per pair, the number of rows above relevant to its subtopic, and the
    novelty gain of each row."""
    # Rows are in rank order within each query, so stable sorting the pairs
    # by cell keeps them in rank order within a cell.
    by_cell = np.argsort(pairs.sub, kind="stable")
    sorted_cells = pairs.sub[by_cell]
    first = np.searchsorted(sorted_cells, sorted_cells, side="left")
    seen = np.empty(pairs.sub.shape[0], dtype=np.int64)
    seen[by_cell] = np.arange(sorted_cells.shape[0]) - first
    weight = np.power(1.0 - alpha, seen.astype(np.float64))
    gain = np.bincount(pairs.row, weights=weight, minlength=pairs.codes.shape[0])
    return seen, gain


def _discounted(codes, position, gain, ks, discount, n_groups):
    """Per query and cutoff, the sum of gain * discount(rank) over rank <= k."""
    out = np.zeros((n_groups, len(ks)))
    for j, k in enumerate(ks):
        top = position < k
        out[:, j] = np.bincount(
            codes[top], weights=gain[top] * discount(position[top]), minlength=n_groups
        )
    return out


def _log_discount(position):
    return np.log(2.0) / np.log(position + 2.0)


def _rank_discount(position):
    return 1.0 / (position + 1.0)


def _ideal_ideal(n_sub, ks, alpha, discount):
    """The normaliser of ndeval's 'ideal ideal' list: every row covers all
    subtopics; no division at k = 1."""
    depth = max(ks)
    steps = np.arange(depth, dtype=np.float64)
    per_rank = np.power(1.0 - alpha, steps) * discount(steps)
    cumulative = np.cumsum(per_rank)[np.asarray(ks) - 1]
    norm = n_sub[:, None] * cumulative[None, :]
    return np.where(np.asarray(ks)[None, :] == 1, 1.0, norm)


def _segments(sorted_values):
    """Runs of equal values: the run of each element, the first of each run."""
    new = np.empty(sorted_values.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return np.cumsum(new) - 1, np.flatnonzero(new)


def greedy_ideal(pairs: Pairs, n_groups, alpha, beta, depth):
    """Novelty gains of the greedy ideal ranking, per query and rank.

    ``pairs`` holds the judged rows of each query in tie order (the first
    row of the highest score is taken next). Returns ``(codes, rank, gain)``
    of the ideal's rows with a positive gain.
    """
    codes_of_row = pairs.codes
    row, sub = pairs.row, pairs.sub
    cell_gain = np.ones(pairs.n_cells)
    # Subtopics per query: a row gains at most that many.
    cell_query = np.zeros(pairs.n_cells, dtype=np.intp)
    cell_query[sub] = codes_of_row[row]
    n_sub = np.bincount(cell_query, minlength=n_groups)
    remaining = np.bincount(codes_of_row[row[_segments(row)[1]]], minlength=n_groups)
    nrbp = np.zeros(n_groups)
    alive = np.ones(n_groups, dtype=bool)
    out_codes, out_rank, out_gain = [], [], []
    step = 0
    while row.shape[0]:
        # Pairs are sorted by row, rows by query then tie order: each step is
        # a few passes over the pairs left.
        seg, starts = _segments(row)
        rows = row[starts]
        score = np.bincount(seg, weights=cell_gain[sub])  # in subtopic order
        q = codes_of_row[rows]
        q_seg, q_first = _segments(q)
        best = np.maximum.reduceat(score, q_first)[q_seg]
        hit = np.flatnonzero(score == best)
        first = hit[_segments(q[hit])[1]]  # the first row reaching it
        q_hit, gain = q[first], score[first]
        positive = gain > 0
        out_codes.append(q_hit[positive])
        out_rank.append(np.full(int(positive.sum()), step))
        out_gain.append(gain[positive])
        nrbp[q_hit] += gain * beta**step
        remaining[q_hit] -= 1
        # Cells of the chosen rows lose novelty; the rows leave the pool.
        chosen = np.zeros(rows.shape[0], dtype=bool)
        chosen[first] = True
        in_chosen = chosen[seg]
        cell_gain[sub[in_chosen]] *= 1.0 - alpha
        step += 1
        # A query is done when nothing it has left can move a double: beyond
        # the deepest cutoff, what its remaining rows could add to NRBP (at
        # most their count times its subtopics, times beta ** step) is below
        # the last bit of what it has; or when its best gain is zero.
        done = np.zeros(n_groups, dtype=bool)
        done[q_hit[~positive]] = True
        if step >= depth:
            done |= remaining * n_sub * beta**step <= 1e-17 * nrbp
        alive &= ~done
        keep = ~in_chosen & alive[codes_of_row[row]]
        row, sub = row[keep], sub[keep]
    if not out_codes:
        empty = np.zeros(0)
        return empty.astype(np.intp), empty.astype(np.intp), empty
    return (
        np.concatenate(out_codes),
        np.concatenate(out_rank),
        np.concatenate(out_gain),
    )


def diversity_table(run: Pairs, ideal: Pairs, n_groups, *, alpha, beta, ks):
    """Every ndeval measure per query.

    ``run`` holds the ranked rows; ``ideal`` the judged rows of each query in
    the ideal's tie order (their pairs give the relevant documents per
    subtopic). Returns ``(values, n_sub)``: a dict from measure (a row of the
    measure table) to an array of shape (n_groups, len(ks)) for the cutoff
    measures or (n_groups,) for the others, and the number of subtopics with
    a relevant document per query (0: the query has nothing to find).
    """
    # Relevant documents per (query, subtopic) cell, from the judgments.
    n_rel_cell = np.bincount(ideal.sub, minlength=ideal.n_cells).astype(np.float64)
    cell_query = np.zeros(ideal.n_cells, dtype=np.intp)
    cell_query[ideal.sub] = ideal.codes[ideal.row]
    n_sub = np.bincount(cell_query, minlength=n_groups).astype(np.float64)

    seen, gain = novelty(run, alpha)
    codes, position = run.codes, run.position
    values = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for measure, discount in (
            (table.ALPHA_DCG, _log_discount),
            (table.ERR_IA, _rank_discount),
        ):
            raw = _discounted(codes, position, gain, ks, discount, n_groups)
            norm = _ideal_ideal(n_sub, ks, alpha, discount)
            values[measure] = np.where(n_sub[:, None] > 0, raw / norm, 0.0)

        i_codes, i_rank, i_gain = greedy_ideal(
            ideal, n_groups, alpha, beta, max(max(ks), 1)
        )
        for measure, unnormalised, discount in (
            (table.ALPHA_NDCG, table.ALPHA_DCG, _log_discount),
            (table.NERR_IA, table.ERR_IA, _rank_discount),
        ):
            ideal_raw = _discounted(i_codes, i_rank, i_gain, ks, discount, n_groups)
            ideal_value = ideal_raw / _ideal_ideal(n_sub, ks, alpha, discount)
            run_value = values[unnormalised]
            values[measure] = np.where(run_value != 0, run_value / ideal_value, 0.0)

        scale = (1.0 - (1.0 - alpha) * beta) / n_sub
        powers = np.power(beta, position.astype(np.float64))
        nrbp = np.bincount(codes, weights=gain * powers, minlength=n_groups) * scale
        ideal_nrbp = (
            np.bincount(
                i_codes,
                weights=i_gain * np.power(beta, i_rank.astype(np.float64)),
                minlength=n_groups,
            )
            * scale
        )
        has = n_sub > 0
        values[table.NRBP] = np.where(has, nrbp, 0.0)
        values[table.NNRBP] = np.where(has, nrbp / ideal_nrbp, 0.0)

        # Intent-aware AP: per pair, (rows relevant to its subtopic so far,
        # itself included) / rank; per cell over its relevant documents.
        pair_pos = position[run.row].astype(np.float64)
        precision_at = (seen + 1.0) / (pair_pos + 1.0)
        ap_sum = np.bincount(run.sub, weights=precision_at, minlength=ideal.n_cells)
        ap_cell = ap_sum / n_rel_cell
        map_ia = np.bincount(cell_query, weights=ap_cell, minlength=n_groups)
        values[table.MAP_IA] = np.where(has, map_ia / n_sub, 0.0)

        covered = np.bincount(run.row, minlength=codes.shape[0]).astype(np.float64)
        first_time = np.zeros(codes.shape[0])
        np.add.at(first_time, run.row[seen == 0], 1.0)
        p_ia = np.zeros((n_groups, len(ks)))
        strec = np.zeros((n_groups, len(ks)))
        for j, k in enumerate(ks):
            top = position < k
            p_ia[:, j] = np.bincount(
                codes[top], weights=covered[top], minlength=n_groups
            )
            p_ia[:, j] /= k * n_sub
            strec[:, j] = np.bincount(
                codes[top], weights=first_time[top], minlength=n_groups
            )
            strec[:, j] /= n_sub
        values[table.P_IA] = np.where(has[:, None], p_ia, 0.0)
        values[table.STREC] = np.where(has[:, None], strec, 0.0)
    return values, n_sub
