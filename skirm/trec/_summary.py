"""Summarise: per-query values of every block, sorted, and trec_eval's "all".

The blocks of a run hold disjoint queries; their values are put in the order
of the query ids (``strcmp`` order, as trec_eval prints them) and reduced the
way trec_eval does (:func:`skirm.trec._measures.summarize`): the mean for
most measures, the sum for the counts, the query count for ``num_q`` and the
geometric mean for ``gm_map`` and ``gm_bpref``. :func:`finish` builds every
:class:`~skirm.metrics.EvaluationResult` of the TREC path from them.
"""

from __future__ import annotations

import numpy as np

from skirm._measures._table import NUM_REL
from skirm.io._zscores import ZScores, read_zscores
from skirm.metrics._result import EvaluationResult
from skirm.trec._measures import GM_FLOOR, summarize


class PerQuery:
    """The per-query values of a run's blocks, gathered as the blocks come.

    :meth:`add` keeps a block's ids (:attr:`id_parts`) and copies its values
    into chunks, one list per measure, so that the block's own arrays can be
    freed at once (a worker thread's allocator would keep their memory);
    only the first block's arrays are kept as they are (a run of one block,
    evaluated in the calling thread, is not copied; the first of many is a
    small one). Chunks are never copied to grow (the old ones would be left
    as holes in the heap): each new one holds as many queries as all before
    it, up to :data:`CHUNK`. :meth:`result` moves the values into arrays in
    id order one measure at a time, each measure's chunks freed before the
    next measure's array is made, which can then take their place. Values
    that come with another dtype are cast to the one ``numpy.concatenate``
    gives.
    """

    #: Queries of a chunk (at most), hence of what the last one leaves empty.
    CHUNK = 1 << 20

    def __init__(self):
        self.n = 0
        self.id_parts = []
        self._chunks = {}
        self._dtypes = {}  # what numpy.concatenate gives each measure
        self._room = 0  # free places in the last chunk of every measure

    def add(self, ids, values):
        """Append the values of the queries ``ids`` (``{name: values}``)."""
        k = ids.shape[0]
        self.id_parts.append(ids)
        for name, part in values.items():
            chunks = self._chunks.setdefault(name, [])
            dtype = self._dtypes.get(name)
            dtype = part.dtype if dtype is None else np.result_type(dtype, part)
            if dtype != self._dtypes.setdefault(name, dtype):
                chunks[:] = [c.astype(dtype) for c in chunks]
                self._dtypes[name] = dtype
        if not self.n and k:  # the first values: kept as they are if they can be
            for name, part in values.items():
                chunk = part
                if part.base is not None:  # a view (of what may be larger)
                    chunk = np.empty(k, dtype=self._dtypes[name])
                    chunk[:] = part
                self._chunks[name].append(chunk)
            self.n = k
            return
        done = 0
        while done < k:
            if not self._room:
                self._room = min(max(k - done, self.n), self.CHUNK)
                for name, chunks in self._chunks.items():
                    chunks.append(np.empty(self._room, dtype=self._dtypes[name]))
            m = min(self._room, k - done)
            for name, part in values.items():
                last = self._chunks[name][-1]
                at = last.shape[0] - self._room
                last[at : at + m] = part[done : done + m]
            self._room -= m
            self.n += m
            done += m

    def result(self):
        """``(ids, {name: values})``: the queries in id order."""
        ids = np.concatenate(self.id_parts)
        self.id_parts = []
        order = np.argsort(ids, kind="stable")
        place = np.empty_like(order)  # where each query goes
        place[order] = np.arange(order.shape[0])
        values = {}
        for name in list(self._chunks):
            # one measure at a time: its chunks are freed before the next
            chunks, dtype = self._chunks.pop(name), self._dtypes.pop(name)
            values[name] = _placed(chunks, place, dtype)
            del chunks
        return ids[order], values


def _placed(chunks, place, dtype):
    """The values of the ``chunks`` (in order, the last one maybe not full),
    each put at its ``place``."""
    out = np.empty(place.shape[0], dtype=dtype)
    at = 0
    for chunk in chunks:
        m = min(chunk.shape[0], place.shape[0] - at)
        out[place[at : at + m]] = chunk[:m]
        at += m
    return out


def summarize_outputs(
    outputs, per_query, n_total, n_missing, n_relevant, all_queries, zscored=False
):
    """trec_eval's summary ("all") of each measure's per-query values
    (``zscored``: of their z-scores). String measures have none.

    ``n_relevant()`` counts the relevant judgements of every qrels topic,
    which ``num_rel`` sums to under ``-c``."""
    means = {}
    for output in outputs:
        name = output.name
        if name not in per_query:
            continue  # runid
        if output.spelling is not None and output.spelling.string:
            continue  # relstring: per query only
        if output.spelling is not None and output.measure is NUM_REL and all_queries:
            # trec_eval -c recounts num_rel over every qrels topic, rel > 0.
            means[name] = float(n_relevant())
            continue
        if zscored:
            means[name] = zscore_summary(output.summary, per_query[name], n_total)
        else:
            means[name] = summarize(output.summary, per_query[name], n_total, n_missing)
    return means


def finish(
    outputs,
    ids,
    per_query,
    *,
    run_id,
    n_topics,
    n_relevant,
    all_queries,
    zscores=None,
    means=None,
    names=None,
):
    """The :class:`~skirm.metrics.EvaluationResult` of the evaluated queries
    ``ids`` (sorted) and each output's per-query values: with ``zscores``,
    the float values as z-scores; then trec_eval's summary of each
    (``n_topics`` counts the qrels topics, which ``-c`` averages over;
    ``n_relevant()`` their relevant judgements), or the summary given in
    ``means`` (by name); every output in the order of ``names``."""
    n_eval = ids.shape[0]
    n_total = n_topics if all_queries else n_eval
    if zscores is not None:
        for output in outputs:
            values = per_query.get(output.name)
            if values is not None and values.dtype.kind == "f":
                per_query[output.name] = zscore_values(
                    zscores, ids, output.name, output.summary, values
                )
    summary = summarize_outputs(
        outputs,
        per_query,
        n_total,
        n_total - n_eval,
        n_relevant,
        all_queries,
        zscored=zscores is not None,
    )
    summary.update(means or {})
    if names is not None:
        per_query = {n: per_query[n] for n in names if n in per_query}
        summary = {n: summary[n] for n in names if n in summary}
    result = EvaluationResult(ids, per_query, summary)
    result.run_id = run_id
    result.zscored = zscores is not None
    return result


def as_zscores(zscores):
    """A :class:`ZScores` from a ZScores, a path or an open file."""
    if zscores is None or isinstance(zscores, ZScores):
        return zscores
    return read_zscores(zscores)


def zscore_values(zscores, query_ids, name, summary, values):
    """Per-query z-scores of one output; geometric-mean measures are
    converted on trec_eval's per-query log scale."""
    if summary == "gm":
        values = np.log(np.maximum(values, GM_FLOOR))
    return zscores.convert(query_ids, name, values)


def zscore_summary(summary, z, n_total):
    """trec_eval's summary of z-scores: sums stay sums, the geometric mean
    is exp(mean of the log-scale z-scores), the rest are means."""
    if summary == "sum":
        return float(np.sum(z))
    if summary == "count":
        return float(n_total)
    if summary == "gm":
        with np.errstate(over="ignore"):
            return float(np.exp(np.sum(z) / n_total))
    return float(np.sum(z) / n_total)
