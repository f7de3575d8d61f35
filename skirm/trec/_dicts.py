"""Dicts: a run held as dicts against qrels held as dicts, as they are.

The dicts are read as they are (:mod:`skirm.io._dict_rows`: each judgement's
score in its query's run dict, no string column, no hash). A retrieved
judgement's rank is then *counted* (:func:`~skirm._engine.count_scores`):
the rows of its query scored above it, and among the rows tied with it
those whose docno comes first (docno descending, byte order). The ranked
labels are written at those ranks; every other row is unjudged. The rows
are sorted only if a measure reads their order (Compat's ideal ranking, the
ERRs; see :class:`~skirm._engine.Ranking`'s ``sort``), and where queries
hold many retrieved judgements, so that counting would compare more scores
than a sort reads (:data:`COUNTED_PER_ROW`): the rows are then sorted by the
engine and each judgement found by a search of its score among its query's.
Docnos are read only where the values need them: to order the tied scores
of a block that holds a retrieved judgement (a block of unjudged documents
alone gives every measure the same value in any order), and to place a
judgement among tied scores. Either way the ranking and the measures are
the TREC path's own (:mod:`skirm.trec._ranked`): the values are the same,
bit for bit.
"""

from __future__ import annotations

import operator
from itertools import chain, repeat

import numpy as np

from skirm._engine import (
    count_scores,
    ranges,
    rank_order,
    scored_rows,
    search_descending,
    starts_of,
)
from skirm.io._dict_rows import (
    NOT_PLAIN,
    DictIndex,
    byte_rank,
    plain_dicts,
    plain_docnos,
    plain_qrels,
    read_run_dicts,
)
from skirm.io._join import raw_type
from skirm.trec._measures import measure
from skirm.trec._missing import missing_queries_error, missing_rule, no_common_error
from skirm.trec._ranked import joined_context, placed_context
from skirm.trec._request import bind_qrels_wide

__all__ = ["NOT_PLAIN", "dict_context", "evaluate_dicts"]


def evaluate_dicts(qrels, run, outputs, options):
    """``(ids, per_query, run_id, n_topics, n_relevant)`` of a run held as
    dicts against qrels held as dicts (what
    :func:`~skirm.trec._evaluate_run.evaluate_run`'s stages give), or
    :data:`NOT_PLAIN` when either is not plain dicts, or when trec_eval
    10.0's ``-c`` placeholders are to be scored (the general path does)."""
    judged, max_label, labels = plain_qrels(qrels, copy=False, check_docnos=False)
    if judged is None or not plain_dicts(run):
        return NOT_PLAIN
    if not any(run.values()):
        return NOT_PLAIN  # nothing retrieved: the general path says so
    index = DictIndex(judged, labels)
    topics = index.ids  # sorted
    ctx = dict_context(index, run, options, plain=True, judged_checked=False)
    if ctx is NOT_PLAIN:
        return NOT_PLAIN
    if ctx is None:
        retrieved = sorted(q for q, docs in run.items() if docs)
        raise no_common_error(np.array(retrieved[:3], dtype=str), topics)
    ids = ctx.ranking.group_ids
    missing = missing_rule(options.all_queries, options.compat)
    if missing != "leave out" and ids.shape[0] < topics.shape[0]:
        if missing == "score":
            return NOT_PLAIN  # placeholders: the general path scores them
        raise missing_queries_error(topics[~np.isin(topics, ids)])
    per_query = measure(ctx, bind_qrels_wide(outputs, lambda: max_label))

    def n_relevant():  # the judgements with a positive label (as asked)
        labels = chain.from_iterable(map(dict.values, judged.values()))
        return sum(map(operator.gt, labels, repeat(0)))

    return ids, per_query, "skirm", topics.shape[0], n_relevant


def dict_context(index, run, options, plain=False, judged_checked=True):
    """The :class:`~skirm.trec._measures.Context` of a ``run`` dict against
    ``index`` (a :class:`~skirm.io._dict_rows.DictIndex`); None when none of the
    run's queries with documents is judged; :data:`NOT_PLAIN` when ``run``
    is not dicts of str docnos and numeric scores (``plain``: known to be
    plain dicts), or, unless ``judged_checked``, when the judged docnos are
    not str without a NUL (checked only where the run does not retrieve
    every one of them: a retrieved one is a docno of the run, checked as it
    is read).

    ``options`` are the evaluation's :class:`~skirm.trec._request.Options`."""
    rows = read_run_dicts(index, run, options.c_floats, plain)
    if rows is None or rows is NOT_PLAIN:
        return rows
    eval_ids, starts, scores, j_codes, j_raw, j_scores, j_docnos, docnos = rows
    sizes = starts[1:] - starts[:-1]
    n = int(starts[-1])
    hit = np.flatnonzero(~np.isnan(j_scores))
    all_queries = eval_ids.shape[0] == index.ids.shape[0]  # every judged one
    every = all_queries and hit.shape[0] == len(j_scores)
    if not (judged_checked or every or plain_docnos(index.dicts)):
        return NOT_PLAIN
    q = j_codes[hit]
    # the judgements of every judged query: the same for each run (the
    # ideal ranking computed once for them all)
    judged_cache = index.run_cache if all_queries else None

    def row_codes():  # the query code of each run row, for a sort
        return np.repeat(np.arange(sizes.shape[0], dtype=np.intp), sizes)

    if int(sizes[q].sum()) > COUNTED_PER_ROW * n:  # many retrieved judgements
        return _sorted_context(
            eval_ids,
            scores,
            row_codes(),
            j_codes,
            j_scores,
            j_raw,
            j_docnos,
            docnos,
            options,
            judged_cache,
        )
    # Each retrieved judgement's rank: the rows of its query scored above it,
    # and its place among the rows tied with it (by docno).
    at, ranked_rows = _ranks(scores, starts, q, j_scores[hit], hit, j_docnos, docnos)
    at += starts[q]
    labels = j_raw[hit]
    raw = np.where(labels >= 0, labels, -2)

    def sort():  # the order of every row, for the few measures that read it
        ordered = rank_order(
            scores,
            row_codes(),
            sizes.shape[0],
            "first",
            tiebreak=docnos.descending,
            starts=starts,
        )
        return ordered.order, ordered.scores.astype(np.float64, copy=False)

    def of_rows():
        of = np.full(n, -1, dtype=np.int64)
        of[ranked_rows()] = hit
        return of

    return placed_context(
        eval_ids, at, raw, starts, sort, j_codes, j_raw, options, of_rows, judged_cache
    )


#: The ranks of the retrieved judgements are counted (each one's score
#: compared with every score of its query) while that compares at most this
#: many scores per run row; the rows are sorted otherwise. (Measured: 10
#: retrieved judgements per query of 100 or 1,000 rows count in 0.85x and
#: 0.97x the time of the sort, 40 per 1,000 rows in 1.4x.)
COUNTED_PER_ROW = 24


def _sorted_context(
    eval_ids,
    scores,
    codes,
    j_codes,
    j_scores,
    j_raw,
    j_docnos,
    docnos,
    options,
    judged_cache=None,
):
    """The context of the run's rows sorted (ties by docno), each retrieved
    judgement then placed by a search of its score among its query's
    (``judged_cache``: the context's)."""
    placed = []  # the input rows judged and their judgements, once ranked

    def ranked_raw(ordered):
        raw, at, hit = _placed(ordered, j_codes, j_scores, j_raw, j_docnos, docnos)
        placed[:] = [ordered.order[at], hit]
        return raw

    def of_rows():
        of = np.full(scores.shape[0], -1, dtype=np.int64)
        of[placed[0]] = placed[1]
        return of

    return joined_context(
        eval_ids,
        scores,
        codes,
        ranked_raw,
        j_codes,
        j_raw,
        docnos.descending,
        options,
        of_rows=of_rows,
        judged_cache=judged_cache,
    )


def _ranks(scores, starts, q, s, hit, j_docnos, docnos):
    """``(rank, rows)`` of each retrieved judgement ``hit`` (an index of the
    judgements), of query ``q`` scored ``s``: its 0-based place in its
    query's ranking (score descending, then docno descending in byte order,
    as :func:`~skirm.trec._ranked.joined_context` ranks), and a function
    that gives its run row (found when first asked for: few measures do).

    The rows of its query scored above ``s`` are counted, and the docnos of
    the rows scored ``s`` (when more than one is) compared with its own."""
    rank, equal = count_scores(scores, starts, q, s)
    tied = np.flatnonzero(equal > 1)
    own = np.empty(0, dtype=np.intp)  # the row of each tied judgement
    if tied.shape[0]:
        sizes = equal[tied]
        t_rows = scored_rows(scores, starts, q[tied], s[tied])
        names = docnos.of(t_rows)
        wanted = np.empty(tied.shape[0], dtype=object)
        wanted[:] = j_docnos(hit[tied])
        # its own row among its tied ones: the one docno equal to its docno
        is_own = np.flatnonzero(
            np.array(names, dtype=object) == np.repeat(wanted, sizes)
        )
        key = byte_rank(names)
        key_own, own = np.repeat(key[is_own], sizes), t_rows[is_own]
        # rows before it: a later docno, or the same bytes and an earlier row
        before = (key > key_own) | ((key == key_own) & (t_rows < np.repeat(own, sizes)))
        rank[tied] += np.add.reduceat(before, starts_of(sizes)[:-1], dtype=np.intp)

    def rows():
        alone = np.flatnonzero(equal == 1)  # the one row scored s: its row
        found = np.empty(q.shape[0], dtype=np.intp)
        found[alone] = scored_rows(scores, starts, q[alone], s[alone])
        found[tied] = own
        return found

    return rank, rows


def _placed(ordered, j_codes, j_scores, j_raw, j_docnos, docnos):
    """trec_eval's relevance value of each ranked row (-1 unjudged, the
    level, -2 for a negative level): each retrieved judgement placed at its
    row, found by its score among its query's ranked scores (and by its
    docno, ``j_docnos(judgements)``, among tied scores); and the ranked
    rows of the retrieved judgements, and these judgements (indices)."""
    raw = np.full(ordered.order.shape[0], -1, dtype=raw_type(j_raw))
    hit = np.flatnonzero(~np.isnan(j_scores))
    if not hit.shape[0]:
        return raw, hit, hit
    q, s = j_codes[hit], j_scores[hit]
    ranked = ordered.scores
    starts = ordered.starts
    # The first row of the query scored at most s (scores descend in a
    # query): a binary search in every query's rows at once.
    first = search_descending(ranked, starts[q], starts[q + 1], s, strict=False)
    after = search_descending(ranked, first, starts[q + 1], s, strict=True)
    at = first.copy()
    tied = np.flatnonzero(after - first > 1)
    if tied.shape[0]:  # among equal scores, by docno (the ranking's order)
        # The docnos of every tied block holding a judgement, each compared
        # with its judgement's docno: one match per block (a dict's keys
        # are distinct), at the judgement's row.
        lo, sizes = first[tied], after[tied] - first[tied]
        blocks = np.array(docnos.of(ordered.order[ranges(lo, sizes)]), dtype=object)
        wanted = np.empty(tied.shape[0], dtype=object)
        wanted[:] = j_docnos(hit[tied])
        match = np.flatnonzero(blocks == np.repeat(wanted, sizes))
        at[tied] = lo + (match - starts_of(sizes)[:-1])
    labels = j_raw[hit]
    raw[at] = np.where(labels >= 0, labels, -2)
    return raw, at, hit
