"""``-R qrels_jg``: measures averaged over the judgment groups of a query.

Each (query, group) pair becomes one topic of an ordinary evaluation: the
judgements of that group, and a copy of the query's ranking. The standard
kernels then give AP, P@k and Rprec_mult per group, and each query's value is
the mean over its groups (as trec_eval's ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg``).
"""

from __future__ import annotations

import numpy as np

from skirm._engine import ranges
from skirm._measures._rows import QRELS
from skirm._measures._table import NUM_Q
from skirm.io._join import block_duplicate_error, block_repeat
from skirm.io._prefs import SEP
from skirm.io._records import Qrels, Run
from skirm.io._tokens import Tokens
from skirm.trec._request import Output

__all__ = ["group_topics", "group_values", "split_topics"]


def group_topics(qrels_jg, block, max_docs=None):
    """The judgments and a run's rows re-keyed by (query, group) topics.

    Returns ``(qrels, grouped, n_queries)``: the rows of the judgements whose
    query ids are ``qid<TAB>group``, a block holding each row of ``block``
    (the whole run) of a judged query once per group of that query, and the
    number of distinct judged queries.
    """
    t_ids, t_tokens, row_topic = _topics(qrels_jg)
    qrels = Qrels._from_tokens(_take(t_tokens, row_topic), qrels_jg._d, qrels_jg.labels)
    q_ids, first, n_groups = np.unique(
        _query_part(t_ids), return_index=True, return_counts=True
    )
    codes, run_ids = block._query_codes()
    at = np.minimum(np.searchsorted(q_ids, run_ids), max(q_ids.shape[0] - 1, 0))
    judged = q_ids[at] == run_ids if q_ids.shape[0] else np.zeros(len(run_ids), bool)
    pos = at[codes]
    rows = np.flatnonzero(judged[codes])
    if max_docs is None:  # with -M, the evaluation checks its top rows
        pair = block_repeat(block, rows)
        if pair is not None:
            raise block_duplicate_error(block, pair, "the run")
    # each judged query's rows together (in the run's order), then one copy
    # of them per group of the query, topic after topic: the topics' rows
    # are blocks, as a run file's queries (one id string per topic, not
    # per row, when the evaluation codes them)
    rows = rows[np.argsort(pos[rows], kind="stable")]
    q_sizes = np.bincount(pos[rows], minlength=q_ids.shape[0])
    of_topic = np.repeat(np.arange(q_ids.shape[0]), n_groups)
    sizes = q_sizes[of_topic]
    # a query's topics are together among the sorted topic ids, though not
    # always in the queries' order ("1\x01<TAB>a" sorts before "1<TAB>a")
    topic = np.repeat(ranges(first, n_groups), sizes)
    rep = rows[ranges((np.cumsum(q_sizes) - q_sizes)[of_topic], sizes)]
    # the copies point into the run's own bytes: no string per row
    grouped = Run._from_tokens(
        _take(t_tokens, topic),
        _take(block._d, rep),
        block.scores[rep],
        run_id=block.run_id,
    )
    return qrels, grouped, q_ids.shape[0]


def _topics(qrels_jg):
    """``(ids, tokens, row_topic)``: the sorted distinct topic ids
    (``qid<TAB>group``), their tokens, and each judgement's index into them;
    a string is built per topic, not per judgement."""
    codes = qrels_jg._topic_codes
    one = np.empty(qrels_jg._n_topics(), dtype=np.intp)
    one[codes] = np.arange(codes.shape[0])  # a row of each topic: any names it
    names = np.char.add(
        np.char.add(qrels_jg._q.strings(one), SEP), qrels_jg._g.strings(one)
    )
    ids, of_code = np.unique(names, return_inverse=True)
    return ids, Tokens.from_strings(ids), of_code.reshape(-1)[codes]


def _take(tokens, rows):
    """The tokens of ``rows``, sharing the byte buffer."""
    return Tokens(tokens.buf, tokens.start[rows], tokens.end[rows])


def _query_part(topic_ids):
    return np.char.partition(topic_ids, SEP)[:, 0] if topic_ids.shape[0] else topic_ids


def split_topics(topic_ids):
    """``(query ids, code of each topic)`` for sorted (query, group) ids."""
    q_ids, codes = np.unique(_query_part(topic_ids), return_inverse=True)
    return q_ids, codes.reshape(-1)


def average_over_groups(values, codes, n_queries):
    """The mean over each query's groups (trec_eval sums, then divides)."""
    total = np.bincount(codes, weights=values, minlength=n_queries)
    return total / np.bincount(codes, minlength=n_queries)


def group_values(ctx, output, codes, n_queries):
    """Per-query values of a ``-R qrels_jg`` output: its measure's standard
    computation (the measure's first spelling read from qrels with the same
    parameters: ``map`` for ``map_avgjg``) on each (query, group) topic of
    ``ctx``, averaged over each query's groups."""
    if output.measure is NUM_Q:
        return np.ones(n_queries)
    standard = next(
        spelling
        for spelling in output.measure.trec
        if spelling.rel_format == QRELS and spelling.params == output.spelling.params
    )
    topics = Output(output.name, output.measure, spelling=standard, param=output.param)
    return average_over_groups(ctx.value(topics), codes, n_queries)
