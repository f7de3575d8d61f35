"""Rank: trec_eval's ranking of a joined block, on the shared engine.

Documents go by score descending, ties by docno descending (byte order, as
``strcmp``); then ``-M`` keeps the top of each query and ``-J`` drops the
unjudged documents. :func:`ranked` joins a block of run rows to the qrels
index and ranks it: the measure stage's :class:`Context`.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import Judgments, Ranking, rank
from skirm.io._tokens import first_duplicate
from skirm.trec._duplicates import block_duplicate_error
from skirm.trec._join import join
from skirm.trec._measures import Context


def ranked(index, block, options):
    """The :class:`Context` of a block of run rows (every row of its queries)
    joined to the qrels ``index`` and ranked under ``options`` (a
    :class:`~skirm.trec._request.Options`); None when none of the block's
    queries is in the qrels. The context's ``ranking.group_ids`` are the
    evaluated queries, sorted."""
    joined = join(index, block)
    if not joined.eval_ids.shape[0]:
        return None
    ctx = trec_ranking(
        joined,
        block,
        options.level,
        options.judged_only,
        options.max_docs,
        options.compat,
    )
    ctx.num_docs = options.num_docs
    return ctx


def trec_ranking(joined, block, level, judged_only, max_docs, compat="10.0"):
    """The :class:`~skirm.trec._measures.Context` of a joined run block."""
    gains = np.maximum(joined.j_raw, 0).astype(np.float64)
    judgments = Judgments(joined.j_codes, gains)
    raw = joined.raw
    y_true = np.maximum(raw, 0).astype(np.float64)
    scores = block.scores[joined.keep]
    if compat == "9.0":  # trec_eval 9.0.x holds scores as C floats
        with np.errstate(over="ignore"):
            scores = scores.astype(np.float32).astype(np.float64)
    ranking = rank(
        y_true, scores, joined.codes, joined.eval_ids, ties="first", judgments=judgments
    )
    order = _docno_tie_order(ranking, block.d, joined.keep)
    if order is not None:
        ranking = Ranking(
            order,
            ranking.codes,
            y_true[order],
            ranking.scores,
            ranking.group_ids,
            "first",
            judgments=judgments,
        )
    ranked_raw = raw[ranking.order]
    cut = None
    if max_docs is not None:
        cut = ranking.position < max_docs
    _check_duplicates(block, joined.keep, ranking, cut)
    if judged_only:
        judged = ranked_raw >= 0
        cut = judged if cut is None else cut & judged
    if cut is not None and not cut.all():
        ranking = Ranking(
            ranking.order[cut],
            ranking.codes[cut],
            ranking.labels[cut],
            ranking.scores[cut],
            ranking.group_ids,
            "first",
            judgments=judgments,
        )
        ranked_raw = ranked_raw[cut]
    # A document is judged when the qrels list it for the query, whatever
    # its label: what the registry's judged@k reads.
    ranking.judged = ranked_raw != -1
    return Context(
        ranking, ranked_raw, level, joined.j_codes, joined.j_raw, compat=compat
    )


def _check_duplicates(block, keep, ranking, inside):
    """Each docno at most once per evaluated query, within ``max_docs``
    (``inside``), as trec_eval checks."""
    order = ranking.order if inside is None else ranking.order[inside]
    codes = ranking.codes if inside is None else ranking.codes[inside]
    rows = keep[order]
    pair = first_duplicate(codes, block.d.take(rows), rows)
    if pair is not None:
        raise block_duplicate_error(block, pair, "the run")


def _docno_tie_order(ranking, docs, keep):
    """The ranked order with ties in score broken by docno (``docs[keep]``
    are the ranked rows' docnos), descending.

    ``ranking`` keeps input order among equal scores; only the rows of tie
    blocks are reordered, by the docnos' rank in byte order (as strcmp).
    Returns None when no query has tied scores.
    """
    scores, codes = ranking.scores, ranking.codes
    tie = (scores[1:] == scores[:-1]) & (codes[1:] == codes[:-1])
    if not tie.any():
        return None
    tied = np.zeros(scores.shape[0], dtype=bool)
    tied[:-1] |= tie
    tied[1:] |= tie
    positions = np.flatnonzero(tied)
    block = np.cumsum(np.concatenate(([True], ~tie)))[positions]
    rows = ranking.order[positions]
    rank = docs.byte_rank(keep[rows])
    # within each tie block (contiguous positions), docno descending: one
    # stable sort of block * n_ranks + reversed rank (below n_rows**2)
    top = int(rank.max()) + 1
    perm = np.argsort(block * top + (top - 1 - rank), kind="stable")
    order = ranking.order.copy()
    order[positions] = rows[perm]
    return order
